/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_CLI_H
#define MRCD_CLI_H

/*
 * mrcd's command line:
 *
 *   mrcd [EAL options] -- [mrcd options]
 *   mrcd [mrcd options]      when there is no "--" and the first argument is
 *                            an mrcd option (mrcd --check, mrcd -f x.ini)
 *   mrcd                     the built-in demo: config/mrcd.ini with the
 *                            profile and scenario it names
 *
 * mrcd options (mrcd --help prints them with their defaults):
 *   -f, --config FILE   the configuration (default config/mrcd.ini)
 *   --profile FILE      traffic profile (default: the config's [daemon] profile)
 *   --scenario FILE     fault scenario, or none (default: [daemon] scenario)
 *   --duration SECONDS  run time, 0 = until a signal (default: [daemon] duration_s)
 *   --set SEC.KEY=VAL   a config key over the file's ("transport.mtu=2048",
 *                       "host.1.t0=0"), checked like a line of the file
 *                       (mrcd_config_load_set()); repeatable, the last of a
 *                       key wins; "profile.KEY=VALUE" sets a profile key
 *   --check             validate config, profile and scenario, print the
 *                       effective config, exit 0 (or 1 with the error)
 *   --json FILE         write the summary as JSON too
 *   --service           a system service (app/mrcd/control/mrcd_service.c):
 *                       until stopped, config MRCD_SERVICE_CONFIG_PATH
 *                       unless -f names one
 *   -h, --help          this list;  --version  mrcd's and DPDK's versions
 * Values come as "--opt VALUE" or "--opt=VALUE" ("-f FILE" or "-fFILE").
 *
 * Input files named relatively (the default config included) are looked up
 * in the current directory first, then in the source tree mrcd was built
 * from (MRCD_SOURCE_ROOT), so `build/app/mrcd/mrcd` works from anywhere in
 * a checkout and `mrcd -- -f config/examples/null.ini` from anywhere at all.
 * The profile and scenario a config names are relative to the config's
 * directory (mrcd_config_resolve()).
 *
 * EAL defaults (mrcd_cli_eal_argv()): what the user gives wins; mrcd adds
 * only what is missing:
 *   --file-prefix=mrcd_<pid>      a runtime directory and telemetry socket of
 *                                 this instance's own
 *   -l <main>,<workers>[,<fabric>] --main-lcore=<main>
 *                                 explicit lcores from the CPUs this process
 *                                 may run on (taskset, cgroups): main (the
 *                                 first; it sleeps between control ticks, so
 *                                 instances may share it), then [lcores]
 *                                 workers and the fabric's own lcore with
 *                                 [lcores] fabric = own, which poll: they take
 *                                 CPUs not in `busy_cpus` (those other mrcd
 *                                 instances poll on, mrcd_cpus.c), other than
 *                                 main's when they can. When a poller must sit
 *                                 on main's CPU, lcores are mapped instead:
 *                                 --lcores=0@<main>,1@<cpu>,... --main-lcore=0.
 *   --in-memory                   when hugepages are usable, else
 *   --no-huge -m <MB> --no-shconf (mrc_hugepages_usable(); MRC_NO_HUGE=1 forces
 *                                 it), with -m from mrcd_config_memory_mb()
 *   --no-pci                      on the emulated fabric (no NIC is needed)
 *   --vdev <arg>                  for each [ports] vdev.<n> the user did not name,
 *                                 but a device only other processes' hosts
 *                                 have as a port (one file for a cluster)
 *
 * Nothing here exits or prints but --help and --version (to stdout).
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mrcd_config.h"

#define MRCD_CLI_MAX_SETS 64 /* --set options at most, of each kind */

struct mrcd_cli {
	const char *prog;      /* argv[0] */
	int eal_argc;	       /* the user's EAL arguments: eal_argv[0 .. eal_argc) */
	char **eal_argv;       /* (pointers into argv; not NULL-terminated) */
	char config[PATH_MAX]; /* resolved; the default when not given */
	bool config_given;
	char profile[PATH_MAX];	 /* resolved; "" = the config's [daemon] profile */
	char scenario[PATH_MAX]; /* resolved; "" = [daemon] scenario; "none" = none */
	char json[PATH_MAX];	 /* "" = no JSON summary */
	bool duration_set;
	uint32_t duration_s;
	const char *sets[MRCD_CLI_MAX_SETS]; /* --set values for the config (into argv) */
	unsigned int n_sets;
	const char *profile_sets[MRCD_CLI_MAX_SETS]; /* --set profile.KEY=VALUE */
	unsigned int n_profile_sets;
	bool check;
	bool service;	    /* --service */
	uint64_t busy_cpus; /* CPUs other instances poll on (bit n: CPU n); set by the caller */
	uint64_t extra_mem_bytes; /* the flows' buffers and QPs, added to -m; set by the caller */
};

/*
 * Parse the command line. 0; 1 when --help or --version was printed (exit
 * 0); -EINVAL with `err` naming the bad argument.
 */
int mrcd_cli_parse(int argc, char **argv, struct mrcd_cli *out, char *err, size_t errlen);

/* The --help text (what mrcd_cli_parse() prints). */
void mrcd_cli_usage(FILE *f, const char *prog);
/* The --version text. */
void mrcd_cli_version(FILE *f);

/*
 * The command line's overrides of the config (--duration), then
 * mrcd_config_check(). 0 or -EINVAL with `err`.
 */
int mrcd_cli_apply(const struct mrcd_cli *cli, struct mrcd_config *cfg, char *err, size_t errlen);

/* The installed configuration a service reads when -f names none. */
#ifndef MRCD_SERVICE_CONFIG_PATH
#define MRCD_SERVICE_CONFIG_PATH "/etc/mrcd/mrcd.ini"
#endif

/* The profile is none (--profile none, or [daemon] profile = none): no traffic of its own. */
bool mrcd_cli_no_traffic(const struct mrcd_cli *cli, const struct mrcd_config *cfg);

/*
 * The profile and scenario to use: the command line's, else the config's;
 * "" = the built-in profile (when mrcd_cli_no_traffic(), unused), no scenario.
 */
int mrcd_cli_profile(
	const struct mrcd_cli *cli, const struct mrcd_config *cfg, char *buf, size_t len);
int mrcd_cli_scenario(
	const struct mrcd_cli *cli, const struct mrcd_config *cfg, char *buf, size_t len);

/*
 * The argv for rte_eal_init(): argv[0], the user's EAL arguments, then the
 * defaults above that they leave out. The strings are copied into buf, which
 * must outlive the EAL (rte_eal_init() may reorder argv, not the strings);
 * argv gets at most max - 1 pointers and a NULL. Returns argc, -ENOSPC (argv
 * or buf too small; 4 KiB and 64 entries are plenty), or -EINVAL with `err`
 * (e.g. fewer CPUs than the lcores [lcores] asks for).
 */
int mrcd_cli_eal_argv(const struct mrcd_cli *cli, const struct mrcd_config *cfg, char **argv,
	int max, char *buf, size_t buflen, char *err, size_t errlen);

/*
 * An input file named on a command line: as given when it exists (or is
 * absolute), else in the source tree mrcd was built from. 0, -EINVAL (NULL)
 * or -ENAMETOOLONG.
 */
int mrcd_cli_resolve_input(const char *in, char *out, size_t len);

/*
 * Stop the EAL and remove what it leaves behind: the EAL never removes its
 * runtime directory, and telemetry unlinks its socket only from an atexit
 * handler, so a stopped process would leave both in /var/run/dpdk.
 */
void mrcd_eal_cleanup(void);

/* The user chose the CPUs (-l, --lcores or -c among the EAL arguments). */
bool mrcd_cli_user_lcores(const struct mrcd_cli *cli);

/* One line for logs: the arguments separated by blanks, quoted where needed. */
int mrcd_cli_format_argv(int argc, char *const *argv, char *buf, size_t len);

#endif /* MRCD_CLI_H */
