/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_APPS_DMA_H
#define MRCD_APPS_DMA_H

/*
 * An application region made readable by the NICs that send from it.
 * Payloads leave mrcd as external mbuf segments pointing into the
 * application's memory (mrcd_apps_mr.c), so a NIC that fetches them by DMA
 * must know the range: it is registered as DPDK external memory in 4 KiB
 * pages and mapped for DMA on the device of every ethdev port, with the
 * IOVA equal to the address (IOVA-as-VA mode). Software drivers (every
 * device on the vdev bus: net_ring, net_null, memif, af_packet, ...) read
 * the bytes through their address and need no mapping. In IOVA-as-PA mode
 * a device would be given physical addresses, and 4 KiB pages of a memfd
 * are not physically contiguous: the region is refused if any port's
 * device is not a software one (doc/applications.md, "Memory").
 *
 * Run by the control thread only; nothing here is on a worker's path.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ethdev.h>

/* What one port's device needs for a region. */
enum mrcd_apps_dma_need {
	MRCD_APPS_DMA_NONE,   /* a software driver: reads the bytes through their address */
	MRCD_APPS_DMA_MAP,    /* maps the range for its DMA, IOVA = VA */
	MRCD_APPS_DMA_REFUSE, /* would read by physical address: the pages are not contiguous */
};

/* The rule above, for a device on bus `bus` (its rte_bus_name) in IOVA mode `mode`. */
enum mrcd_apps_dma_need mrcd_apps_dma_need(enum rte_iova_mode mode, const char *bus);

/* One region's registration: what to undo when it is released. */
struct mrcd_apps_dma {
	bool ext;	   /* registered as external memory */
	rte_iova_t iova;   /* of the range's first byte: its address, or 0 (no device reads it) */
	uint64_t mapped;   /* ports whose device mapped it (one port per device) */
	uint16_t n_mapped; /* devices mapped */
	uint16_t n_none;   /* ports whose device needs no mapping */
};

_Static_assert(RTE_MAX_ETHPORTS <= 64, "a region's `mapped` has a bit per port");

/*
 * Register [va, va + len) (4 KiB aligned, whole pages) as external memory
 * and map it on every port's device that DMAs, in IOVA mode `mode`
 * (rte_eal_iova_mode(); a parameter so tests can ask for PA). 0, or a
 * negative errno with `err` naming the device or the limit: -EOPNOTSUPP
 * (IOVA-as-PA and a port's device would DMA), -ENOSPC (DPDK's memory lists
 * are all used), or what a device's mapping answered. Nothing is left
 * registered or mapped on failure.
 */
int mrcd_apps_dma_register(struct mrcd_apps_dma *d, void *va, size_t len, enum rte_iova_mode mode,
	char *err, size_t errlen);

/* As mrcd_apps_dma_register() with the rule a parameter (tests ask for a refusing one). */
int mrcd_apps_dma_register_rule(struct mrcd_apps_dma *d, void *va, size_t len,
	enum rte_iova_mode mode,
	enum mrcd_apps_dma_need (*rule)(enum rte_iova_mode mode, const char *bus), char *err,
	size_t errlen);

/* Undo mrcd_apps_dma_register(): only once no packet holds the pages. */
void mrcd_apps_dma_unregister(struct mrcd_apps_dma *d, void *va, size_t len);

#endif /* MRCD_APPS_DMA_H */
