// SPDX-License-Identifier: GPL-2.0
/*
 * hops - run a short script of file operations on one file, for the
 * hole-API suite (tests/suites/holeapi.*).
 *
 *   hops FILE OP...
 *
 *   m OFF BYTE      store BYTE (decimal or 0x..) at OFF through a shared
 *                   mapping of the first 64 KiB (kept across ops)
 *   u               unmap it
 *   t SIZE          ftruncate
 *   w OFF LEN BYTE  pwrite LEN bytes of BYTE at OFF
 *   d OFF LEN BYTE  the same through an O_DIRECT descriptor (aligned buffer)
 *   f               fsync (a failure is exit 4, its errno printed)
 *   M               msync(MS_SYNC) of the mapping (failure: exit 4)
 *   z OFF LEN       read(): [OFF, OFF+LEN) must be zero
 *   c OFF LEN BYTE  read(): [OFF, OFF+LEN) must be BYTE
 *   s SIZE          st_size must be SIZE
 *
 * The file is created if missing.  Exit status: 0 all ops done, 1 a check
 * failed (printed), 2 usage or I/O error, 3 a store raised SIGBUS, 4 fsync
 * or msync failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAP_LEN 65536

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static void die(const char *what)
{
	fprintf(stderr, "hops: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long long num(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "hops: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static unsigned char *read_range(int fd, long long off, long long len)
{
	unsigned char *b = malloc(len ? len : 1);
	ssize_t n;

	if (!b)
		die("malloc");
	n = pread(fd, b, len, off);
	if (n < 0)
		die("pread");
	if (n != len) {
		printf("hops: short read at %lld: %zd of %lld\n", off, n, len);
		exit(1);
	}
	return b;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_bus };
	unsigned char *volatile map = NULL;
	const char *path;
	int fd, i = 2;

	if (argc < 3) {
		fprintf(stderr, "usage: hops FILE OP...\n");
		return 2;
	}
	path = argv[1];
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		die(path);
	sigaction(SIGBUS, &sa, NULL);

	while (i < argc) {
		const char *op = argv[i++];
		long long a = 0, b = 0, c = 0;
		int need = strchr("mz", *op) ? 2 : strchr("wdc", *op) ? 3 :
			   strchr("ts", *op) ? 1 : 0;

		if (strlen(op) != 1 || !strchr("mutwdfMzcs", *op)) {
			fprintf(stderr, "hops: unknown op '%s'\n", op);
			return 2;
		}
		if (i + need > argc) {
			fprintf(stderr, "hops: op %s needs %d arguments\n", op,
				need);
			return 2;
		}
		if (need > 0)
			a = num(argv[i]);
		if (need > 1)
			b = num(argv[i + 1]);
		if (need > 2)
			c = num(argv[i + 2]);
		i += need;

		switch (*op) {
		case 'm':
			if (a < 0 || a >= MAP_LEN) {
				fprintf(stderr, "hops: m offset out of range\n");
				return 2;
			}
			if (!map) {
				map = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE,
					   MAP_SHARED, fd, 0);
				if (map == MAP_FAILED)
					die("mmap");
			}
			if (sigsetjmp(bus_jmp, 1)) {
				printf("hops: SIGBUS storing at %lld\n", a);
				return 3;
			}
			map[a] = (unsigned char)b;
			break;
		case 'u':
			if (map && munmap(map, MAP_LEN))
				die("munmap");
			map = NULL;
			break;
		case 't':
			if (ftruncate(fd, a))
				die("ftruncate");
			break;
		case 'w': {
			unsigned char *buf = malloc(b ? b : 1);

			if (!buf)
				die("malloc");
			memset(buf, (int)c, b);
			if (pwrite(fd, buf, b, a) != b)
				die("pwrite");
			free(buf);
			break;
		}
		case 'd': {
			void *buf;
			int dfd = open(path, O_RDWR | O_DIRECT);

			if (dfd < 0)
				die("open O_DIRECT");
			if (posix_memalign(&buf, 4096, b ? b : 1))
				die("posix_memalign");
			memset(buf, (int)c, b);
			if (pwrite(dfd, buf, b, a) != b)
				die("pwrite O_DIRECT");
			free(buf);
			close(dfd);
			break;
		}
		case 'f':
			if (fsync(fd)) {
				printf("hops: fsync: %s\n", strerror(errno));
				return 4;
			}
			break;
		case 'M':
			if (map && msync(map, MAP_LEN, MS_SYNC)) {
				printf("hops: msync: %s\n", strerror(errno));
				return 4;
			}
			break;
		case 'z':
		case 'c': {
			int want = *op == 'z' ? 0 : (unsigned char)c;
			unsigned char *r = read_range(fd, a, b);
			long long k;

			for (k = 0; k < b; k++) {
				if (r[k] != want) {
					printf("hops: byte %lld is 0x%02x, expected 0x%02x\n",
					       a + k, r[k], want);
					return 1;
				}
			}
			free(r);
			break;
		}
		case 's': {
			struct stat st;

			if (fstat(fd, &st))
				die("fstat");
			if (st.st_size != a) {
				printf("hops: size %lld, expected %lld\n",
				       (long long)st.st_size, a);
				return 1;
			}
			break;
		}
		}
	}
	return 0;
}
