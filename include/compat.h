/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext2hole kernel compatibility: every difference between the supported
 * kernels lives here, behind a named feature.  No LINUX_VERSION_CODE test
 * may appear anywhere else in the module.
 *
 * Supported: Debian 12's packaged 6.1 series.  The packaged 6.12 series is
 * planned; each feature below names the API change it tracks.
 */
#ifndef _EXT2HOLE_COMPAT_H
#define _EXT2HOLE_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) || \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#error "ext2hole supports Linux 6.1 (Debian 12's packaged kernel) only"
#endif

/* 6.1 API: write_begin/write_end take a struct page (folio in 6.12). */
#define EXT2HOLE_HAVE_PAGE_WRITE_BEGIN	1

/* 6.1 API: ->writepage still exists in address_space_operations. */
#define EXT2HOLE_HAVE_AOPS_WRITEPAGE	1

/* 6.1 API: inode operations take a struct user_namespace (mnt_idmap in 6.3). */
#define EXT2HOLE_HAVE_USER_NS_IOPS	1

/* 6.1 API: inode times are plain fields (accessors from 6.6). */
#define EXT2HOLE_HAVE_INODE_TIME_FIELDS	1

#endif /* _EXT2HOLE_COMPAT_H */
