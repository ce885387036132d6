// SPDX-License-Identifier: GPL-2.0
/*
 * tmpfile - O_TMPFILE round trip.
 *
 *   tmpfile DIR NAME|- SIZE
 *
 * Opens an unnamed file in DIR, writes SIZE pattern bytes, checks that
 * st_nlink is 0, then (unless NAME is "-") links it in as NAME through
 * /proc/self/fd and checks nlink 1 and the content through the new name.
 * With "-" the file is just closed: the inode must be freed (e2fsck).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned char pat(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 9) * 7 + 1);
}

static int fail(const char *what)
{
	fprintf(stderr, "tmpfile: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16];
	char proc[64];
	struct stat st;
	size_t size, off, i;
	int fd, fd2;

	if (argc != 4) {
		fprintf(stderr, "usage: tmpfile DIR NAME|- SIZE\n");
		return 2;
	}
	size = strtoul(argv[3], NULL, 0);
	fd = open(argv[1], O_TMPFILE | O_RDWR, 0640);
	if (fd < 0)
		return fail("open O_TMPFILE");
	for (off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);

		for (i = 0; i < n; i++)
			buf[i] = pat(off + i);
		if (pwrite(fd, buf, n, off) != (ssize_t)n)
			return fail("pwrite");
	}
	if (fstat(fd, &st))
		return fail("fstat");
	if (st.st_nlink != 0 || (size_t)st.st_size != size) {
		fprintf(stderr, "tmpfile: nlink %lu size %lld before linkat\n",
			(unsigned long)st.st_nlink, (long long)st.st_size);
		return 1;
	}
	if (!strcmp(argv[2], "-"))
		return close(fd) ? fail("close") : 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, argv[2], AT_SYMLINK_FOLLOW))
		return fail("linkat");
	if (fstat(fd, &st))
		return fail("fstat");
	if (st.st_nlink != 1) {
		fprintf(stderr, "tmpfile: nlink %lu after linkat\n",
			(unsigned long)st.st_nlink);
		return 1;
	}
	close(fd);
	fd2 = open(argv[2], O_RDONLY);
	if (fd2 < 0)
		return fail("open NAME");
	for (off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);

		if (pread(fd2, buf, n, off) != (ssize_t)n)
			return fail("pread");
		for (i = 0; i < n; i++)
			if (buf[i] != pat(off + i)) {
				fprintf(stderr, "tmpfile: byte %zu differs\n", off + i);
				return 1;
			}
	}
	close(fd2);
	return 0;
}
