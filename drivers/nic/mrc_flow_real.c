/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The real backend: rte_flow on the port. rte_flow returns NULL or a
 * negative value and sets rte_errno; the driver may leave a message in the
 * rte_flow_error (or not: then rte_strerror says what errno means). Both go
 * to the caller's mrc_flow_err, so a refusal names the port, the call and
 * the driver's reason.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "mrc_flow.h"

static void
fill_err(struct mrc_flow_err *err, uint16_t port, const char *call, int code,
	const struct rte_flow_error *fe)
{
	if (err == NULL)
		return;
	err->code = code;
	snprintf(err->msg, sizeof(err->msg), "port %u: %s: %s (%s)", port, call,
		fe->message != NULL ? fe->message : "no message from the driver",
		rte_strerror(-code));
}

/* rte_errno as -errno; a driver that failed without setting it is EIO. */
static int
neg_errno(int rc)
{
	if (rc < 0)
		return rc;
	return rte_errno > 0 ? -rte_errno : -EIO;
}

static struct mrc_flow *
real_create(uint16_t port, const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	const struct rte_flow_action actions[], struct mrc_flow_err *err)
{
	struct rte_flow_error fe = {0};
	struct rte_flow *f;

	rte_errno = 0;
	f = rte_flow_create(port, attr, pattern, actions, &fe);
	if (f == NULL) {
		fill_err(err, port, "rte_flow_create", neg_errno(0), &fe);
		return NULL;
	}
	if (err != NULL) {
		err->code = 0;
		err->msg[0] = '\0';
	}
	return (struct mrc_flow *)f;
}

static int
real_destroy(uint16_t port, struct mrc_flow *flow, struct mrc_flow_err *err)
{
	struct rte_flow_error fe = {0};
	int rc;

	rte_errno = 0;
	rc = rte_flow_destroy(port, (struct rte_flow *)flow, &fe);
	if (rc != 0) {
		rc = neg_errno(rc);
		fill_err(err, port, "rte_flow_destroy", rc, &fe);
	}
	return rc;
}

static int
real_flush(uint16_t port, struct mrc_flow_err *err)
{
	struct rte_flow_error fe = {0};
	int rc;

	rte_errno = 0;
	rc = rte_flow_flush(port, &fe);
	if (rc != 0) {
		rc = neg_errno(rc);
		fill_err(err, port, "rte_flow_flush", rc, &fe);
	}
	return rc;
}

const struct mrc_flow_ops mrc_flow_ops_real = {
	.name = "rte_flow",
	.create = real_create,
	.destroy = real_destroy,
	.flush = real_flush,
};
