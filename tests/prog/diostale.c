// SPDX-License-Identifier: GPL-2.0
/*
 * diostale - an O_DIRECT read must never return a deleted file's bytes
 * from blocks that a store through a shared mapping (or a buffered write)
 * got allocated and whose data is still only in the page cache.
 *
 *   diostale map DIR                  the deterministic sequence
 *   diostale verify DIR               after a remount: what map left on disk
 *   diostale race [-s SEED] [-t SECONDS] DIR
 *   diostale dwrite [-s SEED] [-t SECONDS] DIR
 *
 * Both sequences first make a pool of free blocks that hold a deleted
 * file's bytes: a filler (0xE7) takes the whole filesystem, gives back
 * POOL bytes (ftruncate), a victim file writes STALE (0x5A) there until
 * ENOSPC, is fsynced and unlinked.  Every block allocated afterwards comes
 * from that pool, so any byte read from it before the file's own data
 * reached it is STALE (or, from the victim's old indirect blocks, some
 * other non-pattern value).
 *
 * map: DIR/sparse is a 256 KiB hole; the same range is mapped MAP_SHARED
 * and pread(O_DIRECT) into the mapping.  Pinning the user pages write-
 * faults them (page_mkwrite: mkwrite=alloc allocates the holes) before the
 * read maps the blocks; the read must still return zeros (the hole), and
 * msync then writes those zeros.  Every byte must be 0; verify checks
 * the same after a remount (buffered and O_DIRECT).
 *
 * race: rounds of: DIR/f a 1 MiB hole; a storer fills its pages through a
 * shared mapping in a seeded random order (sync_file_range now and then,
 * so that writeback allocates under mkwrite=noalloc and completes while
 * the reader runs), while a reader O_DIRECT-reads random ranges into an
 * anonymous buffer.  Every word read must be 0 or this round's pattern for
 * that offset (bytewise: a read may overlap a store); then f is truncated
 * and the pool refilled with STALE.
 *
 * dwrite: race with the roles turned: the writer fills the hole's pages
 * with O_DIRECT writes (each allocates its blocks, then writes them), while
 * the reader drops a random range from the page cache and reads it
 * through the page cache, from disk: a block read after it entered the map
 * and before its data reached it would show the deleted file's bytes.
 *
 * Prints "seed=N" first (race), a summary last: "diostale <mode>: ok ..."
 * or "diostale <mode>: BUG ...".  Exit 0 ok, 1 stale bytes, 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common.h"

#define STALE		0x5A	/* the deleted file's byte */
#define FILLER		0xE7	/* the filler's byte */
#define MAP_LEN		(256 * 1024)
#define RACE_LEN	(1024 * 1024)
#define POOL		(2 * 1024 * 1024)
#define MAGIC		0xD10DULL
#define PAGE		4096

static const char *mode = "setup";
static char dir[3072];

#define die(...) die_setup("diostale", mode, __VA_ARGS__)

static void path(char *buf, const char *name)
{
	snprintf(buf, 4096, "%s/%s", dir, name);
}

/* Append @c to @fd until ENOSPC (1 KiB writes at the end); returns bytes. */
static long long fill_fd(int fd, int c)
{
	static char buf[65536];
	long long done = 0;
	size_t len = sizeof(buf);

	memset(buf, c, sizeof(buf));
	for (;;) {
		ssize_t n = write(fd, buf, len);

		if (n > 0) {
			done += n;
			continue;
		}
		if (n < 0 && errno == ENOSPC && len > 1024) {
			len = 1024;
			continue;
		}
		if (n < 0 && errno != ENOSPC)
			die("write");
		return done;
	}
}

/*
 * The pool: POOL bytes of free space (plus what the filesystem had left
 * over), every block of it last written with STALE by a deleted file.
 */
static void make_pool(void)
{
	char fp[4096], vp[4096];
	struct stat st;
	int fd;

	path(fp, "filler");
	fd = open(fp, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		die("open %s", fp);
	fill_fd(fd, FILLER);
	if (fsync(fd) || fstat(fd, &st))
		die("fsync %s", fp);
	if (st.st_size < POOL)
		die("filesystem too small: %lld bytes filled", (long long)st.st_size);
	if (ftruncate(fd, (st.st_size - POOL) & ~(off_t)(PAGE - 1)) || fsync(fd))
		die("ftruncate %s", fp);
	close(fd);

	path(vp, "victim");
	fd = open(vp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s", vp);
	if (fill_fd(fd, STALE) < POOL / 2)
		die("victim: too little space");
	if (fsync(fd))
		die("fsync %s", vp);
	close(fd);
	if (unlink(vp))
		die("unlink %s", vp);
	sync();
}

/* Counts of a buffer that must be all zero. */
struct tally {
	uint64_t bytes, nonzero, stale;
	int64_t first;
};

static void tally_zero(struct tally *t, const unsigned char *p, size_t len,
		       uint64_t off)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!p[i])
			continue;
		if (t->first < 0)
			t->first = off + i;
		t->nonzero++;
		if (p[i] == STALE)
			t->stale++;
	}
	t->bytes += len;
}

static void print_tally(const struct tally *t)
{
	if (!t->nonzero)
		printf("%" PRIu64 " bytes all zero", t->bytes);
	else
		printf("%" PRIu64 " of %" PRIu64 " bytes not zero, %" PRIu64 " of them 0x%02X (the deleted file's), first at %" PRId64,
		       t->nonzero, t->bytes, t->stale, STALE, t->first);
}

static int do_map(void)
{
	struct tally t = { .first = -1 };
	char sp[4096];
	unsigned char *map;
	ssize_t got;
	int fd, dfd;

	make_pool();
	path(sp, "sparse");
	fd = open(sp, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, MAP_LEN))
		die("create %s", sp);
	dfd = open(sp, O_RDONLY | O_DIRECT);
	if (dfd < 0)
		die("open %s O_DIRECT", sp);
	map = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	/* the read pins (write-faults) the mapping: page_mkwrite first */
	got = pread(dfd, map, MAP_LEN, 0);
	if (got != MAP_LEN)
		die("pread O_DIRECT into the mapping: %zd", got);
	if (msync(map, MAP_LEN, MS_SYNC) || fsync(fd))
		die("msync");
	tally_zero(&t, map, MAP_LEN, 0);
	munmap(map, MAP_LEN);
	close(dfd);
	close(fd);
	printf("diostale map: %s, O_DIRECT read into the mapping: ",
	       t.nonzero ? "BUG" : "ok");
	print_tally(&t);
	printf("\n");
	return !!t.nonzero;
}

static int do_verify(void)
{
	struct tally t = { .first = -1 }, td = { .first = -1 };
	char sp[4096];
	unsigned char *buf;
	int fd, dfd, ret;

	path(sp, "sparse");
	fd = open(sp, O_RDONLY);
	dfd = open(sp, O_RDONLY | O_DIRECT);
	if (fd < 0 || dfd < 0 || posix_memalign((void **)&buf, PAGE, MAP_LEN))
		die("open %s", sp);
	if (pread(fd, buf, MAP_LEN, 0) != MAP_LEN)
		die("pread %s", sp);
	tally_zero(&t, buf, MAP_LEN, 0);
	if (pread(dfd, buf, MAP_LEN, 0) != MAP_LEN)
		die("pread O_DIRECT %s", sp);
	tally_zero(&td, buf, MAP_LEN, 0);
	ret = t.nonzero || td.nonzero;
	printf("diostale verify: %s, on disk after a remount: buffered ",
	       ret ? "BUG" : "ok");
	print_tally(&t);
	printf("; O_DIRECT ");
	print_tally(&td);
	printf("\n");
	return ret;
}

/* race: shared between the storer, the reader and the parent */
struct shared {
	int done;		/* the storer has stored every page */
	uint64_t reads, words, data, stale_words, bad_words;
	uint64_t first_off, first_val;
	uint64_t pages, syncs;
};

static struct shared *sh;

static uint64_t word_of(uint64_t off, unsigned int round)
{
	return (MAGIC << 48) | ((uint64_t)(round & 0xffff) << 32) | (off / 8);
}

/* 0, or this round's pattern for @off, each byte 0 or the pattern's */
static int word_ok(uint64_t v, uint64_t off, unsigned int round)
{
	uint64_t want = word_of(off, round);
	int k;

	for (k = 0; k < 8; k++) {
		unsigned int got = (v >> (8 * k)) & 0xff;

		if (got && got != ((want >> (8 * k)) & 0xff))
			return 0;
	}
	return 1;
}

/* dwrite: the writer's pages go to disk with O_DIRECT from this buffer */
static int dwrite;

static void storer(const char *fp, unsigned int round, uint64_t seed)
{
	static unsigned int order[RACE_LEN / PAGE];
	uint64_t s = seed ^ (0xA5A5ULL + round), *map;
	unsigned int n = RACE_LEN / PAGE, i, j;
	int fd = open(fp, O_RDWR | (dwrite ? O_DIRECT : 0));

	if (fd < 0)
		_exit(2);
	if (dwrite) {
		if (posix_memalign((void **)&map, PAGE, RACE_LEN))
			_exit(2);
	} else {
		map = mmap(NULL, RACE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		if (map == MAP_FAILED)
			_exit(2);
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned int t;

		j = xorshift64s(&s) % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		uint64_t off = (uint64_t)order[i] * PAGE, *w = map + off / 8;

		for (j = 0; j < PAGE / 8; j++)
			w[j] = word_of(off + j * 8, round);
		if (dwrite && pwrite(fd, w, PAGE, off) != PAGE)
			_exit(2);
		__atomic_add_fetch(&sh->pages, 1, __ATOMIC_RELAXED);
		if (dwrite) {
			if (xorshift64s(&s) % 4 == 0)
				usleep(xorshift64s(&s) % 200);
			continue;
		}
		if (xorshift64s(&s) % 16 == 0) {
			/* writeback of a random range, not waited for */
			uint64_t a = xorshift64s(&s) % n * PAGE;

			sync_file_range(fd, a, 64 * PAGE,
					SYNC_FILE_RANGE_WRITE);
			__atomic_add_fetch(&sh->syncs, 1, __ATOMIC_RELAXED);
		}
		if (xorshift64s(&s) % 4 == 0)
			usleep(xorshift64s(&s) % 500);
	}
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	if (!dwrite)
		munmap(map, RACE_LEN);
	close(fd);
	_exit(0);
}

static void reader(const char *fp, unsigned int round, uint64_t seed)
{
	uint64_t s = seed ^ (0x5EEDULL + round * 0x9E3779B97F4A7C15ULL), *buf;
	int fd = open(fp, O_RDONLY | (dwrite ? 0 : O_DIRECT));
	size_t i;

	if (fd < 0 || posix_memalign((void **)&buf, PAGE, RACE_LEN))
		_exit(2);
	while (!__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE)) {
		size_t len = (1 + xorshift64s(&s) % (RACE_LEN / PAGE / 4)) * PAGE;
		uint64_t off = xorshift64s(&s) % (RACE_LEN / PAGE) * PAGE;
		ssize_t got;

		if (off + len > RACE_LEN)
			len = RACE_LEN - off;
		/* dwrite: read through the page cache, from disk */
		if (dwrite)
			posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
		got = pread(fd, buf, len, off);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			_exit(2);
		}
		for (i = 0; i < (size_t)got / 8; i++) {
			uint64_t v = buf[i], o = off + i * 8;

			if (!v)
				continue;
			sh->data++;
			if (word_ok(v, o, round))
				continue;
			if (!sh->bad_words) {
				sh->first_off = o;
				sh->first_val = v;
			}
			sh->bad_words++;
			if (v == 0x0101010101010101ULL * STALE)
				sh->stale_words++;
		}
		sh->reads++;
		sh->words += got / 8;
	}
	close(fd);
	_exit(0);
}

static int wait_ok(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

static int do_race(uint64_t seed, int seconds)
{
	char fp[4096], vp[4096];
	time_t end = time(NULL) + seconds;
	unsigned int round = 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));
	make_pool();
	path(fp, "f");
	path(vp, "victim");
	do {
		pid_t ps, pr;
		int fd = open(fp, O_RDWR | O_CREAT | O_TRUNC, 0644);

		round++;
		if (fd < 0 || ftruncate(fd, RACE_LEN))
			die("create %s", fp);
		close(fd);
		sh->done = 0;
		pr = fork();
		if (!pr)
			reader(fp, round, seed);
		ps = fork();
		if (!ps)
			storer(fp, round, seed);
		if (pr < 0 || ps < 0 || !wait_ok(ps) || !wait_ok(pr))
			die("round %u: a process failed", round);
		if (sh->bad_words)
			break;
		/* give the blocks back and make them stale again */
		if (truncate(fp, 0))
			die("truncate %s", fp);
		fd = open(vp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die("open %s", vp);
		fill_fd(fd, STALE);
		if (fsync(fd))
			die("fsync %s", vp);
		close(fd);
		if (unlink(vp))
			die("unlink %s", vp);
	} while (time(NULL) < end);

	if (sh->bad_words) {
		printf("diostale %s: BUG round %u: %" PRIu64 " bad words (%" PRIu64 " of them the deleted file's 0x%02X), first at offset %" PRIu64 ": 0x%016" PRIx64 "\n",
		       mode, round, sh->bad_words, sh->stale_words, STALE,
		       sh->first_off, sh->first_val);
		return 1;
	}
	if (!sh->reads || !sh->data) {
		printf("diostale %s: setup: %" PRIu64 " reads, %" PRIu64 " data words\n",
		       mode, sh->reads, sh->data);
		return 2;
	}
	printf("diostale %s: ok, %u rounds, %" PRIu64 " %s reads (%" PRIu64 " words, %" PRIu64 " data), %" PRIu64 " pages stored, %" PRIu64 " sync_file_range\n",
	       mode, round, sh->reads, dwrite ? "buffered" : "O_DIRECT", sh->words, sh->data, sh->pages, sh->syncs);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL);
	int opt, seconds = 10;

	while ((opt = getopt(argc, argv, "s:t:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 2) {
usage:
		fprintf(stderr, "usage: diostale map|verify DIR\n"
				"       diostale race|dwrite [-s SEED] [-t SECONDS] DIR\n");
		return 2;
	}
	mode = argv[optind];
	snprintf(dir, sizeof(dir), "%s", argv[optind + 1]);
	if (!strcmp(mode, "map"))
		return do_map();
	if (!strcmp(mode, "verify"))
		return do_verify();
	dwrite = !strcmp(mode, "dwrite");
	if (!strcmp(mode, "race") || dwrite) {
		printf("seed=%" PRIu64 "\n", seed);
		fflush(stdout);
		return do_race(seed, seconds);
	}
	goto usage;
}
