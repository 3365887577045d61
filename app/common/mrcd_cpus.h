/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_CPUS_H
#define MRCD_CPUS_H

#include <stdbool.h>
#include <stdint.h>

/* CPUs (bit n: CPU n < 64) that other running mrcd instances poll on. */
uint64_t mrcd_cpus_busy(void);

/*
 * After rte_eal_init(): claim the CPU of every worker lcore for this
 * process's life. 0, or -1 with *cpu set when another instance claimed that
 * CPU in the meantime (the caller says so and exits; a rerun picks others).
 * With shared_ok (the user chose the lcores: -l, -c or --lcores), a CPU
 * another instance holds is shared, not refused, and left unclaimed.
 */
int mrcd_cpus_claim_pollers(bool shared_ok, unsigned int *cpu);

/* Give the claims up (at exit; the kernel would too). */
void mrcd_cpus_release(void);

#endif /* MRCD_CPUS_H */
