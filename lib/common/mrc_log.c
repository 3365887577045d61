/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include "mrc_log.h"

MRC_LOG_TYPE_DEFINE(common);
