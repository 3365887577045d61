/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, before the EAL starts (mrcd_service_start), on
 * SIGHUP from the control loop (mrcd_service_reload) and at exit
 * (mrcd_service_stop).
 *
 * Service mode (mrcd --service, doc/service.md): what a system service
 * needs besides the daemon itself.
 *
 *   directories  state in $STATE_DIRECTORY (systemd's StateDirectory=),
 *                else /var/lib/mrcd; runtime files in $RUNTIME_DIRECTORY
 *                (RuntimeDirectory=), else /run/mrcd. systemd passes a
 *                colon-separated list when the unit names several: the
 *                first is ours. Both are made when missing.
 *   files        the time series, the Prometheus file and --json named
 *                relatively go to the state directory, and the process
 *                works there (chdir), so nothing lands in / or wherever it
 *                was started; a pid file, locked while mrcd runs, in the
 *                runtime directory, where DPDK's runtime directory (the
 *                telemetry socket) and the CPU claims go too.
 *   run time     until SIGTERM or SIGINT ([daemon] duration_s is taken as
 *                0 unless --duration says otherwise).
 *   logs         DPDK's log stream to stderr, each line prefixed with its
 *                syslog level as <N> (sd-daemon(3)), which the journal
 *                reads as the message's priority.
 *   SIGHUP       (or mrcctl reload, served from the control loop) reads
 *                the configuration, the profile and the scenario again and
 *                checks all of it before changing anything. Unchanged:
 *                nothing to do. The profile's flows (mrcd_reload.h) and
 *                the scenario (the emulated fabric's fault timeline,
 *                handed to it whole: mrc_fabric_timeline_offer) are
 *                applied; anything else, or a broken file, is refused by
 *                name and the running set stays, every QP with it.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_log.h>

#include "mrcd_cli.h"
#include "mrcd_config.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_gen.h"
#include "mrcd_launch.h"
#include "mrcd_log.h"
#include "mrcd_reload.h"

#define STATE_DIR_DEFAULT   "/var/lib/mrcd"
#define RUNTIME_DIR_DEFAULT "/run/mrcd"

/* The first directory of a systemd list ("a:b"), or `def` when unset or empty. */
static int
dir_from_env(const char *var, const char *def, char *out, size_t len)
{
	const char *v = getenv(var);
	const size_t n = v != NULL && v[0] != '\0' ? strcspn(v, ":") : 0;

	if (n == 0)
		return snprintf(out, len, "%s", def) < (int)len ? 0 : -ENAMETOOLONG;
	if (v[0] != '/') {
		MRCD_LOG(ctrl, ERR, "service: %s=%s: must be an absolute directory", var, v);
		return -EINVAL;
	}
	return snprintf(out, len, "%.*s", (int)n, v) < (int)len ? 0 : -ENAMETOOLONG;
}

/* mkdir -p, mode 0755 for what it makes. */
static int
make_dir(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		return -errno;
	return access(p, W_OK) == 0 ? 0 : -errno;
}

/* A relative output path (not "none") moved under the state directory. */
static int
under_state(const char *state, char *path, size_t len, const char *what)
{
	char tmp[PATH_MAX];

	if (path[0] == '\0' || path[0] == '/' || strcmp(path, "none") == 0)
		return 0;
	if (snprintf(tmp, sizeof(tmp), "%s/%s", state, path) >= (int)RTE_MIN(len, sizeof(tmp))) {
		MRCD_LOG(ctrl, ERR, "service: %s %s under %s: path too long", what, path, state);
		return -ENAMETOOLONG;
	}
	snprintf(path, len, "%s", tmp);
	return 0;
}

/* What service mode changes in a loaded configuration (at start, and on reload to compare). */
static int
adjust_config(const struct mrcd_daemon *d, struct mrcd_config *cfg)
{
	int rc;

	if (!d->cli.duration_set)
		cfg->daemon.duration_s = 0;
	rc = under_state(d->svc.state_dir, cfg->telemetry.timeseries,
		sizeof(cfg->telemetry.timeseries), "[telemetry] timeseries");
	if (rc == 0)
		rc = under_state(d->svc.state_dir, cfg->telemetry.prometheus,
			sizeof(cfg->telemetry.prometheus), "[telemetry] prometheus");
	return rc;
}

/* An input path made absolute, so that it still names the file after the chdir. */
static int
absolute(char *path, size_t len)
{
	char real[PATH_MAX];

	if (path[0] == '\0' || path[0] == '/')
		return 0;
	if (realpath(path, real) == NULL) {
		MRCD_LOG(ctrl, ERR, "service: %s: %s", path, strerror(errno));
		return -errno;
	}
	if (strlen(real) >= len)
		return -ENAMETOOLONG;
	snprintf(path, len, "%s", real);
	return 0;
}

/* FNV-1a of a file's bytes (0 for no file), to tell a changed scenario. */
static uint64_t
file_hash(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull;
	FILE *f;
	int c;

	if (path[0] == '\0')
		return 0;
	f = fopen(path, "rb");
	if (f == NULL)
		return 1; /* unreadable: differs from any hash of a file that was read */
	while ((c = fgetc(f)) != EOF)
		h = (h ^ (uint8_t)c) * 0x100000001b3ull;
	fclose(f);
	return h;
}

/* The pid file, locked for as long as this process lives: a second service is refused. */
static int
pid_file_take(struct mrcd_daemon *d)
{
	char text[32];
	int fd, n;

	if (snprintf(d->svc.pid_file, sizeof(d->svc.pid_file), "%s/mrcd.pid", d->svc.runtime_dir) >=
		(int)sizeof(d->svc.pid_file))
		return -ENAMETOOLONG;
	fd = open(d->svc.pid_file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		MRCD_LOG(ctrl, ERR, "service: pid file %s: %s", d->svc.pid_file, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		n = (int)read(fd, text, sizeof(text) - 1);
		text[n > 0 ? n : 0] = '\0';
		text[strcspn(text, "\n")] = '\0';
		MRCD_LOG(ctrl, ERR, "service: another mrcd runs from %s (pid %s): stop it first",
			d->svc.runtime_dir, text[0] ? text : "unknown");
		close(fd);
		d->svc.pid_file[0] = '\0';
		return -EBUSY;
	}
	n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || write(fd, text, (size_t)n) != n) {
		MRCD_LOG(ctrl, ERR, "service: pid file %s: %s", d->svc.pid_file, strerror(errno));
		close(fd);
		unlink(d->svc.pid_file);
		d->svc.pid_file[0] = '\0';
		return -EIO;
	}
	d->svc.pid_fd = fd;
	return 0;
}

/*
 * DPDK's log messages to stderr with their syslog level in front: rte_log
 * levels are 1 (emergency) .. 8 (debug), syslog's 0 .. 7. rte_vlog() writes
 * and flushes one message at a time, so each write holds whole lines of
 * one message, whose level rte_log_cur_msg_loglevel() still knows.
 */
static ssize_t
journal_write(void *cookie, const char *buf, size_t len)
{
	const int lvl = rte_log_cur_msg_loglevel();
	const int prio = lvl >= 1 && lvl <= 8 ? lvl - 1 : 6;
	size_t off = 0;

	(void)cookie;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		const size_t n = nl != NULL ? (size_t)(nl - (buf + off)) : len - off;

		dprintf(STDERR_FILENO, "<%d>%.*s\n", prio, (int)n, buf + off);
		off += n + (nl != NULL ? 1 : 0);
	}
	return (ssize_t)len;
}

static int
journal_log(void)
{
	static char line[4096];
	const cookie_io_functions_t io = {.write = journal_write};
	FILE *f = fopencookie(NULL, "w", io);

	if (f == NULL || setvbuf(f, line, _IOFBF, sizeof(line)) != 0 ||
		rte_openlog_stream(f) != 0) {
		MRCD_LOG(ctrl, ERR, "service: cannot set up the log stream");
		return -EIO;
	}
	return 0;
}

int
mrcd_service_start(struct mrcd_daemon *d)
{
	int rc;

	d->svc.pid_fd = -1;
	/* systemd's $NOTIFY_SOCKET, with or without --service: a unit of Type=notify waits */
	(void)mrcd_notify_open(&d->svc.notify);
	if (!d->cli.service)
		return 0;
	rc = journal_log();
	if (rc == 0)
		rc = dir_from_env("STATE_DIRECTORY", STATE_DIR_DEFAULT, d->svc.state_dir, PATH_MAX);
	if (rc == 0)
		rc = dir_from_env(
			"RUNTIME_DIRECTORY", RUNTIME_DIR_DEFAULT, d->svc.runtime_dir, PATH_MAX);
	if (rc != 0)
		return rc;
	/*
	 * DPDK puts its own runtime directory (dpdk/<file prefix>: the telemetry
	 * socket) under $RUNTIME_DIRECTORY when set, and takes the whole value as
	 * one path: give it ours alone.
	 */
	if (setenv("RUNTIME_DIRECTORY", d->svc.runtime_dir, 1) != 0)
		return -errno;
	rc = make_dir(d->svc.state_dir);
	if (rc == 0)
		rc = make_dir(d->svc.runtime_dir);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "service: cannot make %s or %s: %s", d->svc.state_dir,
			d->svc.runtime_dir, strerror(-rc));
		return rc;
	}
	rc = absolute(d->cli.config, sizeof(d->cli.config));
	if (rc == 0)
		rc = absolute(d->profile_path, sizeof(d->profile_path));
	if (rc == 0)
		rc = absolute(d->scenario_path, sizeof(d->scenario_path));
	if (rc == 0)
		rc = adjust_config(d, &d->cfg);
	if (rc == 0)
		rc = under_state(d->svc.state_dir, d->cli.json, sizeof(d->cli.json), "--json");
	if (rc != 0)
		return rc;
	rc = pid_file_take(d);
	if (rc != 0)
		return rc;
	if (chdir(d->svc.state_dir) != 0) {
		rc = -errno;
		MRCD_LOG(ctrl, ERR, "service: chdir %s: %s", d->svc.state_dir, strerror(errno));
		return rc;
	}
	d->svc.scenario_hash = file_hash(d->scenario_path);
	MRCD_LOG(ctrl, NOTICE,
		"service: pid %ld, state in %s, runtime files in %s, config %s, traffic %s",
		(long)getpid(), d->svc.state_dir, d->svc.runtime_dir, d->cli.config,
		d->no_traffic	     ? "none"
		: d->profile_path[0] ? d->profile_path
				     : "built-in");
	return 0;
}

void
mrcd_service_stop(struct mrcd_daemon *d)
{
	mrcd_notify_close(&d->svc.notify);
	if (!d->cli.service || d->svc.pid_fd < 0)
		return;
	/* Unlinked while still locked: a successor never locks a file about to vanish. */
	unlink(d->svc.pid_file);
	close(d->svc.pid_fd);
	d->svc.pid_fd = -1;
}

/* The profile as the text mrcd --check prints of it. NULL when out of memory. */
static char *
profile_text(const struct mrcd_profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL)
		return NULL;
	mrcd_profile_print(f, p, "");
	fclose(f);
	return buf;
}

/* The first line where two texts differ, into `out`. */
static void
first_diff(const char *a, const char *b, char *out, size_t len)
{
	while (*a != '\0' && *b != '\0') {
		const size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");

		if (na != nb || strncmp(a, b, na) != 0) {
			snprintf(out, len, "'%.*s' -> '%.*s'", (int)na, a, (int)nb, b);
			return;
		}
		a += na + (a[na] != '\0');
		b += nb + (b[nb] != '\0');
	}
	snprintf(out, len, "'%.60s' -> '%.60s'", a, b);
}

/* What a reload would change, found by reload_check (nothing changed yet). */
struct reload_plan {
	bool flows;	     /* the profile's flows change (the new profile in next) */
	unsigned int n_live; /* keys that apply live differ (said in live_what) */
	bool shape;	     /* of those, one that shapes messages */
	char live_what[400];
	struct mrc_fabric_timeline *tl;	      /* the new fault timeline; NULL: the scenario stays */
	char scenario[PATH_MAX];	      /* its file ("" = none) */
	char flows_what[640], scen_what[640]; /* each change, said */
};

/*
 * The scenario a reload names: nothing (the same file, same bytes), a new
 * fault timeline parsed into plan->tl, or a refusal. 0, 1 refused, <0 a
 * file that does not check out; `what` says which.
 */
static int
reload_scenario(struct mrcd_daemon *d, const struct mrcd_config *cfg, struct reload_plan *plan,
	char *what, size_t len)
{
	static char was[PATH_MAX], err[512];
	char *scenario = plan->scenario;

	mrcd_cli_scenario(&d->cli, cfg, scenario, PATH_MAX);
	if (d->cfg.ports.mode != MRCD_PORTS_FABRIC) {
		/* Ignored at start (no emulated fabric here): only a change is refused. */
		mrcd_cli_scenario(&d->cli, &d->cfg, was, sizeof(was));
		if (strcmp(was, scenario) != 0) {
			snprintf(what, len,
				"scenario %.900s -> %.900s: [ports] mode = %s: no emulated "
				"fabric in this process (a cluster over mrc-fabric: the "
				"scenario is mrc-fabric's)",
				was[0] ? was : "none", scenario[0] ? scenario : "none",
				d->cfg.ports.mode == MRCD_PORTS_LOOP ? "loop" : "ethdev");
			return 1;
		}
		return 0;
	}
	if (absolute(scenario, PATH_MAX) != 0) {
		snprintf(what, len, "scenario %.1000s cannot be read", scenario);
		return -ENOENT;
	}
	if (strcmp(scenario, d->scenario_path) == 0 && file_hash(scenario) == d->svc.scenario_hash)
		return 0;
	if (d->svc.timeline != NULL) {
		snprintf(what, len,
			"scenario %.1000s: the fabric has not taken the previous reload's timeline "
			"yet; try again in a moment",
			scenario[0] ? scenario : "none");
		return 1;
	}
	/* Parsed in full now: a broken file changes nothing. */
	plan->tl = mrc_fabric_timeline_load(d->fab, scenario, err, sizeof(err));
	if (plan->tl == NULL) {
		snprintf(what, len, "scenario: %.1000s", err);
		return -EINVAL;
	}
	snprintf(plan->scen_what, sizeof(plan->scen_what),
		"the scenario %.280s -> %.280s%s: %u changes from now",
		d->scenario_path[0] ? d->scenario_path : "none", scenario[0] ? scenario : "none",
		strcmp(scenario, d->scenario_path) == 0 ? " (its contents)" : "",
		mrc_fabric_timeline_events(plan->tl));
	return 0;
}

/*
 * Everything a reload reads, checked against the running set, changing
 * nothing: 0 (`plan` says what would change: possibly nothing), 1 a
 * change that cannot be applied at run time, <0 a file that does not
 * check out. `what` names the first difference or the error. The new
 * profile lands in `next`, its path in `path`.
 */
static int
reload_check(struct mrcd_daemon *d, struct mrcd_profile *next, char *path, struct reload_plan *plan,
	char *what, size_t len)
{
	static struct mrcd_config cfg;
	static char err[1024], diff[512];
	struct mrcd_launch launch;
	char *now_text, *new_text;
	size_t n1, n2;
	int rc;

	rc = mrcd_launch_from_env(&launch, err, sizeof(err));
	if (rc == 0)
		rc = mrcd_config_load_launch(
			&cfg, d->cli.config, d->cli.sets, d->cli.n_sets, &launch, err, sizeof(err));
	if (rc == 0)
		rc = mrcd_cli_apply(&d->cli, &cfg, err, sizeof(err));
	if (rc == 0)
		rc = adjust_config(d, &cfg);
	if (rc != 0) {
		snprintf(what, len, "%s", err);
		return rc;
	}
	/* The profile and the scenario may name other files: what they hold is compared below. */
	mrcd_cli_profile(&d->cli, &cfg, path, PATH_MAX);
	rc = reload_scenario(d, &cfg, plan, what, len);
	if (rc != 0)
		return rc;
	snprintf(cfg.daemon.profile, sizeof(cfg.daemon.profile), "%s", d->cfg.daemon.profile);
	snprintf(cfg.daemon.scenario, sizeof(cfg.daemon.scenario), "%s", d->cfg.daemon.scenario);
	if (mrcd_config_diff(&d->cfg, &cfg, diff, sizeof(diff)) != 0) {
		snprintf(what, len,
			"%.1000s: %.500s: ports, lcores, hosts and memory are set up at start",
			d->cli.config, diff);
		return 1;
	}
	if (mrcd_cli_no_traffic(&d->cli, &cfg) != d->no_traffic) {
		snprintf(what, len, "the profile: %s: a run's message slots are made at start",
			d->no_traffic ? "none -> one" : "-> none");
		return 1;
	}
	if (d->no_traffic)
		return 0;
	if (absolute(path, PATH_MAX) != 0) {
		snprintf(what, len, "profile %.1000s cannot be read", path);
		return -ENOENT;
	}
	rc = mrcd_profile_load_set(
		next, path, d->cli.profile_sets, d->cli.n_profile_sets, err, sizeof(err));
	if (rc != 0) {
		snprintf(what, len, "profile: %.1000s", err);
		return rc;
	}
	if (mrcd_reload_profile_check(&d->prof, next, diff, sizeof(diff)) != 0) {
		snprintf(what, len, "profile %.1000s: %.500s", path, diff);
		return 1;
	}
	plan->n_live = mrcd_reload_profile_live(
		&d->prof, next, &plan->shape, plan->live_what, sizeof(plan->live_what));
	plan->flows = mrcd_reload_profile_flows(&d->prof, next);
	if (plan->flows) {
		now_text = profile_text(&d->prof, &n1);
		new_text = profile_text(next, &n2);
		if (now_text == NULL || new_text == NULL) {
			free(now_text);
			free(new_text);
			snprintf(what, len, "out of memory");
			return -ENOMEM;
		}
		first_diff(now_text, new_text, diff, sizeof(diff));
		snprintf(plan->flows_what, sizeof(plan->flows_what), "profile %.200s: %.200s", path,
			diff);
		free(now_text);
		free(new_text);
	} else if (plan->n_live > 0) {
		snprintf(plan->flows_what, sizeof(plan->flows_what), "profile %.200s: %.400s", path,
			plan->live_what);
	}
	return 0;
}

/*
 * The profile's change, applied: the live keys' new parameter block (checked
 * first: it may still refuse), then the flows' change (which may refuse,
 * nothing changed), then the block published to the workers.
 */
static int
reload_apply(struct mrcd_daemon *d, const struct mrcd_profile *next, const char *path,
	struct reload_plan *plan, char *what, size_t len)
{
	const uint64_t now = rte_rdtsc();
	const unsigned int first_new = d->n_flows;
	struct mrcd_gen_params *g = NULL;
	char how[512] = "";
	int rc;

	if (plan->n_live > 0) {
		rc = mrcd_reload_params_check(d, next, plan->shape, &g, how, sizeof(how));
		if (rc < 0) {
			snprintf(what, len, "%.600s: %.500s", plan->flows_what, how);
			return 1;
		}
	}
	if (plan->flows) {
		rc = mrcd_reload_flows(d, next, now, how, sizeof(how));
		if (rc == 0)
			snprintf(how, sizeof(how), "the same flows");
		if (rc < 0) {
			free(g);
			snprintf(what, len, "%.600s: %.500s", plan->flows_what, how);
			return 1;
		}
		/* Only what chose the flows differs, and no worker reads these keys (mrcd_gen.c).
		 */
		d->prof.pattern = next->pattern;
		d->prof.incast_target = next->incast_target;
		d->prof.qps_per_peer = next->qps_per_peer;
	}
	if (g != NULL) {
		mrcd_reload_params_publish(d, g, first_new);
		MRCD_LOG(ctrl, INFO, "reload: the workers take %s from their next pass%s",
			plan->live_what,
			plan->shape ? "; messages posted before keep their sizes" : "");
	}
	snprintf(d->prof.path, sizeof(d->prof.path), "%s", next->path);
	snprintf(d->profile_path, sizeof(d->profile_path), "%s", path);
	snprintf(plan->flows_what, sizeof(plan->flows_what), "the profile %.200s: %.200s%s%.200s",
		path, plan->n_live > 0 ? plan->live_what : "",
		plan->n_live > 0 && how[0] ? "; " : "", how);
	return 0;
}

/* The new fault timeline to the fabric's poller; freed when taken (mrcd_service_tick). */
static int
reload_scenario_apply(struct mrcd_daemon *d, struct reload_plan *plan, char *what, size_t len)
{
	const int rc = mrc_fabric_timeline_offer(d->fab, plan->tl);

	if (rc != 0) {
		/* Checked beforehand (one offer at a time, control the only offerer). */
		snprintf(what, len, "%.600s: the fabric refused the timeline: %s", plan->scen_what,
			strerror(-rc));
		return 1;
	}
	d->svc.timeline = plan->tl;
	plan->tl = NULL;
	snprintf(d->scenario_path, sizeof(d->scenario_path), "%s", plan->scenario);
	d->svc.scenario_hash = file_hash(d->scenario_path);
	return 0;
}

void
mrcd_service_timeline_drop(struct mrcd_daemon *d)
{
	struct mrc_fabric_timeline *tl = d->svc.timeline;

	if (tl == NULL || d->fab == NULL)
		return;
	/* The poller has stopped: either it never took it, or it finished taking it. */
	if (!mrc_fabric_timeline_withdraw(d->fab, tl) && !mrc_fabric_timeline_taken(tl, NULL))
		MRCD_LOG(ctrl, ERR, "reload: the fabric is taking the timeline as it stops");
	else
		mrc_fabric_timeline_free(tl);
	d->svc.timeline = NULL;
}

/* The previous reload's timeline, once the fabric took it: said, and freed. */
static void
timeline_tick(struct mrcd_daemon *d)
{
	uint64_t t_ns;

	if (d->svc.timeline == NULL || !mrc_fabric_timeline_taken(d->svc.timeline, &t_ns))
		return;
	MRCD_LOG(ctrl, NOTICE,
		"reload: the fabric runs scenario %s from its t=%" PRIu64 ".%03" PRIu64
		" s (the scenario's t = 0)",
		d->scenario_path[0] ? d->scenario_path : "none", t_ns / 1000000000u,
		t_ns / 1000000u % 1000u);
	mrc_fabric_timeline_free(d->svc.timeline);
	d->svc.timeline = NULL;
}

/*
 * Check everything, then apply the flows' change (which may still refuse,
 * nothing changed), then hand the fabric its new timeline (which cannot
 * refuse once checked). 0 unchanged, 2 applied, 1 refused, <0 a bad file.
 */
static int
reload(struct mrcd_daemon *d, char *what, size_t len)
{
	static char path[PATH_MAX];
	static struct mrcd_profile next;
	static struct reload_plan plan;
	int rc;

	memset(&plan, 0, sizeof(plan));
	rc = reload_check(d, &next, path, &plan, what, len);
	if (rc == 0 && (plan.flows || plan.n_live > 0))
		rc = reload_apply(d, &next, path, &plan, what, len);
	if (rc == 0 && plan.tl != NULL)
		rc = reload_scenario_apply(d, &plan, what, len);
	mrc_fabric_timeline_free(plan.tl); /* refused: never offered */
	if (rc != 0)
		return rc;
	if (!plan.flows && plan.n_live == 0 && plan.scen_what[0] == '\0')
		return 0;
	snprintf(what, len, "%s%s%s", plan.flows_what,
		plan.flows_what[0] && plan.scen_what[0] ? "; " : "", plan.scen_what);
	return 2;
}

void
mrcd_service_reload(struct mrcd_daemon *d, const char *by)
{
	static char what[2048];
	char msg[640];
	int rc, n;

	/* systemd >= 253 (Type=notify-reload) matches RELOADING=1 to its signal by the time */
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=reloading",
		mrcd_notify_monotonic_usec());
	mrcd_notify_send(&d->svc.notify, msg);
	what[0] = '\0';
	rc = reload(d, what, sizeof(what));
	d->svc.reloads++;
	if (rc == 0 || rc == 2)
		__atomic_store_n(&d->svc.reloads_ok, d->svc.reloads_ok + 1, __ATOMIC_RELAXED);
	else
		__atomic_store_n(
			&d->svc.reloads_refused, d->svc.reloads_refused + 1, __ATOMIC_RELAXED);
	if (rc == 0)
		snprintf(what, sizeof(what),
			"configuration, profile and scenario unchanged: nothing to reload");
	if (rc == 0)
		MRCD_LOG(ctrl, NOTICE, "%s: %s, every QP kept", by, what);
	else if (rc == 2)
		MRCD_LOG(ctrl, NOTICE, "%s: reloaded %s; the flows kept keep their QPs", by, what);
	else if (rc > 0)
		MRCD_LOG(ctrl, WARNING,
			"%s: refused a change (%s); a restart applies it; running as before, "
			"every QP kept",
			by, what);
	else
		MRCD_LOG(ctrl, ERR, "%s: refused: %s. Still running as before, every QP kept", by,
			what);
	d->svc.answer_rc = rc;
	snprintf(d->svc.answer, sizeof(d->svc.answer), "%s", what);
	n = snprintf(msg, sizeof(msg), "READY=1\nSTATUS=reload %" PRIu64 " %s; ", d->svc.reloads,
		rc == 0 || rc == 2 ? "taken" : "refused");
	mrcd_service_status(d, msg + n, sizeof(msg) - (size_t)n);
	mrcd_notify_send(&d->svc.notify, msg);
}

void
mrcd_service_reload_tick(struct mrcd_daemon *d)
{
	const uint32_t ask = __atomic_load_n(&d->svc.ask, __ATOMIC_ACQUIRE);

	timeline_tick(d);
	if (ask == d->svc.done)
		return;
	if (d->phase == MRCD_RUN) {
		mrcd_service_reload(d, "mrcctl reload");
	} else {
		d->svc.answer_rc = 1;
		snprintf(d->svc.answer, sizeof(d->svc.answer),
			"the run is ending (draining): nothing reloads now");
	}
	__atomic_store_n(&d->svc.done, ask, __ATOMIC_RELEASE);
}
