// SPDX-License-Identifier: GPL-2.0
/*
 * delaywb - a writeback error on a page that mixes delayed and mapped
 * buffers must not lose what write(2) accepted, nor show another file's
 * old blocks.
 *
 *   delaywb setup  DIR [-r REMOUNT_CMD] [-R]
 *   delaywb verify DIR [-R]
 *
 * setup, on a small 1 KiB-block filesystem mounted at DIR:
 *  1. writes most of the free space with a recognisable pattern ('P'),
 *     fsyncs and unlinks it: its blocks go back to the free pool as they
 *     are on disk; keeps a 4-block reserve file;
 *  2. ftruncate(f, 4096), a shared mapping of the page, one store at 0
 *     (mkwrite=noalloc: the four buffers of the page become delayed);
 *  3. with -r: fills the filesystem, runs REMOUNT_CMD (a remount to
 *     mkwrite=alloc, whose sync fails to give the delayed buffers blocks)
 *     and removes the reserve file;
 *  4. pwrite()s 1024 bytes of 'W' at 1024: write_begin allocates block 1;
 *  5. fills the filesystem from another file;
 *  6. fsync(f): ENOSPC is fine when the store at 0 could not be given a
 *     block (mkwrite=noalloc), success otherwise;
 *  7. with -R: removes the fillers and fsyncs again, which must now succeed
 *     and bring the store at 0 to disk.
 * Last line: "delaywb: ok ..." or "delaywb: BUG - ...".  Exit 0 ok, 1 bug,
 * 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "common.h"

static const char *dir;
static char path_f[4096], path_old[4096], path_fill[4096], path_fill2[4096],
	    path_res[4096], path_state[4096];

#define die(...) die_setup("delaywb", NULL, __VA_ARGS__)

/* Write @c until ENOSPC or @max bytes; returns the bytes written. */
static long long fill(const char *path, int c, long long max, int do_fsync)
{
	static char buf[65536];
	long long done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die("open %s", path);
	memset(buf, c, sizeof(buf));
	while (done < max) {
		size_t len = max - done < (long long)sizeof(buf) ?
			     (size_t)(max - done) : sizeof(buf);
		ssize_t n = write(fd, buf, len);

		if (n <= 0) {
			/* smaller writes take the last blocks */
			if (n < 0 && errno == ENOSPC && len > 1024 &&
			    write(fd, buf, 1024) == 1024) {
				done += 1024;
				continue;
			}
			break;
		}
		done += n;
	}
	if (do_fsync && fsync(fd))
		die("fsync %s", path);
	close(fd);
	return done;
}

static int setup(const char *remount, int retry)
{
	struct statvfs sv;
	char buf[1024];
	char *map;
	int fd, r1, e1, r2 = 0, e2 = 0;
	FILE *st;

	/* 1. old blocks full of 'P' back in the free pool; a reserve */
	if (statvfs(dir, &sv))
		die("statvfs %s", dir);
	fill(path_old, 'P', (long long)sv.f_bavail * sv.f_bsize * 3 / 4, 1);
	if (unlink(path_old))
		die("unlink");
	fill(path_res, 'r', 4096, 1);
	sync();

	/* 2. a mapped store into a page with four delayed buffers */
	fd = open(path_f, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s", path_f);
	if (ftruncate(fd, 4096))
		die("ftruncate");
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	map[0] = 'M';

	/* 3. e.g. mount -o remount,mkwrite=alloc on a full filesystem */
	if (remount) {
		fill(path_fill2, 'F', 1LL << 40, 0);
		if (system(remount))
			die("%s", remount);
		if (unlink(path_res))
			die("unlink reserve");
	}

	/* 4. write_begin allocates block 1 of that page */
	memset(buf, 'W', sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 1024) != (ssize_t)sizeof(buf))
		die("pwrite");

	/* 5. nothing left for the delayed buffers */
	fill(path_fill, 'F', 1LL << 40, 0);

	/* 6. */
	r1 = fsync(fd);
	e1 = r1 ? errno : 0;
	printf("delaywb: first fsync: %s\n", r1 ? strerror(e1) : "ok");

	/* 7. */
	if (retry) {
		if (unlink(path_fill) || (remount && unlink(path_fill2)))
			die("unlink filler");
		r2 = fsync(fd);
		e2 = r2 ? errno : 0;
		printf("delaywb: fsync after freeing space: %s\n",
		       r2 ? strerror(e2) : "ok");
	}
	munmap(map, 4096);
	close(fd);
	st = fopen(path_state, "w");
	if (!st)
		die("state file");
	fprintf(st, "%d %d %d\n", e1, retry, e2);
	fclose(st);
	if (r1 && e1 != ENOSPC) {
		printf("delaywb: BUG - fsync failed with %s, not ENOSPC\n",
		       strerror(e1));
		return 1;
	}
	if (retry && r2) {
		printf("delaywb: BUG - fsync after freeing space failed: %s\n",
		       strerror(e2));
		return 1;
	}
	printf("delaywb: setup done\n");
	return 0;
}

static int verify(void)
{
	unsigned char d[4096];
	int fd, e1 = 0, retry = 0, e2 = 0, i;
	FILE *st = fopen(path_state, "r");

	if (!st || fscanf(st, "%d %d %d", &e1, &retry, &e2) != 3)
		die("state file %s", path_state);
	fclose(st);
	fd = open(path_f, O_RDONLY);
	if (fd < 0)
		die("open %s", path_f);
	memset(d, 0x5a, sizeof(d));
	if (pread(fd, d, sizeof(d), 0) != (ssize_t)sizeof(d))
		die("pread");
	close(fd);
	for (i = 1024; i < 2048; i++) {
		if (d[i] != 'W') {
			printf("delaywb: BUG - byte %d is 0x%02x%s, not the 'W' that pwrite() wrote\n",
			       i, d[i], d[i] == 'P' ? " (a deleted file's old data)" : "");
			return 1;
		}
	}
	for (i = 1; i < 4096; i++) {
		if (i == 1024)
			i = 2048;
		if (d[i]) {
			printf("delaywb: BUG - byte %d of the hole is 0x%02x%s\n",
			       i, d[i], d[i] == 'P' ? " (a deleted file's old data)" : "");
			return 1;
		}
	}
	if (d[0] != 'M' && (d[0] || !e1 || retry)) {
		printf("delaywb: BUG - the store at 0 is lost (byte 0x%02x) though %s\n",
		       d[0], retry ? "the fsync after freeing space succeeded" :
				     "fsync reported no error");
		return 1;
	}
	printf("delaywb: ok - pwrite data intact, hole zero, store at 0 %s (first fsync: %s)\n",
	       d[0] == 'M' ? "on disk" : "lost after the reported error",
	       e1 ? strerror(e1) : "ok");
	return 0;
}

int main(int argc, char **argv)
{
	const char *remount = NULL;
	int retry = 0, opt;

	if (argc < 3 || (strcmp(argv[1], "setup") && strcmp(argv[1], "verify"))) {
		fprintf(stderr, "usage: delaywb setup|verify DIR [-r REMOUNT_CMD] [-R]\n");
		return 2;
	}
	dir = argv[2];
	snprintf(path_f, sizeof(path_f), "%s/delaywb.f", argv[2]);
	snprintf(path_old, sizeof(path_old), "%s/delaywb.old", argv[2]);
	snprintf(path_fill, sizeof(path_fill), "%s/delaywb.fill", argv[2]);
	snprintf(path_fill2, sizeof(path_fill2), "%s/delaywb.fill2", argv[2]);
	snprintf(path_res, sizeof(path_res), "%s/delaywb.res", argv[2]);
	snprintf(path_state, sizeof(path_state), "/tmp/delaywb.state");
	optind = 3;
	while ((opt = getopt(argc, argv, "r:R")) != -1) {
		switch (opt) {
		case 'r':
			remount = optarg;
			break;
		case 'R':
			retry = 1;
			break;
		default:
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "setup"))
		return setup(remount, retry);
	return verify();
}
