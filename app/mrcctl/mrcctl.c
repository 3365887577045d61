/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrcctl: the node controller's command line (doc/control.md). It speaks
 * the control protocol (app/common/mrcd_ctl_proto.h) to a running mrcd:
 * the version line, one request made of its arguments, one answer, whose
 * JSON it prints on stdout; after "events", every event line until the
 * daemon goes or the user interrupts. Errors go to stderr as the daemon
 * said them. Exit status: 0 done, 1 the daemon refused, 2 no daemon or a
 * bad command line.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mrcd_ctl_proto.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [-s SOCKET] COMMAND [key=value ...]\n"
		"\n"
		"  status                                what mrcd runs, what is denied, your "
		"rights\n"
		"  events                                stream EV state changes until "
		"interrupted\n"
		"  deny  host=N|all plane=P [t1=T]       deny every EV of a plane or of a path\n"
		"  deny  host=N qpn=Q ev=E               deny one EV of a QP\n"
		"  allow (the same arguments)            re-admit them\n"
		"  port  host=N|all plane=P state=down|up   take a plane's port out of service, or "
		"back\n"
		"  probe host=N qpn=Q ev=E               probe one EV of a QP: its round trip\n"
		"  probe host=N plane=P [t1=T]           probe the EVs of a path (at most 32)\n"
		"  probe host=N peer=C ev=E              endpoint EV probe to host C elsewhere:\n"
		"                                        round trip less its service time\n"
		"  profile list                          every EV and CC profile, with its QPs\n"
		"  profile show  kind=ev|cc id=N         one profile's fields\n"
		"  profile add   kind=ev|cc id=N [field=V ...]   a new profile (INIT), from the "
		"default\n"
		"  profile set   kind=ev|cc id=N field=V ...     change fields (online: some)\n"
		"  profile state kind=ev|cc id=N state=init|offline|online   one lifecycle step\n"
		"  profile del   kind=ev|cc id=N         remove a profile no QP uses\n"
		"  reload                                what SIGHUP does (a service): config, "
		"profile, scenario\n"
		"\n"
		"SOCKET: [control] socket of the mrcd to talk to; by default the first of\n"
		"/run/mrcd, $XDG_RUNTIME_DIR/mrcd, /tmp/mrcd-<uid> that holds a control.sock.\n"
		"Numbers are decimal or 0x-hex. Protocol %d; see doc/control.md.\n",
		MRCD_CTL_VERSION);
}

/* One line from fd into buf (without '\n'); -1 on EOF or error before one. */
static int
read_line(int fd, char *buf, size_t len, size_t *have, char *rx, size_t rxlen)
{
	for (;;) {
		char *nl = memchr(rx, '\n', *have);
		ssize_t r;

		if (nl != NULL) {
			const size_t n = (size_t)(nl - rx);

			snprintf(buf, len, "%.*s", (int)n, rx);
			memmove(rx, nl + 1, *have - n - 1);
			*have -= n + 1;
			return 0;
		}
		if (*have == rxlen)
			return -1; /* a line longer than the protocol allows */
		r = read(fd, rx + *have, rxlen - *have);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				return -1;
			return -1;
		}
		*have += (size_t)r;
	}
}

static int
say_error(const char *line)
{
	fprintf(stderr, "mrcctl: %s\n", strncmp(line, "ERR ", 4) == 0 ? line + 4 : line);
	return 1;
}

int
main(int argc, char **argv)
{
	char path[256] = "", req[MRCD_CTL_MAX_LINE], line[8192], rx[8192];
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	size_t have = 0, o = 0;
	int i = 1, fd;

	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "-s") == 0) {
		snprintf(path, sizeof(path), "%s", argv[2]);
		i = 3;
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	for (; i < argc; i++) {
		const int w = snprintf(req + o, sizeof(req) - o, "%s%s", o ? " " : "", argv[i]);

		if (w < 0 || (size_t)w >= sizeof(req) - o - 1) {
			fprintf(stderr, "mrcctl: the command is longer than %d bytes\n",
				MRCD_CTL_MAX_LINE - 1);
			return 2;
		}
		o += (size_t)w;
	}
	if (path[0] == '\0' && mrcd_ctl_default_path(path, sizeof(path), false, -1) != 0) {
		fprintf(stderr, "mrcctl: no socket path\n");
		return 2;
	}
	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "mrcctl: socket path '%s' is too long\n", path);
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)&a, sizeof(a)) != 0) {
		fprintf(stderr, "mrcctl: cannot connect to %s: %s\n", path, strerror(errno));
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	dprintf(fd, "MRCCTL %d\n", MRCD_CTL_VERSION);
	if (read_line(fd, line, sizeof(line), &have, rx, sizeof(rx)) != 0) {
		fprintf(stderr, "mrcctl: %s closed without answering\n", path);
		return 2;
	}
	if (strncmp(line, "OK ", 3) != 0)
		return say_error(line) + 1;
	dprintf(fd, "%s\n", req);
	if (read_line(fd, line, sizeof(line), &have, rx, sizeof(rx)) != 0) {
		fprintf(stderr, "mrcctl: %s closed without answering\n", path);
		return 2;
	}
	if (strncmp(line, "OK ", 3) != 0)
		return say_error(line);
	if (strcmp(argv[argc - 1], "events") != 0) {
		printf("%s\n", line + 3);
		return 0;
	}
	/* events: one JSON object a line, as they come, until the daemon goes or ^C. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (read_line(fd, line, sizeof(line), &have, rx, sizeof(rx)) == 0)
		if (strncmp(line, "EVENT ", 6) == 0)
			printf("%s\n", line + 6);
	close(fd);
	return 0;
}
