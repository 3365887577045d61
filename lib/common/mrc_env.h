/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_ENV_H
#define MRC_ENV_H

/*
 * What the machine offers the EAL, found out before calling rte_eal_init().
 *
 * The daemon and the tests must run on a laptop, in a container and in CI
 * alike. DPDK wants hugepages; many of those places have none (or have them
 * but not mounted, or mounted but not writable by this user). Rather than
 * fail, we look first and fall back to `--no-huge`, which costs performance
 * but not correctness.
 *
 * Hugepages are usable when all of these hold:
 *  - some hugepages are free: HugePages_Free in /proc/meminfo (default page
 *    size only), or free_hugepages of any size under
 *    /sys/kernel/mm/hugepages/hugepages-<size>kB/ (1 GiB pages too);
 *  - a hugetlbfs is mounted (/proc/mounts) ...
 *  - ... and this process may create files in it.
 * This is a heuristic: another process can take the free pages between the
 * check and rte_eal_init().
 */

#include <stdbool.h>
#include <stddef.h>

/* Where the checks look; tests point these at fake files. */
struct mrc_env_paths {
	const char *meminfo;	     /* "/proc/meminfo" */
	const char *sysfs_hugepages; /* "/sys/kernel/mm/hugepages" */
	const char *mounts;	     /* "/proc/mounts" */
};

/* The real system paths. */
extern const struct mrc_env_paths mrc_env_system_paths;

/* True when hugepages look usable by this process (see above). */
/* False also when the environment sets MRC_NO_HUGE (to anything but 0). */
bool mrc_hugepages_usable(void);

/* Same, reading the given files (for tests). */
bool mrc_hugepages_usable_at(const struct mrc_env_paths *paths);

/*
 * EAL arguments for a test process that may run in parallel with others and
 * on a machine without NICs or hugepages:
 *
 *   <prefix> --no-pci --file-prefix=<prefix>_<pid> --log-level=*:warning
 *            --no-telemetry                         unless asked for
 *            then --in-memory                       with hugepages
 *            or   --no-huge -m 256 --no-shconf      without
 *
 * The pid in the file prefix keeps parallel tests apart (runtime dir,
 * telemetry socket); --in-memory or --no-shconf keeps them from sharing a
 * config. DPDK 22.11 rejects --in-memory together with --no-huge, hence
 * the two forms. Telemetry is off by default (no socket, no thread); note
 * that a later --telemetry does not undo --no-telemetry in 22.11, so ask
 * for it with MRC_EAL_TEST_TELEMETRY. Devices come from `--vdev` arguments
 * the caller appends after these. The EAL leaves an empty runtime directory
 * (rte_eal_get_runtime_dir()) behind after rte_eal_cleanup(); tests may
 * rmdir it.
 *
 * argv receives at most max - 1 pointers plus a terminating NULL; the
 * strings are copied into buf (buflen bytes, 256 is plenty), which must
 * outlive the EAL. prefix is also argv[0]; it must be a non-empty name
 * without '/' or spaces.
 *
 * Returns argc (>= 1), -EINVAL for bad arguments, -ENOSPC when argv or
 * buf is too small.
 */
int mrc_eal_test_args(char **argv, int max, char *buf, size_t buflen, const char *prefix);

#define MRC_EAL_TEST_HUGE      (1u << 0) /* use hugepages (else --no-huge) */
#define MRC_EAL_TEST_TELEMETRY (1u << 1) /* keep the telemetry socket */

/*
 * Same with explicit choices. mrc_eal_test_args() is this with
 * MRC_EAL_TEST_HUGE when mrc_hugepages_usable().
 */
int mrc_eal_test_args_flags(
	char **argv, int max, char *buf, size_t buflen, const char *prefix, unsigned int flags);

#endif /* MRC_ENV_H */
