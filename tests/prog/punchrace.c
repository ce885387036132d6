// SPDX-License-Identifier: GPL-2.0
/*
 * punchrace: stores through a shared mapping race a hole punch over the
 * same pages, again and again.
 *
 *   punchrace [-s SEED] [-n ITERS] [-t SECONDS] [-m STORES] FILE
 *
 * The file is 8 pages of a non-zero pattern.  A child process stores
 * 64-bit words through one shared mapping of the whole file, kept for the
 * whole run (so its PTEs stay writable across punches), at random words
 * of the file: three quarters inside the punched range R (not aligned to
 * blocks or pages at either end), the rest in the same pages outside R.
 * Every value is tagged with the number of punches that had returned when
 * the store began; a shadow copy (shared memory) keeps the last value
 * stored at each word.  The parent, in iteration k:
 *
 *   1. waits until the child has made STORES stores tagged k-1 (so every
 *      store tagged k-2 or less finished before punch k starts);
 *   2. punches R (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE), publishes k;
 *   3. waits for STORES stores tagged k, then pauses the child;
 *   4. checks every word with pread, then after fsync with an O_DIRECT
 *      read (what is on disk):
 *      - outside R: the last value stored there (or the pattern);
 *      - inside R, last store tagged k (began after punch k returned):
 *        that value - a store acknowledged after the punch is not lost;
 *      - tagged k-1 (may have raced with punch k): that value or zero;
 *      - tagged k-2 or less, or never stored: zero - no punched byte is
 *        non-zero after the punch.
 *
 * A store into a punched block skips page_mkwrite unless the punch
 * write-protected the page: its buffer is then unmapped, writeback skips
 * it, and the O_DIRECT check sees zeros.  Prints "seed=N" first and
 * "punchrace: ok, N iterations, ..." or "punchrace: BUG ..." last.
 * Exit: 0 ok, 1 a violation, 2 setup error (3: fallocate unsupported).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "common.h"

#define PAGES	8
#define FSIZE	(PAGES * 4096)
#define NWORDS	(FSIZE / 8)
/* R: from the middle of block 1 of page 1 to the middle of block 2 of page 6 */
#define R_START	(4096 + 1024 + 512)
#define R_END	(6 * 4096 + 2048 + 256)

struct shared {
	uint64_t shadow[NWORDS];	/* last value stored at each word */
	uint64_t done_gen;		/* punches returned */
	uint64_t stores[2];		/* stores tagged with the current / previous gen, by parity */
	uint64_t total_stores;
	int pause, paused, stop;
	int sigbus;
};

static struct shared *sh;
static uint64_t rng;

static uint64_t rnd(void)
{
	return xorshift64s(&rng);
}

static uint64_t pattern(long w)
{
	/* never zero, tag bits (high half) zero: "never stored" */
	return 0xA5A50000ULL | (uint64_t)(w + 1);
}

static int in_r(long w)
{
	return w * 8 >= R_START && w * 8 + 8 <= R_END;
}

static void on_sigbus(int sig)
{
	(void)sig;
	__atomic_store_n(&sh->sigbus, 1, __ATOMIC_SEQ_CST);
	_exit(4);
}

static void storer(uint64_t *map)
{
	uint64_t cnt = 0;

	signal(SIGBUS, on_sigbus);
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		uint64_t g, v;
		long w;

		if (__atomic_load_n(&sh->pause, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&sh->paused, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&sh->pause, __ATOMIC_ACQUIRE) &&
			       !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE))
				usleep(100);
			__atomic_store_n(&sh->paused, 0, __ATOMIC_RELEASE);
			continue;
		}
		g = __atomic_load_n(&sh->done_gen, __ATOMIC_ACQUIRE);
		if (rnd() % 4) {
			w = R_START / 8 + (long)(rnd() % ((R_END - R_START) / 8));
		} else {
			/* outside R, in the pages R touches */
			w = (long)(rnd() % (NWORDS - 2 * 512)) + 512;
			if (in_r(w))
				w = rnd() % 2 ? R_START / 8 - 1 - (long)(rnd() % 128)
					      : R_END / 8 + (long)(rnd() % 128);
		}
		v = ((g + 1) << 32) | (++cnt & 0xffffffffULL);
		__atomic_store_n(&map[w], v, __ATOMIC_RELAXED);
		__atomic_store_n(&sh->shadow[w], v, __ATOMIC_RELEASE);
		__atomic_add_fetch(&sh->stores[g & 1], 1, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(&sh->total_stores, 1, __ATOMIC_RELAXED);
	}
	_exit(0);
}

static int wait_stores(uint64_t gen, uint64_t want, pid_t child)
{
	while (__atomic_load_n(&sh->stores[gen & 1], __ATOMIC_ACQUIRE) < want) {
		if (waitpid(child, NULL, WNOHANG) == child)
			return -1;
		usleep(50);
	}
	return 0;
}

/* Check the words of @buf (read from the file) after punch @k. */
static long check(const uint64_t *buf, uint64_t k, const char *how)
{
	long w, bad = 0;

	for (w = 0; w < NWORDS; w++) {
		uint64_t s = sh->shadow[w], got = buf[w];
		uint64_t tag = s >> 32;	/* 0: pattern, else gen + 1 */
		int ok;

		if (!in_r(w))
			ok = got == s;
		else if (tag == k + 1)		/* began after punch k returned */
			ok = got == s;
		else if (tag && tag == k)	/* may have raced with punch k */
			ok = got == s || got == 0;
		else
			ok = got == 0;
		if (!ok) {
			if (bad < 8)
				printf("punchrace: BUG (%s) after punch %" PRIu64 ": offset %ld: got 0x%016" PRIx64 ", last stored 0x%016" PRIx64 " (%s R)\n",
				       how, k, w * 8, got, s,
				       in_r(w) ? "in" : "outside");
			bad++;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	uint64_t seed = 0, iters = 0, want = 64, k, punches = 0;
	uint64_t *buf, *dbuf;
	uint64_t *map;
	int opt, fd, dfd, seconds = 20;
	long bad = 0;
	time_t t0;
	pid_t child;
	long w;

	seed = (uint64_t)time(NULL);
	while ((opt = getopt(argc, argv, "s:n:t:m:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			iters = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 'm':
			want = strtoull(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1) {
usage:
		fprintf(stderr, "usage: punchrace [-s SEED] [-n ITERS] [-t SECONDS] [-m STORES] FILE\n");
		return 2;
	}
	printf("seed=%" PRIu64 "\n", seed);
	rng = seed * 0x9E3779B97F4A7C15ULL + 1;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || posix_memalign((void **)&buf, 4096, FSIZE) ||
	    posix_memalign((void **)&dbuf, 4096, FSIZE))
		return 2;
	fd = open(argv[optind], O_RDWR | O_CREAT | O_TRUNC, 0644);
	dfd = open(argv[optind], O_RDONLY | O_DIRECT);
	if (fd < 0 || dfd < 0) {
		perror("punchrace: open");
		return 2;
	}
	for (w = 0; w < NWORDS; w++)
		buf[w] = sh->shadow[w] = pattern(w);
	if (pwrite(fd, buf, FSIZE, 0) != FSIZE || fsync(fd)) {
		perror("punchrace: pwrite");
		return 2;
	}
	/* does this filesystem punch at all? */
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, FSIZE, 4096) &&
	    errno == EOPNOTSUPP) {
		printf("punchrace: fallocate(PUNCH_HOLE) not supported\n");
		return 3;
	}
	map = mmap(NULL, FSIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("punchrace: mmap");
		return 2;
	}

	child = fork();
	if (child < 0)
		return 2;
	if (!child)
		storer(map);

	t0 = time(NULL);
	for (k = 1; ; k++) {
		if ((iters && k > iters) ||
		    (!iters && time(NULL) - t0 >= seconds))
			break;
		if (wait_stores(k - 1, want, child))
			break;
		/* gen k's counter starts at 0 (the slot held gen k-2's) */
		__atomic_store_n(&sh->stores[k & 1], 0, __ATOMIC_RELEASE);
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      R_START, R_END - R_START)) {
			printf("punchrace: BUG: punch %" PRIu64 ": %s\n", k,
			       strerror(errno));
			bad++;
			break;
		}
		punches++;
		__atomic_store_n(&sh->done_gen, k, __ATOMIC_RELEASE);
		if (wait_stores(k, want, child))
			break;
		__atomic_store_n(&sh->pause, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&sh->paused, __ATOMIC_ACQUIRE))
			if (waitpid(child, NULL, WNOHANG) == child)
				goto dead;
		if (pread(fd, buf, FSIZE, 0) != FSIZE) {
			perror("punchrace: pread");
			return 2;
		}
		bad += check(buf, k, "pread");
		if (fsync(fd) || pread(dfd, dbuf, FSIZE, 0) != FSIZE) {
			perror("punchrace: fsync / O_DIRECT pread");
			return 2;
		}
		bad += check(dbuf, k, "on disk, O_DIRECT after fsync");
		__atomic_store_n(&sh->pause, 0, __ATOMIC_RELEASE);
		if (bad)
			break;
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
dead:
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	waitpid(child, NULL, 0);
	if (sh->sigbus) {
		printf("punchrace: BUG: SIGBUS in a store\n");
		bad++;
	}
	printf("punchrace: %s, %" PRIu64 " iterations (punches), %" PRIu64 " stores, %ld bad words\n",
	       bad ? "BUG" : "ok", punches, sh->total_stores, bad);
	return bad ? 1 : 0;
}
