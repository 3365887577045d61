/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_LAUNCH_H
#define MRCD_LAUNCH_H

/*
 * Where a cluster launcher put this process: one mrcd per node, each told
 * its index among the nodes and their count by the launcher's environment.
 *
 *   Open MPI (mpirun)  OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE;
 *                      OMPI_COMM_WORLD_LOCAL_SIZE = processes on this node
 *   Slurm (srun)       SLURM_NODEID, SLURM_JOB_NUM_NODES; tasks per node
 *                      from SLURM_STEP_TASKS_PER_NODE, SLURM_TASKS_PER_NODE
 *                      or SLURM_NTASKS_PER_NODE ("2(x3),1" is Slurm's form)
 *
 * Open MPI's variables win when both are set (mpirun inside a Slurm
 * allocation: its rank is this process's). More than one mrcd on a node is
 * refused (they would be the same host), unless MRCD_LAUNCH_SHARED_NODE=1
 * says the node emulates several hosts (a test machine on memif).
 *
 * The configuration loader (mrcd_config_load_launch()) takes first_host and
 * cluster_hosts from it for the keys the file and --set leave out.
 */

#include <stdbool.h>
#include <stddef.h>

struct mrcd_launch {
	bool valid;	    /* a launcher's variables were found */
	unsigned int index; /* this node's index, 0 .. count - 1 */
	unsigned int count; /* nodes */
	char who[96];	    /* where the numbers came from, for the log */
};

/*
 * Read the environment. 0 with out->valid false when no launcher is seen,
 * 0 with it filled in, or -EINVAL with `err` naming the variable and value
 * (malformed, index out of range, more than one task on this node).
 */
int mrcd_launch_from_env(struct mrcd_launch *out, char *err, size_t errlen);

#endif /* MRCD_LAUNCH_H */
