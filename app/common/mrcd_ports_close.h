/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_PORTS_CLOSE_H
#define MRCD_PORTS_CLOSE_H

#include <stdint.h>

/*
 * Stop and close n ethdev ports at exit (mrcd's and mrc-fabric's). net_memif
 * ports are stopped and closed on the EAL interrupt thread, between two of
 * its callbacks, so that a peer's disconnect is never handled on a port
 * while this thread frees it (see mrcd_ports_close.c); other ports are
 * closed here. Returns when every port is closed.
 */
void mrcd_ports_close_all(const uint16_t *ports, unsigned int n);

#endif /* MRCD_PORTS_CLOSE_H */
