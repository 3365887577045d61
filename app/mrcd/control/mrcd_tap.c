/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, at setup, every control tick (mrcd_nd.c) and at
 * teardown.
 *
 * The exception path's kernel side ([ports] tap): one Linux tap interface
 * per plane port, named mrch<host>p<plane>, with the port's MAC, the host's
 * addresses on the plane and a host route to the plane's next hop, so the
 * kernel answers ping on the plane addresses, and LLDP daemons and tcpdump
 * see the port's traffic that is not MRC. Frames the shards hand over go
 * into the tap; frames the kernel writes to it go out the port through
 * shard 0. A plain /dev/net/tun descriptor, non-blocking, read and written
 * by the control thread alone: no DPDK driver, no lcore.
 *
 * The kernel does not run duplicate address detection on the tap (its
 * addresses are the port's, which mrcd answers for), and neighbour
 * solicitations for those addresses are answered by mrcd, never passed in;
 * every advertisement is passed in, so the kernel learns its neighbours.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_ether.h>

#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"

/* linux/ipv6.h's struct in6_ifreq (its header clashes with netinet/in.h). */
struct tap_in6_ifreq {
	struct in6_addr addr;
	uint32_t prefixlen;
	int ifindex;
};

static int
sysctl_write(const char *ifname, const char *key, const char *val)
{
	char path[128];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/%s", ifname, key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* The tap's MAC, MTU, no DAD, up, its addresses and the route to the next hop. */
static int
tap_configure(
	struct mrcd_nd_port *np, int sock, int ifindex, const uint8_t *next_hop, const char **what)
{
	struct ifreq ifr;
	struct tap_in6_ifreq a6;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", np->tap_name);
	ifr.ifr_hwaddr.sa_family = 1; /* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, &np->mac, RTE_ETHER_ADDR_LEN);
	*what = "set its MAC";
	if (ioctl(sock, SIOCSIFHWADDR, &ifr) != 0)
		return -errno;
	ifr.ifr_mtu = 9000;
	*what = "set its MTU";
	if (ioctl(sock, SIOCSIFMTU, &ifr) != 0)
		return -errno;
	*what = "turn duplicate address detection off";
	if (sysctl_write(np->tap_name, "accept_dad", "0") != 0 ||
		sysctl_write(np->tap_name, "disable_ipv6", "0") != 0)
		return -errno;
	*what = "bring it up";
	if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(sock, SIOCSIFFLAGS, &ifr) != 0)
		return -errno;
	*what = "add its addresses";
	for (unsigned int i = 1; i < np->n_addr; i++) { /* addr[0], link-local, the kernel makes */
		memset(&a6, 0, sizeof(a6));
		memcpy(&a6.addr, np->addr[i], sizeof(a6.addr));
		a6.prefixlen = 128;
		a6.ifindex = ifindex;
		if (ioctl(sock, SIOCSIFADDR, &a6) != 0 && errno != EEXIST)
			return -errno;
	}
	if (next_hop != NULL) {
		struct in6_rtmsg rt;

		memset(&rt, 0, sizeof(rt));
		memcpy(&rt.rtmsg_dst, next_hop, sizeof(rt.rtmsg_dst));
		rt.rtmsg_dst_len = 128;
		rt.rtmsg_metric = 1;
		rt.rtmsg_flags = RTF_UP | RTF_HOST;
		rt.rtmsg_ifindex = ifindex;
		*what = "route to its next hop";
		if (ioctl(sock, SIOCADDRT, &rt) != 0 && errno != EEXIST)
			return -errno;
	}
	return 0;
}

int
mrcd_tap_open(struct mrcd_daemon *d, unsigned int h, unsigned int p)
{
	const unsigned int c = d->cfg.daemon.first_host + h;
	struct mrcd_nd_port *np = &d->host[h].nd[p];
	const char *what = "open /dev/net/tun";
	struct ifreq ifr;
	int sock = -1, rc = 0, ifindex;

	snprintf(np->tap_name, sizeof(np->tap_name), "mrch%up%u", c, p);
	np->tap_fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (np->tap_fd < 0) {
		rc = -errno;
		goto fail;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", np->tap_name);
	what = "create the tap (TUNSETIFF)";
	if (ioctl(np->tap_fd, TUNSETIFF, &ifr) != 0) {
		rc = -errno;
		goto fail;
	}
	ifindex = (int)if_nametoindex(np->tap_name);
	sock = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	what = "open a socket to configure it";
	if (sock < 0 || ifindex == 0) {
		rc = -errno;
		goto fail;
	}
	rc = tap_configure(np, sock, ifindex, np->resolve ? np->nh.ip : NULL, &what);
	close(sock);
	if (rc != 0)
		goto fail;
	MRCD_LOG(ctrl, NOTICE, "host %u plane %u: frames that are not MRC go to tap %s", c, p,
		np->tap_name);
	return 0;
fail:
	MRCD_LOG(ctrl, ERR, "host %u plane %u: [ports] tap: cannot %s for %s: %s", c, p, what,
		np->tap_name, strerror(-rc));
	if (sock >= 0)
		close(sock);
	mrcd_tap_close(np);
	return rc;
}

bool
mrcd_tap_write(struct mrcd_nd_port *np, const uint8_t *f, uint32_t len)
{
	if (np->tap_fd < 0)
		return false;
	if (write(np->tap_fd, f, len) != (ssize_t)len) {
		__atomic_store_n(&np->cnt[MRCD_ND_tap_drops], np->cnt[MRCD_ND_tap_drops] + 1,
			__ATOMIC_RELAXED);
		return true; /* taken (and counted lost): not dropped as "no tap" */
	}
	__atomic_store_n(&np->cnt[MRCD_ND_to_tap], np->cnt[MRCD_ND_to_tap] + 1, __ATOMIC_RELAXED);
	return true;
}

int
mrcd_tap_read(struct mrcd_nd_port *np, uint8_t *buf, uint32_t room)
{
	const ssize_t n = np->tap_fd >= 0 ? read(np->tap_fd, buf, room) : -1;

	return n > 0 ? (int)n : 0;
}

void
mrcd_tap_close(struct mrcd_nd_port *np)
{
	if (np->tap_fd >= 0)
		close(np->tap_fd); /* the kernel removes a tap nobody holds */
	np->tap_fd = -1;
}
