// SPDX-License-Identifier: GPL-2.0
/*
 * lfolio - the hole guarantees inside a large folio
 *
 *   lfolio DIR SCENARIO [-v VARIANT] [-x]
 *
 * Every scenario first reads or writes its file so that the page it is
 * about lies in a large folio when the filesystem uses them, and says so:
 * a line "lfolio: folio N pages, page K of it" for that page, read from
 * /proc/self/pagemap and /proc/kpageflags (COMPOUND_HEAD, COMPOUND_TAIL).
 * The suite decides what the folio must be (large under ext2hole on 6.12,
 * one page with nolargefolio, on 6.1 and on the stock drivers).
 *
 * P is the page size; the EOF folio is made by dropping the file's cache
 * and faulting its first page through a mapping with MADV_HUGEPAGE:
 * readahead then asks for a PMD-sized folio, trimmed at the page holding
 * EOF, so a 16-page file is one 16-page folio.  The file is 15 P + 1000
 * bytes: EOF lies 1000 bytes into the folio's last page, well past its
 * first.
 *
 *   use      a 1 MiB file written by one pwrite(2): the write itself must
 *            put it in a large folio (the page examined is page 5).
 *   eofzero  (G2, holes read as zeros) junk stored through the mapping
 *            beyond EOF in the EOF page, msync, more junk, then growth
 *            (-v truncate: ftruncate to 20 P; -v pwrite: 100 bytes 'E' at
 *            18 P).  [EOF, 16 P) must read zero by read(2), by a fresh
 *            mapping and after fsync + drop_caches.
 *   refault  (G1, G3) the EOF page made writable by a store into its
 *            first block, the filesystem filled, the file truncated up to
 *            20 P, then a store at 15 P + 3000: with blocks smaller than
 *            the page that block just became valid and has no block, so
 *            the store must fault again and allocate, or get SIGBUS; a
 *            store accepted and then lost is a bug.  With -x an accepted
 *            store that msync/fsync fail is a bug too (mkwrite=alloc);
 *            without, it is what mkwrite=noalloc promises: the error
 *            reported, the byte kept dirty in the page cache (read back
 *            after drop_caches, which cannot drop a dirty folio).
 *   wb       (G4) bytes stored through the mapping into several pages and
 *            blocks of a large folio (and a hole), msync, drop_caches:
 *            every byte must be on disk.
 *   punch    punch [5 P + 512, 9 P + 100) out of a mapped large folio:
 *            the range must read zero, the rest keep its data, and stores
 *            into the punched range through the old mapping must fault
 *            again and reach the disk.
 *
 * Last line: "lfolio SCENARIO: ok ..." or "lfolio SCENARIO: BUG - ...".
 * Exit 0 ok, 1 bug, 2 setup error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "common.h"

static const char *scen = "";
#define die(...) die_setup("lfolio", scen, __VA_ARGS__)

#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16

static const char *dir;
static const char *variant = "truncate";
static bool strict;
static long P;

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int open_file(const char *name, int flags)
{
	char p[4096];
	int fd;

	path(p, sizeof(p), name);
	fd = open(p, flags, 0644);
	if (fd < 0)
		die("open %s", p);
	return fd;
}

static void xpwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (pwrite(fd, buf, len, off) != (ssize_t)len)
		die("pwrite %zu at %lld", len, (long long)off);
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		die("drop_caches");
	close(fd);
}

static uint64_t read_u64(int fd, off_t off)
{
	uint64_t v;

	if (pread(fd, &v, sizeof(v), off) != sizeof(v))
		die("pread of a proc table at %lld", (long long)off);
	return v;
}

/* The PFN behind @addr (mapped and present), 0 if none. */
static uint64_t pfn_of(int pm, const void *addr)
{
	uint64_t e = read_u64(pm, (uintptr_t)addr / P * 8);

	return (e >> 63) ? e & ((1ULL << 55) - 1) : 0;
}

static uint64_t kflags(int kf, uint64_t pfn)
{
	return read_u64(kf, pfn * 8);
}

/*
 * The folio holding page @k of the mapping @map (of @npages pages, all
 * present): its size in pages and @k's place in it, from the PFNs of the
 * pages around @k.  Prints the line the suite reads.
 */
static void folio_report(unsigned char *map, long npages, long k)
{
	const uint64_t head_f = 1ULL << KPF_COMPOUND_HEAD;
	const uint64_t tail_f = 1ULL << KPF_COMPOUND_TAIL;
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	volatile unsigned char sink;
	uint64_t hp;
	long i, h, n;

	if (pm < 0 || kf < 0)
		die("open /proc/self/pagemap or /proc/kpageflags");
	for (i = 0; i < npages; i++)
		sink = map[i * P];
	(void)sink;
	hp = pfn_of(pm, map + k * P);
	if (!hp)
		die("no PFN for page %ld (not root?)", k);
	/* back to the head, over tails mapped at consecutive PFNs */
	h = k;
	while (h > 0 && (kflags(kf, hp) & tail_f) &&
	       pfn_of(pm, map + (h - 1) * P) == hp - 1) {
		h--;
		hp--;
	}
	n = 1;
	if (kflags(kf, hp) & head_f)
		while (h + n < npages && pfn_of(pm, map + (h + n) * P) == hp + n &&
		       (kflags(kf, hp + n) & tail_f))
			n++;
	else
		h = k;
	printf("lfolio: folio %ld pages, page %ld of it\n", n, k - h);
	close(pm);
	close(kf);
}

static int bug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bug(const char *fmt, ...)
{
	va_list ap;

	printf("lfolio %s: BUG - ", scen);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 1;
}

static int ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ok(const char *fmt, ...)
{
	va_list ap;

	printf("lfolio %s: ok - ", scen);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 0;
}

/* The file's bytes [@off, @off + @len) by pread(2). */
static unsigned char *read_range(int fd, off_t off, size_t len)
{
	unsigned char *buf = malloc(len);
	size_t done = 0;

	if (!buf)
		die("malloc");
	while (done < len) {
		ssize_t n = pread(fd, buf + done, len - done, off + done);

		if (n <= 0)
			die("pread at %lld", (long long)(off + done));
		done += n;
	}
	return buf;
}

/* The first byte of [@off, @off + @len) that is not @c, or -1. */
static off_t first_not(const unsigned char *b, off_t off, size_t len,
		       unsigned char c)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != c)
			return off + i;
	return -1;
}

/*
 * The 15 P + 1000-byte file of 'D's, its cache dropped, and a shared
 * mapping of 16 pages with MADV_HUGEPAGE whose first fault reads it into
 * (at best) one 16-page folio.
 */
#define EOF_SIZE	(15 * P + 1000)

static unsigned char *eof_file(const char *name, int *fdp)
{
	unsigned char *buf = malloc(EOF_SIZE), *map;
	int fd = open_file(name, O_RDWR | O_CREAT | O_TRUNC);

	if (!buf)
		die("malloc");
	memset(buf, 'D', EOF_SIZE);
	xpwrite(fd, buf, EOF_SIZE, 0);
	free(buf);
	if (fsync(fd))
		die("fsync");
	drop_caches();
	map = mmap(NULL, 16 * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	if (madvise(map, 16 * P, MADV_HUGEPAGE))
		printf("lfolio: madvise(MADV_HUGEPAGE): %s\n", strerror(errno));
	folio_report(map, 16, 15);
	*fdp = fd;
	return map;
}

static int check_zero(int fd, const char *stage)
{
	unsigned char *b = read_range(fd, EOF_SIZE, 16 * P - EOF_SIZE);
	off_t at = first_not(b, EOF_SIZE, 16 * P - EOF_SIZE, 0);

	free(b);
	if (at >= 0) {
		printf("lfolio: %s: byte %lld is not zero\n", stage, (long long)at);
		return 1;
	}
	return 0;
}

static int eofzero(void)
{
	unsigned char *map, *fresh, e[100];
	int fd, bad = 0;
	off_t at;

	map = eof_file("eofzero", &fd);
	memset(map + EOF_SIZE, 0xAA, 16 * P - EOF_SIZE);
	if (msync(map, 16 * P, MS_SYNC))
		die("msync");
	memset(map + EOF_SIZE + 20, 0xBB, 16 * P - EOF_SIZE - 20);
	if (!strcmp(variant, "truncate")) {
		if (ftruncate(fd, 20 * P))
			die("ftruncate");
	} else {
		memset(e, 'E', sizeof(e));
		xpwrite(fd, e, sizeof(e), 18 * P);
	}
	munmap(map, 16 * P);
	bad |= check_zero(fd, "read() after growth");
	fresh = mmap(NULL, 16 * P, PROT_READ, MAP_SHARED, fd, 0);
	if (fresh == MAP_FAILED)
		die("mmap");
	at = first_not(fresh + EOF_SIZE, EOF_SIZE, 16 * P - EOF_SIZE, 0);
	munmap(fresh, 16 * P);
	if (at >= 0) {
		printf("lfolio: fresh mapping: byte %lld is not zero\n", (long long)at);
		bad = 1;
	}
	if (fsync(fd))
		die("fsync");
	drop_caches();
	bad |= check_zero(fd, "read() after fsync + drop_caches");
	close(fd);
	return bad ? bug("stale post-EOF bytes in the hole after growth (-v %s)", variant)
		   : ok("[EOF, 16 P) reads zero after growth (-v %s)", variant);
}

/* Fill the filesystem: a big file, then one-block files. */
static void fill(void)
{
	static char chunk[65536];
	char n[4096];
	struct statvfs sv;
	size_t step;
	int fd, i;

	memset(chunk, 'F', sizeof(chunk));
	fd = open_file("fill.big", O_WRONLY | O_CREAT | O_TRUNC);
	for (step = sizeof(chunk); step >= 1024; step /= 4)
		while (write(fd, chunk, step) > 0)
			;
	fsync(fd);
	close(fd);
	for (i = 0; i < 100000; i++) {
		if (statvfs(dir, &sv))
			die("statvfs");
		if (!sv.f_bfree)
			break;
		snprintf(n, sizeof(n), "fill.%d", i);
		fd = open_file(n, O_WRONLY | O_CREAT | O_TRUNC);
		if (write(fd, chunk, 1024) != 1024) {
			close(fd);
			break;
		}
		close(fd);
	}
	sync();
	if (statvfs(dir, &sv))
		die("statvfs");
	printf("lfolio: filled, %llu blocks free\n",
	       (unsigned long long)sv.f_bfree);
}

static int refault(void)
{
	unsigned char *map, *b;
	int fd, merr = 0, ferr = 0;
	bool bus;
	off_t at = 15 * P + 3000;

	map = eof_file("refault", &fd);
	map[15 * P] = 'a';		/* writable, under the old size */
	fill();
	if (ftruncate(fd, 20 * P))
		die("ftruncate");
	bus = guarded_store(map + at, 'b');
	if (msync(map, 16 * P, MS_SYNC))
		merr = errno;
	if (fsync(fd))
		ferr = errno;
	munmap(map, 16 * P);
	drop_caches();
	b = read_range(fd, at, 1);
	close(fd);
	printf("lfolio: store at 15 P + 3000: %s, msync %s, fsync %s, read back 0x%02x\n",
	       bus ? "SIGBUS" : "accepted", merr ? strerror(merr) : "ok",
	       ferr ? strerror(ferr) : "ok", b[0]);
	if (b[0] == 'b' && bus)
		return bug("'b' in the file after a SIGBUS");
	if (b[0] == 'b' && !merr && !ferr)
		return ok("the store reached the disk");
	if (b[0] == 'b' && strict)
		return bug("store accepted without a block (msync %s, fsync %s)",
			   merr ? strerror(merr) : "ok", ferr ? strerror(ferr) : "ok");
	if (b[0] == 'b')
		return ok("store accepted, msync %s, fsync %s: the byte kept, dirty in the page cache",
			  merr ? strerror(merr) : "ok", ferr ? strerror(ferr) : "ok");
	if (b[0])
		return bug("byte 0x%02x on disk, neither the store nor zero", b[0]);
	if (bus)
		return ok("SIGBUS at the store, nothing lost silently");
	if (!merr && !ferr)
		return bug("silent loss: store accepted, msync/fsync ok, byte lost");
	if (strict)
		return bug("store accepted without a block and lost (msync %s, fsync %s)",
			   merr ? strerror(merr) : "ok", ferr ? strerror(ferr) : "ok");
	return ok("store lost but reported by msync/fsync");
}

/* 1 MiB: 'W' everywhere but a hole at [600 KiB, 700 KiB). */
#define WB_SIZE		(1L << 20)
#define WB_HOLE		(600L << 10)
#define WB_HOLE_END	(700L << 10)

static int wb(void)
{
	unsigned char *buf = malloc(WB_SIZE), *map, *b;
	static const long at[] = { 5, 4096 + 1, 3 * 4096 + 1023, 3 * 4096 + 1024,
				   (300L << 10) + 7, WB_HOLE + 5000,
				   WB_HOLE_END - 1, WB_SIZE - 1 };
	int fd = open_file("wb", O_RDWR | O_CREAT | O_TRUNC);
	size_t i;
	off_t bad;

	if (!buf)
		die("malloc");
	memset(buf, 'W', WB_SIZE);
	xpwrite(fd, buf, WB_HOLE, 0);
	xpwrite(fd, buf, WB_SIZE - WB_HOLE_END, WB_HOLE_END);
	if (fsync(fd))
		die("fsync");
	drop_caches();
	map = mmap(NULL, WB_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	if (madvise(map, WB_SIZE, MADV_HUGEPAGE))
		printf("lfolio: madvise(MADV_HUGEPAGE): %s\n", strerror(errno));
	folio_report(map, WB_SIZE / P, 3);
	memset(buf + WB_HOLE, 0, WB_HOLE_END - WB_HOLE);
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		map[at[i]] = 's';
		buf[at[i]] = 's';
	}
	if (msync(map, WB_SIZE, MS_SYNC))
		die("msync");
	munmap(map, WB_SIZE);
	if (fsync(fd))
		die("fsync");
	drop_caches();
	b = read_range(fd, 0, WB_SIZE);
	close(fd);
	for (bad = 0; bad < WB_SIZE && b[bad] == buf[bad]; bad++)
		;
	if (bad < WB_SIZE)
		return bug("byte %lld is 0x%02x on disk, expected 0x%02x",
			   (long long)bad, b[bad], buf[bad]);
	return ok("every stored byte on disk");
}

#define PUNCH_FROM	(5 * P + 512)
#define PUNCH_TO	(9 * P + 100)

static int punch(void)
{
	unsigned char *map, *b;
	int fd;
	off_t i;

	map = eof_file("punch", &fd);
	map[6 * P] = 'a';		/* writable before the punch */
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      PUNCH_FROM, PUNCH_TO - PUNCH_FROM))
		die("fallocate(PUNCH_HOLE)");
	for (i = 0; i < EOF_SIZE; i++) {
		unsigned char want = i >= PUNCH_FROM && i < PUNCH_TO ? 0 : 'D';

		if (map[i] != want) {
			munmap(map, 16 * P);
			close(fd);
			return bug("byte %lld is 0x%02x in the mapping after the punch, expected 0x%02x",
				   (long long)i, map[i], want);
		}
	}
	map[6 * P + 10] = 'p';
	map[PUNCH_FROM] = 'q';
	map[PUNCH_TO - 1] = 'r';
	if (msync(map, 16 * P, MS_SYNC))
		die("msync");
	munmap(map, 16 * P);
	if (fsync(fd))
		die("fsync");
	drop_caches();
	b = read_range(fd, 0, EOF_SIZE);
	close(fd);
	for (i = 0; i < EOF_SIZE; i++) {
		unsigned char want = i >= PUNCH_FROM && i < PUNCH_TO ? 0 : 'D';

		if (i == 6 * P + 10)
			want = 'p';
		else if (i == PUNCH_FROM)
			want = 'q';
		else if (i == PUNCH_TO - 1)
			want = 'r';
		if (b[i] != want)
			return bug("byte %lld is 0x%02x on disk, expected 0x%02x",
				   (long long)i, b[i], want);
	}
	return ok("punched range zero, the rest kept, stores after the punch on disk");
}

static int use(void)
{
	unsigned char *buf = malloc(WB_SIZE), *map;
	int fd = open_file("use", O_RDWR | O_CREAT | O_TRUNC);

	if (!buf)
		die("malloc");
	memset(buf, 'U', WB_SIZE);
	xpwrite(fd, buf, WB_SIZE, 0);
	map = mmap(NULL, WB_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	folio_report(map, WB_SIZE / P, 5);
	if (first_not(map, 0, WB_SIZE, 'U') >= 0)
		return bug("the mapping does not read what was written");
	munmap(map, WB_SIZE);
	close(fd);
	return ok("1 MiB written by one pwrite");
}

int main(int argc, char **argv)
{
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	P = sysconf(_SC_PAGESIZE);
	if (argc < 3) {
		fprintf(stderr, "usage: lfolio DIR use|eofzero|refault|wb|punch [-v truncate|pwrite] [-x]\n");
		return 2;
	}
	dir = argv[1];
	scen = argv[2];
	optind = 3;
	while ((c = getopt(argc, argv, "v:x")) != -1) {
		if (c == 'v')
			variant = optarg;
		else if (c == 'x')
			strict = true;
		else
			return 2;
	}
	if (!strcmp(scen, "use"))
		return use();
	if (!strcmp(scen, "eofzero"))
		return eofzero();
	if (!strcmp(scen, "refault"))
		return refault();
	if (!strcmp(scen, "wb"))
		return wb();
	if (!strcmp(scen, "punch"))
		return punch();
	fprintf(stderr, "lfolio: unknown scenario %s\n", scen);
	return 2;
}
