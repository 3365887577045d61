#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Query a running mrcd's DPDK telemetry socket.

mrcd prints its socket path at start ("telemetry socket ..."). With no
--socket, the newest /var/run/dpdk/mrcd_*/dpdk_telemetry.v2 is used.

  mrc-telemetry.py /mrc/info
  mrc-telemetry.py /mrc/host,0 /mrc/fabric
  mrc-telemetry.py --watch 1 /mrc/planes     # one JSON line per second
  mrc-telemetry.py /                         # list every command

Exit status: 0 on success, 1 when the socket cannot be reached or a command
is unknown to the daemon, 2 on bad usage.
"""
import argparse
import glob
import json
import os
import socket
import sys
import time

RUNTIME_GLOB = "/var/run/dpdk/mrcd_*/dpdk_telemetry.v2"


def newest_socket():
    socks = glob.glob(RUNTIME_GLOB)
    # Left-over sockets of dead daemons stay on disk; prefer the newest.
    socks.sort(key=os.path.getmtime, reverse=True)
    return socks[0] if socks else None


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.connect(path)
        hello = json.loads(self.sock.recv(16384).decode())
        self.max_len = hello.get("max_output_len", 16384)

    def query(self, cmd):
        self.sock.send(cmd.encode())
        reply = self.sock.recv(self.max_len + 1024)
        return json.loads(reply.decode())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("commands", nargs="+", metavar="COMMAND",
                    help="telemetry command, e.g. /mrc/info or /mrc/host,1")
    ap.add_argument("-s", "--socket", help="telemetry socket path (default: newest mrcd)")
    ap.add_argument("-w", "--watch", type=float, metavar="SECONDS",
                    help="repeat every SECONDS until the daemon exits or Ctrl-C")
    args = ap.parse_args()
    for c in args.commands:
        if not c.startswith("/"):
            ap.error(f"command '{c}' must start with '/'")
    if args.watch is not None and args.watch <= 0:
        ap.error(f"--watch {args.watch}: must be a positive number of seconds")

    path = args.socket or newest_socket()
    if path is None:
        print(f"mrc-telemetry: no socket matches {RUNTIME_GLOB}; is mrcd running?",
              file=sys.stderr)
        return 1
    try:
        cli = Client(path)
    except OSError as e:
        print(f"mrc-telemetry: cannot connect to {path}: {e.strerror}", file=sys.stderr)
        return 1

    while True:
        out = {}
        try:
            for c in args.commands:
                # Replies are keyed by the command without its parameter;
                # key ours by what was asked so /mrc/host,0 and ,1 coexist.
                out[c] = next(iter(cli.query(c).values()), None)
        except (OSError, ValueError) as e:
            if args.watch is not None and out == {}:
                return 0  # the daemon went away between samples: a normal end
            print(f"mrc-telemetry: {path}: {e}", file=sys.stderr)
            return 1
        for c in args.commands:
            if out.get(c) is None:
                print(f"mrc-telemetry: {c}: no reply: unknown command or bad parameter"
                      " (try '/' for the list)", file=sys.stderr)
                return 1
        if args.watch is None:
            print(json.dumps(out, indent=1))
            return 0
        out["t"] = round(time.time(), 3)
        print(json.dumps(out), flush=True)
        try:
            time.sleep(args.watch)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        # `| head` closed our stdout: not an error worth a traceback.
        sys.stderr.close()
        sys.exit(0)
