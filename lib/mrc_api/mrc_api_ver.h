/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_API_VER_H
#define MRC_API_VER_H

/*
 * Versions of the MRC application API that lib_mrc (mrcd's software MRC)
 * implements. Written for mrcd from the interface facts of the OCP MRC API
 * 1.0.1 (doc/applications.md). A version packs major.minor.sub-minor into one
 * 32-bit number, so versions compare as integers.
 *
 * A program may define MRC_API_VER_USED (and MRC_VENDOR_API_VER_USED) before
 * including mrc.h to build against an older API; left undefined, or set to
 * MRC_API_VER_LATEST, it gets the current one.
 */

#define MRC_API_VER_MAJOR_OFFSET    24
#define MRC_API_VER_MINOR_OFFSET    16
#define MRC_API_VER_SUBMINOR_OFFSET 0

/* No casts: the macro is used in #if as well. */
#define MRC_API_VER(major, minor, sub_minor)                    \
	((((major)&0xffu) << MRC_API_VER_MAJOR_OFFSET) |        \
		(((minor)&0xffu) << MRC_API_VER_MINOR_OFFSET) | \
		(((sub_minor)&0xffffu) << MRC_API_VER_SUBMINOR_OFFSET))

#define MRC_API_VER_LATEST MRC_API_VER(0xFF, 0xFF, 0xFFFF)

#define MRC_API_CURRENT_VERSION		      MRC_API_VER(1, 0, 1)
#define MRC_API_LAST_SUPPORTED_VERSION	      MRC_API_VER(0, 0, 0)
#define MRC_VENDOR_API_CURRENT_VERSION	      MRC_API_VER(1, 0, 0)
#define MRC_VENDOR_API_LAST_SUPPORTED_VERSION MRC_API_VER(0, 0, 0)

#if !defined(MRC_API_VER_USED)
#define MRC_API_VER_USED MRC_API_CURRENT_VERSION
#elif MRC_API_VER_USED == MRC_API_VER_LATEST
#undef MRC_API_VER_USED
#define MRC_API_VER_USED MRC_API_CURRENT_VERSION
#endif

#if MRC_API_VER_USED > MRC_API_CURRENT_VERSION
#error "MRC_API_VER_USED is newer than this lib_mrc implements (1.0.1)"
#elif MRC_API_VER_USED < MRC_API_LAST_SUPPORTED_VERSION
#error "MRC_API_VER_USED is older than the oldest API this lib_mrc supports"
#elif MRC_API_VER_USED == MRC_API_LAST_SUPPORTED_VERSION
#warning "MRC_API_VER_USED is the oldest API version supported: it may go in a later release"
#endif

#if !defined(MRC_VENDOR_API_VER_USED)
#define MRC_VENDOR_API_VER_USED MRC_VENDOR_API_CURRENT_VERSION
#elif MRC_VENDOR_API_VER_USED == MRC_API_VER_LATEST
#undef MRC_VENDOR_API_VER_USED
#define MRC_VENDOR_API_VER_USED MRC_VENDOR_API_CURRENT_VERSION
#endif

#if MRC_VENDOR_API_VER_USED > MRC_VENDOR_API_CURRENT_VERSION
#error "MRC_VENDOR_API_VER_USED is newer than this lib_mrc implements (1.0.0)"
#elif MRC_VENDOR_API_VER_USED < MRC_VENDOR_API_LAST_SUPPORTED_VERSION
#error "MRC_VENDOR_API_VER_USED is older than the oldest vendor API this lib_mrc supports"
#elif MRC_VENDOR_API_VER_USED == MRC_VENDOR_API_LAST_SUPPORTED_VERSION
#warning "MRC_VENDOR_API_VER_USED is the oldest vendor API supported: it may go in a later release"
#endif

#endif /* MRC_API_VER_H */
