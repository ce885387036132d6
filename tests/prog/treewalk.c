// SPDX-License-Identifier: GPL-2.0
/*
 * treewalk - visit every name under DIR without following links: lstat it,
 * read regular files (to the end; of a file over 32 MiB, sparse or with a
 * corrupt size, the first 32 MiB and the last 1 MiB), readlink symlinks,
 * read directories.
 * Stops after 5000 entries (a corrupt image can hold directory loops).
 * Prints "treewalk: N entries, E errors, B bytes" and exits 0; errors
 * (EIO, EUCLEAN, ...) are counted, not fatal: the caller checks the kernel.
 *
 * usage: treewalk DIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TREEWALK_MAX	5000
#define TREEWALK_HEAD	(32LL << 20)
#define TREEWALK_TAIL	(1LL << 20)

static long treewalk_entries, treewalk_errors;
static long long treewalk_bytes;

/* read up to @max bytes from @fd's offset; -1 on a read error */
static ssize_t treewalk_read(int fd, long long max)
{
	static char rbuf[65536];
	ssize_t r = 0;

	while (max > 0 && (r = read(fd, rbuf, max < (long long)sizeof(rbuf) ?
				    (size_t)max : sizeof(rbuf))) > 0) {
		treewalk_bytes += r;
		max -= r;
	}
	return r < 0 ? -1 : 0;
}

static void treewalk_err(const char *what, const char *path)
{
	treewalk_errors++;
	if (treewalk_errors <= 20)
		printf("treewalk: %s %s: %s\n", what, path, strerror(errno));
}

static int treewalk_visit(const char *path, const struct stat *st, int type,
			  struct FTW *ftw)
{
	char target[4096];
	ssize_t r;
	int fd;

	(void)st;
	(void)ftw;
	if (++treewalk_entries > TREEWALK_MAX)
		return 1;
	switch (type) {
	case FTW_F:
		if (!S_ISREG(st->st_mode))
			break;
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			treewalk_err("open", path);
			break;
		}
		r = treewalk_read(fd, TREEWALK_HEAD);
		/* a huge (sparse or corrupt) size: its end as well, not all */
		if (r >= 0 && st->st_size > TREEWALK_HEAD &&
		    lseek(fd, st->st_size - TREEWALK_TAIL, SEEK_SET) >= 0)
			r = treewalk_read(fd, TREEWALK_TAIL);
		if (r < 0)
			treewalk_err("read", path);
		close(fd);
		break;
	case FTW_SL:
	case FTW_SLN:
		if (readlink(path, target, sizeof(target)) < 0)
			treewalk_err("readlink", path);
		break;
	case FTW_DNR:
		treewalk_err("opendir", path);
		break;
	case FTW_NS:
		treewalk_err("stat", path);
		break;
	default:
		break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: treewalk DIR\n");
		return 1;
	}
	if (nftw(argv[1], treewalk_visit, 16, FTW_PHYS | FTW_MOUNT) < 0)
		treewalk_err("nftw", argv[1]);
	printf("treewalk: %ld entries, %ld errors, %lld bytes\n",
	       treewalk_entries, treewalk_errors, treewalk_bytes);
	return 0;
}
