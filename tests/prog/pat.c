// SPDX-License-Identifier: GPL-2.0
/*
 * pat - write and check position-dependent byte patterns.
 *
 *   pat w [-f] FILE OFF LEN SEED   write pattern SEED at [OFF, OFF+LEN)
 *                                  (-f: fsync afterwards)
 *   pat v FILE OFF LEN SEED        check pattern SEED at [OFF, OFF+LEN)
 *   pat z FILE OFF LEN             check zeros at [OFF, OFF+LEN)
 *   pat s FILE SIZE                check st_size == SIZE
 *
 * The byte at file offset o is a function of (SEED, o) only, so any
 * sub-range of a write can be checked.  A short file fails v and z.
 * Exit 0 on success, 1 on a mismatch (the first one is printed), 2 on
 * usage or I/O errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void gen(unsigned char *buf, uint64_t off, size_t len, uint64_t seed)
{
	uint64_t word = UINT64_MAX, v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		uint64_t o = off + i;

		if (o >> 3 != word) {
			word = o >> 3;
			v = mix(seed * 0x100000001b3ULL ^ word);
		}
		buf[i] = v >> (8 * (o & 7));
	}
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16], want[1 << 16];
	int do_fsync = 0, fd, zero;
	uint64_t off, len, seed = 0, done;
	char op;

	if (argc < 3)
		goto usage;
	op = argv[1][0];
	argv++;
	argc--;
	if (op == 'w' && argc > 1 && !strcmp(argv[1], "-f")) {
		do_fsync = 1;
		argv++;
		argc--;
	}
	if (op == 's') {
		struct stat st;

		if (argc != 3)
			goto usage;
		if (stat(argv[1], &st)) {
			perror(argv[1]);
			return 2;
		}
		if ((uint64_t)st.st_size != strtoull(argv[2], NULL, 0)) {
			fprintf(stderr, "pat: %s: size %lld, expected %s\n", argv[1],
				(long long)st.st_size, argv[2]);
			return 1;
		}
		return 0;
	}
	zero = op == 'z';
	if (argc != (zero ? 4 : 5))
		goto usage;
	off = strtoull(argv[2], NULL, 0);
	len = strtoull(argv[3], NULL, 0);
	if (!zero)
		seed = strtoull(argv[4], NULL, 0);
	fd = open(argv[1], op == 'w' ? O_WRONLY | O_CREAT : O_RDONLY, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	for (done = 0; done < len;) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		ssize_t r;

		if (zero)
			memset(want, 0, n);
		else
			gen(want, off + done, n, seed);
		if (op == 'w') {
			r = pwrite(fd, want, n, off + done);
			if (r <= 0) {
				fprintf(stderr, "pat: pwrite %s at %llu: %s\n", argv[1],
					(unsigned long long)(off + done),
					r < 0 ? strerror(errno) : "short");
				return 2;
			}
			done += r;
			continue;
		}
		r = pread(fd, buf, n, off + done);
		if (r < 0) {
			fprintf(stderr, "pat: pread %s at %llu: %s\n", argv[1],
				(unsigned long long)(off + done), strerror(errno));
			return 2;
		}
		if (r == 0) {
			fprintf(stderr, "pat: %s: end of file at %llu, expected %llu more bytes\n",
				argv[1], (unsigned long long)(off + done),
				(unsigned long long)(len - done));
			return 1;
		}
		if (memcmp(buf, want, r)) {
			ssize_t i;

			for (i = 0; buf[i] == want[i]; i++)
				;
			fprintf(stderr, "pat: %s: byte %llu is 0x%02x, expected 0x%02x (%s)\n",
				argv[1], (unsigned long long)(off + done + i), buf[i],
				want[i], zero ? "zero" : "pattern");
			return 1;
		}
		done += r;
	}
	if (do_fsync && fsync(fd)) {
		perror("pat: fsync");
		return 2;
	}
	if (close(fd)) {
		perror("pat: close");
		return 2;
	}
	return 0;
usage:
	fprintf(stderr, "usage: pat w [-f] FILE OFF LEN SEED | v FILE OFF LEN SEED | z FILE OFF LEN | s FILE SIZE\n");
	return 2;
}
