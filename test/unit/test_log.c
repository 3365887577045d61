/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* Per-module dynamic log types and the MRC_LOG / MRC_LOG_DP macros (no EAL needed). */

#include <stdio.h>

#include <rte_log.h>

#include "mrc_log.h"
#include "mrc_test.h"

/* As a module does it: declared in a header, defined in one .c. */
MRC_LOG_TYPE_DECLARE(testmod);
MRC_LOG_TYPE_DEFINE(testmod);
MRC_LOG_TYPE_DEFINE_LEVEL(testinfo, INFO);

static int
test_registered(void)
{
	/* Dynamic types, not the EAL fallback, and one per module. */
	MRC_T_ASSERT(
		mrc_logtype_testmod >= RTE_LOGTYPE_FIRST_EXT_ID, "type %d", mrc_logtype_testmod);
	MRC_T_ASSERT(
		mrc_logtype_testinfo >= RTE_LOGTYPE_FIRST_EXT_ID, "type %d", mrc_logtype_testinfo);
	MRC_T_ASSERT(mrc_logtype_common >= RTE_LOGTYPE_FIRST_EXT_ID, "type %d", mrc_logtype_common);
	MRC_T_ASSERT(mrc_logtype_testmod != mrc_logtype_testinfo, "distinct types");
	MRC_T_ASSERT(mrc_logtype_testmod != mrc_logtype_common, "distinct types");
	/* Registered under "mrc.<module>": registering the name again finds it. */
	MRC_T_EQ(rte_log_register("mrc.testmod"), mrc_logtype_testmod);
	MRC_T_EQ(rte_log_register("mrc.testinfo"), mrc_logtype_testinfo);
	MRC_T_EQ(rte_log_register("mrc.common"), mrc_logtype_common);
	/* Default levels. */
	MRC_T_EQ(rte_log_get_level((uint32_t)mrc_logtype_testmod), RTE_LOG_NOTICE);
	MRC_T_EQ(rte_log_get_level((uint32_t)mrc_logtype_testinfo), RTE_LOG_INFO);
	MRC_T_EQ(rte_log_get_level((uint32_t)mrc_logtype_common), RTE_LOG_NOTICE);
	return MRC_TEST_OK;
}

static int
test_format_and_filtering(void)
{
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	const char *want = "mrc.testmod: bad length 12 (of 40)\n"
			   "mrc.testmod: no arguments\n"
			   "mrc.testmod: dp info 2\n"
#if RTE_LOG_DP_LEVEL >= RTE_LOG_DEBUG
			   "mrc.testmod: dp debug 1\n"
#endif
			   "mrc.testmod: debug now 3\n"
			   "mrc.testinfo: info 4\n";

	MRC_T_ASSERT(f != NULL, "fmemopen");
	MRC_T_EQ(rte_openlog_stream(f), 0);

	MRC_LOG(testmod, ERR, "bad length %u (of %d)", 12u, 40);
	MRC_LOG(testmod, WARNING, "no arguments");
	MRC_LOG(testmod, INFO, "below the type's level: %d", 0); /* NOTICE: filtered */
	MRC_LOG_DP(testmod, INFO, "filtered at run time %d", 0);

	MRC_T_EQ(rte_log_set_level((uint32_t)mrc_logtype_testmod, RTE_LOG_DEBUG), 0);
	MRC_LOG_DP(testmod, INFO, "dp info %d", 2);
	/* Above RTE_LOG_DP_LEVEL (INFO in Debian's DPDK): compiled out. */
	MRC_LOG_DP(testmod, DEBUG, "dp debug %d", 1);
	MRC_LOG(testmod, DEBUG, "debug now %d", 3);
	MRC_LOG(testinfo, INFO, "info %d", 4);
	MRC_LOG(testinfo, DEBUG, "filtered");

	fflush(f);
	rte_openlog_stream(NULL);
	fclose(f);
	MRC_T_EQ(rte_log_set_level((uint32_t)mrc_logtype_testmod, RTE_LOG_NOTICE), 0);
	MRC_T_STREQ(buf, want);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_registered),
	MRC_TEST_CASE(test_format_and_filtering),
};

MRC_TEST_MAIN("common_log", cases)
