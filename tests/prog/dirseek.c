// SPDX-License-Identifier: GPL-2.0
/*
 * dirseek - readdir from every byte offset of a directory.
 *
 *   dirseek DIR
 *   dirseek -t DIR
 *
 * For each offset 0 .. (directory size + 16), lseek()s a directory fd
 * there and reads one small getdents64() buffer: every name returned must
 * be "." / ".." or exist in DIR (fstatat) and every d_off must move
 * forward.  A directory that changed between the seek and
 * the read, or an offset in the middle of an entry, must not yield
 * garbage.  Prints "dirseek: N offsets, M names" and exits 0, or the first
 * problem and exits 1.
 *
 * With -t, telldir/seekdir: the directory is listed whole (small
 * getdents64 buffers), then for every entry the descriptor is lseek()ed to
 * the entry's position (the d_off of the entry before it, 0 for the
 * first) and read again: the first name back must be that entry, or the
 * first entry of its run when several entries share a position (a hash
 * collision in an indexed directory).  Positions never go down, and a
 * read after lseek(SEEK_END) returns nothing.  Prints "dirseek -t: N
 * positions, R shared" and exits 0, or the first problem and exits 1.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

/* A small buffer: it holds the longest name, so a few short ones. */
#define ONE_ENTRY	(sizeof(struct linux_dirent64) + 256 + 8)

static int resume(const char *dir)
{
	static char buf[ONE_ENTRY];
	char **names = NULL;
	int64_t *pos = NULL;	/* pos[i]: where entry i starts */
	size_t n = 0, cap = 0, i, k, shared = 0;
	struct linux_dirent64 *d;
	long r, off;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(dir);
		return 1;
	}
	for (;;) {
		r = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (r < 0) {
			perror("dirseek -t: getdents64");
			return 1;
		}
		if (!r)
			break;
		for (off = 0; off < r; off += d->d_reclen) {
			d = (void *)(buf + off);
			if (n + 2 > cap) {
				cap = cap ? 2 * cap : 256;
				names = realloc(names, cap * sizeof(*names));
				pos = realloc(pos, (cap + 1) * sizeof(*pos));
				if (!names || !pos) {
					perror("realloc");
					return 1;
				}
			}
			if (!n)
				pos[0] = 0;
			names[n] = strdup(d->d_name);
			pos[n + 1] = d->d_off;
			if (pos[n + 1] < pos[n]) {
				fprintf(stderr, "dirseek -t: d_off of '%s' %lld below its position %lld\n",
					d->d_name, (long long)pos[n + 1],
					(long long)pos[n]);
				return 1;
			}
			n++;
		}
	}
	for (i = 0; i < n; i++) {
		for (k = i; k > 0 && pos[k - 1] == pos[i]; k--)
			;
		shared += k != i;
		if (lseek(fd, pos[i], SEEK_SET) != pos[i]) {
			fprintf(stderr, "dirseek -t: lseek %lld: %s\n",
				(long long)pos[i], strerror(errno));
			return 1;
		}
		r = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		d = (void *)buf;
		if (r <= 0 || strcmp(d->d_name, names[k])) {
			fprintf(stderr,
				"dirseek -t: at %lld (entry %zu, '%s'): got %s%s%s\n",
				(long long)pos[i], i, names[i],
				r > 0 ? "'" : "", r > 0 ? d->d_name : "nothing",
				r > 0 ? "'" : "");
			return 1;
		}
	}
	if (lseek(fd, 0, SEEK_END) < 0 ||
	    syscall(SYS_getdents64, fd, buf, sizeof(buf)) != 0) {
		fprintf(stderr, "dirseek -t: a read after SEEK_END returned something\n");
		return 1;
	}
	printf("dirseek -t: %zu positions, %zu shared\n", n, shared);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[512];	/* a few entries per offset */
	unsigned long names = 0;
	struct stat st;
	off_t off, end;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "-t"))
		return resume(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: dirseek [-t] DIR\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	end = st.st_size + 16;
	for (off = 0; off <= end; off++) {
		long n, pos;

		if (lseek(fd, off, SEEK_SET) != off) {
			fprintf(stderr, "dirseek: lseek %lld: %s\n",
				(long long)off, strerror(errno));
			return 1;
		}
		n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n < 0) {
			fprintf(stderr, "dirseek: getdents at %lld: %s\n",
				(long long)off, strerror(errno));
			return 1;
		}
		for (pos = 0; pos < n;) {
			struct linux_dirent64 *d = (void *)(buf + pos);
			struct stat cst;

			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
			    fstatat(fd, d->d_name, &cst, AT_SYMLINK_NOFOLLOW)) {
				fprintf(stderr,
					"dirseek: from %lld: name '%s' (ino %llu): %s\n",
					(long long)off, d->d_name,
					(unsigned long long)d->d_ino,
					strerror(errno));
				return 1;
			}
			if (d->d_off <= off) {
				fprintf(stderr,
					"dirseek: from %lld: d_off %lld does not advance\n",
					(long long)off, (long long)d->d_off);
				return 1;
			}
			names++;
			pos += d->d_reclen;
		}
	}
	printf("dirseek: %lld offsets, %lu names\n", (long long)end + 1, names);
	close(fd);
	return 0;
}
