/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz the three INI files mrcd reads, as it reads them: the daemon's
 * configuration (mrcd_config_load_set, app/common), a traffic profile
 * (mrcd_profile_load_set, app/mrcd/gen) and a fault scenario
 * (mrc_fabric_timeline_load, drivers/fabric). The first byte picks the
 * file (modulo 3); the rest is its text, and what follows a line "%%" is
 * read as --set assignments, one a line, as `mrcd --set` and `--profile-set`
 * pass them. Oracles:
 *   - a refusal is a negative code with a message; a refused configuration
 *     leaves the caller's untouched;
 *   - an accepted configuration passes the cross-checks, builds the QP
 *     attributes and every host pair's addressing, and, printed and read
 *     back, is the same configuration key by key (mrcd_config.h);
 *   - an accepted profile printed and read back prints the same;
 *   - a scenario is a timeline or a refusal that names what is wrong.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "fuzz.h"
#include "mrc_fabric.h"
#include "mrc_test_qp.h"
#include "mrcd_config.h"
#include "mrcd_gen.h"

#define MAX_SETS 8
#define TSC_HZ	 2000000000ull

static char dir[64];
static char in_path[96], back_path[96];
static struct mrc_fabric *fab;

/* Leave nothing behind in /tmp. */
static void
cleanup(void)
{
	unlink(in_path);
	unlink(back_path);
	rmdir(dir);
}

static void
setup(void)
{
	static struct mrcd_config cfg;
	struct mrc_fabric_cfg fcfg;
	const char *why = NULL;

	snprintf(dir, sizeof(dir), "/tmp/fuzz_ini.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		abort();
	}
	snprintf(in_path, sizeof(in_path), "%s/in.ini", dir);
	snprintf(back_path, sizeof(back_path), "%s/back.ini", dir);
	atexit(cleanup);
	/* The scenarios are read against the default configuration's fabric. */
	if (mrc_test_eal_init("fuzz_ini") != 0)
		abort();
	mrcd_config_defaults(&cfg);
	if (mrcd_config_fabric(&cfg, TSC_HZ, &fcfg) != 0 ||
		(fab = mrc_fabric_create(&fcfg, &why)) == NULL) {
		fprintf(stderr, "fuzz_ini: default fabric: %s\n", why != NULL ? why : "refused");
		abort();
	}
}

static void
write_file(const char *path, const uint8_t *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || (n > 0 && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

/* A refusal: a negative code and a message saying something. */
static void
check_refusal(int rc, const char *err)
{
	FUZZ_CHECK(rc < 0, "rc %d", rc);
	FUZZ_CHECK(err[0] != '\0', "refused (%d) with no message", rc);
}

static void
fuzz_config(const char *const *sets, unsigned int n_sets)
{
	static struct mrcd_config cfg, before, back;
	char err[1024] = "", diff[512];
	struct mrc_qp_attr attr;
	struct mrc_qp_addr addr;
	FILE *f;
	int rc;

	mrcd_config_defaults(&cfg);
	before = cfg;
	rc = mrcd_config_load_set(&cfg, in_path, sets, n_sets, err, sizeof(err));
	if (rc != 0) {
		check_refusal(rc, err);
		FUZZ_CHECK(
			memcmp(&cfg, &before, sizeof(cfg)) == 0, "refused (%s) but changed", err);
		return;
	}
	FUZZ_CHECK(mrcd_config_check(&cfg, err, sizeof(err)) == 0, "loaded, then refused: %s", err);
	FUZZ_CHECK(mrcd_config_qp_attr(&cfg, TSC_HZ, &attr) == 0, "loaded, no QP attributes");
	const unsigned int n = RTE_MIN(mrcd_config_cluster_hosts(&cfg), 4u);
	for (unsigned int a = 0; a < n; a++)
		for (unsigned int b = 0; b < n; b++)
			if (a != b)
				FUZZ_CHECK(mrcd_config_qp_addr(&cfg, a, b, &addr) == 0,
					"loaded, no addressing %u -> %u", a, b);
	(void)mrcd_config_memory_mb(&cfg);
	(void)mrcd_config_base_rtt_ns(&cfg);

	f = fopen(back_path, "w");
	FUZZ_CHECK(f != NULL, "open %s", back_path);
	mrcd_config_print(f, &cfg);
	FUZZ_CHECK(fclose(f) == 0, "write %s", back_path);
	mrcd_config_defaults(&back);
	rc = mrcd_config_load(&back, back_path, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "printed configuration refused: %s", err);
	FUZZ_CHECK(mrcd_config_diff(&cfg, &back, diff, sizeof(diff)) == 0, "read back: %s", diff);
	FUZZ_CHECK(mrcd_config_diff(&back, &cfg, diff, sizeof(diff)) == 0, "read back: %s", diff);
}

/* The profile as mrcd prints it; the caller frees. */
static char *
profile_text(const struct mrcd_profile *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	FUZZ_CHECK(m != NULL, "open_memstream");
	mrcd_profile_print(m, p, "");
	FUZZ_CHECK(fclose(m) == 0, "memstream");
	return text;
}

static void
fuzz_profile(const char *const *sets, unsigned int n_sets)
{
	static struct mrcd_profile p, back;
	char err[1024] = "";
	char *first, *again;
	int rc;

	rc = mrcd_profile_load_set(&p, in_path, sets, n_sets, err, sizeof(err));
	if (rc != 0) {
		check_refusal(rc, err);
		return;
	}
	first = profile_text(&p);
	write_file(back_path, (const uint8_t *)first, strlen(first));
	rc = mrcd_profile_load(&back, back_path, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "printed profile refused: %s\n%s", err, first);
	again = profile_text(&back);
	FUZZ_CHECK(strcmp(first, again) == 0, "read back differs:\n%s---\n%s", first, again);
	free(first);
	free(again);
}

static void
fuzz_scenario(void)
{
	char why[1024] = "";
	struct mrc_fabric_timeline *tl = mrc_fabric_timeline_load(fab, in_path, why, sizeof(why));

	if (tl == NULL) {
		FUZZ_CHECK(why[0] != '\0', "scenario refused with no message");
		return;
	}
	(void)mrc_fabric_timeline_events(tl);
	mrc_fabric_timeline_free(tl);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *copy;
	const char *sets[MAX_SETS];
	unsigned int n_sets = 0;
	size_t text_len;

	if (fab == NULL)
		setup();
	if (size < 1)
		return 0;
	/* The text, NUL-terminated, to find the "%%" line and the assignments in. */
	free(copy);
	copy = malloc(size);
	FUZZ_CHECK(copy != NULL, "malloc");
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	text_len = size - 1;
	char *mark = strstr(copy, "\n%%\n");

	if (mark != NULL) {
		char *save = NULL;

		text_len = (size_t)(mark - copy) + 1;
		for (char *l = strtok_r(mark + 4, "\n", &save); l != NULL && n_sets < MAX_SETS;
			l = strtok_r(NULL, "\n", &save))
			sets[n_sets++] = l;
	}
	write_file(in_path, (const uint8_t *)copy, text_len);

	switch (data[0] % 3) {
	case 0:
		fuzz_config(sets, n_sets);
		break;
	case 1:
		fuzz_profile(sets, n_sets);
		break;
	default:
		fuzz_scenario();
		break;
	}
	return 0;
}
