/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread of mrcd and of mrc-fabric, before the EAL starts
 * (mrcd_eal_cleanup: at exit).
 *
 * The command line (mrcd_cli.h): mrcd's own options, from one table that
 * also prints --help, and the EAL argument defaults.
 */

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_version.h>

#include "mrc_env.h"
#include "mrcd_cli.h"

#ifndef MRCD_VERSION
#define MRCD_VERSION "unknown"
#endif

enum opt_id {
	OPT_CONFIG,
	OPT_PROFILE,
	OPT_SCENARIO,
	OPT_DURATION,
	OPT_SET,
	OPT_CHECK,
	OPT_JSON,
	OPT_SERVICE,
	OPT_HELP,
	OPT_VERSION,
	OPT_MAX,
};

static const struct opt {
	const char *shrt; /* "-f", or NULL */
	const char *lng;  /* "--config" */
	const char *arg;  /* what the value is, NULL for a flag */
	const char *def;  /* default, for --help */
	const char *help;
} opts[OPT_MAX] = {
	[OPT_CONFIG] = {"-f", "--config", "FILE", MRCD_CONFIG_DEFAULT_PATH,
		"the daemon's configuration (INI)"},
	[OPT_PROFILE] = {NULL, "--profile", "FILE", "the config's [daemon] profile",
		"traffic profile (INI), or none (no traffic of its own)"},
	[OPT_SCENARIO] = {NULL, "--scenario", "FILE", "the config's [daemon] scenario",
		"fault scenario for the emulated fabric (INI), or none"},
	[OPT_DURATION] = {NULL, "--duration", "SECONDS", "the config's [daemon] duration_s",
		"run time, 0..31536000; 0 = until SIGINT or SIGTERM"},
	[OPT_SET] = {NULL, "--set", "SEC.KEY=VAL", NULL,
		"a key over the config file's, checked like a line of it;\n"
		"repeatable; profile.KEY=VALUE sets the traffic profile's"},
	[OPT_CHECK] = {NULL, "--check", NULL, NULL,
		"validate all input files, print the config, exit 0 or 1"},
	[OPT_JSON] = {NULL, "--json", "FILE", "none", "also write the summary as JSON to FILE"},
	[OPT_SERVICE] = {NULL, "--service", NULL, NULL,
		"a system service: until stopped; SIGHUP re-reads the\n"
		"input files and applies what can change at run time\n"
		"(the profile's flows, message sizes, pace and counts;\n"
		"the scenario), refusing the rest by name; a pid file;\n"
		"state in $STATE_DIRECTORY (else /var/lib/mrcd),\n"
		"runtime files in $RUNTIME_DIRECTORY (else /run/mrcd);\n"
		"config " MRCD_SERVICE_CONFIG_PATH " unless -f"},
	[OPT_HELP] = {"-h", "--help", NULL, NULL, "print this help and exit"},
	[OPT_VERSION] = {NULL, "--version", NULL, NULL,
		"print mrcd's and DPDK's versions and exit"},
};

#define DURATION_MAX 31536000u /* a year, as [daemon] duration_s */

static int __rte_format_printf(3, 4) fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * Which option `arg` is; *value points at an attached value ("--opt=V",
 * "-fV") or is NULL. -1 when it is none of ours.
 */
static int
find_opt(const char *arg, const char **value)
{
	*value = NULL;
	for (int i = 0; i < OPT_MAX; i++) {
		const struct opt *o = &opts[i];
		const size_t ll = strlen(o->lng);

		if (strcmp(arg, o->lng) == 0 || (o->shrt != NULL && strcmp(arg, o->shrt) == 0))
			return i;
		if (o->arg != NULL && strncmp(arg, o->lng, ll) == 0 && arg[ll] == '=') {
			*value = arg + ll + 1;
			return i;
		}
		if (o->arg != NULL && o->shrt != NULL && strncmp(arg, o->shrt, 2) == 0 &&
			arg[2] != '\0') {
			*value = arg + 2;
			return i;
		}
	}
	return -1;
}

/*
 * An input file: as given when it exists (or is absolute), else under the
 * source tree when it exists there, else as given (opening it will say why).
 */
int
mrcd_cli_resolve_input(const char *in, char *out, size_t len)
{
#ifdef MRCD_SOURCE_ROOT
	char alt[PATH_MAX];
#endif

	if (in == NULL)
		return -EINVAL;
#ifdef MRCD_SOURCE_ROOT
	if (in[0] != '/' && access(in, F_OK) != 0 &&
		snprintf(alt, sizeof(alt), "%s/%s", MRCD_SOURCE_ROOT, in) < (int)sizeof(alt) &&
		access(alt, F_OK) == 0)
		in = alt;
#endif
	if (strlen(in) >= len)
		return -ENAMETOOLONG;
	snprintf(out, len, "%s", in);
	return 0;
}

static int
parse_duration(const char *v, uint32_t *out)
{
	unsigned long long x = 0;

	if (*v == '\0')
		return -1;
	for (; *v >= '0' && *v <= '9'; v++) {
		x = x * 10 + (unsigned long long)(*v - '0');
		if (x > DURATION_MAX)
			return -1;
	}
	if (*v != '\0')
		return -1;
	*out = (uint32_t)x;
	return 0;
}

/* Store option `id` with value `v` (NULL for flags). 0, 1 (printed), or -EINVAL. */
static int
take(struct mrcd_cli *c, int id, const char *name, const char *v, char *err, size_t errlen)
{
	char *dst = NULL;

	switch (id) {
	case OPT_CONFIG:
		c->config_given = true;
		dst = c->config;
		break;
	case OPT_PROFILE:
		dst = c->profile;
		break;
	case OPT_SCENARIO:
		dst = c->scenario;
		break;
	case OPT_JSON:
		if (strlen(v) >= sizeof(c->json))
			return fail(err, errlen, "%s: path too long", name);
		snprintf(c->json, sizeof(c->json), "%s", v);
		return 0;
	case OPT_DURATION:
		if (parse_duration(v, &c->duration_s) != 0)
			return fail(err, errlen,
				"%s '%s': must be whole seconds, 0..%u (0 = until a signal)", name,
				v, DURATION_MAX);
		c->duration_set = true;
		return 0;
	case OPT_SET: {
		/* The profile's keys go to the profile, the rest to the config. */
		const bool prof = strncmp(v, "profile.", 8) == 0;
		unsigned int *n = prof ? &c->n_profile_sets : &c->n_sets;

		if (strchr(v, '=') == NULL)
			return fail(err, errlen, "%s '%s': must be section.key=value", name, v);
		if (*n == MRCD_CLI_MAX_SETS)
			return fail(
				err, errlen, "%s: more than %u of them", name, MRCD_CLI_MAX_SETS);
		(prof ? c->profile_sets : c->sets)[(*n)++] = v;
		return 0;
	}
	case OPT_CHECK:
		c->check = true;
		return 0;
	case OPT_SERVICE:
		c->service = true;
		return 0;
	case OPT_HELP:
		mrcd_cli_usage(stdout, c->prog);
		return 1;
	default:
		mrcd_cli_version(stdout);
		return 1;
	}
	if ((id == OPT_SCENARIO || id == OPT_PROFILE) && strcmp(v, "none") == 0) {
		snprintf(dst, PATH_MAX, "none");
		return 0;
	}
	if (mrcd_cli_resolve_input(v, dst, PATH_MAX) != 0)
		return fail(err, errlen, "%s: path too long", name);
	return 0;
}

static int
parse_own(struct mrcd_cli *c, int argc, char **argv, char *err, size_t errlen)
{
	bool seen[OPT_MAX] = {false};

	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *v;
		const int id = find_opt(arg, &v);
		int rc;

		if (id < 0 && arg[0] == '-')
			return fail(err, errlen,
				"unknown option '%s' (mrcd --help lists them; EAL options go "
				"before --)",
				arg);
		if (id < 0)
			return fail(err, errlen, "unexpected argument '%s'", arg);
		if (seen[id] && id != OPT_SET)
			return fail(err, errlen, "%s given twice", opts[id].lng);
		seen[id] = true;
		if (opts[id].arg != NULL && v == NULL) {
			if (i + 1 >= argc)
				return fail(err, errlen, "%s needs a %s", arg, opts[id].arg);
			v = argv[++i];
		}
		if (opts[id].arg != NULL && v[0] == '\0')
			return fail(err, errlen, "%s: empty %s", opts[id].lng, opts[id].arg);
		rc = take(c, id, opts[id].lng, v, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
mrcd_cli_parse(int argc, char **argv, struct mrcd_cli *out, char *err, size_t errlen)
{
	const char *v;
	int dd = -1, own = argc, rc;

	memset(out, 0, sizeof(*out));
	out->prog = argc > 0 && argv[0] != NULL ? argv[0] : "mrcd";
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dd = i;
			break;
		}
	if (dd >= 0) {
		out->eal_argc = dd - 1;
		own = dd + 1;
	} else if (argc > 1 && find_opt(argv[1], &v) >= 0) {
		own = 1; /* "mrcd --check": no EAL arguments */
	} else {
		out->eal_argc = argc > 1 ? argc - 1 : 0;
	}
	out->eal_argv = argc > 1 ? &argv[1] : NULL;
	if (mrcd_cli_resolve_input(MRCD_CONFIG_DEFAULT_PATH, out->config, sizeof(out->config)) != 0)
		return fail(err, errlen, "default config path too long");
	rc = parse_own(out, argc - own, argv + own, err, errlen);
	/* A service reads the installed configuration unless told otherwise. */
	if (rc == 0 && out->service && !out->config_given)
		snprintf(out->config, sizeof(out->config), "%s", MRCD_SERVICE_CONFIG_PATH);
	return rc;
}

/* The text after the option list, one line each (the help stays under 80 columns). */
static const char *const usage_tail[] = {
	"Input files named relatively are looked up in the current directory, then in",
	"the source tree mrcd was built from"
#ifdef MRCD_SOURCE_ROOT
	" (" MRCD_SOURCE_ROOT ")"
#endif
	".",
	"The profile and scenario a config names are relative to the config's directory.",
	"--set takes a key as the config file writes it, after its section and a dot:",
	"  --set transport.mtu=2048 --set fabric.loss=0.01 --set host.1.mac.p0=02:00:00:00:01:00",
	"An unknown section or key or a bad value is an error that names it; the last",
	"--set of a key wins; mrcd --check prints the values in effect.",
	"",
	"EAL options mrcd adds when they are not given (yours win):",
	"  --file-prefix=mrcd_<pid>        its own runtime directory and telemetry socket",
	"  -l <main>,<workers>[,<fabric>]  CPUs this process may use (taskset), as [lcores]",
	"  --main-lcore=<main>             asks: main, then polling workers (and the fabric's",
	"                                  own) on CPUs no other mrcd polls on (claims in",
	"                                  /run/mrcd), sharing main's CPU via --lcores if",
	"                                  that is the only one left",
	"  --in-memory                     when hugepages are usable, else",
	"  --no-huge -m <MB> --no-shconf   (MRC_NO_HUGE=1 forces it; -m from the pools)",
	"  --no-pci                        on the emulated fabric",
	"  --force-max-simd-bitwidth=512   the ICRC's AVX-512 path, where the CPU has it",
	"  --vdev=<arg>                    for each [ports] vdev.<n> (but those of ports",
	"                                  only another process's hosts use)",
};

void
mrcd_cli_usage(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s [EAL options] -- [mrcd options]\n", prog);
	fprintf(f, "       %s [mrcd options]   (when the first argument is an mrcd option)\n",
		prog);
	fprintf(f, "       %s                  the built-in demo: %s,\n", prog,
		MRCD_CONFIG_DEFAULT_PATH);
	fprintf(f, "                             its profile and scenario\n\nmrcd options:\n");
	for (int i = 0; i < OPT_MAX; i++) {
		const struct opt *o = &opts[i];
		char name[48];

		snprintf(name, sizeof(name), "%s%s%s%s%s", o->shrt ? o->shrt : "",
			o->shrt ? ", " : "    ", o->lng, o->arg ? " " : "", o->arg ? o->arg : "");
		const char *h = o->help, *nl;

		/* A help of several lines: the later ones under the first. */
		while ((nl = strchr(h, '\n')) != NULL) {
			fprintf(f, "  %-22s %.*s\n", name, (int)(nl - h), h);
			h = nl + 1;
			name[0] = '\0';
		}
		fprintf(f, "  %-22s %s\n", name, h);
		if (o->def != NULL)
			fprintf(f, "  %-22s (default: %s)\n", "", o->def);
	}
	fprintf(f, "\n");
	for (unsigned int i = 0; i < RTE_DIM(usage_tail); i++)
		fprintf(f, "%s\n", usage_tail[i]);
	fprintf(f, "EAL's own help: %s -h --\n", prog);
}

void
mrcd_cli_version(FILE *f)
{
	fprintf(f, "mrcd %s (%s)\n", MRCD_VERSION, rte_version());
}

int
mrcd_cli_apply(const struct mrcd_cli *cli, struct mrcd_config *cfg, char *err, size_t errlen)
{
	if (cli->duration_set)
		cfg->daemon.duration_s = cli->duration_s;
	return mrcd_config_check(cfg, err, errlen);
}

bool
mrcd_cli_no_traffic(const struct mrcd_cli *cli, const struct mrcd_config *cfg)
{
	if (cli->profile[0] != '\0')
		return strcmp(cli->profile, "none") == 0;
	return strcmp(cfg->daemon.profile, "none") == 0;
}

int
mrcd_cli_profile(const struct mrcd_cli *cli, const struct mrcd_config *cfg, char *buf, size_t len)
{
	if (strcmp(cli->profile, "none") == 0)
		return snprintf(buf, len, "%s", "");
	if (cli->profile[0] != '\0')
		return snprintf(buf, len, "%s", cli->profile);
	return mrcd_config_resolve(cfg, cfg->daemon.profile, buf, len);
}

int
mrcd_cli_scenario(const struct mrcd_cli *cli, const struct mrcd_config *cfg, char *buf, size_t len)
{
	if (strcmp(cli->scenario, "none") == 0)
		return snprintf(buf, len, "%s", "");
	if (cli->scenario[0] != '\0')
		return snprintf(buf, len, "%s", cli->scenario);
	return mrcd_config_resolve(cfg, cfg->daemon.scenario, buf, len);
}

/* ---- EAL arguments ---- */

/* Appends strings to argv, copying them into one buffer (as mrc_eal_test_args does). */
struct argv_buf {
	char **argv;
	int max, argc;
	char *buf;
	size_t buflen, used;
	bool full;
};

static void __rte_format_printf(2, 3) add(struct argv_buf *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (a->full || a->argc + 1 >= a->max) {
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

/*
 * The user's EAL arguments name option `opt` ("--file-prefix", "-l"): as a
 * word, "--opt=value", or for a one-letter option with the value attached.
 */
static bool
user_has(const struct mrcd_cli *cli, const char *opt)
{
	const size_t n = strlen(opt);

	for (int i = 0; i < cli->eal_argc; i++) {
		const char *a = cli->eal_argv[i];

		if (strcmp(a, opt) == 0 || (strncmp(a, opt, n) == 0 && a[n] == '=') ||
			(n == 2 && opt[1] != '-' && strncmp(a, opt, 2) == 0))
			return true;
	}
	return false;
}

bool
mrcd_cli_user_lcores(const struct mrcd_cli *cli)
{
	return user_has(cli, "-l") || user_has(cli, "--lcores") || user_has(cli, "-c");
}

/* The user's EAL arguments create device `name` (the part of a --vdev before ','). */
static bool
user_has_vdev(const struct mrcd_cli *cli, const char *name, size_t len)
{
	for (int i = 0; i < cli->eal_argc; i++) {
		const char *a = cli->eal_argv[i];

		if (strncmp(a, "--vdev=", 7) == 0)
			a += 7;
		else if (strcmp(a, "--vdev") == 0 && i + 1 < cli->eal_argc)
			a = cli->eal_argv[++i];
		else
			continue;
		if (strcspn(a, ",") == len && strncmp(a, name, len) == 0)
			return true;
	}
	return false;
}

/*
 * Device `name` is the port of a host another process runs, and of none of
 * ours: a file that names the whole cluster's ports (mrcd_launch.h) leaves
 * each process to create its own hosts' devices only.
 */
static bool
other_hosts_vdev(const struct mrcd_config *cfg, const char *name, size_t len)
{
	const unsigned int lo = cfg->daemon.first_host, hi = lo + cfg->daemon.hosts;
	bool other = false;

	for (unsigned int h = 0; h < MRCD_CONFIG_MAX_HOSTS; h++)
		for (unsigned int p = 0; p < MRC_EV_MAX_PLANES; p++) {
			const char *n = cfg->ports.name[h][p];

			if (strlen(n) != len || strncmp(n, name, len) != 0)
				continue;
			if (h >= lo && h < hi)
				return false;
			other = true;
		}
	return other;
}

/* The CPUs this process may run on that can be lcores, ascending. */
static unsigned int
usable_cpus(unsigned int *cpus, unsigned int max)
{
	cpu_set_t set;
	unsigned int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (unsigned int c = 0; c < CPU_SETSIZE && c < RTE_MAX_LCORE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

static bool
cpu_busy(uint64_t busy, unsigned int cpu)
{
	return cpu < 64 && (busy >> cpu & 1);
}

static int
add_lcores(
	struct argv_buf *a, const struct mrcd_config *cfg, uint64_t busy, char *err, size_t errlen)
{
	const bool own =
		cfg->ports.mode == MRCD_PORTS_FABRIC && cfg->lcores.fabric == MRCD_FABRIC_OWN_LCORE;
	const unsigned int pollers = cfg->lcores.workers + (own ? 1u : 0u);
	unsigned int cpus[RTE_MAX_LCORE], pick[RTE_MAX_LCORE], n = 0;
	const unsigned int have = usable_cpus(cpus, RTE_DIM(cpus));
	char list[RTE_MAX_LCORE * 10] = "";
	bool shares_main = false;
	size_t o = 0;

	if (have < 1 + pollers)
		return fail(err, errlen,
			"[lcores] asks for %u lcores (main + %u workers%s) but this process "
			"may run on %u CPUs: lower workers%s, or give -l/--lcores before --",
			1 + pollers, cfg->lcores.workers, own ? " + the fabric's own" : "", have,
			own ? " or set fabric = worker" : "");
	/* Pollers: free CPUs other than main's, then main's own if it is free. */
	for (unsigned int i = 1; i < have && n < pollers; i++)
		if (!cpu_busy(busy, cpus[i]))
			pick[n++] = cpus[i];
	if (n < pollers && !cpu_busy(busy, cpus[0])) {
		pick[n++] = cpus[0];
		shares_main = true;
	}
	if (n < pollers)
		return fail(err, errlen,
			"[lcores] needs %u polling CPUs but other mrcd instances already poll on "
			"the free ones of the %u this process may run on: stop one, lower "
			"workers, or give -l/--lcores before -- to share a core knowingly",
			pollers, have);
	if (!shares_main) {
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%u", cpus[0]);
		for (unsigned int i = 0; i < n; i++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, ",%u", pick[i]);
		add(a, "-l");
		add(a, "%s", list);
		add(a, "--main-lcore=%u", cpus[0]);
		return 0;
	}
	o += (size_t)snprintf(list + o, sizeof(list) - o, "0@%u", cpus[0]);
	for (unsigned int i = 0; i < n; i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, ",%u@%u", i + 1, pick[i]);
	add(a, "--lcores=%s", list);
	add(a, "--main-lcore=0");
	return 0;
}

/*
 * Without hugepages the EAL reserves -m MB at start (64 by default): size
 * it from the pools and what the caller says the flows need.
 */
static void
add_mem(struct argv_buf *a, const struct mrcd_cli *cli, const struct mrcd_config *cfg)
{
	const uint64_t extra_mb = (cli->extra_mem_bytes + (64u << 20) - 1) >> 26 << 6;

	add(a, "-m");
	add(a, "%" PRIu64, (uint64_t)mrcd_config_memory_mb(cfg) + extra_mb);
}

/* Bytes of free hugepages of the default size (0 when /proc/meminfo does not say). */
static uint64_t
hugepages_free_bytes(void)
{
	uint64_t n = 0, kb = 0, v;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "HugePages_Free: %" SCNu64, &v) == 1)
			n = v;
		else if (sscanf(line, "Hugepagesize: %" SCNu64 " kB", &v) == 1)
			kb = v;
	}
	if (f != NULL)
		fclose(f);
	return n * kb * 1024;
}

int
mrcd_cli_eal_argv(const struct mrcd_cli *cli, const struct mrcd_config *cfg, char **argv, int max,
	char *buf, size_t buflen, char *err, size_t errlen)
{
	struct argv_buf a = {.argv = argv, .max = max, .buf = buf, .buflen = buflen};
	const bool no_huge = user_has(cli, "--no-huge"), in_mem = user_has(cli, "--in-memory");

	if (argv == NULL || max < 1 || buf == NULL || buflen == 0)
		return fail(err, errlen, "no room for the EAL arguments");
	add(&a, "%s", cli->prog);
	for (int i = 0; i < cli->eal_argc; i++)
		add(&a, "%s", cli->eal_argv[i]);
	if (!user_has(cli, "--file-prefix"))
		add(&a, "--file-prefix=mrcd_%ld", (long)getpid());
	if (!user_has(cli, "-l") && !user_has(cli, "--lcores") && !user_has(cli, "-c") &&
		add_lcores(&a, cfg, cli->busy_cpus, err, errlen) != 0)
		return -EINVAL;
	/* DPDK 22.11 refuses --in-memory with --no-huge: the user's choice decides. */
	if (!no_huge && !in_mem) {
		/* Hugepages too few for the flows' buffers and QPs: ordinary memory, then. */
		const uint64_t need =
			((uint64_t)mrcd_config_memory_mb(cfg) << 20) + cli->extra_mem_bytes;

		if (mrc_hugepages_usable() &&
			(cli->extra_mem_bytes == 0 || hugepages_free_bytes() >= need)) {
			add(&a, "--in-memory");
		} else {
			add(&a, "--no-huge");
			if (!user_has(cli, "-m") && !user_has(cli, "--socket-mem"))
				add_mem(&a, cli, cfg);
			add(&a, "--no-shconf");
		}
	} else if (no_huge) {
		if (!user_has(cli, "-m") && !user_has(cli, "--socket-mem"))
			add_mem(&a, cli, cfg);
		/*
		 * Without it the EAL keeps its config and memory maps as files in
		 * the runtime directory, which then outlives mrcd (its exit
		 * removes only the telemetry socket and the empty directory), and
		 * a later process given the same pid inherits them.
		 */
		if (!user_has(cli, "--no-shconf"))
			add(&a, "--no-shconf");
	}
	if (cfg->ports.mode != MRCD_PORTS_ETHDEV && !user_has(cli, "--no-pci") &&
		!user_has(cli, "-a") && !user_has(cli, "--allow") && !user_has(cli, "-b") &&
		!user_has(cli, "--block"))
		add(&a, "--no-pci");
	/* The ICRC folds 512 bits at a time where the CPU can; DPDK wants that asked for. */
	if (!user_has(cli, "--force-max-simd-bitwidth"))
		add(&a, "--force-max-simd-bitwidth=512");
	if (cfg->ports.mode == MRCD_PORTS_ETHDEV)
		for (unsigned int i = 0; i < MRCD_CONFIG_MAX_VDEVS; i++) {
			const char *v = cfg->ports.vdev[i];

			if (v[0] != '\0' && !user_has_vdev(cli, v, strcspn(v, ",")) &&
				!other_hosts_vdev(cfg, v, strcspn(v, ",")))
				add(&a, "--vdev=%s", v);
		}
	if (a.full) {
		fail(err, errlen, "too many EAL arguments for %d entries and %zu bytes", max,
			buflen);
		return -ENOSPC;
	}
	argv[a.argc] = NULL;
	return a.argc;
}

void
mrcd_eal_cleanup(void)
{
	char runtime_dir[PATH_MAX], sock[PATH_MAX + 32];

	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	snprintf(sock, sizeof(sock), "%s/dpdk_telemetry.v2", runtime_dir);
	rte_eal_cleanup();
	unlink(sock);
	rmdir(runtime_dir);
}

int
mrcd_cli_format_argv(int argc, char *const *argv, char *buf, size_t len)
{
	size_t o = 0;

	if (len > 0)
		buf[0] = '\0';
	for (int i = 0; i < argc && o < len; i++) {
		const char *s = argv[i];
		const bool quote = s[0] == '\0' || strpbrk(s, " \t'\"*?$;&|<>()") != NULL;
		int n = snprintf(buf + o, len - o, "%s%s%s%s", i ? " " : "", quote ? "'" : "", s,
			quote ? "'" : "");

		if (n < 0)
			return n;
		o += (size_t)n;
	}
	return (int)o;
}
