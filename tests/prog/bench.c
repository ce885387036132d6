// SPDX-License-Identifier: GPL-2.0
/*
 * bench - the project's own benchmark workloads (scripts/bench.sh).
 *
 *   bench mmapfault FILE MIB   a sparse file of MIB MiB mapped shared, one
 *                              store per page: faults/s, then the same
 *                              pages per second including msync + fsync
 *   bench extgap FILE N        N extending 4 KiB writes, each starting
 *                              3000 bytes past EOF (a gap inside a page)
 *   bench trunc FILE N         N cycles of truncate up and down with the
 *                              EOF page mapped and dirtied before each
 *   bench meta DIR N           create N files (in directories of 100),
 *                              write 4 KiB to each, close, unlink them all
 *   bench fsynclat FILE N      N times: pwrite 4 KiB at a random page of
 *                              a 1 MiB file, fsync; latency p50 and p99
 *   bench readdir DIR N        N names in the new directory DIR (hard
 *                              links to a few files), then getdents64 of
 *                              all of them (32 KiB buffers): names/s from a
 *                              cold cache (caches dropped first) and warm
 *                              (the best of 3); then everything removed
 *   bench prealloc FILE MIB    MIB MiB preallocated with posix_fallocate
 *                              (fallocate(2), or glibc's emulation, one
 *                              byte written per block, where the
 *                              filesystem refuses it) and fsync: MiB/s;
 *                              then the same MiB written as zeros with
 *                              write(2) and fsync: MiB/s
 *
 * Every result is one line "BENCH <figure> <value>", value a positive
 * number (operations per second, or microseconds for latencies).  The
 * program asserts nothing about speed: it exits 1 only when an operation
 * fails or a figure cannot be computed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE	4096
#define GAP	3000
#define PER_DIR	100

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(const char *figure, double value)
{
	if (!(value > 0)) {
		fprintf(stderr, "bench: %s: no positive figure (%g)\n", figure, value);
		exit(1);
	}
	printf("BENCH %s %.6g\n", figure, value);
}

static void rate(const char *figure, double ops, double t0)
{
	double dt = now() - t0;

	/* a clock that did not move cannot give a rate */
	report(figure, dt > 0 ? ops / dt : 0);
}

static void mmapfault(const char *path, long mib)
{
	size_t len = (size_t)mib << 20, off;
	double t0, t1;
	char *p;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	if (ftruncate(fd, len))
		die("ftruncate");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	t0 = now();
	for (off = 0; off < len; off += PAGE)
		p[off] = 1 + (off >> 12) % 251;
	t1 = now();
	report("mmap.fault", t1 > t0 ? (len / PAGE) / (t1 - t0) : 0);
	if (msync(p, len, MS_SYNC))
		die("msync");
	if (fsync(fd))
		die("fsync");
	rate("mmap.fault+sync", len / PAGE, t0);
	munmap(p, len);
	close(fd);
	if (unlink(path))
		die("unlink");
}

static void extgap(const char *path, const char *figure, long n)
{
	static char buf[PAGE];
	off_t pos = 0;
	double t0;
	long i;
	int fd;

	memset(buf, 0x5a, sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	t0 = now();
	for (i = 0; i < n; i++) {
		pos += GAP;
		if (pwrite(fd, buf, PAGE, pos) != PAGE)
			die("pwrite");
		pos += PAGE;
	}
	if (fsync(fd))
		die("fsync");
	rate(figure, n, t0);
	close(fd);
	if (unlink(path))
		die("unlink");
}

static void trunc_cycles(const char *path, long n)
{
	const size_t maplen = 1 << 20;
	double t0;
	char *p;
	long i;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	/* page 16 is the EOF page from here on */
	if (ftruncate(fd, (64 << 10) + 1))
		die("ftruncate");
	p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	t0 = now();
	for (i = 0; i < n; i++) {
		/* sizes inside a page: the EOF page stays mapped and dirty */
		off_t small = (64 << 10) + 123 + (i % 7) * 300;
		off_t big = small + 1000 + (i % 5) * 4096;

		p[small - 1] = 1;
		if (ftruncate(fd, big))
			die("ftruncate up");
		p[big - 1] = 2;
		if (ftruncate(fd, small))
			die("ftruncate down");
	}
	if (fsync(fd))
		die("fsync");
	rate("trunc.cycle", n, t0);
	munmap(p, maplen);
	close(fd);
	if (unlink(path))
		die("unlink");
}

static void meta(const char *dir, const char *figure, long n)
{
	static char buf[PAGE];
	char path[4096];
	double t0;
	long i;
	int fd;

	memset(buf, 0xa5, sizeof(buf));
	t0 = now();
	for (i = 0; i < n; i++) {
		if (i % PER_DIR == 0) {
			snprintf(path, sizeof(path), "%s/d%ld", dir, i / PER_DIR);
			if (mkdir(path, 0755))
				die(path);
		}
		snprintf(path, sizeof(path), "%s/d%ld/f%ld", dir, i / PER_DIR, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			die(path);
		if (write(fd, buf, PAGE) != PAGE)
			die("write");
		close(fd);
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/d%ld/f%ld", dir, i / PER_DIR, i);
		if (unlink(path))
			die(path);
		if (i % PER_DIR == PER_DIR - 1 || i == n - 1) {
			snprintf(path, sizeof(path), "%s/d%ld", dir, i / PER_DIR);
			if (rmdir(path))
				die(path);
		}
	}
	sync();
	rate(figure, n, t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void fsynclat(const char *path, long n)
{
	static char buf[PAGE];
	const long pages = 256;
	uint64_t r = 88172645463325252ULL;
	double *lat, t0;
	long i;
	int fd;

	lat = calloc(n, sizeof(*lat));
	if (!lat)
		die("calloc");
	memset(buf, 0x3c, sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	for (i = 0; i < pages; i++)
		if (pwrite(fd, buf, PAGE, i * PAGE) != PAGE)
			die("pwrite");
	if (fsync(fd))
		die("fsync");
	for (i = 0; i < n; i++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		buf[0] = i;
		t0 = now();
		if (pwrite(fd, buf, PAGE, (off_t)(r % pages) * PAGE) != PAGE)
			die("pwrite");
		if (fsync(fd))
			die("fsync");
		lat[i] = (now() - t0) * 1e6;
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	report("fsync.p50_us", lat[(n - 1) / 2]);
	report("fsync.p99_us", lat[(n * 99 - 1) / 100]);
	free(lat);
	close(fd);
	if (unlink(path))
		die("unlink");
}

/* Links per file: under ext2's limit of 32000. */
#define RD_LINKS	10000

/* One pass of getdents64 over @dir: the names seen. */
static long readdir_pass(const char *dir)
{
	static char buf[32768];
	long n, names = 0, pos;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die(dir);
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (pos = 0; pos < n;) {
			unsigned short reclen;

			/* d_ino 8, d_off 8, then d_reclen */
			memcpy(&reclen, buf + pos + 16, sizeof(reclen));
			pos += reclen;
			names++;
		}
	}
	if (n < 0)
		die("getdents64");
	close(fd);
	return names;
}

static void readdir_bench(const char *dir, const char *figure, long n)
{
	char path[4096], target[4096], name[64];
	double t0, best = 0;
	long i, got;
	int fd, rep;

	if (mkdir(dir, 0755))
		die(dir);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/entry-%07ld", dir, i);
		if (i % RD_LINKS == 0) {
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0)
				die(path);
			close(fd);
			strcpy(target, path);
		} else if (link(target, path)) {
			die(path);
		}
	}
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3", 1) != 1)
		die("drop_caches");
	close(fd);
	t0 = now();
	got = readdir_pass(dir);
	if (got != n + 2) {
		fprintf(stderr, "bench: readdir: %ld names, want %ld\n", got, n + 2);
		exit(1);
	}
	snprintf(name, sizeof(name), "%s.cold", figure);
	rate(name, n, t0);
	for (rep = 0; rep < 3; rep++) {
		double dt;

		t0 = now();
		readdir_pass(dir);
		dt = now() - t0;
		if (!rep || dt < best)
			best = dt;
	}
	snprintf(name, sizeof(name), "%s.warm", figure);
	report(name, best > 0 ? n / best : 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/entry-%07ld", dir, i);
		if (unlink(path))
			die(path);
	}
	if (rmdir(dir))
		die(dir);
	sync();
}

static void prealloc(const char *path, const char *figure, long mib)
{
	static char zeros[1 << 20];
	char name[128];
	double t0;
	long i;
	int fd, err;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	t0 = now();
	err = posix_fallocate(fd, 0, (off_t)mib << 20);
	if (err) {
		errno = err;
		die("posix_fallocate");
	}
	if (fsync(fd))
		die("fsync");
	snprintf(name, sizeof(name), "%s.falloc_MiBs", figure);
	rate(name, mib, t0);
	close(fd);
	if (unlink(path))
		die("unlink");
	sync();

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	t0 = now();
	for (i = 0; i < mib; i++)
		if (write(fd, zeros, sizeof(zeros)) != sizeof(zeros))
			die("write");
	if (fsync(fd))
		die("fsync");
	snprintf(name, sizeof(name), "%s.zeros_MiBs", figure);
	rate(name, mib, t0);
	close(fd);
	if (unlink(path))
		die("unlink");
	sync();
}

int main(int argc, char **argv)
{
	long n;

	if (argc < 4 || argc > 5)
		goto usage;
	n = strtol(argv[3], NULL, 0);
	if (n <= 0)
		goto usage;
	if (!strcmp(argv[1], "mmapfault"))
		mmapfault(argv[2], n);
	else if (!strcmp(argv[1], "extgap"))
		extgap(argv[2], argc == 5 ? argv[4] : "extgap", n);
	else if (!strcmp(argv[1], "trunc"))
		trunc_cycles(argv[2], n);
	else if (!strcmp(argv[1], "meta"))
		meta(argv[2], argc == 5 ? argv[4] : "meta", n);
	else if (!strcmp(argv[1], "readdir"))
		readdir_bench(argv[2], argc == 5 ? argv[4] : "readdir", n);
	else if (!strcmp(argv[1], "fsynclat"))
		fsynclat(argv[2], n);
	else if (!strcmp(argv[1], "prealloc"))
		prealloc(argv[2], argc == 5 ? argv[4] : "prealloc", n);
	else
		goto usage;
	return 0;
usage:
	fprintf(stderr, "usage: bench mmapfault|extgap|trunc|meta|readdir|fsynclat|prealloc PATH N [FIGURE]\n");
	return 2;
}
