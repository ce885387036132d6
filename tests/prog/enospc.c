// SPDX-License-Identifier: GPL-2.0
/*
 * enospc - multi-process mixed load at the ENOSPC boundary, time-bounded
 *
 *   enospc -s SEED [-p PROCS] [-t SECONDS] DIR
 *
 * PROCS processes (default 6) run random operations in DIR/pN until the
 * deadline (default 60 s) on a filesystem small enough to be full most of
 * the time: write/append/pwrite past EOF, ftruncate up and down, stores
 * through a shared mapping (SIGBUS caught and counted), msync, fsync,
 * unlink, mkdir/rmdir.  ENOSPC is the expected answer to allocation;
 * every other errno is an error.  After a write that fsync confirmed, or a
 * store that msync(MS_SYNC) confirmed, the bytes are read back and must
 * match ("lost" otherwise).
 *
 * Prints "seed=N" first and the totals last:
 *   enospc: ops=N enospc=N sigbus=N msync_enospc=N fsync_enospc=N
 *           errors=N lost=N stuck=N
 * A worker still alive 60 s after the deadline (SIGKILL sent) is "stuck".
 * Exit 1 when errors, lost or stuck is non-zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define NFILES		16
#define MAXSIZE		(256 * 1024)
#define NCOUNTERS	8

enum { C_OPS, C_ENOSPC, C_SIGBUS, C_MSYNC_ENOSPC, C_FSYNC_ENOSPC, C_ERRORS, C_LOST, C_STUCK };
static const char *const counter_names[NCOUNTERS] = {
	"ops", "enospc", "sigbus", "msync_enospc", "fsync_enospc", "errors", "lost", "stuck",
};

static uint64_t rng;
static long *counters;			/* shared between the processes */
static sigjmp_buf bus_jmp;
static volatile sig_atomic_t in_store;

static uint64_t rnd64(void)
{
	return splitmix64(&rng);
}

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(rnd64() % n);
}

static void count(int c)
{
	__atomic_fetch_add(&counters[c], 1, __ATOMIC_RELAXED);
}

static void err(int pid, const char *what, int e)
{
	count(C_ERRORS);
	printf("enospc: p%d: %s: %s\n", pid, what, strerror(e));
}

static void on_bus(int sig)
{
	(void)sig;
	if (in_store)
		siglongjmp(bus_jmp, 1);
	_exit(3);
}

/* ENOSPC is expected, anything else is an error */
static int check(int pid, const char *what, int failed)
{
	if (!failed)
		return 0;
	if (errno == ENOSPC) {
		count(C_ENOSPC);
		return -1;
	}
	err(pid, what, errno);
	return -1;
}

static void readback(int pid, int fd, off_t off, const unsigned char *want, size_t len)
{
	static unsigned char got[MAXSIZE];
	ssize_t r = pread(fd, got, len, off);

	if (r != (ssize_t)len || memcmp(got, want, len)) {
		count(C_LOST);
		printf("enospc: p%d: LOST: %zu bytes at %lld read back wrong (%zd)\n",
		       pid, len, (long long)off, r);
	}
}

static void op_write(int pid, int fd)
{
	static unsigned char buf[MAXSIZE];
	size_t len = 1 + rnd(MAXSIZE / 4);
	off_t off = rnd(MAXSIZE);
	ssize_t w;

	memset(buf, 'a' + rnd(26), len);
	w = pwrite(fd, buf, len, off);
	if (check(pid, "pwrite", w < 0) || w == 0)
		return;
	if (rnd(3))
		return;
	if (fsync(fd)) {
		if (errno == ENOSPC)
			count(C_FSYNC_ENOSPC);
		else
			err(pid, "fsync", errno);
		return;
	}
	readback(pid, fd, off, buf, (size_t)w);
}

static void op_map(int pid, int fd)
{
	struct stat st;
	volatile unsigned char *m;
	size_t len, i, from, to;
	unsigned char v = (unsigned char)('A' + rnd(26));

	if (fstat(fd, &st) || st.st_size == 0)
		return;
	len = (size_t)st.st_size;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		err(pid, "mmap", errno);
		return;
	}
	from = rnd((uint32_t)len);
	to = from + rnd(32768);
	if (to > len)
		to = len;
	in_store = 1;
	if (sigsetjmp(bus_jmp, 1)) {
		in_store = 0;
		count(C_SIGBUS);
		munmap((void *)m, len);
		return;
	}
	for (i = from; i < to; i++)
		m[i] = v;
	in_store = 0;
	if (msync((void *)m, len, MS_SYNC)) {
		if (errno == ENOSPC)
			count(C_MSYNC_ENOSPC);
		else
			err(pid, "msync", errno);
	} else if (to > from) {
		static unsigned char want[MAXSIZE];

		if (to - from <= sizeof(want)) {
			memset(want, v, to - from);
			readback(pid, fd, (off_t)from, want, to - from);
		}
	}
	munmap((void *)m, len);
}

static void worker(int pid, const char *dir, unsigned long long seed, time_t end)
{
	char d[512], p[600];
	int fds[NFILES];
	int i, k, fd;

	rng = seed * 1000 + (uint64_t)pid;
	snprintf(d, sizeof(d), "%s/p%d", dir, pid);
	if (mkdir(d, 0755) && errno != EEXIST && errno != ENOSPC)
		err(pid, "mkdir", errno);
	for (i = 0; i < NFILES; i++)
		fds[i] = -1;
	while (time(NULL) < end) {
		k = (int)rnd(NFILES);
		snprintf(p, sizeof(p), "%s/f%d", d, k);
		if (fds[k] < 0) {
			fds[k] = open(p, O_RDWR | O_CREAT, 0644);
			if (check(pid, "open", fds[k] < 0))
				continue;
		}
		fd = fds[k];
		count(C_OPS);
		switch (rnd(10)) {
		case 0:
		case 1:
		case 2:
			op_write(pid, fd);
			break;
		case 3:
			check(pid, "ftruncate", ftruncate(fd, rnd(MAXSIZE)) != 0);
			break;
		case 4:
		case 5:
		case 6:
			op_map(pid, fd);
			break;
		case 7:
			close(fd);
			fds[k] = -1;
			if (unlink(p) && errno != ENOENT)
				err(pid, "unlink", errno);
			break;
		case 8:
			snprintf(p, sizeof(p), "%s/d%d", d, k);
			if (mkdir(p, 0755) && errno != EEXIST)
				check(pid, "mkdir", 1);
			else if (rmdir(p))
				err(pid, "rmdir", errno);
			break;
		default:
			if (fsync(fd)) {
				if (errno == ENOSPC)
					count(C_FSYNC_ENOSPC);
				else
					err(pid, "fsync", errno);
			}
			break;
		}
	}
	for (i = 0; i < NFILES; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	_exit(0);
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	int procs = 6, secs = 60, opt, i, alive, bad;
	pid_t pids[64];
	struct sigaction sa;
	time_t end;

	while ((opt = getopt(argc, argv, "s:p:t:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || procs < 1 || procs > 64 || secs < 1)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("seed=%llu\n", seed);
	counters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counters == MAP_FAILED)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sigaction(SIGBUS, &sa, NULL);

	end = time(NULL) + secs;
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(i, argv[optind], seed, end);
		if (pids[i] < 0)
			return 1;
	}
	/* reap until the deadline + 30 s, then SIGKILL, then 30 s more */
	for (alive = procs; alive && time(NULL) < end + 60;) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);

		if (w > 0) {
			alive--;
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				count(C_ERRORS);
				printf("enospc: worker %d died (status 0x%x)\n", (int)w, st);
			}
			continue;
		}
		if (time(NULL) == end + 30)
			for (i = 0; i < procs; i++)
				kill(pids[i], SIGKILL);
		usleep(200000);
	}
	counters[C_STUCK] = alive;
	printf("enospc:");
	for (i = 0; i < NCOUNTERS; i++)
		printf(" %s=%ld", counter_names[i], counters[i]);
	printf("\n");
	bad = counters[C_ERRORS] || counters[C_LOST] || counters[C_STUCK];
	return bad ? 1 : 0;
usage:
	fprintf(stderr, "usage: enospc -s SEED [-p PROCS] [-t SECONDS] DIR\n");
	return 1;
}
