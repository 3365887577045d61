/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_APPS_CTL_H
#define MRCD_APPS_CTL_H

/*
 * The control thread's side of the application socket, shared between its
 * files: the session and its requests (mrcd_apps_ctl.c), regions
 * (mrcd_apps_mr.c), CQs and their channels (mrcd_apps_cq.c), QPs and their
 * states (mrcd_apps_qp.c), and the calls onto a worker's lcore
 * (mrcd_apps_call.c). Everything here runs on the control thread, holding
 * the apps lock (mrcd_apps_priv.h) where it touches a session.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#include "mrc_chan.h"
#include "mrc_shard.h"
#include "mrcd_apps_priv.h"

/* What the control thread hands a function it runs on a worker's lcore. */
struct mrcd_apps_call {
	struct mrcd_apps *a;
	struct mrcd_app_qp *q;
	struct mrc_qp_attr *attr;
	struct mrc_mr_table *mrs;
	struct mrcd_app_mr *mr;
	uint32_t access;
};

/*
 * The engine's protection domain of an application's domain `handle`: the
 * session's number above it, so that no two sessions share one and none is
 * the daemon's own (0, its generator's regions and QPs).
 */
static inline uint64_t
mrcd_apps_pd(const struct mrcd_app_session *s, uint32_t handle)
{
	return (uint64_t)s->id << 32 | handle;
}

/*
 * Run fn on the lcore of host h's shard k; its return value, or -ENOTSUP (the
 * shard takes no requests). A full request ring is waited out.
 */
int mrcd_apps_call_shard(struct mrcd_apps *a, unsigned int h, unsigned int k, mrc_shard_call_fn fn,
	struct mrcd_apps_call *c);
/* Run fn on the shard that owns QP q. */
int mrcd_apps_call_owner(
	struct mrcd_apps *a, struct mrcd_app_qp *q, mrc_shard_call_fn fn, struct mrcd_apps_call *c);
/* Return once every shard of host h from `first` on has started a pass since the call. */
void mrcd_apps_host_barrier(struct mrcd_apps *a, unsigned int h, unsigned int first);

/* Fill rep with error err and its message; returns -err. */
int __rte_format_printf(3, 4)
	mrcd_apps_fail(struct mrc_chan_rep *rep, int err, const char *fmt, ...);
/* A sealed memfd of `bytes` mapped here, its fd in *fd; NULL (and *fd -1) on failure. */
uint8_t *mrcd_apps_make_shm(const char *name, size_t bytes, int *fd);

/* Requests: each fills rep and returns 0 or -errno. */
int mrcd_apps_reg_mr(struct mrcd_apps *a, struct mrcd_app_session *s, const struct mrc_chan_req *r,
	int fd, struct mrc_chan_rep *rep);
int mrcd_apps_dereg_mr(struct mrcd_apps *a, struct mrcd_app_session *s,
	const struct mrc_chan_req *r, struct mrc_chan_rep *rep);
/* A channel: a pipe whose write end mrcd keeps, its read end in *fd for the reply; req_fd, an
 * fd the request came with, refused. */
int mrcd_apps_create_channel(
	struct mrcd_app_session *s, int req_fd, struct mrc_chan_rep *rep, int *fd);
/* Channel r names let go: its write end closed, its slot free; EBUSY while a CQ of s uses it. */
int mrcd_apps_destroy_channel(
	struct mrcd_app_session *s, const struct mrc_chan_req *r, struct mrc_chan_rep *rep);
int mrcd_apps_create_cq(struct mrcd_apps *a, struct mrcd_app_session *s,
	const struct mrc_chan_req *r, struct mrc_chan_rep *rep, int *fd);
int mrcd_apps_destroy_cq(
	struct mrcd_app_session *s, const struct mrc_chan_req *r, struct mrc_chan_rep *rep);
int mrcd_apps_create_qp(struct mrcd_apps *a, struct mrcd_app_session *s,
	const struct mrc_chan_req *r, struct mrc_chan_rep *rep, int *fd);
int mrcd_apps_modify_qp(struct mrcd_apps *a, struct mrcd_app_session *s,
	const struct mrc_chan_req *r, struct mrc_chan_rep *rep);

/* Session s's CQ or QP by the number the application knows it by; NULL if none. */
struct mrcd_app_cq *mrcd_apps_find_cq(struct mrcd_app_session *s, uint32_t id);
struct mrcd_app_qp *mrcd_apps_find_qp(struct mrcd_app_session *s, uint32_t qpn);

/* Let region mr go (mrcd_apps_mr.c); false while packets still hold its pages. */
bool mrcd_apps_release_mr(struct mrcd_apps *a, struct mrcd_app_session *s, struct mrcd_app_mr *mr);
/* Regions of session `s` deregistered while packets held them: freed once they are gone. */
void mrcd_apps_reap(struct mrcd_apps *a, struct mrcd_app_session *s);
/* QP q out of its shard (flushed), its memory unmapped, its QPN and slot free. */
void mrcd_apps_qp_free(struct mrcd_apps *a, struct mrcd_app_qp *q);
/* A byte written on each channel whose armed CQ got an entry (never waiting); tokens taken. */
unsigned int mrcd_apps_wake_channels(struct mrcd_apps *a);

#endif
