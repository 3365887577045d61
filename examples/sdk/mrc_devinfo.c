/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc_devinfo: the MRC devices a program sees, as an application written
 * only against mrc.h and <infiniband/verbs.h> finds them (doc/sdk.md). For
 * each device: its port, its GID at index 3 (the one programs commonly hand
 * their peers), whether it does MRC, and that a buffer registers and
 * deregisters with its bytes kept. Exit 0 when at least one device did MRC
 * and every registration held.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mrc.h>

static int
show(struct ibv_device *dev)
{
	struct ibv_port_attr port;
	struct mrc_device_attr mattr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	union ibv_gid gid;
	char addr[INET6_ADDRSTRLEN];
	int supported = 0, ok = 1;
	uint32_t rkey = 0;
	char *buf;

	ctx = ibv_open_device(dev);
	if (ctx == NULL) {
		printf("%s: cannot open: %s\n", ibv_get_device_name(dev), strerror(errno));
		return 0;
	}
	if (ibv_query_port(ctx, 1, &port) != 0 || ibv_query_gid(ctx, 1, 3, &gid) != 0 ||
		mrc_query_device(ctx, &mattr, &supported) != 0) {
		printf("%s: cannot query: %s\n", ibv_get_device_name(dev), strerror(errno));
		ibv_close_device(ctx);
		return 0;
	}
	inet_ntop(AF_INET6, gid.raw, addr, sizeof(addr));
	printf("%s: port 1 %s, %s, MTU %d, GID[3] %s, MRC %s\n", ibv_get_device_name(dev),
		ibv_port_state_str(port.state),
		port.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand",
		128 << port.active_mtu, addr, supported ? "yes" : "no");
	pd = ibv_alloc_pd(ctx);
	buf = calloc(1, 1 << 20);
	strcpy(buf, "kept");
	mr = pd != NULL && buf != NULL ? ibv_reg_mr(pd, buf, 1 << 20,
						 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
				       : NULL;
	if (mr != NULL)
		rkey = mr->rkey;
	if (mr == NULL || strcmp(buf, "kept") != 0 || ibv_dereg_mr(mr) != 0 ||
		strcmp(buf, "kept") != 0) {
		printf("%s: registering 1 MiB failed: %s\n", ibv_get_device_name(dev),
			strerror(errno));
		ok = 0;
	} else {
		printf("%s: registered 1 MiB (rkey 0x%x), bytes kept\n", ibv_get_device_name(dev),
			rkey);
	}
	free(buf);
	if (pd != NULL)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return supported && ok ? 1 : -1;
}

int
main(void)
{
	int n = 0, mrc = 0, bad = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (list == NULL || n == 0) {
		printf("no RDMA device (run under mrc-run to see mrcd's)\n");
		return 1;
	}
	for (int k = 0; k < n; k++) {
		const int r = show(list[k]);

		mrc += r > 0;
		bad += r < 0;
	}
	ibv_free_device_list(list);
	return mrc > 0 && bad == 0 ? 0 : 1;
}
