// SPDX-License-Identifier: GPL-2.0
/*
 * seekrace - SEEK_DATA, SEEK_HOLE and FIEMAP while writeback allocates
 * the data they are asked about.
 *
 *   seekrace DIR [-s SEED] [-p PAGES] [-r ROUNDS] [-t SECONDS]
 *
 * Each round makes a sparse file of PAGES pages in DIR, maps it shared
 * and stores one non-zero byte at a seeded offset into about half of its
 * pages (chosen by the seed), all holes: under mkwrite=noalloc the pages
 * are dirty with delayed blocks.  Then, for each stored page in turn, a
 * writer thread writes that page back (sync_file_range(WRITE) over the
 * page: writeback allocates its blocks, splices them into the map and
 * moves the page from dirty to writeback), while the main thread asks
 * about the stored byte at offset O, again and again until the writer's
 * call has returned, and once more after:
 *   - lseek(SEEK_DATA, O) must be O (ENXIO or a later offset is wrong);
 *   - lseek(SEEK_HOLE, O) must be beyond O;
 *   - FIEMAP over the page must have an extent holding O.
 * The byte was stored before the questions, so no answer may depend on
 * where writeback is.  Pacing the writer page by page puts every page's
 * allocation under a burst of questions.  The two threads are pinned to
 * two different CPUs (when there are two): left to the scheduler, they
 * often share one CPU, where a question is not interrupted by the
 * writeback it races with.  Under TCG on the unfixed code, rounds with
 * both threads pinned to one CPU gave no wrong answer at all (even with
 * preempt=full), the threads left free gave them in some runs only, and
 * pinned apart in every run.  After the round, fsync and one
 * more pass.  Rounds go on until SECONDS (default 4) have passed, checked
 * before each page too, or ROUNDS (default 1000) are done.  The layout
 * replays from the seed; the interleaving cannot.
 *
 * A target whose FIEMAP does not show a dirty page without a block at
 * all (stock ext2 reports only the map; a probe before the rounds tells)
 * is checked with FIEMAP_FLAG_SYNC instead, and a note says so.
 *
 * Prints "seed=N" first and "seekrace: ok ..." or "seekrace: BUG - ..."
 * last.  Exit 0 ok, 1 a wrong answer, 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "common.h"

#define NEXT	8	/* extents asked for: one page has at most a few */

static const char *dir;
static long ps;
static uint64_t rng;
static int fiemap_flags;	/* 0, or FIEMAP_FLAG_SYNC after the probe */

/* wrong answers, by kind */
static long w_data_enxio, w_data_other, w_hole, w_fiemap;
static long n_checks, n_racing;
static int shown;

/* the writer thread's orders: page offset, or -1 to stop */
static pthread_barrier_t go;
static int wfd;
static off_t wpos;
static atomic_int wdone;
static cpu_set_t all_cpus;	/* where we may run */
static int npinned;		/* CPUs the threads are pinned to: 2, or 0 */

#define die(...) die_setup("seekrace", NULL, __VA_ARGS__)

/* The main thread on the first CPU we may use, @th on the second. */
static void place(pthread_t th)
{
	cpu_set_t me, it;
	int cpu, n = 0;

	CPU_ZERO(&me);
	CPU_ZERO(&it);
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++) {
		if (CPU_ISSET(cpu, &all_cpus))
			CPU_SET(cpu, n++ ? &it : &me);
	}
	if (n < 2)
		return;
	errno = 0;
	if (pthread_setaffinity_np(pthread_self(), sizeof(me), &me) ||
	    pthread_setaffinity_np(th, sizeof(it), &it))
		die("pthread_setaffinity_np");
	npinned = 2;
}

static void wrong(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wrong(const char *fmt, ...)
{
	va_list ap;

	if (shown++ >= 10)
		return;
	printf("seekrace: wrong: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}

/* Does FIEMAP over [@start, @start + ps) show an extent holding @off? */
static int fiemap_has(int fd, off_t start, off_t off, int flags)
{
	union {
		struct fiemap fm;
		char buf[sizeof(struct fiemap) + NEXT * sizeof(struct fiemap_extent)];
	} u;
	unsigned int i;

	memset(&u, 0, sizeof(u));
	u.fm.fm_start = start;
	u.fm.fm_length = ps;
	u.fm.fm_flags = flags;
	u.fm.fm_extent_count = NEXT;
	if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) < 0)
		die("FIEMAP at %lld", (long long)start);
	for (i = 0; i < u.fm.fm_mapped_extents; i++) {
		struct fiemap_extent *fe = &u.fm.fm_extents[i];

		if (fe->fe_logical <= (uint64_t)off &&
		    (uint64_t)off < fe->fe_logical + fe->fe_length)
			return 1;
	}
	return 0;
}

/* One round of the three questions about the byte at @off; @k rotates their order. */
static void check(int fd, off_t off, unsigned int k, const char *when)
{
	off_t start = off - off % ps;
	unsigned int i;
	off_t r;

	n_checks++;
	for (i = 0; i < 3; i++) {
		switch ((i + k) % 3) {
		case 0:
			r = lseek(fd, off, SEEK_DATA);
			if (r < 0 && errno == ENXIO) {
				w_data_enxio++;
				wrong("%s: SEEK_DATA from %lld: ENXIO", when,
				      (long long)off);
			} else if (r < 0) {
				die("SEEK_DATA from %lld", (long long)off);
			} else if (r != off) {
				w_data_other++;
				wrong("%s: SEEK_DATA from %lld: %lld", when,
				      (long long)off, (long long)r);
			}
			break;
		case 1:
			r = lseek(fd, off, SEEK_HOLE);
			if (r < 0)
				die("SEEK_HOLE from %lld", (long long)off);
			if (r <= off) {
				w_hole++;
				wrong("%s: SEEK_HOLE from %lld: %lld", when,
				      (long long)off, (long long)r);
			}
			break;
		default:
			if (!fiemap_has(fd, start, off, fiemap_flags)) {
				w_fiemap++;
				wrong("%s: FIEMAP over %lld+%ld: no extent holds %lld",
				      when, (long long)start, ps, (long long)off);
			}
			break;
		}
	}
}

static void *writer(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&go);
		if (wpos < 0)
			return NULL;
		if (sync_file_range(wfd, wpos, ps, SYNC_FILE_RANGE_WRITE) < 0)
			die("sync_file_range at %lld", (long long)wpos);
		atomic_store(&wdone, 1);
	}
}

/*
 * Does FIEMAP show a page that is dirty and has no block?  A probe file of
 * one hole page with a byte stored through a mapping, asked before any
 * writeback (the flusher could win on a slow machine: then it says yes).
 */
static int probe_delalloc(void)
{
	char path[4096];
	char *map;
	int fd, ok;

	snprintf(path, sizeof(path), "%s/seekrace.probe", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 2 * ps) < 0)
		die("probe file %s", path);
	map = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap %s", path);
	map[ps + 100] = 1;
	ok = fiemap_has(fd, ps, ps + 100, 0);
	munmap(map, 2 * ps);
	close(fd);
	unlink(path);
	return ok;
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL);
	long pages = 256, rounds = 1000, round, i, stored = 0;

	int seconds = 4, opt;
	pthread_t th;
	time_t t0;

	while ((opt = getopt(argc, argv, "s:p:r:t:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			pages = atol(optarg);
			break;
		case 'r':
			rounds = atol(optarg);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || pages < 1 || rounds < 1) {
usage:
		fprintf(stderr, "usage: seekrace DIR [-s SEED] [-p PAGES] [-r ROUNDS] [-t SECONDS]\n");
		return 2;
	}
	dir = argv[optind];
	ps = sysconf(_SC_PAGESIZE);
	printf("seed=%" PRIu64 "\n", seed);
	rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	fflush(stdout);

	if (!probe_delalloc()) {
		fiemap_flags = FIEMAP_FLAG_SYNC;
		printf("seekrace: note - FIEMAP does not show a dirty page without a block here; FIEMAP is asked with FIEMAP_FLAG_SYNC\n");
	}
	if (sched_getaffinity(0, sizeof(all_cpus), &all_cpus) < 0)
		die("sched_getaffinity");
	if (pthread_barrier_init(&go, NULL, 2) ||
	    pthread_create(&th, NULL, writer, NULL))
		die("pthread");
	place(th);
	if (!npinned)
		printf("seekrace: note - one CPU: the threads share it\n");

	t0 = time(NULL);
	for (round = 0; round < rounds; round++) {
		char path[4096];
		off_t *offs;
		long n = 0;
		char *map;
		int fd;

		if (round && time(NULL) - t0 >= seconds)
			break;
		snprintf(path, sizeof(path), "%s/seekrace.%ld", dir, round);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, pages * ps) < 0)
			die("file %s", path);
		map = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, 0);
		offs = calloc(pages, sizeof(*offs));
		if (map == MAP_FAILED || !offs)
			die("mmap %s", path);
		for (i = 0; i < pages; i++) {
			if (!(rnd() & 1) && !(i == pages - 1 && !n))
				continue;
			offs[n] = i * ps + (off_t)(rnd() % ps);
			map[offs[n]] = (char)(1 + rnd() % 255);
			n++;
		}
		stored += n;

		wfd = fd;
		for (i = 0; i < n; i++) {
			unsigned int k = 0;

			/* out of time: fsync writes the rest, checked below */
			if (i && time(NULL) - t0 >= seconds)
				break;
			atomic_store(&wdone, 0);
			wpos = offs[i] - offs[i] % ps;
			pthread_barrier_wait(&go);
			while (!atomic_load(&wdone)) {
				check(fd, offs[i], k++, "during writeback");
				n_racing++;
			}
			check(fd, offs[i], k, "after writeback");
		}
		if (fsync(fd) < 0)
			die("fsync %s", path);
		for (i = 0; i < n; i++)
			check(fd, offs[i], (unsigned int)i, "after fsync");
		munmap(map, pages * ps);
		free(offs);
		close(fd);
		if (unlink(path) < 0)
			die("unlink %s", path);
	}
	wpos = -1;
	pthread_barrier_wait(&go);
	pthread_join(th, NULL);

	if (w_data_enxio + w_data_other + w_hole + w_fiemap) {
		printf("seekrace: BUG - %ld wrong answers: SEEK_DATA ENXIO %ld, SEEK_DATA past the byte %ld, SEEK_HOLE at or before the byte %ld, FIEMAP without the byte %ld; %ld rounds, %ld stored pages, %ld checks (%ld during writeback)\n",
		       w_data_enxio + w_data_other + w_hole + w_fiemap,
		       w_data_enxio, w_data_other, w_hole, w_fiemap,
		       round, stored, n_checks, n_racing);
		return 1;
	}
	printf("seekrace: ok - 0 wrong answers; %ld rounds, %ld stored pages, %ld checks (%ld during writeback)%s\n",
	       round, stored, n_checks, n_racing,
	       fiemap_flags ? ", FIEMAP with FIEMAP_FLAG_SYNC" : "");
	return 0;
}
