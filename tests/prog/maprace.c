// SPDX-License-Identifier: GPL-2.0
/*
 * maprace: readers of a file race the changes of its block map, and never
 * see another file's data.
 *
 *   maprace [-s SEED] [-t SECONDS] [-r READERS] DIR
 *
 * DIR/a is a file of SIZE bytes (into the double-indirect tree with 1 KiB
 * blocks) whose every 64-bit word, where written, holds MAGIC_A, a
 * generation and its own word index; DIR/b is rewritten over and over with
 * a 0xB0 fill and truncated to 0, so that blocks (data and indirect) freed
 * by a holds other data soon after.  Processes:
 *
 *   - a writer of a: truncates it to 0 and rewrites it with holes, punches
 *     ranges (FALLOC_FL_PUNCH_HOLE; skipped where refused), shrinks and
 *     re-extends it, writes single chunks, stores chunks through a
 *     shared mapping (into holes too: under mkwrite=alloc page_mkwrite
 *     allocates their blocks, whose data is only in the page cache until
 *     writeback completes; an O_DIRECT read mapping them meanwhile must
 *     not read the disk there), msyncs some of them, fsyncs now and then;
 *   - the churner of b;
 *   - READERS readers of a (default 4): O_DIRECT preads of random aligned
 *     ranges (up to 256 KiB: multi-block mappings across holes) and
 *     buffered preads after POSIX_FADV_DONTNEED (readahead from disk).
 *
 * Every word a reader gets must be 0 (a hole, a punched or re-extended
 * range) or a's pattern for that very word, of any generation (a buffered
 * read racing a write's copy may see some bytes still 0): never b's fill,
 * another word's or anything else.  Prints "seed=N" first and
 * "maprace: ok, ..." or "maprace: BUG ..." last.
 * Exit: 0 ok, 1 a violation, 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common.h"

#define SIZE	(3 * 1024 * 1024)	/* 12 + 256 direct/single, rest double (1 KiB) */
#define CHUNK	(64 * 1024)
#define MAGIC_A	0xA11CULL
#define FILL_B	0xB0
#define MAXR	16

struct shared {
	int stop;
	uint64_t reads[MAXR], words[MAXR], nonzero[MAXR];
	uint64_t bad;
	uint64_t first_off, first_val;
	uint64_t writer_ops, churns, map_stores, sigbus;
};

static struct shared *sh;

static uint64_t word_a(uint64_t off, uint64_t gen)
{
	return (MAGIC_A << 48) | ((gen & 0xffff) << 32) | (off / 8);
}

static void fill_a(uint64_t *buf, uint64_t off, size_t len, uint64_t gen)
{
	size_t i;

	for (i = 0; i < len / 8; i++)
		buf[i] = word_a(off + i * 8, gen);
}

static int stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE);
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/*
 * Store a's pattern into the chunk at @off through a shared mapping, and
 * msync it when @sync.  The size is SIZE here (only the writer changes
 * it): a SIGBUS is ENOSPC or EIO at page_mkwrite (mkwrite=alloc), counted
 * and survived.
 */
static void map_store(int fd, uint64_t off, uint64_t gen, int sync)
{
	uint64_t *volatile map;
	size_t i;

	map = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (map == MAP_FAILED)
		_exit(2);
	if (sigsetjmp(bus_jmp, 1)) {
		__atomic_add_fetch(&sh->sigbus, 1, __ATOMIC_RELAXED);
	} else {
		for (i = 0; i < CHUNK / 8; i++)
			map[i] = word_a(off + i * 8, gen);
		if (sync)
			msync(map, CHUNK, MS_SYNC);
		__atomic_add_fetch(&sh->map_stores, 1, __ATOMIC_RELAXED);
	}
	munmap(map, CHUNK);
}

static void writer(const char *path, uint64_t seed)
{
	static uint64_t buf[CHUNK / 8];
	uint64_t s = seed ^ 0x1111, gen = 1;
	int fd = open(path, O_RDWR);

	if (fd < 0)
		_exit(2);
	signal(SIGBUS, on_sigbus);
	while (!stopping()) {
		uint64_t op = xorshift64s(&s) % 9, off, len;

		gen++;
		switch (op) {
		case 0:	/* rewrite from empty, with holes */
			if (ftruncate(fd, 0))
				_exit(2);
			for (off = 0; off < SIZE && !stopping(); off += CHUNK) {
				if (xorshift64s(&s) % 3 == 0)
					continue;
				fill_a(buf, off, CHUNK, gen);
				if (pwrite(fd, buf, CHUNK, off) != CHUNK)
					break;	/* ENOSPC: the churner has it */
			}
			if (ftruncate(fd, SIZE))
				_exit(2);
			break;
		case 1:
		case 2:	/* punch */
			off = xorshift64s(&s) % SIZE;
			len = 1 + xorshift64s(&s) % (512 * 1024);
			fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  off, len);
			break;
		case 3:	/* shrink, re-extend with a hole */
			if (ftruncate(fd, xorshift64s(&s) % SIZE) || ftruncate(fd, SIZE))
				_exit(2);
			break;
		case 4:
		case 5:	/* a chunk */
			off = xorshift64s(&s) % (SIZE / CHUNK) * CHUNK;
			fill_a(buf, off, CHUNK, gen);
			if (pwrite(fd, buf, CHUNK, off) < 0 && errno != ENOSPC)
				_exit(2);
			break;
		case 6:
		case 7:	/* a chunk through a shared mapping */
			off = xorshift64s(&s) % (SIZE / CHUNK) * CHUNK;
			map_store(fd, off, gen, xorshift64s(&s) % 2);
			break;
		default:
			fsync(fd);
			break;
		}
		__atomic_add_fetch(&sh->writer_ops, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	_exit(0);
}

static void churner(const char *path)
{
	static unsigned char buf[CHUNK];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	int i;

	if (fd < 0)
		_exit(2);
	memset(buf, FILL_B, sizeof(buf));
	while (!stopping()) {
		for (i = 0; i < 24 && !stopping(); i++)
			if (write(fd, buf, sizeof(buf)) != sizeof(buf))
				break;
		fsync(fd);
		if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
			_exit(2);
		__atomic_add_fetch(&sh->churns, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	_exit(0);
}

static void report(uint64_t off, uint64_t v)
{
	if (__atomic_fetch_add(&sh->bad, 1, __ATOMIC_ACQ_REL) == 0) {
		sh->first_off = off;
		sh->first_val = v;
	}
}

/*
 * A buffered read may overlap a write copying into the same page: each
 * byte of a word is then 0 or that byte of the pattern (bytes 4-5, the
 * generation, anything).  b's fill (0xB0 in byte 7) never passes.
 */
static int word_ok(uint64_t v, uint64_t off)
{
	uint64_t want = word_a(off, 0);
	int k;

	for (k = 0; k < 8; k++) {
		unsigned int got = (v >> (8 * k)) & 0xff;

		if (k == 4 || k == 5 || !got)
			continue;
		if (got != ((want >> (8 * k)) & 0xff))
			return 0;
	}
	return 1;
}

static void reader(const char *path, int id, uint64_t seed)
{
	uint64_t s = seed ^ (0x9E3779B97F4A7C15ULL * (id + 2));
	int direct = id % 2 == 0;
	int fd = open(path, O_RDONLY | (direct ? O_DIRECT : 0));
	uint64_t *buf;
	size_t i;

	if (fd < 0 || posix_memalign((void **)&buf, 4096, 256 * 1024))
		_exit(2);
	while (!stopping()) {
		size_t len = (1 + xorshift64s(&s) % 64) * 4096;
		uint64_t off = xorshift64s(&s) % (SIZE / 4096) * 4096;
		ssize_t got;

		if (!direct && xorshift64s(&s) % 2)
			posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
		got = pread(fd, buf, len, off);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			report(off, (uint64_t)-errno);
			break;
		}
		for (i = 0; i < (size_t)got / 8; i++) {
			uint64_t v = buf[i], o = off + i * 8;

			if (!v)
				continue;
			sh->nonzero[id]++;
			if (!word_ok(v, o))
				report(o, v);
		}
		sh->reads[id]++;
		sh->words[id] += got / 8;
	}
	close(fd);
	_exit(0);
}

int main(int argc, char **argv)
{
	uint64_t seed = (uint64_t)time(NULL), reads = 0, words = 0, nz = 0;
	int opt, seconds = 20, nr = 4, i, fd, status, err = 0;
	char a[4096], b[4096];
	pid_t pids[MAXR + 2];

	while ((opt = getopt(argc, argv, "s:t:r:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 'r':
			nr = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || nr < 1 || nr > MAXR) {
usage:
		fprintf(stderr, "usage: maprace [-s SEED] [-t SECONDS] [-r READERS] DIR\n");
		return 2;
	}
	printf("seed=%" PRIu64 "\n", seed);
	fflush(stdout);
	snprintf(a, sizeof(a), "%s/a", argv[optind]);
	snprintf(b, sizeof(b), "%s/b", argv[optind]);
	fd = open(a, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, SIZE)) {
		perror(a);
		return 2;
	}
	close(fd);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	memset(sh, 0, sizeof(*sh));

	pids[0] = fork();
	if (!pids[0])
		writer(a, seed);
	pids[1] = fork();
	if (!pids[1])
		churner(b);
	for (i = 0; i < nr; i++) {
		pids[2 + i] = fork();
		if (!pids[2 + i])
			reader(a, i, seed);
	}
	for (i = 0; i < seconds * 10 && !__atomic_load_n(&sh->bad, __ATOMIC_ACQUIRE); i++)
		usleep(100000);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nr + 2; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("maprace: process %d ended badly (status 0x%x)\n",
			       i, status);
			err = 2;
		}
	}
	for (i = 0; i < nr; i++) {
		reads += sh->reads[i];
		words += sh->words[i];
		nz += sh->nonzero[i];
	}
	if (sh->bad) {
		printf("maprace: BUG %" PRIu64 " bad words; first at offset %" PRIu64 ": 0x%016" PRIx64 "%s\n",
		       sh->bad, sh->first_off, sh->first_val,
		       (sh->first_val & 0xff) == FILL_B &&
		       sh->first_val >> 56 == FILL_B ? " (the other file's data)" : "");
		return 1;
	}
	if (err)
		return err;
	if (!reads || !sh->writer_ops || !nz) {
		printf("maprace: setup: %" PRIu64 " reads, %" PRIu64 " writer ops, %" PRIu64 " data words\n",
		       reads, sh->writer_ops, nz);
		return 2;
	}
	printf("maprace: ok, %" PRIu64 " reads (%" PRIu64 " words, %" PRIu64 " data), %" PRIu64 " writer ops (%" PRIu64 " mapped chunks, %" PRIu64 " SIGBUS), %" PRIu64 " churns, %d readers\n",
	       reads, words, nz, sh->writer_ops, sh->map_stores, sh->sigbus,
	       sh->churns, nr);
	return 0;
}
