/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Environment probing on fake /proc and /sys files, and the EAL test
 * arguments, including one real rte_eal_init() with them.
 */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "mrc_env.h"
#include "mrc_test.h"

struct fake_env {
	char dir[64];
	char meminfo[PATH_MAX];
	char sysfs[PATH_MAX];
	char mounts[PATH_MAX];
	char hugedir[PATH_MAX];
	struct mrc_env_paths paths;
};

static int
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/*
 * A fake system: meminfo with HugePages_Free = meminfo_free, sysfs page
 * sizes 2 MiB and 1 GiB with the given free counts, and a mounts file with
 * a mount of type `fstype` (none if NULL) on "<dir>/huge pages<suffix>";
 * only "<dir>/huge pages" exists.
 */
static int
fake_env_make(struct fake_env *e, unsigned int meminfo_free, unsigned int free_2m,
	unsigned int free_1g, const char *fstype, const char *suffix)
{
	char path[PATH_MAX + 64], text[PATH_MAX + 512];

	snprintf(e->dir, sizeof(e->dir), "/tmp/mrc_test_env_XXXXXX");
	if (mkdtemp(e->dir) == NULL)
		return -1;
	snprintf(e->meminfo, sizeof(e->meminfo), "%s/meminfo", e->dir);
	snprintf(e->sysfs, sizeof(e->sysfs), "%s/hugepages", e->dir);
	snprintf(e->mounts, sizeof(e->mounts), "%s/mounts", e->dir);
	snprintf(e->hugedir, sizeof(e->hugedir), "%s/huge pages", e->dir);

	snprintf(text, sizeof(text),
		"MemTotal:       16000000 kB\nHugePages_Total:      16\n"
		"HugePages_Free:    %u\nHugePages_Rsvd:        0\nHugepagesize:       2048 kB\n",
		meminfo_free);
	if (write_file(e->meminfo, text) != 0)
		return -1;
	if (mkdir(e->sysfs, 0700) != 0 || mkdir(e->hugedir, 0700) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/hugepages-2048kB", e->sysfs);
	if (mkdir(path, 0700) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/hugepages-2048kB/free_hugepages", e->sysfs);
	snprintf(text, sizeof(text), "%u\n", free_2m);
	if (write_file(path, text) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/hugepages-1048576kB", e->sysfs);
	if (mkdir(path, 0700) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/hugepages-1048576kB/free_hugepages", e->sysfs);
	snprintf(text, sizeof(text), "%u\n", free_1g);
	if (write_file(path, text) != 0)
		return -1;

	/* The mount table escapes the space in "huge pages" as \040. */
	char escaped[PATH_MAX + 16];

	snprintf(escaped, sizeof(escaped), "%s/huge\\040pages", e->dir);
	snprintf(
		text, sizeof(text), "proc /proc proc rw,nosuid 0 0\ntmpfs /dev/shm tmpfs rw 0 0\n");
	if (fstype != NULL) {
		const size_t len = strlen(text);

		snprintf(text + len, sizeof(text) - len, "nodev %s%s %s rw,relatime 0 0\n", escaped,
			suffix, fstype);
	}
	if (write_file(e->mounts, text) != 0)
		return -1;

	e->paths.meminfo = e->meminfo;
	e->paths.sysfs_hugepages = e->sysfs;
	e->paths.mounts = e->mounts;
	return 0;
}

static void
fake_env_remove(struct fake_env *e)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/hugepages-2048kB/free_hugepages", e->sysfs);
	unlink(path);
	snprintf(path, sizeof(path), "%s/hugepages-1048576kB/free_hugepages", e->sysfs);
	unlink(path);
	snprintf(path, sizeof(path), "%s/hugepages-2048kB", e->sysfs);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/hugepages-1048576kB", e->sysfs);
	rmdir(path);
	rmdir(e->sysfs);
	rmdir(e->hugedir);
	unlink(e->meminfo);
	unlink(e->mounts);
	rmdir(e->dir);
}

static int
check_usable(unsigned int meminfo_free, unsigned int free_2m, unsigned int free_1g,
	const char *fstype, const char *suffix, bool want)
{
	struct fake_env e;
	bool got;

	MRC_T_ASSERT(fake_env_make(&e, meminfo_free, free_2m, free_1g, fstype, suffix) == 0,
		"fake env: %s", strerror(errno));
	got = mrc_hugepages_usable_at(&e.paths);
	fake_env_remove(&e);
	MRC_T_ASSERT(got == want, "meminfo %u 2M %u 1G %u mount %s%s: got %d", meminfo_free,
		free_2m, free_1g, fstype != NULL ? fstype : "(none)", suffix, got);
	return MRC_TEST_OK;
}

static int
test_hugepages_usable(void)
{
	/* Free default-size pages and a writable mount. */
	MRC_T_RUN(check_usable(5, 5, 0, "hugetlbfs", "", true));
	/* Only 1 GiB pages are free: meminfo does not show them, sysfs does. */
	MRC_T_RUN(check_usable(0, 0, 3, "hugetlbfs", "", true));
	MRC_T_RUN(check_usable(0, 2, 0, "hugetlbfs", "", true));
	/* Nothing free. */
	MRC_T_RUN(check_usable(0, 0, 0, "hugetlbfs", "", false));
	/* Free, but no hugetlbfs mounted. */
	MRC_T_RUN(check_usable(5, 5, 0, NULL, "", false));
	/* Free, but the mount point does not exist (or is not ours). */
	MRC_T_RUN(check_usable(5, 5, 0, "hugetlbfs", "-gone", false));
	/* A tmpfs at the same place is not hugetlbfs. */
	MRC_T_RUN(check_usable(5, 5, 0, "tmpfs", "", false));

	/* Missing files mean "no". */
	const struct mrc_env_paths none = {
		"/nonexistent/meminfo", "/nonexistent/hugepages", "/nonexistent/mounts"};

	MRC_T_ASSERT(!mrc_hugepages_usable_at(&none), "missing files");
	MRC_T_ASSERT(!mrc_hugepages_usable_at(NULL), "NULL paths");

	/* The real system answers either way without crashing. */
	printf("    this machine: hugepages %s\n",
		mrc_hugepages_usable() ? "usable" : "not usable");
	return MRC_TEST_OK;
}

static int
find_arg(char **argv, int argc, const char *arg)
{
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], arg) == 0)
			return i;
	return -1;
}

static int
test_eal_args(void)
{
	char *argv[16];
	char buf[256], prefix_arg[64];
	int argc;

	snprintf(prefix_arg, sizeof(prefix_arg), "--file-prefix=mrct_%ld", (long)getpid());

	/* Without hugepages. */
	argc = mrc_eal_test_args_flags(argv, 16, buf, sizeof(buf), "mrct", 0);
	MRC_T_ASSERT(argc > 1, "argc %d", argc);
	MRC_T_ASSERT(argv[argc] == NULL, "argv NULL-terminated");
	MRC_T_STREQ(argv[0], "mrct");
	MRC_T_ASSERT(find_arg(argv, argc, "--no-pci") > 0, "--no-pci");
	MRC_T_ASSERT(find_arg(argv, argc, "--force-max-simd-bitwidth=512") > 0, "512-bit SIMD");
	MRC_T_ASSERT(find_arg(argv, argc, "--no-shconf") > 0, "--no-shconf");
	MRC_T_ASSERT(find_arg(argv, argc, "--no-telemetry") > 0, "--no-telemetry");
	MRC_T_EQ(find_arg(argv, argc, "--in-memory"), -1);
	MRC_T_ASSERT(find_arg(argv, argc, prefix_arg) > 0, "%s", prefix_arg);
	MRC_T_ASSERT(find_arg(argv, argc, "--no-huge") > 0, "--no-huge");
	const int m = find_arg(argv, argc, "-m");

	MRC_T_ASSERT(m > 0 && m + 1 < argc && strcmp(argv[m + 1], "256") == 0, "-m 256");
	/* Every string lives in the caller's buffer. */
	for (int i = 0; i < argc; i++)
		MRC_T_ASSERT(
			argv[i] >= buf && argv[i] < buf + sizeof(buf), "argv[%d] outside buf", i);

	/* With hugepages and telemetry. */
	argc = mrc_eal_test_args_flags(
		argv, 16, buf, sizeof(buf), "mrct", MRC_EAL_TEST_HUGE | MRC_EAL_TEST_TELEMETRY);
	MRC_T_ASSERT(argc > 1, "argc %d", argc);
	MRC_T_EQ(find_arg(argv, argc, "--no-huge"), -1);
	MRC_T_EQ(find_arg(argv, argc, "-m"), -1);
	MRC_T_EQ(find_arg(argv, argc, "--no-shconf"), -1);
	MRC_T_EQ(find_arg(argv, argc, "--no-telemetry"), -1);
	MRC_T_ASSERT(find_arg(argv, argc, "--in-memory") > 0, "--in-memory");
	MRC_T_ASSERT(find_arg(argv, argc, prefix_arg) > 0, "%s", prefix_arg);

	/* The automatic variant follows the probe. */
	argc = mrc_eal_test_args(argv, 16, buf, sizeof(buf), "mrct");
	MRC_T_ASSERT(argc > 1, "argc %d", argc);
	MRC_T_EQ(find_arg(argv, argc, "--no-huge") > 0, !mrc_hugepages_usable());

	/* Too small, bad input. */
	MRC_T_EQ(mrc_eal_test_args_flags(argv, 3, buf, sizeof(buf), "mrct", 0), -ENOSPC);
	MRC_T_EQ(mrc_eal_test_args_flags(argv, 16, buf, 20, "mrct", 0), -ENOSPC);
	MRC_T_EQ(mrc_eal_test_args_flags(argv, 16, buf, sizeof(buf), "", 0), -EINVAL);
	MRC_T_EQ(mrc_eal_test_args_flags(argv, 16, buf, sizeof(buf), "a/b", 0), -EINVAL);
	MRC_T_EQ(mrc_eal_test_args_flags(argv, 16, buf, sizeof(buf), NULL, 0), -EINVAL);
	MRC_T_EQ(mrc_eal_test_args_flags(NULL, 16, buf, sizeof(buf), "x", 0), -EINVAL);
	MRC_T_EQ(mrc_eal_test_args_flags(argv, 0, buf, sizeof(buf), "x", 0), -EINVAL);
	MRC_T_EQ(mrc_eal_test_args_flags(argv, 16, buf, sizeof(buf), "x", 1u << 7), -EINVAL);
	return MRC_TEST_OK;
}

/*
 * The arguments are accepted by this DPDK's EAL. Argument errors fail the
 * test; an EAL that cannot start for environmental reasons skips it.
 */
static int
test_eal_init_with_args(void)
{
	char *argv[16];
	char buf[256];
	int argc, rc;

	argc = mrc_eal_test_args(argv, 16, buf, sizeof(buf), "mrc_test_env");
	MRC_T_ASSERT(argc > 1, "argc %d", argc);
	rc = rte_eal_init(argc, argv);
	if (rc < 0 && rte_errno != EINVAL) {
		printf("    EAL did not start here (%s): skipping\n", rte_strerror(rte_errno));
		return MRC_TEST_SKIP;
	}
	MRC_T_ASSERT(rc >= 0, "rte_eal_init rejected our arguments: %s", rte_strerror(rte_errno));
	MRC_T_EQ(rc, argc - 1);

	char runtime_dir[PATH_MAX];

	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	MRC_T_EQ(rte_eal_cleanup(), 0);
	rmdir(runtime_dir); /* the EAL leaves it behind, empty */
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_hugepages_usable),
	MRC_TEST_CASE(test_eal_args),
	MRC_TEST_CASE(test_eal_init_with_args),
};

MRC_TEST_MAIN("common_env", cases)
