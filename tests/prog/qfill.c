// SPDX-License-Identifier: GPL-2.0
/*
 * qfill - fill a file through a shared mapping or write(), for quota tests
 *
 *   qfill FILE OP [ARGS] [OP [ARGS]...]
 *
 * FILE is opened read-write (created, mode 0644, if missing); the ops run
 * in order:
 *
 *   size N        ftruncate to N bytes
 *   map OFF LEN   store the pattern into [OFF, OFF+LEN) through a
 *                 MAP_SHARED mapping, one page at a time; a page whose
 *                 first store raises SIGBUS is skipped and the next one
 *                 tried.  Prints "map OFF LEN stored=BYTES first_bus=OFF|-
 *                 stored_after_bus=BYTES" (bytes of pages accepted after
 *                 the first SIGBUS: 0 when the limit holds for good)
 *   write OFF LEN pwrite the pattern in 4 KiB pieces, stopping at the
 *                 first error or short write.  Prints "write OFF LEN
 *                 written=BYTES err=ERRNO-NAME|-"
 *   punch OFF LEN fallocate(PUNCH_HOLE | KEEP_SIZE)
 *   msync         msync(MS_SYNC) of the last mapping made (kept until
 *                 exit); prints "msync err=..."
 *   fsync         prints "fsync err=..."
 *   check OFF LEN the range must hold the pattern
 *   zero OFF LEN  the range must read as zeros
 *
 * The pattern's byte at file offset o depends on o alone, so a range
 * written once can be checked after a remount by another run.  No op
 * syncs unless asked: writeback is left to the caller (the quota suite
 * runs sync(1) as root, like the flusher threads, which ignore limits).
 *
 * Exit 0 when every op ran (a SIGBUS or EDQUOT is a result, not a
 * failure), 1 when check or zero found other bytes, 2 on a setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "common.h"

static sigjmp_buf bus_jmp;
static long psz;
static int fd;
static char *last_map;
static size_t last_len;

#define die(...) die_setup("qfill", NULL, __VA_ARGS__)

static unsigned char pat(long long o)
{
	return (unsigned char)((o * 31 + (o >> 10) * 7 + 1) | 1);
}

static void fill(char *buf, long long off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pat(off + i);
}

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static const char *errname(int e)
{
	switch (e) {
	case 0: return "-";
	case EDQUOT: return "EDQUOT";
	case ENOSPC: return "ENOSPC";
	case EIO: return "EIO";
	default: return strerror(e);
	}
}

/* Store the pattern into one page of the mapping; 1 when it raised SIGBUS. */
static int store_page(char *p, long long off, size_t len)
{
	volatile int bus = 0;

	if (sigsetjmp(bus_jmp, 1))
		bus = 1;
	else
		fill(p, off, len);
	return bus;
}

static void op_map(long long off, long long len)
{
	long long start = off & ~(long long)(psz - 1), o;
	long long stored = 0, after = 0, first_bus = -1;
	size_t maplen = off + len - start;
	struct sigaction sa;
	char *m;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL))
		die("sigaction");
	m = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, start);
	if (m == MAP_FAILED)
		die("mmap");
	for (o = off; o < off + len; ) {
		long long end = (o & ~(long long)(psz - 1)) + psz;
		size_t n = (end < off + len ? end : off + len) - o;

		if (store_page(m + (o - start), o, n)) {
			if (first_bus < 0)
				first_bus = o;
		} else {
			stored += n;
			if (first_bus >= 0)
				after += n;
		}
		o += n;
	}
	if (first_bus < 0)
		printf("map %lld %lld stored=%lld first_bus=- stored_after_bus=0\n",
		       off, len, stored);
	else
		printf("map %lld %lld stored=%lld first_bus=%lld stored_after_bus=%lld\n",
		       off, len, stored, first_bus, after);
	if (last_map)
		munmap(last_map, last_len);
	last_map = m;
	last_len = maplen;
}

static void op_write(long long off, long long len)
{
	char buf[4096];
	long long done = 0;
	int err = 0;

	while (done < len) {
		size_t n = len - done < (long long)sizeof(buf) ?
			   (size_t)(len - done) : sizeof(buf);
		ssize_t w;

		fill(buf, off + done, n);
		w = pwrite(fd, buf, n, off + done);
		if (w < 0) {
			err = errno;
			break;
		}
		done += w;
		if ((size_t)w < n)
			break;
	}
	printf("write %lld %lld written=%lld err=%s\n", off, len, done,
	       errname(err));
}

static int op_check(long long off, long long len, int zero)
{
	char buf[4096];
	long long done = 0;
	size_t i;

	while (done < len) {
		size_t n = len - done < (long long)sizeof(buf) ?
			   (size_t)(len - done) : sizeof(buf);
		ssize_t r = pread(fd, buf, n, off + done);

		if (r < 0)
			die("pread");
		if ((size_t)r < n) {
			printf("%s %lld %lld: BAD short read at %lld\n",
			       zero ? "zero" : "check", off, len, off + done + r);
			return 1;
		}
		for (i = 0; i < n; i++) {
			unsigned char want = zero ? 0 : pat(off + done + i);

			if ((unsigned char)buf[i] != want) {
				printf("%s %lld %lld: BAD byte at %lld: %#x, want %#x\n",
				       zero ? "zero" : "check", off, len,
				       off + done + (long long)i,
				       (unsigned char)buf[i], want);
				return 1;
			}
		}
		done += n;
	}
	printf("%s %lld %lld: ok\n", zero ? "zero" : "check", off, len);
	return 0;
}

static long long num(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 0);

	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v < 0) {
		fprintf(stderr, "qfill: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	int i, bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: qfill FILE OP [ARGS] ...  (see the source)\n");
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		die("%s", argv[1]);
	for (i = 2; i < argc; i++) {
		const char *op = argv[i];
		int two = !strcmp(op, "map") || !strcmp(op, "write") ||
			  !strcmp(op, "punch") || !strcmp(op, "check") ||
			  !strcmp(op, "zero");
		long long a = 0, b = 0;

		if (two || !strcmp(op, "size")) {
			if (i + 1 + two >= argc) {
				fprintf(stderr, "qfill: %s needs %d argument(s)\n",
					op, 1 + two);
				return 2;
			}
			a = num(argv[++i]);
			if (two)
				b = num(argv[++i]);
		}
		if (!strcmp(op, "size")) {
			if (ftruncate(fd, a))
				die("ftruncate");
		} else if (!strcmp(op, "map")) {
			op_map(a, b);
		} else if (!strcmp(op, "write")) {
			op_write(a, b);
		} else if (!strcmp(op, "punch")) {
			if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      a, b))
				die("fallocate(PUNCH_HOLE)");
		} else if (!strcmp(op, "msync")) {
			int e = 0;

			if (last_map && msync(last_map, last_len, MS_SYNC))
				e = errno;
			printf("msync err=%s\n", errname(e));
		} else if (!strcmp(op, "fsync")) {
			printf("fsync err=%s\n", errname(fsync(fd) ? errno : 0));
		} else if (!strcmp(op, "check") || !strcmp(op, "zero")) {
			bad |= op_check(a, b, !strcmp(op, "zero"));
		} else {
			fprintf(stderr, "qfill: unknown op '%s'\n", op);
			return 2;
		}
	}
	return bad;
}
