/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * An application region's standing with DPDK (app/mrcd/apps/mrcd_apps_dma.c):
 * which devices map it, registered as external memory while held and gone
 * after, the IOVA a NIC is given, and the refusal in IOVA-as-PA mode that
 * undoes everything.
 */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_memory.h>
#include <rte_ring.h>

#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_apps_dma.h"

#define PAGES 3
#define PG    4096u

/* A software port (net_ring), so the loop over ports has something to judge. */
static int
one_port(void)
{
	static int port = -1;
	struct rte_ring *r;

	if (port >= 0)
		return port;
	r = rte_ring_create("dma_test", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		return -1;
	port = rte_eth_from_ring(r);
	return port;
}

static void *
pages(void)
{
	void *p =
		mmap(NULL, PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Is [va, va + PAGES pages) DPDK memory, every page a memseg of an external list? */
static bool
registered(void *va)
{
	struct rte_memseg_list *msl = rte_mem_virt2memseg_list(va);

	if (msl == NULL || !msl->external)
		return false;
	for (unsigned int k = 0; k < PAGES; k++)
		if (rte_mem_virt2memseg((uint8_t *)va + k * PG + 17, msl) == NULL)
			return false;
	return true;
}

/* Every registering case: EAL up, a software port to register with, and
 * fresh pages DPDK does not know. */
static int
fresh_pages(void **va)
{
	MRC_T_RUN(mrc_test_eal_init("test_apps_dma"));
	MRC_T_ASSERT(one_port() >= 0, "a net_ring port");
	*va = pages();
	MRC_T_ASSERT(*va != NULL, "mmap");
	return MRC_TEST_OK;
}

/* Deregistration leaves no page known to DPDK; then the pages go. */
static int
unregister_and_free(struct mrcd_apps_dma *d, void *va)
{
	mrcd_apps_dma_unregister(d, va, PAGES * PG);
	MRC_T_ASSERT(!registered(va), "gone after deregistration");
	munmap(va, PAGES * PG);
	return MRC_TEST_OK;
}

static int
test_rule(void)
{
	MRC_T_EQ(mrcd_apps_dma_need(RTE_IOVA_VA, "vdev"), MRCD_APPS_DMA_NONE);
	MRC_T_EQ(mrcd_apps_dma_need(RTE_IOVA_PA, "vdev"), MRCD_APPS_DMA_NONE);
	MRC_T_EQ(mrcd_apps_dma_need(RTE_IOVA_VA, "pci"), MRCD_APPS_DMA_MAP);
	MRC_T_EQ(mrcd_apps_dma_need(RTE_IOVA_PA, "pci"), MRCD_APPS_DMA_REFUSE);
	MRC_T_EQ(mrcd_apps_dma_need(RTE_IOVA_VA, "auxiliary"), MRCD_APPS_DMA_MAP);
	MRC_T_EQ(mrcd_apps_dma_need(RTE_IOVA_PA, NULL), MRCD_APPS_DMA_REFUSE);
	return MRC_TEST_OK;
}

/* IOVA-as-VA: external memory while held, IOVA = address, software ports counted. */
static int
test_register_va(void)
{
	struct mrcd_apps_dma d;
	char err[256] = "";
	void *va;

	MRC_T_RUN(fresh_pages(&va));
	MRC_T_ASSERT(!registered(va), "not DPDK memory before");
	MRC_T_EQ(mrcd_apps_dma_register(&d, va, PAGES * PG, RTE_IOVA_VA, err, sizeof(err)), 0);
	MRC_T_ASSERT(registered(va), "every page found while registered");
	MRC_T_ASSERT(d.ext, "registered as external memory");
	MRC_T_U64_EQ(d.iova, (uint64_t)(uintptr_t)va);
	MRC_T_EQ(d.n_mapped, 0); /* net_ring reads through the address */
	MRC_T_ASSERT(d.n_none >= 1, "the software port counted (%u)", d.n_none);
	MRC_T_U64_EQ(d.mapped, 0);
	/* The same pages twice: refused, the first registration untouched. */
	{
		struct mrcd_apps_dma d2;

		MRC_T_EQ(mrcd_apps_dma_register(&d2, va, PAGES * PG, RTE_IOVA_VA, err, sizeof(err)),
			-EEXIST);
		MRC_T_ASSERT(strstr(err, "external memory") != NULL, "says why: %s", err);
		MRC_T_ASSERT(registered(va), "the first one stays");
	}
	MRC_T_RUN(unregister_and_free(&d, va));
	MRC_T_ASSERT(!d.ext, "nothing left to undo");
	return MRC_TEST_OK;
}

/* IOVA-as-PA with software ports only: nothing reads by IOVA, the region is taken (IOVA 0). */
static int
test_register_pa_software_ports(void)
{
	struct mrcd_apps_dma d;
	char err[256] = "";
	void *va;

	MRC_T_RUN(fresh_pages(&va));
	MRC_T_EQ(mrcd_apps_dma_register(&d, va, PAGES * PG, RTE_IOVA_PA, err, sizeof(err)), 0);
	MRC_T_U64_EQ(d.iova, 0);
	MRC_T_ASSERT(registered(va), "external memory in PA mode too");
	MRC_T_RUN(unregister_and_free(&d, va));
	return MRC_TEST_OK;
}

/* As a PCI NIC in IOVA-as-PA mode would be judged: every device refuses. */
static enum mrcd_apps_dma_need
refuse_all(enum rte_iova_mode mode, const char *bus)
{
	RTE_SET_USED(mode);
	RTE_SET_USED(bus);
	return MRCD_APPS_DMA_REFUSE;
}

/* The refusal names the port and the way out, and leaves nothing registered. */
static int
test_refusal_undoes_everything(void)
{
	struct mrcd_apps_dma d;
	char err[256] = "";
	void *va;

	MRC_T_RUN(fresh_pages(&va));
	MRC_T_EQ(mrcd_apps_dma_register_rule(
			 &d, va, PAGES * PG, RTE_IOVA_PA, refuse_all, err, sizeof(err)),
		-EOPNOTSUPP);
	printf("  %s\n", err);
	MRC_T_ASSERT(strstr(err, "IOVA-as-PA") != NULL && strstr(err, "--iova-mode=va") != NULL,
		"says why and the way out: %s", err);
	MRC_T_ASSERT(strlen(err) < 128, "fits a channel reply (%zu bytes)", strlen(err));
	MRC_T_ASSERT(!registered(va), "nothing left registered");
	MRC_T_ASSERT(!d.ext && d.mapped == 0, "nothing left to undo");
	/* and the pages can be registered again */
	MRC_T_EQ(mrcd_apps_dma_register(&d, va, PAGES * PG, RTE_IOVA_VA, err, sizeof(err)), 0);
	MRC_T_RUN(unregister_and_free(&d, va));
	return MRC_TEST_OK;
}

static int
test_refuses_partial_pages(void)
{
	struct mrcd_apps_dma d;
	char err[256] = "";
	uint8_t *va;

	MRC_T_RUN(mrc_test_eal_init("test_apps_dma"));
	va = pages();
	MRC_T_ASSERT(va != NULL, "mmap");
	MRC_T_EQ(mrcd_apps_dma_register(&d, va + 64, PG, RTE_IOVA_VA, err, sizeof(err)), -EINVAL);
	MRC_T_EQ(mrcd_apps_dma_register(&d, va, PG + 1, RTE_IOVA_VA, err, sizeof(err)), -EINVAL);
	MRC_T_ASSERT(strstr(err, "4 KiB") != NULL, "says why: %s", err);
	MRC_T_ASSERT(!registered(va), "nothing registered");
	munmap(va, PAGES * PG);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_rule),
	MRC_TEST_CASE(test_register_va),
	MRC_TEST_CASE(test_register_pa_software_ports),
	MRC_TEST_CASE(test_refusal_undoes_everything),
	MRC_TEST_CASE(test_refuses_partial_pages),
};

MRC_TEST_MAIN("mrcd_apps_dma", cases)
