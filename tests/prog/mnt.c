// SPDX-License-Identifier: GPL-2.0
/*
 * mnt - call mount(2) once, with no retry, and say how it ended.
 *
 *   mnt [-r] TYPE DEV DIR [DATA]
 *
 * -r: MS_RDONLY.  Prints "ok" or the errno's name (EINVAL, EROFS, ...) and
 * exits 0 or 1.  mount(8) and busybox mount retry a read-write mount that
 * failed with EROFS or EACCES as read-only, which hides the error a test
 * of the refusal must see.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EROFS: return "EROFS";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EIO: return "EIO";
	case ENODEV: return "ENODEV";
	case EBUSY: return "EBUSY";
	case EUCLEAN: return "EUCLEAN";
	case ENOENT: return "ENOENT";
	case ENOTBLK: return "ENOTBLK";
	default: return "other";
	}
}

int main(int argc, char **argv)
{
	unsigned long flags = 0;
	int c;

	while ((c = getopt(argc, argv, "r")) != -1) {
		if (c != 'r') {
			fprintf(stderr, "usage: mnt [-r] TYPE DEV DIR [DATA]\n");
			return 2;
		}
		flags |= MS_RDONLY;
	}
	if (argc - optind < 3 || argc - optind > 4) {
		fprintf(stderr, "usage: mnt [-r] TYPE DEV DIR [DATA]\n");
		return 2;
	}
	if (mount(argv[optind + 1], argv[optind + 2], argv[optind], flags,
		  argc - optind == 4 ? argv[optind + 3] : NULL)) {
		int e = errno;

		printf("%s (%d: %s)\n", errname(e), e, strerror(e));
		return 1;
	}
	printf("ok\n");
	return 0;
}
