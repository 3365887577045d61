/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the control thread (mrcd_apps_mr.c). Owns an application
 * region's standing with DPDK: external memory, and its DMA mapping on the
 * ports' devices (mrcd_apps_dma.h says why and the rule).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include "mrcd_apps_dma.h"

#define PAGE 4096u

enum mrcd_apps_dma_need
mrcd_apps_dma_need(enum rte_iova_mode mode, const char *bus)
{
	/* A vdev's driver is software: it copies or passes on through the address. */
	if (bus != NULL && strcmp(bus, "vdev") == 0)
		return MRCD_APPS_DMA_NONE;
	return mode == RTE_IOVA_VA ? MRCD_APPS_DMA_MAP : MRCD_APPS_DMA_REFUSE;
}

static struct rte_device *
port_dev(uint16_t port)
{
	struct rte_eth_dev_info info;

	if (!rte_eth_dev_is_valid_port(port) || rte_eth_dev_info_get(port, &info) != 0)
		return NULL;
	return info.device;
}

/* Is `dev` already mapped through a port before `port`? One mapping per device. */
static bool
dev_mapped(const struct mrcd_apps_dma *d, uint16_t port, const struct rte_device *dev)
{
	for (uint16_t q = 0; q < port; q++)
		if ((d->mapped >> q & 1) && port_dev(q) == dev)
			return true;
	return false;
}

void
mrcd_apps_dma_unregister(struct mrcd_apps_dma *d, void *va, size_t len)
{
	for (uint16_t p = 0; p < RTE_MAX_ETHPORTS; p++) {
		struct rte_device *dev;

		if (!(d->mapped >> p & 1))
			continue;
		/* a port closed since took its device's mappings with it */
		dev = port_dev(p);
		if (dev != NULL)
			(void)rte_dev_dma_unmap(dev, va, (uint64_t)d->iova, len);
	}
	if (d->ext)
		(void)rte_extmem_unregister(va, len);
	memset(d, 0, sizeof(*d));
}

int
mrcd_apps_dma_register(struct mrcd_apps_dma *d, void *va, size_t len, enum rte_iova_mode mode,
	char *err, size_t errlen)
{
	return mrcd_apps_dma_register_rule(d, va, len, mode, mrcd_apps_dma_need, err, errlen);
}

int
mrcd_apps_dma_register_rule(struct mrcd_apps_dma *d, void *va, size_t len, enum rte_iova_mode mode,
	enum mrcd_apps_dma_need (*rule)(enum rte_iova_mode mode, const char *bus), char *err,
	size_t errlen)
{
	uint16_t p;

	memset(d, 0, sizeof(*d));
	if (((uintptr_t)va & (PAGE - 1)) != 0 || len == 0 || (len & (PAGE - 1)) != 0) {
		snprintf(err, errlen, "range %p + %zu is not whole 4 KiB pages", va, len);
		return -EINVAL;
	}
	/* Every region, whatever the ports: rte_dev_dma_map() wants it, and it is one rule. */
	if (rte_extmem_register(va, len, NULL, 0, PAGE) != 0) {
		const int e = rte_errno;

		snprintf(err, errlen, "DPDK cannot take it as external memory: %s%s",
			rte_strerror(e),
			e == ENOSPC ? " (each region takes one of DPDK's RTE_MAX_MEMSEG_LISTS "
				      "memory lists, and they are all used)"
				    : "");
		return -e;
	}
	d->ext = true;
	d->iova = mode == RTE_IOVA_VA ? (rte_iova_t)(uintptr_t)va : 0;
	RTE_ETH_FOREACH_DEV (p) {
		struct rte_device *dev = port_dev(p);
		const char *bus = dev != NULL ? rte_bus_name(rte_dev_bus(dev)) : NULL;
		int rc = 0;

		if (dev == NULL)
			continue;
		switch (rule(mode, bus)) {
		case MRCD_APPS_DMA_NONE:
			d->n_none++;
			continue;
		case MRCD_APPS_DMA_REFUSE:
			snprintf(err, errlen,
				"IOVA-as-PA: port %u (%s, bus %s) would DMA from pages not "
				"physically contiguous; run with --iova-mode=va",
				p, rte_dev_name(dev), bus);
			mrcd_apps_dma_unregister(d, va, len);
			return -EOPNOTSUPP;
		case MRCD_APPS_DMA_MAP:
			break;
		}
		if (dev_mapped(d, p, dev))
			continue;
		if (rte_dev_dma_map(dev, va, (uint64_t)d->iova, len) != 0) {
			rc = rte_errno;
			if (rc == ENOTSUP || rc == ENODEV) {
				d->n_none++; /* the bus or driver has no DMA to map */
				continue;
			}
			snprintf(err, errlen,
				"port %u's device %s cannot map the region for DMA: %s", p,
				rte_dev_name(dev), rte_strerror(rc));
			mrcd_apps_dma_unregister(d, va, len);
			return -(rc != 0 ? rc : EIO);
		}
		d->mapped |= UINT64_C(1) << p;
		d->n_mapped++;
	}
	return 0;
}
