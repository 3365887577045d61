/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread of mrcd, before the configuration is loaded.
 *
 * The cluster launcher's environment (mrcd_launch.h): Open MPI's rank and
 * size, or Slurm's node index and node count, and the refusal of a second
 * task on one node.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrcd_config.h"
#include "mrcd_launch.h"

/* The messages below say 64. */
_Static_assert(MRCD_CONFIG_MAX_HOSTS == 64, "mrcd_launch.c's messages name the host limit");

/* A whole decimal number below `max`; -1 when the text is anything else. */
static long
number(const char *s, long max)
{
	long v = 0;

	if (s == NULL || *s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v >= max)
			return -1;
	}
	return v;
}

/*
 * The most tasks any node runs, from Slurm's "2(x3),1" (two tasks on each of
 * three nodes, one on the next); -1 when malformed.
 */
static long
slurm_tasks_max(const char *s)
{
	long most = 0;

	while (*s != '\0') {
		char *end;
		const long n = strtol(s, &end, 10);

		if (end == s || n < 0)
			return -1;
		most = n > most ? n : most;
		s = end;
		if (*s == '(') {
			s = strchr(s, ')');
			if (s == NULL)
				return -1;
			s++;
		}
		if (*s == ',')
			s++;
		else if (*s != '\0')
			return -1;
	}
	return most;
}

static int
refuse(char *err, size_t errlen, const char *var, const char *val, const char *why)
{
	snprintf(err, errlen, "%s=%s: %s", var, val != NULL ? val : "(unset)", why);
	return -EINVAL;
}

static bool
shared_node_allowed(void)
{
	const char *v = getenv("MRCD_LAUNCH_SHARED_NODE");

	return v != NULL && strcmp(v, "1") == 0;
}

static int
from_ompi(struct mrcd_launch *out, char *err, size_t errlen)
{
	const char *rank = getenv("OMPI_COMM_WORLD_RANK"), *size = getenv("OMPI_COMM_WORLD_SIZE");
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	const long n = number(size, MRCD_CONFIG_MAX_HOSTS + 1);
	const long r = number(rank, MRCD_CONFIG_MAX_HOSTS);

	if (n < 1)
		return refuse(err, errlen, "OMPI_COMM_WORLD_SIZE", size,
			"must be 1..64 (hosts in the cluster)");
	if (r < 0 || r >= n)
		return refuse(err, errlen, "OMPI_COMM_WORLD_RANK", rank,
			"must be a rank below OMPI_COMM_WORLD_SIZE");
	if (local != NULL && number(local, 1L << 20) > 1 && !shared_node_allowed())
		return refuse(err, errlen, "OMPI_COMM_WORLD_LOCAL_SIZE", local,
			"more than one mrcd on this node: start one per node (mpirun --map-by "
			"ppr:1:node), or set MRCD_LAUNCH_SHARED_NODE=1 where one machine "
			"emulates several hosts");
	out->valid = true;
	out->index = (unsigned int)r;
	out->count = (unsigned int)n;
	snprintf(out->who, sizeof(out->who), "Open MPI: rank %ld of %ld", r, n);
	return 0;
}

static int
from_slurm(struct mrcd_launch *out, char *err, size_t errlen)
{
	static const char *const per_node[] = {
		"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE"};
	const char *id = getenv("SLURM_NODEID"), *nodes = getenv("SLURM_JOB_NUM_NODES");
	const long n = number(nodes, MRCD_CONFIG_MAX_HOSTS + 1);
	const long i = number(id, MRCD_CONFIG_MAX_HOSTS);

	if (n < 1)
		return refuse(err, errlen, "SLURM_JOB_NUM_NODES", nodes,
			"must be 1..64 (hosts in the cluster)");
	if (i < 0 || i >= n)
		return refuse(err, errlen, "SLURM_NODEID", id,
			"must be a node index below SLURM_JOB_NUM_NODES");
	for (unsigned int k = 0; k < sizeof(per_node) / sizeof(per_node[0]); k++) {
		const char *v = getenv(per_node[k]);
		long most;

		if (v == NULL)
			continue;
		most = slurm_tasks_max(v);
		if (most < 0)
			return refuse(err, errlen, per_node[k], v,
				"not Slurm's tasks-per-node form (\"1(x4)\")");
		if (most > 1 && !shared_node_allowed())
			return refuse(err, errlen, per_node[k], v,
				"more than one mrcd on a node: start one per node (srun "
				"--ntasks-per-node=1), or set MRCD_LAUNCH_SHARED_NODE=1 where "
				"one machine emulates several hosts");
		break; /* the step's own count, when there is one, is the one that holds */
	}
	out->valid = true;
	out->index = (unsigned int)i;
	out->count = (unsigned int)n;
	snprintf(out->who, sizeof(out->who), "Slurm: node %ld of %ld", i, n);
	return 0;
}

int
mrcd_launch_from_env(struct mrcd_launch *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (getenv("OMPI_COMM_WORLD_RANK") != NULL)
		return from_ompi(out, err, errlen);
	if (getenv("SLURM_NODEID") != NULL)
		return from_slurm(out, err, errlen);
	return 0;
}
