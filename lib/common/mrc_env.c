/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Probing the environment before rte_eal_init(); see mrc_env.h for what is
 * checked and why. Plain libc only: the EAL is not up yet. Every failure to
 * read something counts as "not usable", since the fallback (--no-huge)
 * always works and a wrong "usable" makes rte_eal_init() fail instead.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "mrc_env.h"
#include "mrc_log.h"

const struct mrc_env_paths mrc_env_system_paths = {
	.meminfo = "/proc/meminfo",
	.sysfs_hugepages = "/sys/kernel/mm/hugepages",
	.mounts = "/proc/mounts",
};

/* HugePages_Free > 0 in a meminfo-format file. */
static bool
env_meminfo_has_free(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (f == NULL)
		return false;
	while (getline(&line, &cap, f) != -1) {
		unsigned long long n;

		if (sscanf(line, "HugePages_Free: %llu", &n) == 1) {
			found = n > 0;
			break;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* A file holding one unsigned number > 0. */
static bool
env_file_positive(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long long n = 0;
	int rc;

	if (f == NULL)
		return false;
	rc = fscanf(f, "%llu", &n);
	fclose(f);
	return rc == 1 && n > 0;
}

/* free_hugepages > 0 for any page size under a sysfs hugepages directory. */
static bool
env_sysfs_has_free(const char *dir)
{
	DIR *d = opendir(dir);
	const struct dirent *e;
	bool found = false;

	if (d == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		char path[PATH_MAX];
		int n;

		if (strncmp(e->d_name, "hugepages-", strlen("hugepages-")) != 0)
			continue;
		n = snprintf(path, sizeof(path), "%s/%s/free_hugepages", dir, e->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		found = env_file_positive(path);
	}
	closedir(d);
	return found;
}

/* Undo the octal escapes (\040 for space, ...) of a /proc/mounts field. */
static void
env_unescape_mount(char *s)
{
	char *out = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
			s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* A hugetlbfs mount in which this process may create files. */
static bool
env_hugetlbfs_writable(const char *mounts)
{
	FILE *f = fopen(mounts, "r");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && getline(&line, &cap, f) != -1) {
		char *save = NULL;
		char *dev = strtok_r(line, " \t\n", &save);
		char *dir = dev != NULL ? strtok_r(NULL, " \t\n", &save) : NULL;
		char *type = dir != NULL ? strtok_r(NULL, " \t\n", &save) : NULL;

		if (type == NULL || strcmp(type, "hugetlbfs") != 0)
			continue;
		env_unescape_mount(dir);
		if (access(dir, W_OK | X_OK) == 0)
			found = true;
		else
			MRC_LOG(common, DEBUG, "hugetlbfs at %s not writable: %s", dir,
				strerror(errno));
	}
	free(line);
	fclose(f);
	return found;
}

bool
mrc_hugepages_usable_at(const struct mrc_env_paths *paths)
{
	if (paths == NULL)
		return false;
	if (!env_meminfo_has_free(paths->meminfo) && !env_sysfs_has_free(paths->sysfs_hugepages)) {
		MRC_LOG(common, DEBUG, "no free hugepages");
		return false;
	}
	if (!env_hugetlbfs_writable(paths->mounts)) {
		MRC_LOG(common, DEBUG, "no writable hugetlbfs mount");
		return false;
	}
	return true;
}

bool
mrc_hugepages_usable(void)
{
	const char *no = getenv("MRC_NO_HUGE");

	/* A user (or valgrind, which cannot map hugepages) may insist on --no-huge. */
	if (no != NULL && no[0] != '\0' && strcmp(no, "0") != 0)
		return false;
	return mrc_hugepages_usable_at(&mrc_env_system_paths);
}

/* Appends formatted strings to argv, copying them into one buffer. */
struct env_argv {
	char **argv;
	int max;
	int argc;
	char *buf;
	size_t buflen;
	size_t used;
	bool full;
};

static void __rte_format_printf(2, 3) env_argv_add(struct env_argv *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (a->full)
		return;
	/* Leave room for the terminating NULL pointer. */
	if (a->argc + 1 >= a->max) {
		a->full = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(a->buf + a->used, a->buflen - a->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= a->buflen - a->used) {
		a->full = true;
		return;
	}
	a->argv[a->argc++] = a->buf + a->used;
	a->used += (size_t)n + 1;
}

int
mrc_eal_test_args_flags(
	char **argv, int max, char *buf, size_t buflen, const char *prefix, unsigned int flags)
{
	struct env_argv a = {
		.argv = argv,
		.max = max,
		.buf = buf,
		.buflen = buflen,
	};

	if (argv == NULL || max < 1 || buf == NULL || buflen == 0 || prefix == NULL ||
		prefix[0] == '\0' || strpbrk(prefix, "/ \t\n") != NULL ||
		(flags & ~(MRC_EAL_TEST_HUGE | MRC_EAL_TEST_TELEMETRY)) != 0)
		return -EINVAL;

	env_argv_add(&a, "%s", prefix);
	env_argv_add(&a, "--no-pci");
	env_argv_add(&a, "--file-prefix=%s_%ld", prefix, (long)getpid());
	env_argv_add(&a, "--log-level=*:warning");
	/* What mrcd runs with: the ICRC's 512-bit path where the CPU has it. */
	env_argv_add(&a, "--force-max-simd-bitwidth=512");
	/* No socket or thread a test did not ask for. */
	if (!(flags & MRC_EAL_TEST_TELEMETRY))
		env_argv_add(&a, "--no-telemetry");
	if (flags & MRC_EAL_TEST_HUGE) {
		/* Hugepage files are unlinked (memfd); no shared config. */
		env_argv_add(&a, "--in-memory");
	} else {
		/*
		 * DPDK 22.11 refuses --in-memory with --no-huge (it implies
		 * legacy memory); --no-shconf keeps the config unshared.
		 */
		env_argv_add(&a, "--no-huge");
		env_argv_add(&a, "-m");
		env_argv_add(&a, "256");
		env_argv_add(&a, "--no-shconf");
	}
	if (a.full)
		return -ENOSPC;
	argv[a.argc] = NULL;
	return a.argc;
}

int
mrc_eal_test_args(char **argv, int max, char *buf, size_t buflen, const char *prefix)
{
	return mrc_eal_test_args_flags(
		argv, max, buf, buflen, prefix, mrc_hugepages_usable() ? MRC_EAL_TEST_HUGE : 0);
}
