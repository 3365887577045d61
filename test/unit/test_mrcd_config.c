/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrcd's configuration and command line: the key table, defaults, the
 * shipped config and examples, every kind of bad file and its exact message
 * (file:line, section, key), print -> load round trips, the library structs
 * the config turns into, and the command line with the EAL arguments it
 * builds. No EAL is started.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrc_env.h"
#include "mrc_test.h"
#include "mrcd_cli.h"
#include "mrcd_config.h"
#include "mrcd_launch.h"
#include "mrcd_gen.h"
#include "mrcd_config_priv.h"
#include "mrcd_ini.h"
#include "mrc_qp_defaults.h"

#define TSC_HZ UINT64_C(2500000000)

static char tmpdir[64];

/* ---- helpers ---- */

/* Remove the files the cases wrote (one level, all regular files). */
static void
remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char path[PATH_MAX];

	while (d != NULL && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && snprintf(path, sizeof(path), "%s/%s", tmpdir,
						   e->d_name) < (int)sizeof(path))
			unlink(path);
	if (d != NULL)
		closedir(d);
	rmdir(tmpdir);
}

static int
make_tmpdir(void)
{
	if (tmpdir[0] != '\0')
		return 0;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/mrc_test_cfg_XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	return atexit(remove_tmpdir);
}

/* Write `text` to <tmpdir>/<name>; path gets the file's name. */
static int
write_tmp(const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	if (make_tmpdir() != 0)
		return -1;
	snprintf(path, len, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A shipped file, found as mrcd finds it (cwd, then the source tree). */
static int
shipped(const char *rel, char *out, size_t len)
{
	char *argv[] = {"mrcd", "-f", (char *)(uintptr_t)rel, NULL};
	struct mrcd_cli cli;
	char err[256];

	if (mrcd_cli_parse(3, argv, &cli, err, sizeof(err)) != 0 || access(cli.config, R_OK) != 0)
		return -1;
	snprintf(out, len, "%s", cli.config);
	return 0;
}

/* Print cfg to a file, load it back, compare key by key. */
static int
round_trip(const struct mrcd_config *cfg, const char *name)
{
	static struct mrcd_config back;
	char path[256], err[512], diff[512], line[1024];
	FILE *f;

	MRC_T_ASSERT(make_tmpdir() == 0, "mkdtemp");
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	MRC_T_ASSERT(f != NULL, "fopen %s", path);
	mrcd_config_print(f, cfg);
	MRC_T_EQ(fclose(f), 0);
	/* rte_cfgfile reads lines of at most 320 characters. */
	f = fopen(path, "r");
	MRC_T_ASSERT(f != NULL, "reopen");
	while (fgets(line, sizeof(line), f) != NULL)
		MRC_T_ASSERT(strlen(line) <= MRCD_INI_LINE_MAX - 1, "long line: %s", line);
	fclose(f);
	MRC_T_ASSERT(
		mrcd_config_load(&back, path, err, sizeof(err)) == 0, "reload %s: %s", name, err);
	MRC_T_ASSERT(mrcd_config_diff(cfg, &back, diff, sizeof(diff)) == 0, "%s: %s", name, diff);
	MRC_T_ASSERT(mrcd_config_diff(&back, cfg, diff, sizeof(diff)) == 0, "%s: %s", name, diff);
	return MRC_TEST_OK;
}

/*
 * Load `text` as <name>; expect `rc` and a message that starts with
 * want_prefix (where "@" stands for the file's path) and contains want_sub.
 */
static int
expect_error(
	const char *name, const char *text, int rc, const char *want_prefix, const char *want_sub)
{
	static struct mrcd_config cfg, before;
	char path[256], err[512], prefix[512];
	const char *at = strchr(want_prefix, '@');
	int got;

	MRC_T_ASSERT(write_tmp(name, text, path, sizeof(path)) == 0, "write %s", name);
	mrcd_config_defaults(&cfg);
	before = cfg;
	got = mrcd_config_load(&cfg, path, err, sizeof(err));
	MRC_T_ASSERT(got == rc, "%s: rc %d, want %d (%s)", name, got, rc, got ? err : "");
	snprintf(prefix, sizeof(prefix), "%.*s%s%s", (int)(at - want_prefix), want_prefix, path,
		at + 1);
	MRC_T_ASSERT(strncmp(err, prefix, strlen(prefix)) == 0,
		"%s:\n    got:  %s\n    want: %s...", name, err, prefix);
	MRC_T_ASSERT(strstr(err, want_sub) != NULL, "%s: '%s' lacks '%s'", name, err, want_sub);
	/* A failed load leaves the struct alone. */
	MRC_T_ASSERT(memcmp(&cfg, &before, sizeof(cfg)) == 0, "%s: config changed", name);
	return MRC_TEST_OK;
}

/* ---- the table and the defaults ---- */

static int
test_schema(void)
{
	char why[256];

	MRC_T_ASSERT(mrcd_ini_schema_check(&mrcd_config_schema, why, sizeof(why)) == 0, "%s", why);
	return MRC_TEST_OK;
}

static int
test_defaults_valid(void)
{
	static struct mrcd_config c;
	struct mrc_wire_cfg w, wd;
	struct mrc_qp_attr a;
	struct mrc_fabric_cfg f;
	char err[512];

	mrcd_config_defaults(&c);
	MRC_T_ASSERT(mrcd_config_check(&c, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(c.daemon.hosts, 2);
	MRC_T_EQ(c.daemon.planes, 8);
	MRC_T_EQ(c.daemon.duration_s, 6);
	MRC_T_EQ(c.daemon.drain_ms, 500);
	MRC_T_EQ(c.ports.mode, MRCD_PORTS_FABRIC);
	MRC_T_STREQ(c.telemetry.timeseries, "mrcd-timeseries.jsonl");
	MRC_T_STREQ(c.telemetry.prometheus, "mrcd.prom");
	MRC_T_EQ(c.telemetry.timeseries_interval_ms, 100);
	MRC_T_ASSERT(c.telemetry.console, "console on");
	/* The wire defaults are the library's (field by field: the struct has padding). */
	mrcd_config_wire(&c, &w);
	mrc_wire_cfg_defaults(&wd);
	MRC_T_MEMEQ(&w.dscp, &wd.dscp, sizeof(w.dscp));
	MRC_T_ASSERT(w.ev_split == wd.ev_split && w.sack_bit_order == wd.sack_bit_order &&
			     w.verify_icrc == wd.verify_icrc && w.udp_checksum == wd.udp_checksum,
		"wire options");
	MRC_T_EQ(mrcd_config_qp_attr(&c, TSC_HZ, &a), 0);
	MRC_T_EQ(a.ev.n_active, MRC_EV_DEF_N_ACTIVE);
	MRC_T_EQ(a.ev.n_backup, MRC_EV_DEF_N_BACKUP);
	MRC_T_EQ(a.ev.ev_min_active, MRC_EV_DEF_N_ACTIVE / 4);
	MRC_T_STREQ(a.cc_name, MRC_CC_NSCC);
	/* The protocol's options: off but ALWAYS_SKIP; on, both ends of a QP agree. */
	MRC_T_ASSERT(!a.dyn_mpr && !a.peer_dyn_mpr && !a.tseth, "dynamic MPR and TSETH off");
	MRC_T_EQ(a.always_skip_marks, MRC_QP_DEF_ALWAYS_SKIP_MARKS);
	c.transport.dyn_mpr = true;
	c.transport.tseth = true;
	c.transport.always_skip_marks = 0;
	MRC_T_EQ(mrcd_config_qp_attr(&c, TSC_HZ, &a), 0);
	MRC_T_ASSERT(a.dyn_mpr && a.peer_dyn_mpr && a.tseth, "dynamic MPR and TSETH on");
	MRC_T_EQ(a.always_skip_marks, 0);
	MRC_T_EQ(mrcd_config_fabric(&c, TSC_HZ, &f), 0);
	return MRC_TEST_OK;
}

/*
 * Every key of the table is in config/mrcd.ini: set, or for the optional
 * indexed ones ([host.<n>], h<host>.p<plane>, vdev.<n>) as a commented-out
 * instance for index 0.
 */
static int
test_shipped_config(void)
{
	static struct mrcd_config def, c;
	static char text[65536];
	char path[PATH_MAX], err[512], diff[512], want[96];
	FILE *f;
	size_t n;

	MRC_T_ASSERT(shipped(MRCD_CONFIG_DEFAULT_PATH, path, sizeof(path)) == 0, "no mrcd.ini");
	mrcd_config_defaults(&def);
	MRC_T_ASSERT(mrcd_config_load(&c, path, err, sizeof(err)) == 0, "%s", err);
	/*
	 * But for what the demo sets otherwise, its comment saying why: EV
	 * probe rounds for its 0.25 Gb/s links, the default being the
	 * transport library's.
	 */
	MRC_T_EQ(def.transport.probe_interval_us, MRC_QP_DEF_PROBE_INTERVAL_US);
	MRC_T_EQ(c.transport.probe_interval_us, 1000);
	c.transport.probe_interval_us = def.transport.probe_interval_us;
	MRC_T_ASSERT(mrcd_config_diff(&def, &c, diff, sizeof(diff)) == 0,
		"config/mrcd.ini differs from the built-in defaults: %s", diff);
	f = fopen(path, "r");
	MRC_T_ASSERT(f != NULL, "open");
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	for (unsigned int i = 0; i < mrcd_config_schema.n_keys; i++) {
		const struct mrcd_ini_key *k = &mrcd_config_schema.keys[i];
		const bool opt = strchr(k->section, '#') != NULL || strchr(k->name, '#') != NULL;
		size_t o = (size_t)snprintf(want, sizeof(want), "\n%s", opt ? ";" : "");

		for (const char *ch = k->name; *ch != '\0' && o + 4 < sizeof(want); ch++)
			want[o++] = *ch == '#' ? '0' : *ch;
		snprintf(want + o, sizeof(want) - o, " = ");
		MRC_T_ASSERT(strstr(text, want) != NULL, "config/mrcd.ini lacks [%s] %s",
			k->section, k->name);
	}
	return MRC_TEST_OK;
}

/*
 * Every key's comment in config/mrcd.ini (default, unit, what it does) is
 * the one mrcd --check prints from the key table: the file is written by
 * hand, so this is what keeps the two from drifting apart. Compared block
 * by block: each run of comment lines --check prints right above a key.
 */
static int
test_shipped_comments(void)
{
	static struct mrcd_config def;
	static char text[65536], block[4096];
	char path[PATH_MAX], *printed = NULL, *line, *save = NULL;
	size_t n, printed_len = 0, b = 0;
	unsigned int blocks = 0;
	FILE *f;

	MRC_T_ASSERT(shipped(MRCD_CONFIG_DEFAULT_PATH, path, sizeof(path)) == 0, "no mrcd.ini");
	f = fopen(path, "r");
	MRC_T_ASSERT(f != NULL, "open");
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	mrcd_config_defaults(&def);
	f = open_memstream(&printed, &printed_len);
	MRC_T_ASSERT(f != NULL, "open_memstream");
	mrcd_config_print(f, &def);
	fclose(f);
	for (line = strtok_r(printed, "\n", &save); line != NULL;
		line = strtok_r(NULL, "\n", &save)) {
		const size_t len = strlen(line);

		if (strncmp(line, "; default ", 10) == 0)
			b = 0; /* a key's comment starts */
		if (line[0] == ';' && b + len + 2 < sizeof(block)) {
			b += (size_t)snprintf(block + b, sizeof(block) - b, "%s\n", line);
			continue;
		}
		if (b > 0 && strncmp(block, "; default ", 10) == 0) {
			/* A key line: its comment must be in the file just as printed. */
			MRC_T_ASSERT(strstr(text, block) != NULL,
				"config/mrcd.ini: the comment above `%s` is not what mrcd --check "
				"prints:\n%s",
				line, block);
			blocks++;
		}
		b = 0;
	}
	free(printed);
	MRC_T_ASSERT(blocks >= 90, "only %u key comments compared", blocks);
	return MRC_TEST_OK;
}

static int
test_examples(void)
{
	static const char *const files[] = {
		"config/mrcd.ini",
		"config/examples/single-host-ethdev.ini",
		"config/examples/pcap.ini",
		"config/examples/null.ini",
		"config/service/mrcd.ini",
	};
	static struct mrcd_config c;
	char path[PATH_MAX], err[512];

	for (unsigned int i = 0; i < RTE_DIM(files); i++) {
		MRC_T_ASSERT(shipped(files[i], path, sizeof(path)) == 0, "%s missing", files[i]);
		MRC_T_ASSERT(mrcd_config_load(&c, path, err, sizeof(err)) == 0, "%s", err);
		MRC_T_RUN(round_trip(&c, "example.ini"));
	}
	/* What the ethdev example promises. */
	MRC_T_EQ(shipped(files[1], path, sizeof(path)), 0);
	MRC_T_EQ(mrcd_config_load(&c, path, err, sizeof(err)), 0);
	MRC_T_EQ(c.ports.mode, MRCD_PORTS_ETHDEV);
	MRC_T_EQ(mrcd_config_cluster_hosts(&c), 16);
	MRC_T_STREQ(c.ports.name[3][7], "0000:3b:00.7");
	MRC_T_EQ(c.host[3].nic_addr[15], 4);
	MRC_T_EQ(c.host[3].t0, 0);
	MRC_T_EQ(c.host[3].peer_mac[5].addr_bytes[5], 5);
	MRC_T_EQ(mrcd_config_base_rtt_ns(&c), 8000);
	MRC_T_U64_EQ(mrcd_config_cc_link_bps(&c), UINT64_C(800000000000));
	return MRC_TEST_OK;
}

static int
test_round_trip(void)
{
	static struct mrcd_config c;
	char path[256], err[512];

	mrcd_config_defaults(&c);
	MRC_T_RUN(round_trip(&c, "defaults.ini"));
	/* Every type with values off its default: ethdev names, vdevs, hosts, doubles. */
	MRC_T_EQ(write_tmp("odd.ini",
			 "[daemon]\nhosts = 2\nplanes = 4\nfirst_host = 1\ncluster_hosts = 5\n"
			 "seed = 18446744073709551615\nscenario = none\n"
			 "[ports]\nmode = ethdev\nvdev.3 = net_null7,no-rx=1\n"
			 "h1.p0 = a\nh1.p1 = b\nh1.p2 = c\nh1.p3 = d\n"
			 "h2.p0 = e\nh2.p1 = f\nh2.p2 = g\nh2.p3 = net_null7\n"
			 "[host.4]\nnic_addr = 2001:db8::4\nt0 = 9\nmac.p3 = aa:bb:cc:dd:ee:ff\n"
			 "[transport]\nencap = plain\nev_split = sport-high\nsack_bits = msb0\n"
			 "ev_active = 64\nev_backup = 0\nverify_icrc = no\n"
			 "paths = ecmp\nreliability = gbn\n"
			 "[cc]\nalgorithm = fixed\nlink_gbps = 2.5e1\n"
			 "[fabric]\nblock = fd12:3456::\nloss = 0.1\nlink_gbps = 0.3\n",
			 path, sizeof(path)),
		0);
	MRC_T_ASSERT(mrcd_config_load(&c, path, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(c.host[4].t0, 9);
	MRC_T_EQ(c.host[4].nic_addr[0], 0x20);
	MRC_T_EQ(c.host[4].locator[0], 0xfd); /* derived from the new block */
	MRC_T_EQ(c.host[4].locator[5], 0x05);
	MRC_T_EQ(c.transport.encap, MRCD_ENCAP_PLAIN);
	MRC_T_EQ(c.transport.paths, MRC_QP_PATHS_ECMP);
	MRC_T_EQ(c.transport.reliability, MRC_QP_REL_GBN);
	MRC_T_ASSERT(c.fabric.loss == 0.1 && c.fabric.link_gbps == 0.3, "doubles");
	MRC_T_ASSERT(c.cc.link_gbps == 25.0, "exponent form");
	MRC_T_RUN(round_trip(&c, "odd-back.ini"));
	return MRC_TEST_OK;
}

/* ---- bad files ---- */

static int
test_bad_structure(void)
{
	char long_line[400];

	MRC_T_RUN(expect_error("sec.ini", "[daemon]\nhosts = 2\n\n[transprt]\nmtu = 4096\n",
		-EINVAL, "@:4: [transprt]: unknown section",
		"allowed: [daemon], [ports], [host.<n>]"));
	MRC_T_RUN(expect_error("key.ini", "[transport]\n; the MTU\nmtuu = 4096\n", -EINVAL,
		"@:3: [transport] mtuu: unknown key", "did you mean mtu?"));
	MRC_T_RUN(expect_error("key2.ini", "[lcores]\nworker = 2\n", -EINVAL,
		"@:2: [lcores] worker: unknown key",
		"allowed: workers, workers_per_host, peer_shard, pass_delay_us, fabric, "
		"stats_interval_ms"));
	MRC_T_RUN(expect_error("rep.ini", "[transport]\nmtu = 4096\nencap = srv6\nmtu = 2048\n",
		-EINVAL, "@:4: [transport] mtu: key given twice", "first at line 2"));
	MRC_T_RUN(expect_error("repsec.ini", "[cc]\ntrimming = true\n[daemon]\n[cc]\nqa_gate = 1\n",
		-EINVAL, "@:4: [cc]: section given twice", "first at line 1"));
	MRC_T_RUN(expect_error("nosec.ini", "; top\nhosts = 2\n", -EINVAL,
		"@:2: hosts: key outside any [section]", ""));
	MRC_T_RUN(expect_error("noeq.ini", "[daemon]\nhosts 2\n", -EINVAL,
		"@:2: 'hosts 2' is neither a [section] nor a key = value line", ""));
	MRC_T_RUN(expect_error("empty.ini", "[daemon]\nhosts =   ; none\n", -EINVAL,
		"@:2: [daemon] hosts: empty value", ""));
	MRC_T_RUN(expect_error("hash.ini", "[daemon]\n# hosts = 2\n", -EINVAL,
		"@:2: comments start with ';'", ""));
	MRC_T_RUN(expect_error("hdr.ini", "[daemon] hosts = 2\n", -EINVAL,
		"@:1: a section header is '[name]' alone on its line", ""));
	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	memcpy(long_line, "; ", 2);
	MRC_T_RUN(expect_error("long.ini", long_line, -EINVAL, "@:1: line longer than", ""));
	return MRC_TEST_OK;
}

static int
test_bad_values(void)
{
	MRC_T_RUN(
		expect_error("mtu.ini", "[daemon]\nhosts = 2\n\n[transport]\n; big\nmtu = 70000\n",
			-EINVAL, "@:6: [transport] mtu = 70000: must be 256..9000 (bytes)", ""));
	MRC_T_RUN(expect_error("nan.ini", "[transport]\nmtu = 4k\n", -EINVAL,
		"@:2: [transport] mtu = 4k: must be 256..9000 (bytes)", ""));
	MRC_T_RUN(expect_error("neg.ini", "[daemon]\nseed = -1\n", -EINVAL,
		"@:2: [daemon] seed = -1: must be 0..18446744073709551615", ""));
	MRC_T_RUN(expect_error("enum.ini", "[ports]\nmode = pcie\n", -EINVAL,
		"@:2: [ports] mode = pcie: must be one of: fabric, ethdev", ""));
	MRC_T_RUN(expect_error("bool.ini", "[telemetry]\nconsole = maybe\n", -EINVAL,
		"@:2: [telemetry] console = maybe: must be true or false", ""));
	MRC_T_RUN(expect_error("ipv6.ini", "[host.1]\nnic_addr = fd00::zz\n", -EINVAL,
		"@:2: [host.1] nic_addr = fd00::zz: not an IPv6 address", ""));
	MRC_T_RUN(expect_error("mac.ini", "[host.0]\nmac.p3 = 02:00:00:00:00\n", -EINVAL,
		"@:2: [host.0] mac.p3 = 02:00:00:00:00: not a MAC address", ""));
	MRC_T_RUN(expect_error("block.ini", "[fabric]\nblock = fcbb:0:1::\n", -EINVAL,
		"@:2: [fabric] block = fcbb:0:1::: not an IPv6 /32 block", ""));
	MRC_T_RUN(expect_error("double.ini", "[fabric]\nlink_gbps = inf\n", -EINVAL,
		"@:2: [fabric] link_gbps = inf: must be a number 0.001..10000 (Gb/s)", ""));
	MRC_T_RUN(expect_error("pow2.ini", "[transport]\nwimm = 100\n", -EINVAL,
		"@:2: [transport] wimm = 100: must be a power of two in 1..32768", ""));
	MRC_T_RUN(expect_error("zero.ini", "[daemon]\ncluster_hosts = 65\n", -EINVAL,
		"@:2: [daemon] cluster_hosts = 65: must be 0 or 1..64 (hosts)", ""));
	MRC_T_RUN(expect_error("cc.ini", "[cc]\nalgorithm = reno\n", -EINVAL,
		"@:2: [cc] algorithm = reno: unknown algorithm", "uet-1.0-nscc, fixed"));
	MRC_T_RUN(expect_error("plane9.ini", "[host.0]\nmac.p9 = 02:00:00:00:00:01\n", -EINVAL,
		"@:2: [host.0] mac.p9: plane 9: must be 0..7", ""));
	MRC_T_RUN(expect_error("host99.ini", "[host.99]\nt0 = 1\n", -EINVAL,
		"@:1: [host.99]: host 99: must be 0..63", ""));
	return MRC_TEST_OK;
}

static int
test_bad_cross(void)
{
	MRC_T_RUN(expect_error("map.ini",
		"[daemon]\nhosts = 1\nplanes = 2\n\n[ports]\nmode = ethdev\nh0.p0 = net_null0\n",
		-EINVAL, "@:5: [ports]: h0.p1: missing", "h0.p0 .. h0.p1"));
	MRC_T_RUN(expect_error("dup.ini",
		"[daemon]\nhosts = 1\nplanes = 2\n[ports]\nmode = ethdev\nh0.p0 = x\nh0.p1 = x\n",
		-EINVAL, "@:7: [ports] h0.p1 = x: the same port as h0.p0 (line 6)", ""));
	MRC_T_RUN(expect_error("fabname.ini", "[ports]\nh0.p0 = net_null0\n", -EINVAL,
		"@:2: [ports] h0.p0 = net_null0: only with mode = ethdev", ""));
	MRC_T_RUN(expect_error("nothere.ini",
		"[daemon]\nhosts = 1\nplanes = 1\n[ports]\nmode = ethdev\nh0.p0 = a\nh5.p0 = b\n",
		-EINVAL, "@:7: [ports] h5.p0 = b: host 5 is not in the cluster (hosts 0..0)", ""));
	MRC_T_RUN(expect_error("host2.ini", "[host.2]\nt0 = 1\n", -EINVAL,
		"@:1: [host.2]: no such host: the cluster has 2", ""));
	MRC_T_RUN(expect_error("t0.ini", "[host.1]\nt0 = 0\n", -EINVAL,
		"@:2: [host.1] t0 = 0: the emulated fabric attaches host 1 to T0 1", ""));
	MRC_T_RUN(expect_error("addr.ini", "[host.1]\nnic_addr = fd00::1\n", -EINVAL,
		"@:2: [host.1] nic_addr = fd00::1: the same as host 0's", ""));
	MRC_T_RUN(expect_error("ports.ini", "[daemon]\nhosts = 5\n", -EINVAL,
		"@:2: [daemon] hosts = 5: hosts x planes = 5 x 8 = 40 ports", "RTE_MAX_ETHPORTS"));
	MRC_T_RUN(expect_error("evs.ini", "[transport]\nev_active = 100\n", -EINVAL,
		"@:2: [transport] ev_active = 100: must be a multiple of [daemon] planes (8)", ""));
	MRC_T_RUN(expect_error("planes.ini", "[daemon]\nplanes = 3\n", -EINVAL,
		"@:2: [daemon] planes = 3: [transport] ev_active (128, the default)", ""));
	MRC_T_RUN(expect_error("floor.ini", "[transport]\nev_active = 16\nev_min_active = 17\n",
		-EINVAL, "@:3: [transport] ev_min_active = 17: must be at most ev_active (16)",
		""));
	MRC_T_RUN(expect_error("gbn.ini", "[transport]\nreliability = gbn\n", -EINVAL,
		"@:2: [transport] reliability = gbn: gbn needs paths = ecmp", ""));
	MRC_T_RUN(expect_error("paths.ini", "[transport]\npaths = ecnp\n", -EINVAL,
		"@:2: [transport] paths = ecnp: must be one of: spray, ecmp", ""));
	MRC_T_RUN(expect_error("dscp.ini", "[transport]\ndscp_trimmed = 4\n", -EINVAL,
		"@:2: [transport] dscp_trimmed = 4: must differ from dscp_trimmable (4)", ""));
	MRC_T_RUN(expect_error("dscp2.ini", "[transport]\ndscp_trimmed_lasthop = 12\n", -EINVAL,
		"@:2: [transport] dscp_trimmed_lasthop = 12: must differ from dscp_trimmed", ""));
	MRC_T_RUN(expect_error("kmin.ini", "[fabric]\n\necn_kmin_kb = 90\n", -EINVAL,
		"@:3: [fabric] ecn_kmin_kb = 90: must be at most ecn_kmax_kb (24)", ""));
	MRC_T_RUN(expect_error("rxpool.ini", "[ports]\nrx_pool_mbufs = 2000\n", -EINVAL,
		"@:2: [ports] rx_pool_mbufs = 2000: must be at least planes x rx queues x (rx_desc "
		"+ burst)",
		"8448"));
	MRC_T_RUN(expect_error("wph.ini", "[lcores]\nworkers_per_host = 9\n", -EINVAL,
		"@:2: [lcores] workers_per_host = 9", ""));
	MRC_T_RUN(expect_error("steer.ini", "[ports]\nsteering = rss\n", -EINVAL,
		"@:2: [ports] steering = rss: must be one of: auto, flow, software", ""));
	MRC_T_RUN(expect_error("first.ini", "[daemon]\nfirst_host = 1\n", -EINVAL,
		"@:2: [daemon] first_host = 1: must be 0 with [ports] mode = fabric", ""));
	MRC_T_RUN(expect_error("ts.ini", "[lcores]\nstats_interval_ms = 200\n", -EINVAL,
		"@:2: [lcores] stats_interval_ms = 200: must be at most [telemetry] "
		"timeseries_interval_ms (100)",
		""));
	MRC_T_RUN(expect_error("ts2.ini", "[telemetry]\nprometheus_interval_ms = 5\n", -EINVAL,
		"@:2: [telemetry] prometheus_interval_ms = 5: must be at least [lcores] "
		"stats_interval_ms (10)",
		""));
	MRC_T_RUN(expect_error("ts3.ini",
		"[lcores]\nstats_interval_ms = 2000\n[telemetry]\ntimeseries_interval_ms = 2000\n"
		"prometheus_interval_ms = 2000\n",
		-EINVAL,
		"@:2: [lcores] stats_interval_ms = 2000: must be at most 1000 with [telemetry] "
		"console = true",
		""));
	MRC_T_RUN(expect_error("vdevfab.ini", "[ports]\nvdev.0 = net_null0\n", -EINVAL,
		"@:2: [ports] vdev.0 = net_null0: only with mode = ethdev", ""));
	return MRC_TEST_OK;
}

static int
test_bad_file(void)
{
	static struct mrcd_config c;
	char path[256], err[512];

	MRC_T_EQ(make_tmpdir(), 0);
	snprintf(path, sizeof(path), "%s/absent.ini", tmpdir);
	MRC_T_EQ(mrcd_config_load(&c, path, err, sizeof(err)), -ENOENT);
	MRC_T_ASSERT(
		strstr(err, path) == err && strstr(err, "No such file or directory"), "%s", err);
	MRC_T_EQ(mrcd_config_load(&c, tmpdir, err, sizeof(err)), -EISDIR);
	MRC_T_ASSERT(strstr(err, "Is a directory") != NULL, "%s", err);
	if (geteuid() != 0) { /* root reads anything */
		MRC_T_EQ(write_tmp("locked.ini", "[daemon]\n", path, sizeof(path)), 0);
		MRC_T_EQ(chmod(path, 0), 0);
		MRC_T_EQ(mrcd_config_load(&c, path, err, sizeof(err)), -EACCES);
		MRC_T_ASSERT(strstr(err, "Permission denied") != NULL, "%s", err);
	}
	MRC_T_EQ(mrcd_config_load(&c, "", err, sizeof(err)), -EINVAL);
	return MRC_TEST_OK;
}

/* ---- derived values and library structs ---- */

static int
test_derived(void)
{
	static struct mrcd_config c;
	struct mrc_qp_attr a;
	struct mrc_qp_addr addr;
	struct mrc_fabric_cfg f;
	char path[256], err[512];
	uint32_t rtt;

	mrcd_config_defaults(&c);
	MRC_T_EQ(c.host[1].nic_addr[0], 0xfd);
	MRC_T_EQ(c.host[1].nic_addr[15], 2);
	MRC_T_EQ(c.host[1].locator[4], 0xe0);
	MRC_T_EQ(c.host[1].locator[5], 0x02);
	MRC_T_EQ(c.host[1].t0, 1);
	MRC_T_EQ(c.host[1].mac[6].addr_bytes[4], 1);
	MRC_T_EQ(c.host[1].mac[6].addr_bytes[5], 6);
	/* Fabric mode: 4 links of 1 us, 4096 + 150 + 24 bytes and 174 bytes at 0.25 Gb/s. */
	rtt = mrcd_config_base_rtt_ns(&c);
	MRC_T_EQ(rtt, 4 * (2000 + (4096 + 150 + 24) * 32 + (150 + 24) * 32));
	MRC_T_U64_EQ(mrcd_config_cc_link_bps(&c), UINT64_C(2000000000));
	MRC_T_EQ(mrcd_config_qp_attr(&c, TSC_HZ, &a), 0);
	MRC_T_EQ(a.cc.base_rtt_ns, rtt);
	MRC_T_U64_EQ(a.initial_rtt_tsc, (uint64_t)rtt * 5 / 2); /* 2.5 GHz */
	MRC_T_U64_EQ(a.min_pkt_timeout_tsc, (uint64_t)rtt * 5);
	MRC_T_U64_EQ(a.ack_delay_tsc, 5000);
	MRC_T_EQ(a.cc.mtu_bytes, 4096);
	MRC_T_EQ(a.ev.skip_rotations, 3);
	MRC_T_EQ(mrcd_config_qp_addr(&c, 0, 1, &addr), 0);
	MRC_T_ASSERT(addr.srv6, "srv6");
	MRC_T_EQ(addr.path.src_t0, 0);
	MRC_T_EQ(addr.path.dst_t0, 1);
	MRC_T_EQ(addr.path.dst_host, 1);
	MRC_T_EQ(addr.path.n_t1, 4);
	MRC_T_EQ(addr.path.block, 0xfcbb0000);
	MRC_T_EQ(addr.dst_ip[15], 2);
	MRC_T_EQ(mrcd_config_qp_addr(&c, 0, 2, &addr), -EINVAL);
	MRC_T_EQ(mrcd_config_fabric(&c, TSC_HZ, &f), 0);
	MRC_T_EQ(f.queue_limit_bytes, 64000);
	MRC_T_EQ(f.trim_threshold_bytes, 32000);
	MRC_T_ASSERT(f.link_gbps == 0.25, "0.25 Gb/s");
	MRC_T_EQ(f.nic_addr[1][15], 2);
	/* Four hosts, two per T0: t0 = n / 2, and the QP's template follows. */
	MRC_T_EQ(
		write_tmp("t0.ini", "[daemon]\nhosts = 4\nplanes = 4\n[fabric]\nhosts_per_t0 = 2\n",
			path, sizeof(path)),
		0);
	MRC_T_ASSERT(mrcd_config_load(&c, path, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(c.host[3].t0, 1);
	MRC_T_EQ(c.host[3].peer_mac[2].addr_bytes[4], 1);
	MRC_T_EQ(mrcd_config_n_t0(&c), 2);
	MRC_T_EQ(mrcd_config_qp_addr(&c, 2, 3, &addr), 0);
	MRC_T_EQ(addr.path.src_t0, 1);
	MRC_T_EQ(addr.path.dst_t0, 1);
	MRC_T_EQ(mrcd_config_memory_mb(&c) % 64, 0);
	return MRC_TEST_OK;
}

/* ---- command line ---- */

static int
test_cli_defaults(void)
{
	static struct mrcd_cli cli;
	static struct mrcd_config c;
	char *argv[] = {"mrcd", NULL};
	char err[256], buf[PATH_MAX];

	MRC_T_EQ(mrcd_cli_parse(1, argv, &cli, err, sizeof(err)), 0);
	MRC_T_EQ(cli.eal_argc, 0);
	MRC_T_ASSERT(!cli.config_given && !cli.check && !cli.duration_set, "flags");
	MRC_T_ASSERT(access(cli.config, R_OK) == 0, "default config %s not found", cli.config);
	MRC_T_STREQ(cli.json, "");
	MRC_T_EQ(mrcd_config_load(&c, cli.config, err, sizeof(err)), 0);
	/* The profile and scenario come from the config, next to it. */
	mrcd_cli_profile(&cli, &c, buf, sizeof(buf));
	MRC_T_ASSERT(strstr(buf, "config/profiles/default.ini") != NULL, "%s", buf);
	mrcd_cli_scenario(&cli, &c, buf, sizeof(buf));
	MRC_T_ASSERT(strstr(buf, "config/scenarios/plane3-fail.ini") != NULL, "%s", buf);
	MRC_T_ASSERT(access(buf, R_OK) == 0, "%s", buf);
	return MRC_TEST_OK;
}

static int
test_cli_options(void)
{
	static struct mrcd_cli cli;
	static struct mrcd_config c;
	char *argv[] = {"mrcd", "-l", "0-1", "--vdev", "net_null0", "--", "-f",
		"config/examples/null.ini", "--profile=p.ini", "--scenario", "none", "--duration",
		"0", "--check", "--json", "out.json", NULL};
	char *argv2[] = {"mrcd", "-fconfig/mrcd.ini", "--duration=42", "--scenario=s.ini", NULL};
	char *argv3[] = {"mrcd", "-l", "0-1", "--in-memory", NULL};
	char err[256], buf[PATH_MAX];

	MRC_T_ASSERT(mrcd_cli_parse(16, argv, &cli, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(cli.eal_argc, 4);
	MRC_T_STREQ(cli.eal_argv[0], "-l");
	MRC_T_STREQ(cli.eal_argv[3], "net_null0");
	MRC_T_ASSERT(cli.config_given, "config given");
	MRC_T_ASSERT(strstr(cli.config, "config/examples/null.ini") != NULL, "%s", cli.config);
	MRC_T_STREQ(cli.profile, "p.ini");
	MRC_T_STREQ(cli.scenario, "none");
	MRC_T_ASSERT(cli.duration_set && cli.duration_s == 0, "duration");
	MRC_T_ASSERT(cli.check, "check");
	MRC_T_STREQ(cli.json, "out.json");
	MRC_T_EQ(mrcd_config_load(&c, cli.config, err, sizeof(err)), 0);
	MRC_T_EQ(mrcd_cli_apply(&cli, &c, err, sizeof(err)), 0);
	MRC_T_EQ(c.daemon.duration_s, 0);
	mrcd_cli_profile(&cli, &c, buf, sizeof(buf));
	MRC_T_STREQ(buf, "p.ini");
	mrcd_cli_scenario(&cli, &c, buf, sizeof(buf));
	MRC_T_STREQ(buf, "");
	/* No "--", first argument ours: everything is mrcd's. */
	MRC_T_ASSERT(mrcd_cli_parse(4, argv2, &cli, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(cli.eal_argc, 0);
	MRC_T_ASSERT(cli.duration_set && cli.duration_s == 42, "duration 42");
	MRC_T_STREQ(cli.scenario, "s.ini");
	/* No "--", first argument not ours: everything is the EAL's. */
	MRC_T_ASSERT(mrcd_cli_parse(4, argv3, &cli, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(cli.eal_argc, 3);
	MRC_T_ASSERT(!cli.config_given, "default config");
	return MRC_TEST_OK;
}

static int
test_cli_bad(void)
{
	static const struct {
		int argc;
		char *argv[6];
		const char *want;
	} bad[] = {
		{4, {"mrcd", "--", "--duration", "abc"},
			"--duration 'abc': must be whole seconds, 0..31536000"},
		{4, {"mrcd", "--", "--duration", "99999999999"}, "--duration '99999999999'"},
		{3, {"mrcd", "--", "--frobnicate"}, "unknown option '--frobnicate'"},
		{3, {"mrcd", "--", "--profile"}, "--profile needs a FILE"},
		{3, {"mrcd", "--", "stray"}, "unexpected argument 'stray'"},
		{5, {"mrcd", "--", "--check", "--json", ""}, "--json: empty FILE"},
		{5, {"mrcd", "--check", "--json", "a", "--check"}, "--check given twice"},
		{4, {"mrcd", "-l", "0", "--"}, NULL}, /* fine: EAL only */
	};
	static struct mrcd_cli cli;
	char err[256];

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		const int rc = mrcd_cli_parse(
			bad[i].argc, (char **)(uintptr_t)bad[i].argv, &cli, err, sizeof(err));

		if (bad[i].want == NULL) {
			MRC_T_EQ(rc, 0);
			continue;
		}
		MRC_T_EQ(rc, -EINVAL);
		MRC_T_ASSERT(strstr(err, bad[i].want) != NULL, "case %u: '%s' lacks '%s'", i, err,
			bad[i].want);
	}
	return MRC_TEST_OK;
}

/* --set: parsed, repeatable, applied over the file and checked like its lines. */
static int
test_cli_set(void)
{
	static struct mrcd_cli cli;
	static struct mrcd_config c, before;
	static struct mrcd_profile prof;
	char *argv[] = {"mrcd", "--", "-f", "config/mrcd.ini", "--set", "transport.mtu=2048",
		"--set=fabric.loss=0.01", "--set", "profile.qps_per_peer=3", "--set",
		"host.1.nic_addr=fd00::99", "--set", "fabric.block=fcbb:1::", "--set",
		"transport.mtu=1024", NULL};
	static const struct {
		const char *set;
		const char *want; /* the message starts with it */
	} bad[] = {
		{"transport.mtu=70000", "--set: [transport] mtu = 70000: must be 256..9000"},
		{"trnsport.mtu=2048", "--set trnsport.mtu=2048: unknown section [trnsport]"},
		{"transport.mtuu=2048", "--set transport.mtuu=2048: [transport] mtuu: unknown key"},
		{"host.99.t0=1", "--set: [host.99]: host 99: must be 0..63"},
		{"host.1.mac.p9=02:00:00:00:00:01", "--set: [host.1] mac.p9: plane 9"},
		{"host.1.next_hop.p9=fd11::1", "--set: [host.1] next_hop.p9: plane 9"},
		/* the shipped config runs the emulated fabric: nothing to resolve there */
		{"host.1.next_hop.p0=fd11::1",
			"--set: [host.1] next_hop.p0 = fd11::1: a next hop is resolved on ethdev"},
		{"transport.mtu=", "--set transport.mtu=: empty value"},
		{"transport.mtu= 2048", "--set transport.mtu= 2048: a value holds no"},
		{"mtu=2048", "--set mtu=2048: not section.key=value"},
		{"=2048", "--set =2048: not section.key=value"},
		/* A cross-check of a value that came from --set names --set. */
		{"transport.reliability=gbn", "--set: [transport] reliability = gbn:"},
	};
	const char *one[1];
	char err[512], prof_path[PATH_MAX];
	int argc = (int)RTE_DIM(argv) - 1;

	MRC_T_ASSERT(mrcd_cli_parse(argc, argv, &cli, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(cli.n_sets, 5);
	MRC_T_STREQ(cli.sets[0], "transport.mtu=2048");
	MRC_T_STREQ(cli.sets[1], "fabric.loss=0.01");
	MRC_T_EQ(cli.n_profile_sets, 1);
	MRC_T_STREQ(cli.profile_sets[0], "profile.qps_per_peer=3");
	MRC_T_ASSERT(
		mrcd_config_load_set(&c, cli.config, cli.sets, cli.n_sets, err, sizeof(err)) == 0,
		"%s", err);
	MRC_T_EQ(c.transport.mtu, 1024); /* the last of a key wins */
	MRC_T_ASSERT(c.fabric.loss == 0.01, "loss %g", c.fabric.loss);
	/* Set values count as set: derived ones do not overwrite them, and follow them. */
	MRC_T_EQ(c.host[1].nic_addr[15], 0x99);
	MRC_T_EQ(c.host[0].nic_addr[15], 1);
	MRC_T_EQ(c.host[0].locator[2], 0);
	MRC_T_EQ(c.host[0].locator[3], 1); /* fcbb:1:e001:: */
	MRC_T_RUN(round_trip(&c, "set.ini"));
	/* The profile's keys, over the config's profile and over the built-in one. */
	mrcd_cli_profile(&cli, &c, prof_path, sizeof(prof_path));
	MRC_T_ASSERT(mrcd_profile_load_set(&prof, prof_path, cli.profile_sets, cli.n_profile_sets,
			     err, sizeof(err)) == 0,
		"%s", err);
	MRC_T_EQ(prof.qps_per_peer, 3);
	MRC_T_ASSERT(mrcd_profile_load_set(&prof, "", cli.profile_sets, cli.n_profile_sets, err,
			     sizeof(err)) == 0,
		"%s", err);
	MRC_T_EQ(prof.qps_per_peer, 3);
	one[0] = "profile.qps_per_peer=0";
	MRC_T_EQ(mrcd_profile_load_set(&prof, "", one, 1, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strncmp(err, "--set: [profile] qps_per_peer = 0: must be 1..65535", 50) == 0,
		"%s", err);
	/* Each bad value fails with its message and leaves the config alone. */
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		mrcd_config_defaults(&c);
		before = c;
		one[0] = bad[i].set;
		MRC_T_EQ(mrcd_config_load_set(&c, cli.config, one, 1, err, sizeof(err)), -EINVAL);
		MRC_T_ASSERT(strncmp(err, bad[i].want, strlen(bad[i].want)) == 0,
			"%s: '%s', want '%s'", bad[i].set, err, bad[i].want);
		MRC_T_ASSERT(memcmp(&c, &before, sizeof(c)) == 0, "%s: config changed", bad[i].set);
	}
	/* The command line refuses what is not an assignment, before any file is read. */
	{
		char *noeq[] = {"mrcd", "--", "--set", "transport.mtu", NULL};

		MRC_T_EQ(mrcd_cli_parse(4, noeq, &cli, err, sizeof(err)), -EINVAL);
		MRC_T_ASSERT(strstr(err, "must be section.key=value") != NULL, "%s", err);
	}
	return MRC_TEST_OK;
}

static int
test_cli_help(void)
{
	static const char *const want[] = {"-f, --config FILE", "--profile FILE", "--scenario FILE",
		"--duration SECONDS", "--set SEC.KEY=VAL", "--check", "--json FILE", "-h, --help",
		"--version", "(default: config/mrcd.ini)", "--file-prefix=mrcd_<pid>", "--no-huge",
		"--service", "state in $STATE_DIRECTORY", "or none (no traffic of its own)"};
	static struct mrcd_cli cli;
	char *help[] = {"mrcd", "--", "--help", NULL};
	char *version[] = {"mrcd", "--version", NULL};
	char *fmt[] = {"mrcd", "--vdev=net_pcap0,rx_pcap=a b.pcap", "-l", "0,1", ""};
	char err[256], text[8192];
	FILE *f = tmpfile();
	int saved, null, rc[2];
	size_t n;

	MRC_T_ASSERT(f != NULL, "tmpfile");
	mrcd_cli_usage(f, "mrcd");
	rewind(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	for (unsigned int i = 0; i < RTE_DIM(want); i++)
		MRC_T_ASSERT(strstr(text, want[i]) != NULL, "--help lacks '%s'", want[i]);
	/* Printed to stdout (sent to /dev/null here); 1 means "exit 0". */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	null = open("/dev/null", O_WRONLY);
	MRC_T_ASSERT(saved >= 0 && null >= 0 && dup2(null, STDOUT_FILENO) >= 0, "redirect");
	rc[0] = mrcd_cli_parse(3, help, &cli, err, sizeof(err));
	rc[1] = mrcd_cli_parse(2, version, &cli, err, sizeof(err));
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(null);
	MRC_T_EQ(rc[0], 1);
	MRC_T_EQ(rc[1], 1);
	/* One line for logs, quoted where a shell would need it. */
	mrcd_cli_format_argv(5, fmt, text, sizeof(text));
	MRC_T_STREQ(text, "mrcd '--vdev=net_pcap0,rx_pcap=a b.pcap' -l 0,1 ''");
	return MRC_TEST_OK;
}

/* Index of `arg` in argv (exact, or as a prefix when it ends with '='), or -1. */
static int
find_arg(int argc, char **argv, const char *arg)
{
	const size_t n = strlen(arg);

	for (int i = 0; i < argc; i++)
		if (n > 0 && arg[n - 1] == '=' ? strncmp(argv[i], arg, n) == 0
					       : strcmp(argv[i], arg) == 0)
			return i;
	return -1;
}

static int
count_arg(int argc, char **argv, const char *arg)
{
	int c = 0;

	for (int i = 0; i < argc; i++)
		c += strncmp(argv[i], arg, strlen(arg)) == 0;
	return c;
}

static unsigned int
n_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	return (unsigned int)CPU_COUNT(&set);
}

/* CPUs other instances poll on, as eal() tells the builder. */
static uint64_t busy_cpus;

/* Build the EAL argv for `cli_argv` with MRC_NO_HUGE = no_huge (NULL: unset). */
static int
eal(int cli_argc, char **cli_argv, struct mrcd_config *c, const char *no_huge, char **argv, int max,
	char *buf, size_t len, char *err, size_t errlen)
{
	static struct mrcd_cli cli;
	int rc;

	if (mrcd_cli_parse(cli_argc, cli_argv, &cli, err, errlen) != 0)
		return -1000;
	cli.busy_cpus = busy_cpus;
	if (no_huge != NULL)
		setenv("MRC_NO_HUGE", no_huge, 1);
	else
		unsetenv("MRC_NO_HUGE");
	rc = mrcd_cli_eal_argv(&cli, c, argv, max, buf, len, err, errlen);
	unsetenv("MRC_NO_HUGE");
	return rc;
}

static int
test_cli_eal(void)
{
	static struct mrcd_config c;
	char *plain[] = {"mrcd", NULL};
	char *user[] = {"mrcd", "--file-prefix", "mine", "-l", "0", "--no-huge", "--vdev",
		"net_null1,no-rx=1", "--", NULL};
	char *argv[64], buf[4096], err[256], want[64], *l;
	int n, i;

	mrcd_config_defaults(&c);
	if (n_cpus() < 2)
		return MRC_TEST_SKIP; /* main + one worker need two CPUs */
	n = eal(1, plain, &c, "1", argv, 64, buf, sizeof(buf), err, sizeof(err));
	MRC_T_ASSERT(n > 0, "%d %s", n, err);
	MRC_T_EQ(argv[n], NULL);
	MRC_T_STREQ(argv[0], "mrcd");
	snprintf(want, sizeof(want), "--file-prefix=mrcd_%ld", (long)getpid());
	MRC_T_ASSERT(find_arg(n, argv, want) > 0, "no %s", want);
	/* -l main,worker: two distinct lcores, the first also --main-lcore. */
	i = find_arg(n, argv, "-l");
	MRC_T_ASSERT(i > 0 && i + 1 < n, "no -l");
	l = argv[i + 1];
	{
		unsigned int a, b;
		char tail;

		MRC_T_EQ(sscanf(l, "%u,%u%c", &a, &b, &tail), 2);
		MRC_T_ASSERT(a != b, "-l %s: main and worker share a core", l);
		snprintf(want, sizeof(want), "--main-lcore=%u", a);
		MRC_T_ASSERT(find_arg(n, argv, want) > 0, "no %s", want);
	}
	/*
	 * Another instance polls on the worker's CPU: the worker moves to a free
	 * one; with none left but main's, it shares main's CPU through --lcores;
	 * with none at all, an error that says why.
	 */
	{
		unsigned int a, b;

		MRC_T_EQ(sscanf(l, "%u,%u", &a, &b), 2);
		busy_cpus = 1ull << b;
		n = eal(1, plain, &c, "1", argv, 64, buf, sizeof(buf), err, sizeof(err));
		MRC_T_ASSERT(n > 0, "%s", err);
		i = find_arg(n, argv, "-l");
		if (n_cpus() == 2) {
			snprintf(want, sizeof(want), "--lcores=0@%u,1@%u", a, a);
			MRC_T_ASSERT(find_arg(n, argv, want) > 0, "no %s", want);
			MRC_T_ASSERT(find_arg(n, argv, "--main-lcore=0") > 0, "--main-lcore=0");
			MRC_T_EQ(i, -1);
		} else {
			unsigned int a2, b2;

			MRC_T_ASSERT(i > 0, "-l");
			MRC_T_EQ(sscanf(argv[i + 1], "%u,%u", &a2, &b2), 2);
			MRC_T_ASSERT(
				b2 != b && b2 != a2, "-l %s: worker on a busy CPU", argv[i + 1]);
		}
		busy_cpus = ~0ull;
		n = eal(1, plain, &c, "1", argv, 64, buf, sizeof(buf), err, sizeof(err));
		MRC_T_EQ(n, -EINVAL);
		MRC_T_ASSERT(strstr(err, "other mrcd instances") != NULL, "%s", err);
		busy_cpus = 0;
		n = eal(1, plain, &c, "1", argv, 64, buf, sizeof(buf), err, sizeof(err));
		MRC_T_ASSERT(n > 0, "%s", err);
	}
	/* MRC_NO_HUGE=1: --no-huge with -m sized from the pools, never --in-memory. */
	MRC_T_ASSERT(find_arg(n, argv, "--no-huge") > 0, "no --no-huge");
	MRC_T_ASSERT(find_arg(n, argv, "--no-shconf") > 0, "no --no-shconf");
	i = find_arg(n, argv, "-m");
	MRC_T_ASSERT(i > 0 && (unsigned int)atoi(argv[i + 1]) == mrcd_config_memory_mb(&c), "-m");
	MRC_T_EQ(find_arg(n, argv, "--in-memory"), -1);
	MRC_T_ASSERT(find_arg(n, argv, "--no-pci") > 0, "fabric: --no-pci");
	MRC_T_ASSERT(find_arg(n, argv, "--force-max-simd-bitwidth=512") > 0, "no AVX-512 ask");
	/* Hugepages usable: --in-memory instead. */
	n = eal(1, plain, &c, "0", argv, 64, buf, sizeof(buf), err, sizeof(err));
	MRC_T_ASSERT(n > 0, "%s", err);
	if (mrc_hugepages_usable()) {
		MRC_T_ASSERT(find_arg(n, argv, "--in-memory") > 0, "no --in-memory");
		MRC_T_EQ(find_arg(n, argv, "--no-huge"), -1);
	}
	/* The user's choices win; vdevs from the config the user did not name are added. */
	MRC_T_EQ(write_tmp("vdev.ini",
			 "[daemon]\nhosts = 1\nplanes = 2\n[ports]\nmode = ethdev\n"
			 "vdev.0 = net_null0,no-rx=1\nvdev.1 = net_null1\nh0.p0 = net_null0\n"
			 "h0.p1 = net_null1\n",
			 buf, sizeof(buf)),
		0);
	MRC_T_ASSERT(mrcd_config_load(&c, buf, err, sizeof(err)) == 0, "%s", err);
	n = eal(9, user, &c, "0", argv, 64, buf, sizeof(buf), err, sizeof(err));
	MRC_T_ASSERT(n > 0, "%s", err);
	MRC_T_EQ(count_arg(n, argv, "--file-prefix"), 1);
	MRC_T_EQ(count_arg(n, argv, "-l"), 1);
	MRC_T_EQ(find_arg(n, argv, "--main-lcore="), -1);
	MRC_T_EQ(find_arg(n, argv, "--in-memory"), -1);
	MRC_T_ASSERT(find_arg(n, argv, "-m") > 0, "--no-huge without -m gets one");
	/* ... and --no-shconf: no EAL files left in the runtime directory at exit. */
	MRC_T_EQ(count_arg(n, argv, "--no-shconf"), 1);
	MRC_T_ASSERT(find_arg(n, argv, "--vdev=net_null0,no-rx=1") > 0, "vdev.0 added");
	MRC_T_EQ(count_arg(n, argv, "--vdev=net_null1"), 0);
	MRC_T_EQ(find_arg(n, argv, "--no-pci"), -1);
	/* A SIMD width the user names is the one the EAL gets. */
	{
		char *simd[] = {"mrcd", "--force-max-simd-bitwidth=256", "--", NULL};

		n = eal(3, simd, &c, "0", argv, 64, buf, sizeof(buf), err, sizeof(err));
		MRC_T_ASSERT(n > 0, "%s", err);
		MRC_T_EQ(count_arg(n, argv, "--force-max-simd-bitwidth"), 1);
		MRC_T_ASSERT(
			find_arg(n, argv, "--force-max-simd-bitwidth=256") > 0, "user's width");
	}
	/* More lcores than CPUs: an error that says so. */
	c.lcores.workers = (uint16_t)n_cpus();
	n = eal(1, plain, &c, "1", argv, 64, buf, sizeof(buf), err, sizeof(err));
	MRC_T_EQ(n, -EINVAL);
	MRC_T_ASSERT(strstr(err, "lcores") != NULL && strstr(err, "CPUs") != NULL, "%s", err);
	/* Too little room. */
	c.lcores.workers = 1;
	n = eal(1, plain, &c, "1", argv, 4, buf, sizeof(buf), err, sizeof(err));
	MRC_T_EQ(n, -ENOSPC);
	n = eal(1, plain, &c, "1", argv, 64, buf, 16, err, sizeof(err));
	MRC_T_EQ(n, -ENOSPC);
	return MRC_TEST_OK;
}

/* Profiles: the size mix, its errors, and the patterns. */
static int
test_profile(void)
{
	static struct mrcd_profile p;
	uint16_t pairs[64][2];
	char path[256], err[512];
	unsigned int count[3] = {0}, n;

	mrcd_profile_defaults(&p);
	MRC_T_EQ(p.n_mix, 0);
	MRC_T_EQ(mrcd_msg_len(&p, 3, 17), 1024u * 1024u);
	MRC_T_EQ(mrcd_flow_slot_bytes(&p), 4u * 1024u * 1024u);

	MRC_T_EQ(
		write_tmp("mix.ini", "[profile]\noutstanding = 2\nsize_mix = 4:60, 64:30,1024:10\n",
			path, sizeof(path)),
		0);
	MRC_T_ASSERT(mrcd_profile_load(&p, path, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(p.n_mix, 3);
	MRC_T_EQ(p.max_kb, 1024);
	MRC_T_EQ(mrcd_flow_slot_bytes(&p), 2u * 1024u * 1024u);
	for (uint64_t seq = 0; seq < 20000; seq++) {
		const uint32_t len = mrcd_msg_len(&p, 3, seq);

		/* A pure function of (flow, seq): what the receiver computes too. */
		MRC_T_EQ(len, mrcd_msg_len(&p, 3, seq));
		MRC_T_ASSERT(len == 4096 || len == 65536 || len == 1048576, "len %u", len);
		count[len == 4096 ? 0 : len == 65536 ? 1 : 2]++;
	}
	/* 60/30/10 by weight, within 2 points. */
	MRC_T_ASSERT(count[0] > 11600 && count[0] < 12400, "4 KiB: %u of 20000", count[0]);
	MRC_T_ASSERT(count[1] > 5600 && count[1] < 6400, "64 KiB: %u of 20000", count[1]);
	MRC_T_ASSERT(count[2] > 1600 && count[2] < 2400, "1 MiB: %u of 20000", count[2]);
	n = 0;
	for (uint64_t seq = 0; seq < 64; seq++)
		n += mrcd_msg_len(&p, 3, seq) != mrcd_msg_len(&p, 4, seq);
	MRC_T_ASSERT(n > 10, "flows 3 and 4 draw the same sizes");

	/* Errors name the file, the line, the key and what is wrong. */
	MRC_T_EQ(write_tmp("mix0.ini", "[profile]\nsize_mix = 4:60, 0:3\n", path, sizeof(path)), 0);
	MRC_T_EQ(mrcd_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(
		strstr(err, ":2:") && strstr(err, "size_mix") && strstr(err, "'0:3'"), "%s", err);
	MRC_T_EQ(write_tmp("mixw.ini", "[profile]\nsize_mix = 4:0\n", path, sizeof(path)), 0);
	MRC_T_EQ(mrcd_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "weight") != NULL, "%s", err);
	MRC_T_EQ(
		write_tmp("mix9.ini", "[profile]\nsize_mix = 1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:1,9:1\n",
			path, sizeof(path)),
		0);
	MRC_T_EQ(mrcd_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "at most 8") != NULL, "%s", err);
	/* More slots than messages in flight: the slots take the room; fewer is refused. */
	MRC_T_EQ(write_tmp("buf.ini", "[profile]\nmsg_kb = 4\noutstanding = 2\nbuffers = 300\n",
			 path, sizeof(path)),
		0);
	MRC_T_ASSERT(mrcd_profile_load(&p, path, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(mrcd_flow_buffers(&p), 300u);
	MRC_T_EQ(mrcd_flow_slot_bytes(&p), 300u * 4096u);
	MRC_T_EQ(write_tmp("buf1.ini", "[profile]\noutstanding = 4\nbuffers = 3\n", path,
			 sizeof(path)),
		0);
	MRC_T_EQ(mrcd_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(
		strstr(err, ":3:") && strstr(err, "buffers = 3") && strstr(err, "outstanding = 4"),
		"%s", err);
	/* Given on the command line over the file's line: named as --set, not as that line. */
	{
		const char *const sets[] = {"profile.buffers=2"};
		const char *want = "--set: [profile] buffers = 2: fewer than outstanding = 4";

		MRC_T_EQ(mrcd_profile_load_set(&p, path, sets, 1, err, sizeof(err)), -EINVAL);
		MRC_T_ASSERT(strncmp(err, want, strlen(want)) == 0, "%s", err);
	}
	MRC_T_EQ(write_tmp("op.ini", "[profile]\nopcode = write\n", path, sizeof(path)), 0);
	MRC_T_EQ(mrcd_profile_load(&p, path, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, ":2:") && strstr(err, "needs opcode = write_imm"), "%s", err);
	MRC_T_EQ(write_tmp("op2.ini", "[profile]\nopcode = write\nverify = false\n", path,
			 sizeof(path)),
		0);
	MRC_T_ASSERT(mrcd_profile_load(&p, path, err, sizeof(err)) == 0, "%s", err);
	MRC_T_EQ(p.opcode, MRCD_OP_WRITE);

	/* Patterns over 4 hosts. */
	mrcd_profile_defaults(&p);
	MRC_T_EQ(mrcd_pattern_pairs(&p, 4, 1, pairs, 64), 4);
	p.pattern = 1; /* all-to-all */
	MRC_T_EQ(mrcd_pattern_pairs(&p, 4, 1, pairs, 64), 12);
	p.pattern = 2; /* incast to host 0 */
	MRC_T_EQ(mrcd_pattern_pairs(&p, 4, 1, pairs, 64), 3);
	for (int i = 0; i < 3; i++)
		MRC_T_EQ(pairs[i][1], 0);
	p.pattern = 3; /* ring */
	MRC_T_EQ(mrcd_pattern_pairs(&p, 4, 1, pairs, 64), 4);
	p.pattern = 4; /* permutation: a derangement */
	n = mrcd_pattern_pairs(&p, 8, 7, pairs, 64);
	MRC_T_EQ(n, 8);
	{
		unsigned int seen_src = 0, seen_dst = 0;

		for (unsigned int i = 0; i < n; i++) {
			MRC_T_ASSERT(pairs[i][0] != pairs[i][1], "host %u writes to itself",
				pairs[i][0]);
			seen_src |= 1u << pairs[i][0];
			seen_dst |= 1u << pairs[i][1];
		}
		MRC_T_EQ(seen_src, 0xffu);
		MRC_T_EQ(seen_dst, 0xffu);
	}
	return MRC_TEST_OK;
}

/* ---- cluster launchers (mrcd_launch.h) ---- */

static const char *const launch_vars[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NODEID", "SLURM_JOB_NUM_NODES",
	"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE",
	"MRCD_LAUNCH_SHARED_NODE"};

static void
launch_env(const char *const *kv)
{
	for (unsigned int i = 0; i < RTE_DIM(launch_vars); i++)
		unsetenv(launch_vars[i]);
	for (; kv != NULL && kv[0] != NULL; kv += 2)
		setenv(kv[0], kv[1], 1);
}

/* The environment kv (name, value, ..., NULL) gives index/count, or an error naming want_err. */
static int
expect_launch(
	const char *const *kv, int rc, unsigned int index, unsigned int count, const char *want_err)
{
	struct mrcd_launch l;
	char err[512] = "";
	int got;

	launch_env(kv);
	got = mrcd_launch_from_env(&l, err, sizeof(err));
	launch_env(NULL);
	MRC_T_ASSERT(got == rc, "%s=%s: rc %d, want %d (%s)", kv[0], kv[1], got, rc, err);
	if (rc != 0) {
		MRC_T_ASSERT(strstr(err, want_err) != NULL, "'%s' lacks '%s'", err, want_err);
		return MRC_TEST_OK;
	}
	MRC_T_ASSERT(l.valid, "%s: no launcher seen", kv[0]);
	MRC_T_EQ(l.index, index);
	MRC_T_EQ(l.count, count);
	return MRC_TEST_OK;
}

static int
test_launch_env(void)
{
	static const char *const ompi[] = {"OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
		"OMPI_COMM_WORLD_LOCAL_SIZE", "1", NULL};
	static const char *const ompi_two[] = {"OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE",
		"2", "OMPI_COMM_WORLD_LOCAL_SIZE", "2", NULL};
	static const char *const ompi_shared[] = {"OMPI_COMM_WORLD_RANK", "1",
		"OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_LOCAL_SIZE", "2",
		"MRCD_LAUNCH_SHARED_NODE", "1", NULL};
	static const char *const ompi_rank[] = {
		"OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "2", NULL};
	static const char *const ompi_size[] = {
		"OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "65", NULL};
	static const char *const slurm[] = {"SLURM_NODEID", "3", "SLURM_JOB_NUM_NODES", "4",
		"SLURM_STEP_TASKS_PER_NODE", "1(x4)", NULL};
	static const char *const slurm_two[] = {"SLURM_NODEID", "3", "SLURM_JOB_NUM_NODES", "4",
		"SLURM_STEP_TASKS_PER_NODE", "1(x3),2", NULL};
	static const char *const slurm_job[] = {"SLURM_NODEID", "0", "SLURM_JOB_NUM_NODES", "2",
		"SLURM_TASKS_PER_NODE", "2(x2)", NULL};
	static const char *const slurm_bad[] = {"SLURM_NODEID", "0", "SLURM_JOB_NUM_NODES", "2",
		"SLURM_NTASKS_PER_NODE", "one", NULL};
	static const char *const slurm_id[] = {
		"SLURM_NODEID", "x", "SLURM_JOB_NUM_NODES", "2", NULL};
	/* mpirun inside a Slurm allocation: the rank is this process's */
	static const char *const both[] = {"SLURM_NODEID", "0", "SLURM_JOB_NUM_NODES", "4",
		"OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "4", NULL};
	static const char *const none[] = {NULL};
	struct mrcd_launch l;
	char err[256];

	MRC_T_RUN(expect_launch(ompi, 0, 1, 2, NULL));
	MRC_T_RUN(expect_launch(ompi_two, -EINVAL, 0, 0,
		"OMPI_COMM_WORLD_LOCAL_SIZE=2: more than one mrcd on this node"));
	MRC_T_RUN(expect_launch(ompi_shared, 0, 1, 2, NULL));
	MRC_T_RUN(expect_launch(ompi_rank, -EINVAL, 0, 0, "OMPI_COMM_WORLD_RANK=2"));
	MRC_T_RUN(expect_launch(ompi_size, -EINVAL, 0, 0, "OMPI_COMM_WORLD_SIZE=65"));
	MRC_T_RUN(expect_launch(slurm, 0, 3, 4, NULL));
	MRC_T_RUN(expect_launch(slurm_two, -EINVAL, 0, 0,
		"SLURM_STEP_TASKS_PER_NODE=1(x3),2: more than one mrcd on a node"));
	MRC_T_RUN(expect_launch(slurm_job, -EINVAL, 0, 0, "SLURM_TASKS_PER_NODE=2(x2)"));
	MRC_T_RUN(expect_launch(slurm_bad, -EINVAL, 0, 0, "not Slurm's tasks-per-node form"));
	MRC_T_RUN(expect_launch(slurm_id, -EINVAL, 0, 0, "SLURM_NODEID=x"));
	MRC_T_RUN(expect_launch(both, 0, 2, 4, NULL));
	launch_env(none);
	MRC_T_EQ(mrcd_launch_from_env(&l, err, sizeof(err)), 0);
	MRC_T_ASSERT(!l.valid, "a launcher seen in an empty environment");
	return MRC_TEST_OK;
}

/* A launched host's config: ethdev ports named for n hosts, one plane each, after `daemon`. */
static int
write_launch_cfg(const char *name, const char *daemon, unsigned int n, char *path, size_t len)
{
	char text[1024];
	size_t o;

	o = (size_t)snprintf(text, sizeof(text),
		"[daemon]\n%splanes = 1\n[transport]\nev_active = 8\nev_backup = 4\n"
		"[ports]\nmode = ethdev\n",
		daemon);
	for (unsigned int h = 0; h < n; h++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "h%u.p0 = net_null%u\n", h, h);
	return write_tmp(name, text, path, len);
}

/* The launcher's numbers fill what the config leaves out; what it names wins. */
static int
test_launch_config(void)
{
	static struct mrcd_config c;
	const struct mrcd_launch node2of4 = {.valid = true, .index = 2, .count = 4, .who = "t"};
	const struct mrcd_launch node1of40 = {.valid = true, .index = 1, .count = 40, .who = "t"};
	const char *sets[] = {"daemon.first_host=1", "daemon.cluster_hosts=3"};
	char path[256], err[512];

	MRC_T_EQ(write_launch_cfg("launch-none.ini", "", 4, path, sizeof(path)), 0);
	MRC_T_ASSERT(mrcd_config_load_launch(&c, path, NULL, 0, &node2of4, err, sizeof(err)) == 0,
		"%s", err);
	MRC_T_EQ(c.daemon.hosts, 1);
	MRC_T_EQ(c.daemon.first_host, 2);
	MRC_T_EQ(mrcd_config_cluster_hosts(&c), 4);
	/* Without a launcher the same file is a cluster of the default two hosts. */
	MRC_T_EQ(mrcd_config_load(&c, path, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "h2.p0 = net_null2: host 2 is not in the cluster (hosts 0..1)"),
		"%s", err);
	/* hosts named: node i runs i x hosts ..; the cluster is count x hosts */
	MRC_T_EQ(write_launch_cfg("launch-hosts.ini", "hosts = 2\n", 8, path, sizeof(path)), 0);
	MRC_T_ASSERT(mrcd_config_load_launch(&c, path, NULL, 0, &node2of4, err, sizeof(err)) == 0,
		"%s", err);
	MRC_T_EQ(c.daemon.first_host, 4);
	MRC_T_EQ(mrcd_config_cluster_hosts(&c), 8);
	MRC_T_EQ(mrcd_config_load_launch(&c, path, NULL, 0, &node1of40, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "40 nodes x [daemon] hosts = 2") != NULL, "%s", err);
	/* The config names them: it wins, by file or by --set. */
	MRC_T_EQ(write_launch_cfg("launch-named.ini",
			 "hosts = 1\nfirst_host = 0\ncluster_hosts = 8\n", 8, path, sizeof(path)),
		0);
	MRC_T_ASSERT(mrcd_config_load_launch(&c, path, NULL, 0, &node2of4, err, sizeof(err)) == 0,
		"%s", err);
	MRC_T_EQ(c.daemon.first_host, 0);
	MRC_T_EQ(mrcd_config_cluster_hosts(&c), 8);
	MRC_T_EQ(write_launch_cfg("launch-set.ini", "hosts = 1\n", 3, path, sizeof(path)), 0);
	MRC_T_ASSERT(mrcd_config_load_launch(&c, path, sets, 2, &node2of4, err, sizeof(err)) == 0,
		"%s", err);
	MRC_T_EQ(c.daemon.first_host, 1);
	MRC_T_EQ(mrcd_config_cluster_hosts(&c), 3);
	return MRC_TEST_OK;
}

/* One file for the whole cluster: other hosts' ports are named and left alone. */
static int
test_cluster_ports(void)
{
	static struct mrcd_config c;
	const struct mrcd_launch node1of2 = {.valid = true, .index = 1, .count = 2, .who = "t"};
	char path[256], err[512];

	MRC_T_EQ(write_tmp("cluster-ports.ini",
			 "[daemon]\nplanes = 1\n[transport]\nev_active = 8\nev_backup = 4\n"
			 "[ports]\nmode = ethdev\nh0.p0 = net_null0\nh1.p0 = net_null1\n"
			 "vdev.0 = net_null0\nvdev.1 = net_null1\n",
			 path, sizeof(path)),
		0);
	MRC_T_ASSERT(mrcd_config_load_launch(&c, path, NULL, 0, &node1of2, err, sizeof(err)) == 0,
		"%s", err);
	MRC_T_EQ(c.daemon.first_host, 1);
	MRC_T_STREQ(c.ports.name[1][0], "net_null1");
	{
		/* Each process creates its own host's device, not the other's. */
		char *cli[] = {"mrcd", "-l", "0,1", "--", "--check", NULL};
		char *argv[64], buf[4096];
		bool mine = false, theirs = false;
		int n;

		n = eal(5, cli, &c, "1", argv, RTE_DIM(argv), buf, sizeof(buf), err, sizeof(err));
		MRC_T_ASSERT(n > 0, "EAL argv: %d %s", n, err);
		for (int i = 0; i < n; i++) {
			mine |= strcmp(argv[i], "--vdev=net_null1") == 0;
			theirs |= strcmp(argv[i], "--vdev=net_null0") == 0;
		}
		MRC_T_ASSERT(mine && !theirs, "host 1's process: its vdev %d, host 0's %d", mine,
			theirs);
	}
	return MRC_TEST_OK;
}

/*
 * [ev_profile.<n>] and [cc_profile.<n>]: keys the file leaves out take
 * [transport]'s and [cc]'s, only the sections given are defined, --check's
 * output loads back with the same profiles, and the keys' ranges are
 * mrcctl's (mrcd_profile_fields), so neither path takes what the other refuses.
 */
static int
test_qp_profiles_cfg(void)
{
	static struct mrcd_config c;
	char path[256], err[512];
	unsigned int seen = 0;

	for (unsigned int i = 0; i < mrcd_config_schema.n_keys; i++) {
		const struct mrcd_ini_key *k = &mrcd_config_schema.keys[i];
		const bool ev = strcmp(k->section, "ev_profile.#") == 0;
		int f;

		if (!ev && strcmp(k->section, "cc_profile.#") != 0)
			continue;
		seen++;
		if (strcmp(k->name, "algorithm") == 0)
			continue;
		f = mrcd_profile_field_find(k->name, strlen(k->name));
		MRC_T_ASSERT(f >= 0, "[%s] %s is no profile field", k->section, k->name);
		MRC_T_EQ(mrcd_profile_fields[f].kind, ev ? MRCD_PROFILE_EV : MRCD_PROFILE_CC);
		MRC_T_ASSERT(k->min == mrcd_profile_fields[f].min &&
				     k->max == mrcd_profile_fields[f].max,
			"%s: the file's range %" PRIu64 "..%" PRIu64 " is not mrcctl's", k->name,
			k->min, k->max);
	}
	MRC_T_EQ(seen, MRCD_PF_COUNT + 1); /* every field, and the algorithm */

	mrcd_config_defaults(&c);
	for (unsigned int n = 0; n < MRCD_PROFILE_MAX; n++)
		MRC_T_ASSERT(
			!c.profile[0][n].defined && !c.profile[1][n].defined, "defaults: %u", n);
	MRC_T_EQ(write_tmp("qpprof.ini",
			 "[transport]\nev_backup = 16\n[cc]\nmax_cwnd_kb = 900\n"
			 "[ev_profile.3]\nev_active = 64\nprobe_good = 5\n"
			 "[cc_profile.1]\nalgorithm = fixed\nfixed_cwnd_kb = 300\n"
			 "[cc_profile.15]\n",
			 path, sizeof(path)),
		0);
	MRC_T_ASSERT(mrcd_config_load(&c, path, err, sizeof(err)) == 0, "%s", err);
	MRC_T_ASSERT(c.profile[MRCD_PROFILE_EV][3].defined, "ev 3");
	MRC_T_ASSERT(!c.profile[MRCD_PROFILE_EV][1].defined, "ev 1 not in the file");
	MRC_T_EQ(c.profile[MRCD_PROFILE_EV][3].v[MRCD_PF_EV_ACTIVE], 64);
	MRC_T_EQ(c.profile[MRCD_PROFILE_EV][3].v[MRCD_PF_PROBE_GOOD], 5);
	MRC_T_EQ(c.profile[MRCD_PROFILE_EV][3].v[MRCD_PF_EV_BACKUP], 16); /* [transport]'s */
	MRC_T_ASSERT(
		c.profile[MRCD_PROFILE_CC][1].defined && c.profile[MRCD_PROFILE_CC][15].defined,
		"cc 1 and 15");
	MRC_T_STREQ(c.profile[MRCD_PROFILE_CC][1].algorithm, "fixed");
	MRC_T_EQ(c.profile[MRCD_PROFILE_CC][1].v[MRCD_PF_FIXED_CWND_KB], 300);
	MRC_T_EQ(c.profile[MRCD_PROFILE_CC][1].v[MRCD_PF_MAX_CWND_KB], 900); /* [cc]'s */
	MRC_T_STREQ(c.profile[MRCD_PROFILE_CC][15].algorithm, c.cc.algorithm);
	MRC_T_RUN(round_trip(&c, "qpprof-back.ini"));
	{
		/* An absent section is not the same file as a present one at equal values. */
		static struct mrcd_config d;
		char diff[256];

		d = c;
		d.profile[MRCD_PROFILE_CC][15].defined = false;
		MRC_T_EQ(mrcd_config_diff(&c, &d, diff, sizeof(diff)), 1);
		MRC_T_ASSERT(strstr(diff, "[cc_profile.15]") != NULL, "%s", diff);
	}
	return MRC_TEST_OK;
}

static int
test_qp_profiles_bad(void)
{
	MRC_T_RUN(expect_error("pr0.ini", "[ev_profile.0]\nev_active = 16\n", -EINVAL,
		"@:1: [ev_profile.0]: ev profile 0 is the default, made from [transport]",
		"1..15"));
	MRC_T_RUN(expect_error("pr16.ini", "[cc_profile.16]\ngamma_pm = 1\n", -EINVAL,
		"@:1: [cc_profile.16]: CC profile 16", ""));
	MRC_T_RUN(expect_error("prrange.ini", "[ev_profile.1]\nev_active = 5000\n", -EINVAL,
		"@:2: [ev_profile.1] ev_active = 5000: must be 1..4096 (EVs)", ""));
	MRC_T_RUN(expect_error("prkey.ini", "[cc_profile.2]\nev_active = 16\n", -EINVAL,
		"@:2: [cc_profile.2] ev_active: unknown key", ""));
	MRC_T_RUN(expect_error("pralg.ini", "[cc_profile.2]\nalgorithm = reno\n", -EINVAL,
		"@:2: [cc_profile.2] algorithm = reno: unknown algorithm", "uet-1.0-nscc"));
	/* The whole-profile check mrcctl runs entering OFFLINE, naming the key the file set. */
	MRC_T_RUN(expect_error("prmul.ini", "[ev_profile.4]\nprobe_good = 2\nev_backup = 4\n",
		-EINVAL,
		"@:3: [ev_profile.4] ev_backup = 4: ev_active=128 and ev_backup=4 must be "
		"multiples of the planes (8)",
		""));
	MRC_T_RUN(expect_error("prmin.ini", "[ev_profile.2]\nev_active = 16\nev_min_active = 17\n",
		-EINVAL,
		"@:3: [ev_profile.2] ev_min_active = 17: ev_min_active=17 is more than "
		"ev_active=16",
		""));
	MRC_T_RUN(expect_error("prtwice.ini", "[cc_profile.2]\n[cc_profile.2]\n", -EINVAL,
		"@:2: [cc_profile.2]: section given twice", ""));
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_profile),
	MRC_TEST_CASE(test_schema),
	MRC_TEST_CASE(test_defaults_valid),
	MRC_TEST_CASE(test_shipped_config),
	MRC_TEST_CASE(test_shipped_comments),
	MRC_TEST_CASE(test_examples),
	MRC_TEST_CASE(test_round_trip),
	MRC_TEST_CASE(test_bad_structure),
	MRC_TEST_CASE(test_bad_values),
	MRC_TEST_CASE(test_bad_cross),
	MRC_TEST_CASE(test_bad_file),
	MRC_TEST_CASE(test_derived),
	MRC_TEST_CASE(test_cli_defaults),
	MRC_TEST_CASE(test_cli_options),
	MRC_TEST_CASE(test_cli_bad),
	MRC_TEST_CASE(test_cli_set),
	MRC_TEST_CASE(test_cli_help),
	MRC_TEST_CASE(test_cli_eal),
	MRC_TEST_CASE(test_launch_env),
	MRC_TEST_CASE(test_launch_config),
	MRC_TEST_CASE(test_cluster_ports),
	MRC_TEST_CASE(test_qp_profiles_cfg),
	MRC_TEST_CASE(test_qp_profiles_bad),
};

MRC_TEST_MAIN("mrcd_config", cases)
