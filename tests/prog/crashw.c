// SPDX-License-Identifier: GPL-2.0
/*
 * crashw - write known data, make some of it durable, then crash the guest
 *
 * usage:
 *   crashw write DIR SEED POINT   write the durable set (fsync'd), then
 *                                 unsynced churn chosen by POINT, then
 *                                 `echo b > /proc/sysrq-trigger`
 *   crashw verify DIR SEED        after the reboot: every durable file must
 *                                 hold exactly its bytes
 *
 * The durable set (all fsync'd, and the directory too):
 *   d0..d4    write(2) files of 1000, 13000, 70000, 300000 and 4096 bytes
 *   dmap      64 KiB grown by ftruncate, filled through a shared mapping,
 *             msync(MS_SYNC) + fsync
 *   dhole     8000 bytes, extended to 40000 by ftruncate (the hole must
 *             read as zeros), then 100 bytes written at 50000, fsync
 * Crash points (POINT):
 *   0  right after the durable set
 *   1  after 4 MiB of unsynced writes, with writeback started
 *      (sync_file_range without waiting) and the durable files left alone
 *   2  during metadata churn: files created, renamed, unlinked, truncated
 *   3  during stores through a shared mapping of an unsynced file that
 *      grows under it (page_mkwrite and hole zeroing in flight)
 *   4  at a moment chosen by SEED (0.1-2 s) while the churn of points 1-3
 *      runs in a loop: a child process crashes the guest in the middle of
 *      whatever write, allocation or writeback is in flight
 * Prints "seed=N" first.  verify exits 1 on any mismatch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"

static uint64_t crashw_rng;

static uint64_t crashw_rand(void)
{
	return splitmix64(&crashw_rng);
}

/* the bytes of durable file IDX for SEED */
static void fill(unsigned char *buf, size_t len, unsigned long long seed, int idx)
{
	size_t i;

	crashw_rng = seed * 1000003ULL + (uint64_t)idx;
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(crashw_rand() >> 56);
}

static void die(const char *what)
{
	printf("crashw: %s: %s\n", what, strerror(errno));
	exit(1);
}

static const size_t crashw_sizes[] = { 1000, 13000, 70000, 300000, 4096 };
#define NSIZES (sizeof(crashw_sizes) / sizeof(crashw_sizes[0]))
#define MAPLEN (64 * 1024)

static void path(char *out, size_t n, const char *dir, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static void write_all(int fd, const unsigned char *b, size_t len, off_t off)
{
	while (len) {
		ssize_t r = pwrite(fd, b, len, off);

		if (r <= 0)
			die("pwrite");
		b += r;
		len -= (size_t)r;
		off += r;
	}
}

static void durable(const char *dir, unsigned long long seed)
{
	static unsigned char buf[300000];
	char p[512], name[16];
	unsigned char *m;
	unsigned int i;
	int fd;

	for (i = 0; i < NSIZES; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		path(p, sizeof(p), dir, name);
		fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("open");
		fill(buf, crashw_sizes[i], seed, (int)i);
		write_all(fd, buf, crashw_sizes[i], 0);
		if (fsync(fd))
			die("fsync");
		close(fd);
	}

	path(p, sizeof(p), dir, "dmap");
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, MAPLEN))
		die("dmap");
	m = mmap(NULL, MAPLEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("mmap");
	fill(buf, MAPLEN, seed, 10);
	memcpy(m, buf, MAPLEN);
	if (msync(m, MAPLEN, MS_SYNC) || fsync(fd))
		die("msync");
	munmap(m, MAPLEN);
	close(fd);

	path(p, sizeof(p), dir, "dhole");
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("dhole");
	fill(buf, 8000, seed, 11);
	write_all(fd, buf, 8000, 0);
	if (ftruncate(fd, 40000))
		die("ftruncate");
	fill(buf, 100, seed, 12);
	write_all(fd, buf, 100, 50000);
	if (fsync(fd))
		die("fsync dhole");
	close(fd);

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fsync(fd))
		die("fsync dir");
	close(fd);
	printf("crashw: durable set written and synced\n");
}

static void churn(const char *dir, int point)
{
	static unsigned char buf[65536];
	char p[512], q[512], name[32];
	unsigned char *m;
	int fd, i;

	memset(buf, 0x5a, sizeof(buf));
	switch (point) {
	case 1:
		path(p, sizeof(p), dir, "u-big");
		fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("u-big");
		for (i = 0; i < 64; i++) {
			write_all(fd, buf, sizeof(buf), (off_t)i * (off_t)sizeof(buf));
			if (i % 8 == 7)
				sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		}
		close(fd);
		break;
	case 2:
		for (i = 0; i < 200; i++) {
			snprintf(name, sizeof(name), "u-%d", i);
			path(p, sizeof(p), dir, name);
			fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				die("u-n");
			write_all(fd, buf, (size_t)(i * 97) % sizeof(buf), 0);
			if (i % 3 == 0 && ftruncate(fd, i * 10))
				die("ftruncate");
			close(fd);
			if (i % 4 == 1) {
				snprintf(name, sizeof(name), "v-%d", i);
				path(q, sizeof(q), dir, name);
				rename(p, q);
			} else if (i % 4 == 2) {
				unlink(p);
			}
			if (i % 50 == 49)
				sync_file_range(fd, 0, 0, 0);
		}
		break;
	case 3:
		path(p, sizeof(p), dir, "u-map");
		fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, 1 << 20))
			die("u-map");
		m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			die("mmap u-map");
		if (ftruncate(fd, 5000))
			die("ftruncate u-map");
		for (i = 0; i < 200; i++) {
			if (ftruncate(fd, 5000 + i * 5000))
				die("grow u-map");
			m[i * 5000] = (unsigned char)i;
			if (i % 20 == 19)
				msync(m, 1 << 20, MS_ASYNC);
		}
		munmap(m, 1 << 20);
		close(fd);
		break;
	default:
		break;
	}
}

/* Only inside the test guest: its kernel command line names a suite. */
static int in_guest(void)
{
	char cmd[4096];
	ssize_t r;
	int fd = open("/proc/cmdline", O_RDONLY);

	if (fd < 0)
		return 0;
	r = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (r <= 0)
		return 0;
	cmd[r] = 0;
	return strstr(cmd, "ext2hole.suite=") != NULL;
}

static void crash(void)
{
	int fd;

	if (!in_guest()) {
		printf("crashw: not in the ext2hole test guest: not crashing\n");
		exit(2);
	}
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	fflush(stdout);
	/*
	 * The reset does not wait for the serial console: let the line that
	 * tells the host the crash point was reached leave the UART first.
	 */
	tcdrain(STDOUT_FILENO);
	usleep(300000);
	if (fd < 0 || write(fd, "b", 1) != 1)
		die("sysrq");
	sleep(60);
	printf("crashw: still alive after sysrq-b\n");
	exit(1);
}

static int check(const char *dir, const char *name, const unsigned char *want,
		 size_t len, off_t off, size_t size)
{
	static unsigned char got[300000];
	char p[512];
	ssize_t r;
	int fd;
	off_t end;

	path(p, sizeof(p), dir, name);
	fd = open(p, O_RDONLY);
	if (fd < 0) {
		printf("crashw: MISMATCH %s: %s\n", name, strerror(errno));
		return 1;
	}
	end = lseek(fd, 0, SEEK_END);
	if (size && end != (off_t)size) {
		printf("crashw: MISMATCH %s: size %lld, want %zu\n", name,
		       (long long)end, size);
		close(fd);
		return 1;
	}
	r = pread(fd, got, len, off);
	close(fd);
	if (r != (ssize_t)len || memcmp(got, want, len)) {
		printf("crashw: MISMATCH %s: bytes %lld+%zu differ (read %zd)\n",
		       name, (long long)off, len, r);
		return 1;
	}
	return 0;
}

static int verify(const char *dir, unsigned long long seed)
{
	static unsigned char buf[300000];
	char name[16];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < NSIZES; i++) {
		snprintf(name, sizeof(name), "d%u", i);
		fill(buf, crashw_sizes[i], seed, (int)i);
		bad += check(dir, name, buf, crashw_sizes[i], 0, crashw_sizes[i]);
	}
	fill(buf, MAPLEN, seed, 10);
	bad += check(dir, "dmap", buf, MAPLEN, 0, MAPLEN);
	fill(buf, 8000, seed, 11);
	bad += check(dir, "dhole", buf, 8000, 0, 50100);
	memset(buf, 0, 42000);
	bad += check(dir, "dhole", buf, 42000, 8000, 50100);
	fill(buf, 100, seed, 12);
	bad += check(dir, "dhole", buf, 100, 50000, 50100);
	printf("crashw: verify: %s (%d mismatches)\n", bad ? "FAILED" : "ok", bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long long seed;
	int point;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4) {
		fprintf(stderr, "usage: crashw write DIR SEED POINT | verify DIR SEED\n");
		return 1;
	}
	seed = strtoull(argv[3], NULL, 0);
	printf("seed=%llu\n", seed);
	if (!strcmp(argv[1], "verify"))
		return verify(argv[2], seed);
	if (strcmp(argv[1], "write") || argc != 5)
		return 1;
	durable(argv[2], seed);
	point = atoi(argv[4]);
	if (point == 4) {
		unsigned int ms = 100 + (unsigned int)((seed * 7919ULL) % 1900);
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			usleep(ms * 1000);
			printf("crashw: churn 4 done, crashing after %u ms of churn\n", ms);
			crash();
		}
		for (;;) {
			churn(argv[2], 1);
			churn(argv[2], 2);
			churn(argv[2], 3);
		}
	}
	churn(argv[2], point);
	printf("crashw: churn %d done, crashing\n", point);
	crash();
	return 1;
}
