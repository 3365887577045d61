#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""The machine a benchmark ran on, recorded in its result file.

    machine.py RESULT.json...   add (or replace) a "machine" object in each
    machine.py                  print it

Figures differ between machines (a CPU with AVX-512 folds the ICRC 512 bits
at a time, one without falls back to 256 or 128), so every result says where
it was measured: the CPU model, the flags the datapath can use, how many
CPUs this process could run on and how many the machine has. Each
scripts/bench/bench-*.sh runs this right after writing its JSON, on the
same machine; scripts/bench/bench_report.py prints it in doc/performance.md.
"""
import json
import os
import platform
import sys

# CPU flags that change what the datapath does (ICRC folding, copies).
FLAGS = ("avx512f", "avx512bw", "avx512vl", "vpclmulqdq", "avx2", "pclmulqdq", "sse4_2")


def machine():
    model, flags = None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model is None:
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return {"cpu_model": model or platform.processor() or "unknown",
            "flags": {f: f in flags for f in FLAGS},
            "avx512": "avx512f" in flags,
            "avx2": "avx2" in flags,
            "nproc": len(os.sched_getaffinity(0)),
            "cpus": os.cpu_count(),
            "kernel": platform.release()}


def main():
    m = machine()
    if len(sys.argv) == 1:
        print(json.dumps(m, indent=1))
        return 0
    for path in sys.argv[1:]:
        with open(path) as f:
            r = json.load(f)
        r["machine"] = m
        with open(path, "w") as f:
            json.dump(r, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
