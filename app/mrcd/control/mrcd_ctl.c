/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control socket's own thread (started by main.c after setup).
 *
 * The control socket (mrcd_ctl.h, doc/control.md): a unix stream socket at
 * [control] socket, mode 0660, owned by [control] group when one is set. A
 * socket file already there is tried first: if a daemon answers on it,
 * this one refuses to start (naming the path); if nobody does, it was left
 * by a daemon that died, and it is replaced.
 *
 * Who may do what is decided once per client, at accept: anyone who can
 * connect may read (the file mode keeps out whoever is not the owner or in
 * the socket's group); changing needs uid 0, or CAP_NET_ADMIN in the
 * client's effective set, or membership of [control] admin_group. The uid
 * and pid come from the kernel (SO_PEERCRED); the capabilities and groups
 * from /proc/<pid>/status read at accept, which is best effort: a client in
 * another pid namespace, or one that changed its credentials between
 * connect and accept, is judged on what that file says then (its uid alone
 * when the file cannot be read).
 *
 * The thread polls the socket, its clients and a wake pipe every 10 ms at
 * most, and takes the shards' EV events between polls.
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_malloc.h>

#include "mrcd_ctl.h"
#include "mrcd_log.h"

#define CAP_NET_ADMIN_BIT 12

/* A field of /proc/<pid>/status ("CapEff:", "Groups:"), into out; false if absent. */
static bool
proc_status_field(pid_t pid, const char *field, char *out, size_t outlen)
{
	char path[64], line[1024];
	const size_t fl = strlen(field);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, fl) == 0) {
			snprintf(out, outlen, "%s", line + fl);
			found = true;
			break;
		}
	fclose(f);
	return found;
}

/* Decide what client `c` may do (see the file comment), and say why in c->why. */
static void
judge(const struct mrcd_ctl *ctl, struct mrcd_ctl_client *c, gid_t gid)
{
	char buf[1024];

	c->admin = false;
	if (c->uid == 0) {
		c->admin = true;
		snprintf(c->why, sizeof(c->why), "uid 0");
		return;
	}
	if (proc_status_field(c->pid, "CapEff:", buf, sizeof(buf))) {
		const unsigned long long eff = strtoull(buf, NULL, 16);

		if ((eff >> CAP_NET_ADMIN_BIT) & 1) {
			c->admin = true;
			snprintf(c->why, sizeof(c->why), "CAP_NET_ADMIN");
			return;
		}
	}
	if (ctl->admin_gid_set) {
		bool member = gid == ctl->admin_gid;

		if (!member && proc_status_field(c->pid, "Groups:", buf, sizeof(buf))) {
			char *save = NULL;

			for (char *t = strtok_r(buf, " \t\n", &save); t != NULL && !member;
				t = strtok_r(NULL, " \t\n", &save))
				member = (gid_t)strtoul(t, NULL, 10) == ctl->admin_gid;
		}
		if (member) {
			c->admin = true;
			snprintf(c->why, sizeof(c->why), "member of %s",
				ctl->d->cfg.control.admin_group);
			return;
		}
	}
	snprintf(c->why, sizeof(c->why), "read only: changing needs uid 0, CAP_NET_ADMIN%s%s",
		ctl->admin_gid_set ? " or group " : "",
		ctl->admin_gid_set ? ctl->d->cfg.control.admin_group : "");
}

/* Write a whole line to a client; false if it cannot take it now (it is then dropped). */
static bool
send_line(struct mrcd_ctl_client *c, const char *line)
{
	const size_t n = strlen(line);
	ssize_t w = send(c->fd, line, n, MSG_DONTWAIT | MSG_NOSIGNAL);

	return w == (ssize_t)n;
}

static void
client_close(struct mrcd_ctl_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
	c->out_n = 0;
}

/* Append to a streaming client's queue; false when it has no room (the line is lost). */
static bool
queue(struct mrcd_ctl_client *c, const char *line)
{
	const size_t n = strlen(line);

	if (c->out == NULL || c->out_n + n > MRCD_CTL_EVENT_BUF)
		return false;
	memcpy(c->out + c->out_n, line, n);
	c->out_n += n;
	return true;
}

/*
 * Send what a streaming client's socket takes now, without waiting; then,
 * if events were lost for it, say how many once there is room. A client
 * that went away is closed.
 */
static void
flush(struct mrcd_ctl_client *c)
{
	ssize_t w;

	if (c->fd < 0 || c->out_n == 0)
		return;
	w = send(c->fd, c->out, c->out_n, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (w < 0) {
		if (errno != EAGAIN && errno != EINTR)
			client_close(c);
		return;
	}
	memmove(c->out, c->out + w, c->out_n - (size_t)w);
	c->out_n -= (size_t)w;
	if (c->lost != 0 && c->out_n < MRCD_CTL_EVENT_BUF / 2) {
		char line[64];

		snprintf(
			line, sizeof(line), "EVENT {\"lost\":%llu}\n", (unsigned long long)c->lost);
		if (queue(c, line))
			c->lost = 0;
	}
}

void
mrcd_ctl_broadcast(struct mrcd_ctl *ctl, const char *line)
{
	for (unsigned int i = 0; i < MRCD_CTL_MAX_CLIENTS; i++) {
		struct mrcd_ctl_client *c = &ctl->cl[i];

		/* A client behind by a whole queue loses events, counted: the thread never waits.
		 */
		if (c->fd >= 0 && c->events && !queue(c, line))
			c->lost++;
	}
}

static void
accept_one(struct mrcd_ctl *ctl)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct mrcd_ctl_client *c = NULL;
	const int fd = accept4(ctl->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	for (unsigned int i = 0; i < MRCD_CTL_MAX_CLIENTS && c == NULL; i++)
		if (ctl->cl[i].fd < 0)
			c = &ctl->cl[i];
	if (c == NULL || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		static const char busy[] = "ERR busy too many control clients\n";

		(void)!send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		close(fd);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->uid = cred.uid;
	c->pid = cred.pid;
	judge(ctl, c, cred.gid);
}

/* One complete line from client c (no '\n'): the hello, or a request. */
static void
on_line(struct mrcd_ctl *ctl, struct mrcd_ctl_client *c, const char *line, size_t len)
{
	char out[4096], err[256]; /* a path's probe answer takes about 2.5 KiB */
	struct mrcd_ctl_req rq;
	unsigned int version;

	if (!c->hello) {
		const int rc = mrcd_ctl_parse_hello(line, len, &version, err, sizeof(err));

		if (rc != 0) {
			snprintf(out, sizeof(out), "ERR %s\n", err);
			(void)send_line(c, out);
			client_close(c);
			return;
		}
		c->hello = true;
		snprintf(out, sizeof(out), "OK MRCD %u %s\n", MRCD_CTL_VERSION,
			c->admin ? "admin" : "read");
		if (!send_line(c, out))
			client_close(c);
		return;
	}
	if (c->events) /* a streaming client says nothing more; whatever it sends is ignored */
		return;
	if (mrcd_ctl_parse(line, len, &ctl->lim, &rq, err, sizeof(err)) != 0) {
		snprintf(out, sizeof(out), "ERR %s\n", err);
	} else if (mrcd_ctl_changes(rq.cmd) && !c->admin) {
		/* every command that changes something has its verb (mrcd_ctl_changes) */
		static const char *const verb[] = {[MRCD_CTL_DENY] = "deny",
			[MRCD_CTL_ALLOW] = "allow",
			[MRCD_CTL_PORT] = "set ports",
			[MRCD_CTL_PROFILE_ADD] = "add profiles",
			[MRCD_CTL_PROFILE_SET] = "change profiles",
			[MRCD_CTL_PROFILE_STATE] = "change profiles",
			[MRCD_CTL_PROFILE_DEL] = "remove profiles",
			[MRCD_CTL_RELOAD] = "reload",
			[MRCD_CTL_FAIL] = "fail QPs"};

		snprintf(out, sizeof(out), "ERR not-permitted uid %u may not %s: %s\n",
			(unsigned int)c->uid, verb[rq.cmd], c->why);
	} else {
		mrcd_ctl_answer(ctl, c, &rq, out, sizeof(out));
	}
	if (!send_line(c, out))
		client_close(c);
}

static void
read_client(struct mrcd_ctl *ctl, struct mrcd_ctl_client *c)
{
	const ssize_t r = recv(c->fd, c->in + c->in_n, sizeof(c->in) - c->in_n, MSG_DONTWAIT);
	size_t start = 0;

	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		client_close(c);
		return;
	}
	if (r < 0)
		return;
	c->in_n += (size_t)r;
	for (size_t i = 0; i < c->in_n && c->fd >= 0; i++)
		if (c->in[i] == '\n') {
			on_line(ctl, c, c->in + start, i - start);
			start = i + 1;
		}
	if (c->fd < 0)
		return;
	if (start == 0 && c->in_n == sizeof(c->in)) {
		/* MRCD_CTL_MAX_LINE bytes and no end of line: not our protocol. */
		(void)send_line(c, "ERR syntax line longer than 511 bytes\n");
		client_close(c);
		return;
	}
	memmove(c->in, c->in + start, c->in_n - start);
	c->in_n -= start;
}

static void *
ctl_thread(void *arg)
{
	struct mrcd_ctl *ctl = arg;

	for (;;) {
		struct pollfd pf[2 + MRCD_CTL_MAX_CLIENTS];
		unsigned int n = 0, idx[MRCD_CTL_MAX_CLIENTS];

		pf[n++] = (struct pollfd){.fd = ctl->wake[0], .events = POLLIN};
		pf[n++] = (struct pollfd){.fd = ctl->lfd, .events = POLLIN};
		for (unsigned int i = 0; i < MRCD_CTL_MAX_CLIENTS; i++)
			if (ctl->cl[i].fd >= 0) {
				idx[n - 2] = i;
				pf[n++] = (struct pollfd){.fd = ctl->cl[i].fd,
					.events =
						(short)(POLLIN | (ctl->cl[i].out_n ? POLLOUT : 0))};
			}
		if (poll(pf, n, 10) < 0 && errno != EINTR)
			break;
		if (pf[0].revents != 0)
			break;
		if (pf[1].revents & POLLIN)
			accept_one(ctl);
		for (unsigned int k = 2; k < n; k++)
			if (pf[k].revents != 0 && ctl->cl[idx[k - 2]].fd >= 0)
				read_client(ctl, &ctl->cl[idx[k - 2]]);
		mrcd_ctl_pump_events(ctl);
		for (unsigned int i = 0; i < MRCD_CTL_MAX_CLIENTS; i++)
			flush(&ctl->cl[i]);
	}
	return NULL;
}

/* Is a daemon answering on `path`? */
static bool
live(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool up;

	if (fd < 0)
		return false;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	up = connect(fd, (const struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return up;
}

static int
open_socket(struct mrcd_ctl *ctl)
{
	const struct mrcd_cfg_control *cc = &ctl->d->cfg.control;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct stat st;

	if (strcmp(cc->socket, "auto") == 0) {
		const struct mrcd_config *c = &ctl->d->cfg;
		/* Part of a cluster (a launcher's rank, a host file): its processes may share a
		 * machine, so each its own socket, named by its first host. */
		const bool part = c->daemon.first_host != 0 ||
				  c->daemon.hosts != mrcd_config_cluster_hosts(c);

		if (mrcd_ctl_default_path(ctl->path, sizeof(ctl->path), true,
			    part ? (int)c->daemon.first_host : -1) != 0) {
			MRCD_LOG(ctrl, ERR,
				"control: no directory for the socket ([control] socket = auto): "
				"/run/mrcd, $XDG_RUNTIME_DIR/mrcd and /tmp/mrcd-%u are not "
				"writable",
				(unsigned int)getuid());
			return -EACCES;
		}
	} else if (strlen(cc->socket) >= sizeof(a.sun_path)) {
		MRCD_LOG(ctrl, ERR, "control: socket path '%s' is longer than %zu bytes",
			cc->socket, sizeof(a.sun_path) - 1);
		return -ENAMETOOLONG;
	} else {
		snprintf(ctl->path, sizeof(ctl->path), "%s", cc->socket);
	}
	if (lstat(ctl->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			MRCD_LOG(ctrl, ERR, "control: %s exists and is not a socket", ctl->path);
			return -EEXIST;
		}
		if (live(ctl->path)) {
			MRCD_LOG(ctrl, ERR,
				"control: %s is the socket of a running mrcd; give this one "
				"another "
				"([control] socket)",
				ctl->path);
			return -EADDRINUSE;
		}
		unlink(ctl->path); /* left by a daemon that is gone */
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", ctl->path);
	ctl->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ctl->lfd < 0 || bind(ctl->lfd, (const struct sockaddr *)&a, sizeof(a)) != 0 ||
		listen(ctl->lfd, 16) != 0) {
		const int e = errno;

		MRCD_LOG(ctrl, ERR, "control: cannot listen on %s: %s", ctl->path, strerror(e));
		return -e;
	}
	if (chmod(ctl->path, 0660) != 0) {
		MRCD_LOG(ctrl, ERR, "control: chmod 0660 %s: %s", ctl->path, strerror(errno));
		return -errno;
	}
	if (strcmp(cc->group, "none") != 0) {
		const struct group *g = getgrnam(cc->group);

		if (g == NULL) {
			MRCD_LOG(ctrl, ERR, "control: group '%s' ([control] group) does not exist",
				cc->group);
			return -ENOENT;
		}
		if (chown(ctl->path, (uid_t)-1, g->gr_gid) != 0) {
			MRCD_LOG(ctrl, ERR, "control: cannot give %s to group %s: %s", ctl->path,
				cc->group, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int
mrcd_ctl_open(struct mrcd_daemon *d)
{
	const struct mrcd_cfg_control *cc = &d->cfg.control;
	struct mrcd_ctl *ctl;
	int rc;

	if (strcmp(cc->socket, "none") == 0)
		return 0;
	ctl = calloc(1, sizeof(*ctl));
	if (ctl == NULL)
		return -ENOMEM;
	ctl->d = d;
	ctl->lfd = ctl->wake[0] = ctl->wake[1] = -1;
	for (unsigned int i = 0; i < MRCD_CTL_MAX_CLIENTS; i++)
		ctl->cl[i].fd = -1;
	d->ctl = ctl;
	if (strcmp(cc->admin_group, "none") != 0) {
		const struct group *g = getgrnam(cc->admin_group);

		if (g == NULL) {
			MRCD_LOG(ctrl, ERR,
				"control: group '%s' ([control] admin_group) does not exist",
				cc->admin_group);
			rc = -ENOENT;
			goto fail;
		}
		ctl->admin_gid = g->gr_gid;
		ctl->admin_gid_set = true;
	}
	rc = open_socket(ctl);
	if (rc != 0)
		goto fail;
	return 0;
fail:
	mrcd_ctl_stop(d);
	return rc;
}

int
mrcd_ctl_start(struct mrcd_daemon *d)
{
	struct mrcd_ctl *ctl = d->ctl;
	int rc;

	if (ctl == NULL)
		return 0;
	ctl->lim = (struct mrcd_ctl_limits){
		.n_hosts = d->n_hosts, .n_planes = d->cfg.daemon.planes, .n_t1 = d->cfg.fabric.t1s};
	if (pipe2(ctl->wake, O_CLOEXEC) != 0) {
		rc = -errno;
		MRCD_LOG(ctrl, ERR, "control: pipe: %s", strerror(errno));
		goto fail;
	}
	rc = pthread_create(&ctl->thread, NULL, ctl_thread, ctl);
	if (rc != 0) {
		MRCD_LOG(ctrl, ERR, "control: cannot start its thread: %s", strerror(rc));
		rc = -rc;
		goto fail;
	}
	(void)pthread_setname_np(ctl->thread, "mrcd-ctl");
	ctl->started = true;
	printf("control socket: %s (protocol %u; doc/control.md)\n", ctl->path, MRCD_CTL_VERSION);
	return 0;
fail:
	mrcd_ctl_stop(d);
	return rc;
}

void
mrcd_ctl_stop(struct mrcd_daemon *d)
{
	struct mrcd_ctl *ctl = d->ctl;

	if (ctl == NULL)
		return;
	if (ctl->started) {
		(void)!write(ctl->wake[1], "x", 1);
		pthread_join(ctl->thread, NULL);
	}
	for (unsigned int i = 0; i < MRCD_CTL_MAX_CLIENTS; i++)
		client_close(&ctl->cl[i]);
	if (ctl->lfd >= 0) {
		close(ctl->lfd);
		unlink(ctl->path);
	}
	for (int i = 0; i < 2; i++)
		if (ctl->wake[i] >= 0)
			close(ctl->wake[i]);
	d->ctl = NULL;
	free(ctl);
}
