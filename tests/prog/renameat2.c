// SPDX-License-Identifier: GPL-2.0
/*
 * renameat2 - call renameat2(2) from a shell script.
 *
 *   renameat2 [-n | -x | -w] OLD NEW
 *
 * -n RENAME_NOREPLACE, -x RENAME_EXCHANGE, -w RENAME_WHITEOUT.
 * Exit 0 on success; on failure print the error and exit with errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#define RENAME_WHITEOUT (1 << 2)
#endif

int main(int argc, char **argv)
{
	unsigned int flags = 0;
	int c;

	while ((c = getopt(argc, argv, "nxw")) != -1) {
		switch (c) {
		case 'n':
			flags |= RENAME_NOREPLACE;
			break;
		case 'x':
			flags |= RENAME_EXCHANGE;
			break;
		case 'w':
			flags |= RENAME_WHITEOUT;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 2)
		goto usage;
	if (syscall(SYS_renameat2, AT_FDCWD, argv[optind], AT_FDCWD,
		    argv[optind + 1], flags)) {
		int e = errno;

		fprintf(stderr, "renameat2: %s -> %s: %s\n", argv[optind],
			argv[optind + 1], strerror(e));
		return e > 255 ? 255 : e;
	}
	return 0;
usage:
	fprintf(stderr, "usage: renameat2 [-n|-x|-w] OLD NEW\n");
	return 255;
}
