// SPDX-License-Identifier: GPL-2.0
/*
 * dirseek - readdir from every byte offset of a directory.
 *
 *   dirseek DIR
 *
 * For each offset 0 .. (directory size + 16), lseek()s a directory fd
 * there and reads one small getdents64() buffer: every name returned must
 * be "." / ".." or exist in DIR (fstatat) and every d_off must move
 * forward.  A directory that changed between the seek and
 * the read, or an offset in the middle of an entry, must not yield
 * garbage.  Prints "dirseek: N offsets, M names" and exits 0, or the first
 * problem and exits 1.
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

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int main(int argc, char **argv)
{
	static char buf[512];	/* a few entries per offset */
	unsigned long names = 0;
	struct stat st;
	off_t off, end;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: dirseek DIR\n");
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
