// SPDX-License-Identifier: GPL-2.0
/*
 * xtime - read and set a file's times with nanoseconds (statx, utimensat).
 *
 *   xtime get FILE          one line: atime=S.N mtime=S.N ctime=S.N btime=S.N
 *                           (btime=none when statx leaves out STATX_BTIME),
 *                           then "Birth: YYYY-MM-DD hh:mm:ss.N" or "Birth: -"
 *   xtime set FILE SEC NSEC atime and mtime to SEC (may be negative) + NSEC
 *
 * Busybox's stat has no %W: this prints what coreutils' stat calls Birth.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void put(const char *name, const struct statx_timestamp *t)
{
	printf("%s=%lld.%09u", name, (long long)t->tv_sec, t->tv_nsec);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "get")) {
		struct statx sx;
		char buf[64];
		struct tm tm;
		time_t b;

		if (statx(AT_FDCWD, argv[2], AT_SYMLINK_NOFOLLOW,
			  STATX_BASIC_STATS | STATX_BTIME, &sx)) {
			fprintf(stderr, "xtime: statx %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		put("atime", &sx.stx_atime);
		put(" mtime", &sx.stx_mtime);
		put(" ctime", &sx.stx_ctime);
		if (!(sx.stx_mask & STATX_BTIME)) {
			printf(" btime=none\nBirth: -\n");
			return 0;
		}
		put(" btime", &sx.stx_btime);
		b = sx.stx_btime.tv_sec;
		gmtime_r(&b, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
		printf("\nBirth: %s.%09u +0000\n", buf, sx.stx_btime.tv_nsec);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "set")) {
		struct timespec ts[2];

		ts[0].tv_sec = strtoll(argv[3], NULL, 0);
		ts[0].tv_nsec = strtol(argv[4], NULL, 0);
		ts[1] = ts[0];
		if (utimensat(AT_FDCWD, argv[2], ts, AT_SYMLINK_NOFOLLOW)) {
			fprintf(stderr, "xtime: utimensat %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "usage: xtime get FILE | xtime set FILE SEC NSEC\n");
	return 2;
}
