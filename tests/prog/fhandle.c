// SPDX-License-Identifier: GPL-2.0
/*
 * fhandle - file handles through name_to_handle_at / open_by_handle_at.
 *
 *   fhandle save PATH OUT   store PATH's handle (struct file_handle) in OUT
 *   fhandle open MNT IN     open the handle in IN on the filesystem mounted
 *                           at MNT; prints "ok PATH data=TEXT" (the path
 *                           the kernel gives the opened file, from
 *                           /proc/self/fd, and the first line of a regular
 *                           file) or the error name.  Exit 0 ok, 3 ESTALE,
 *                           1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HMAX 128

int main(int argc, char **argv)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + HMAX];
	} h;
	int mnt_id, fd, mfd;
	FILE *f;

	if (argc == 4 && !strcmp(argv[1], "save")) {
		h.fh.handle_bytes = HMAX;
		if (name_to_handle_at(AT_FDCWD, argv[2], &h.fh, &mnt_id, 0)) {
			printf("name_to_handle_at: %s\n", strerror(errno));
			return 1;
		}
		f = fopen(argv[3], "w");
		if (!f || fwrite(&h, sizeof(h.fh) + h.fh.handle_bytes, 1, f) != 1 ||
		    fclose(f)) {
			perror(argv[3]);
			return 1;
		}
		printf("type=%d bytes=%u\n", h.fh.handle_type, h.fh.handle_bytes);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "open")) {
		char link[64], path[PATH_MAX], data[64] = "";
		ssize_t n;

		f = fopen(argv[3], "r");
		if (!f || fread(&h.fh, sizeof(h.fh), 1, f) != 1 ||
		    h.fh.handle_bytes > HMAX ||
		    fread(h.fh.f_handle, h.fh.handle_bytes, 1, f) != 1) {
			perror(argv[3]);
			return 1;
		}
		fclose(f);
		mfd = open(argv[2], O_RDONLY | O_DIRECTORY);
		if (mfd < 0) {
			perror(argv[2]);
			return 1;
		}
		fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
		if (fd < 0) {
			int e = errno;

			printf("%s\n", e == ESTALE ? "ESTALE" : strerror(e));
			return e == ESTALE ? 3 : 1;
		}
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		path[n < 0 ? 0 : n] = 0;
		n = read(fd, data, sizeof(data) - 1);
		data[n < 0 ? 0 : n] = 0;
		data[strcspn(data, "\n")] = 0;
		printf("ok %s data=%s\n", path, data);
		return 0;
	}
	fprintf(stderr, "usage: fhandle save PATH OUT | fhandle open MNT IN\n");
	return 2;
}
