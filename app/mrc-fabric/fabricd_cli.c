/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc-fabric's command line, from one table that also prints --help:
 *
 *   mrc-fabric [EAL options] -- [options]
 *   mrc-fabric [options]        when the first argument is one of ours
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_version.h>

#include "fabricd.h"
#include "mrcd_cli.h"

#ifndef MRCD_VERSION
#define MRCD_VERSION "unknown"
#endif

enum opt_id {
	OPT_CONFIG,
	OPT_SCENARIO,
	OPT_DURATION,
	OPT_DIR,
	OPT_BSIZE,
	OPT_MBUFS,
	OPT_CLOSE_DELAY,
	OPT_IDLE_SLEEP,
	OPT_JSON,
	OPT_CHECK,
	OPT_HELP,
	OPT_VERSION,
	OPT_MAX,
};

static const struct opt {
	const char *shrt, *lng, *arg, *def, *help;
	uint32_t min, max; /* numeric options */
} opts[OPT_MAX] = {
	[OPT_CONFIG] = {"-f", "--config", "FILE", MRCD_CONFIG_DEFAULT_PATH,
		"the cluster's mrcd config: [daemon] planes and cluster_hosts (or hosts), "
		"[fabric], [transport]; the hosts' configs are derived from it"},
	[OPT_SCENARIO] = {NULL, "--scenario", "FILE", "the config's [daemon] scenario",
		"fault scenario (INI), or none; its times count from when every host is "
		"connected"},
	[OPT_DURATION] = {NULL, "--duration", "SECONDS", "0",
		"run time once the hosts are connected; 0 = until SIGINT or SIGTERM", 0, 31536000},
	[OPT_DIR] = {NULL, "--dir", "DIR", "/run/mrc-fabric",
		"where the memif sockets (h<N>.sock) and the hosts' configs (host<N>.ini) go"},
	[OPT_BSIZE] = {NULL, "--bsize", "BYTES", "8192",
		"memif buffer size; a frame must fit one buffer (DPDK 22.11 memif mangles "
		"frames chained over several)",
		2048, 65535},
	[OPT_MBUFS] = {NULL, "--mbufs", "N", "16383",
		"mbufs per host for packets inside the fabric (a frame of 4 KiB payload takes "
		"3 of 2 KiB)",
		1024, 16777216},
	[OPT_CLOSE_DELAY] = {NULL, "--close-delay-ms", "MS", "1500",
		"after the bridge stops, wait before closing the memif ports, so hosts "
		"stopped at the same time stop polling first",
		0, 60000},
	[OPT_IDLE_SLEEP] = {NULL, "--idle-sleep-us", "US", "0",
		"sleep this long when a poll finds no work and no fabric event is due (for "
		"machines with fewer cores than pollers); 0 = busy poll",
		0, 100000},
	[OPT_JSON] = {NULL, "--json", "FILE", "none", "also write the summary as JSON to FILE"},
	[OPT_CHECK] = {NULL, "--check", NULL, NULL,
		"check the config and scenario, write the hosts' configs, exit"},
	[OPT_HELP] = {"-h", "--help", NULL, NULL, "print this help and exit"},
	[OPT_VERSION] = {NULL, "--version", NULL, NULL, "print the version and exit"},
};

static int __rte_format_printf(3, 4) fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [EAL options] -- [options]\n"
		"       %s [options]   (when the first argument is one of these)\n\n"
		"Runs the emulated multi-plane fabric in a process of its own and serves each\n"
		"host x plane as a net_memif port; start each host with\n"
		"  mrcd -- -f <dir>/host<N>.ini\n"
		"(written at start). Options:\n",
		prog, prog);
	for (int i = 0; i < OPT_MAX; i++) {
		const struct opt *o = &opts[i];
		char name[48], text[512];
		const char *t = text;
		int col = 0;

		snprintf(name, sizeof(name), "%s%s%s%s%s", o->shrt ? o->shrt : "",
			o->shrt ? ", " : "    ", o->lng, o->arg ? " " : "", o->arg ? o->arg : "");
		snprintf(text, sizeof(text), "%s%s%s%s", o->help, o->def ? " (default " : "",
			o->def ? o->def : "", o->def ? ")" : "");
		fprintf(f, "  %s\n", name);
		/* The help, wrapped to 80 columns under the option. */
		while (*t != '\0') {
			const size_t w = strcspn(t, " ");

			if (col > 0 && col + 1 + (int)w > 72) {
				fputc('\n', f);
				col = 0;
			}
			col += fprintf(f, "%s%.*s", col ? " " : "        ", (int)w, t);
			t += w;
			t += *t == ' ';
		}
		fputc('\n', f);
	}
}

static int
find_opt(const char *a, const char **val)
{
	*val = NULL;
	for (int i = 0; i < OPT_MAX; i++) {
		const struct opt *o = &opts[i];
		const size_t n = strlen(o->lng);

		if (strcmp(a, o->lng) == 0 || (o->shrt != NULL && strcmp(a, o->shrt) == 0))
			return i;
		if (o->arg != NULL && strncmp(a, o->lng, n) == 0 && a[n] == '=') {
			*val = a + n + 1;
			return i;
		}
		if (o->arg != NULL && o->shrt != NULL && strncmp(a, o->shrt, 2) == 0 && a[2]) {
			*val = a + 2;
			return i;
		}
	}
	return -1;
}

static int
set_value(struct fabricd_cli *cli, int id, const char *v, char *err, size_t errlen)
{
	const struct opt *o = &opts[id];
	unsigned long long x;
	char *end;

	switch (id) {
	case OPT_CONFIG:
		return mrcd_cli_resolve_input(v, cli->config, sizeof(cli->config)) == 0
			       ? 0
			       : fail(err, errlen, "--config: path too long");
	case OPT_SCENARIO:
		if (strcmp(v, "none") == 0) {
			snprintf(cli->scenario, sizeof(cli->scenario), "none");
			return 0;
		}
		return mrcd_cli_resolve_input(v, cli->scenario, sizeof(cli->scenario)) == 0
			       ? 0
			       : fail(err, errlen, "--scenario: path too long");
	case OPT_DIR:
	case OPT_JSON: {
		char *dst = id == OPT_DIR ? cli->dir : cli->json;

		/* A memif socket path must fit a --vdev argument (256 bytes). */
		if (v[0] == '\0' || strlen(v) >= (id == OPT_DIR ? 160 : PATH_MAX - 32))
			return fail(err, errlen, "%s '%s': empty or too long", o->lng, v);
		snprintf(dst, PATH_MAX, "%s", v);
		return 0;
	}
	default:
		break;
	}
	errno = 0;
	x = strtoull(v, &end, 10);
	if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || x < o->min || x > o->max)
		return fail(err, errlen, "%s '%s': not a whole number in %u..%u", o->lng, v, o->min,
			o->max);
	switch (id) {
	case OPT_DURATION:
		cli->duration_s = (uint32_t)x;
		break;
	case OPT_BSIZE:
		cli->bsize = (uint32_t)x;
		break;
	case OPT_MBUFS:
		cli->mbufs = (uint32_t)x;
		break;
	case OPT_CLOSE_DELAY:
		cli->close_delay_ms = (uint32_t)x;
		break;
	case OPT_IDLE_SLEEP:
		cli->idle_sleep_us = (uint32_t)x;
		break;
	default:
		break;
	}
	return 0;
}

int
fabricd_cli_parse(int argc, char **argv, struct fabricd_cli *cli, char *err, size_t errlen)
{
	const char *v;
	int i = 1, rc;

	memset(cli, 0, sizeof(*cli));
	cli->prog = argv[0];
	mrcd_cli_resolve_input(MRCD_CONFIG_DEFAULT_PATH, cli->config, sizeof(cli->config));
	snprintf(cli->dir, sizeof(cli->dir), "/run/mrc-fabric");
	cli->bsize = 8192;
	cli->mbufs = 16383;
	cli->close_delay_ms = 1500;
	/* EAL arguments run up to "--", unless the first argument is ours. */
	if (argc > 1 && find_opt(argv[1], &v) < 0) {
		while (i < argc && strcmp(argv[i], "--") != 0)
			i++;
		cli->eal_argc = i - 1;
		cli->eal_argv = argv + 1;
		if (i < argc)
			i++;
	}
	for (; i < argc; i++) {
		const int id = find_opt(argv[i], &v);

		if (id < 0)
			return fail(err, errlen, "unknown option '%s'", argv[i]);
		if (id == OPT_HELP) {
			usage(stdout, cli->prog);
			return 1;
		}
		if (id == OPT_VERSION) {
			printf("mrc-fabric %s (%s)\n", MRCD_VERSION, rte_version());
			return 1;
		}
		if (id == OPT_CHECK) {
			cli->check = true;
			continue;
		}
		if (v == NULL) {
			if (i + 1 >= argc)
				return fail(err, errlen, "%s needs a value (%s)", argv[i],
					opts[id].arg);
			v = argv[++i];
		}
		rc = set_value(cli, id, v, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}
