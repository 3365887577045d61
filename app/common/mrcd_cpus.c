/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread of mrcd and of mrc-fabric, at start and exit.
 *
 * Which CPUs other mrcd instances poll on, so two instances on one machine
 * never busy-poll the same core. Each instance holds an flock on
 * <dir>/cpu<N>.lock for every CPU one of its polling lcores runs on. The
 * kernel drops the lock when the process ends however it ends (SIGKILL
 * included), so a claim can never go stale; the files themselves are left
 * in place (deleting a lock file another process holds open would let a
 * third instance lock a new file of the same name).
 *
 * <dir> is /run/mrcd when it can be made (root), else
 * $XDG_RUNTIME_DIR/mrcd, else /tmp/mrcd-<uid>: instances of one user always
 * see each other; instances of different users share only /run/mrcd. A
 * service's $RUNTIME_DIRECTORY (systemd's RuntimeDirectory=mrcd: /run/mrcd)
 * comes first, so that a service writes nothing outside its directories.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "mrcd_cpus.h"

static int held[64]; /* fd + 1 of our claim on each CPU; 0 = none */

static const char *
claims_dir(void)
{
	static char dir[PATH_MAX];
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	const char *rt = getenv("RUNTIME_DIRECTORY");

	if (dir[0] != '\0')
		return dir;
	if (rt != NULL && rt[0] == '/' && strcspn(rt, ":") < sizeof(dir)) {
		snprintf(dir, sizeof(dir), "%.*s", (int)strcspn(rt, ":"), rt);
		if (access(dir, W_OK) == 0)
			return dir;
	}
	snprintf(dir, sizeof(dir), "/run/mrcd");
	if (mkdir(dir, 0755) == 0 || (errno == EEXIST && access(dir, W_OK) == 0))
		return dir;
	if (xdg != NULL && xdg[0] == '/') {
		snprintf(dir, sizeof(dir), "%s/mrcd", xdg);
		if (mkdir(dir, 0700) == 0 || (errno == EEXIST && access(dir, W_OK) == 0))
			return dir;
	}
	snprintf(dir, sizeof(dir), "/tmp/mrcd-%ld", (long)getuid());
	if (mkdir(dir, 0700) == 0 || (errno == EEXIST && access(dir, W_OK) == 0))
		return dir;
	dir[0] = '\0';
	return NULL;
}

static int
open_claim(unsigned int cpu)
{
	const char *dir = claims_dir();
	char path[PATH_MAX + 32];

	if (dir == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/cpu%u.lock", dir, cpu);
	return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

uint64_t
mrcd_cpus_busy(void)
{
	uint64_t busy = 0;
	cpu_set_t mine;

	if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
		return 0;
	for (unsigned int cpu = 0; cpu < 64; cpu++) {
		int fd;

		if (!CPU_ISSET(cpu, &mine) || held[cpu] != 0)
			continue; /* not ours to run on, or ours already */
		fd = open_claim(cpu);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
			busy |= 1ull << cpu;
		close(fd); /* drops the lock if we took it */
	}
	return busy;
}

int
mrcd_cpus_claim_pollers(bool shared_ok, unsigned int *cpu_out)
{
	unsigned int lc;

	RTE_LCORE_FOREACH_WORKER (lc) {
		/* The lcore's CPU set, not its id: --lcores maps ids onto other CPUs. */
		const rte_cpuset_t set = rte_lcore_cpuset(lc);

		for (unsigned int cpu = 0; cpu < 64; cpu++) {
			int fd;

			if (!CPU_ISSET(cpu, &set) || held[cpu] != 0)
				continue;
			fd = open_claim(cpu);
			if (fd < 0)
				continue; /* nowhere to keep claims: nothing to coordinate with */
			if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
				close(fd);
				if (shared_ok)
					continue; /* the user placed us there knowingly */
				*cpu_out = cpu;
				return -1; /* another instance took it since we looked */
			}
			held[cpu] = fd + 1;
		}
	}
	return 0;
}

void
mrcd_cpus_release(void)
{
	for (unsigned int cpu = 0; cpu < 64; cpu++)
		if (held[cpu] != 0) {
			close(held[cpu] - 1);
			held[cpu] = 0;
		}
}
