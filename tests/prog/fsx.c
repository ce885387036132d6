// SPDX-License-Identifier: GPL-2.0
/*
 * fsx: a seeded, model-based random file tester in the manner of fsx.
 *
 *   fsx [-s SEED] [-N OPS] [-l MAXLEN] [-o MAXOPLEN] [-K N] [-P CKPT] [-V] [-q] [-E] [-F]
 *       [-H] [-Z] [-A] FILE
 *
 * Operations: pwrite, pread, mapped read, mapped write (MAP_SHARED: half
 * the time through a fresh mapping of the range, half through one mapping
 * of the whole file kept across size changes; -F: fresh ones only),
 * truncate up and down, fsync, msync; every K operations a close + cache
 * drop + reopen followed by a check of the whole file.  Right before every
 * size change it stores junk through a mapping beyond EOF inside the EOF
 * page ("EOF pollution"): after the size grows those bytes are part of a
 * hole and must read as zero (docs/design.md, "Guarantees": holes read as
 * zeros).  Every read is compared with the in-memory model.
 *
 * -P CKPT keeps the model (and the random state) in CKPT: when CKPT exists
 * the run first checks the whole file against it (e.g. after a remount) and
 * then continues the same operation stream; the model is saved at the end.
 * -V only checks the file against CKPT.  -E turns the EOF pollution off (a
 * control run: without it, stock ext2 passes).
 *
 * -H adds hole punching (fallocate PUNCH_HOLE | KEEP_SIZE), -Z zero range
 * (with and without KEEP_SIZE), -A preallocation (mode 0, and KEEP_SIZE
 * inside EOF): each is followed by a read of the range, and half the time
 * by a store through the persistent mapping into the range, whose PTEs may
 * still be writable from before: unless the operation write-protected the
 * pages, that store skips page_mkwrite into a freed block and is lost at
 * the next close + cache drop.  Without any of these flags no random
 * number is drawn for them: a seed's operation stream is that of the other
 * operations alone.
 *
 * Prints "seed=N" first; on a mismatch it prints the offset, the bytes and
 * the tail of the operation log, and exits 1.  -s SEED -N OPS replays a run
 * exactly.  Exit: 0 ok, 1 mismatch, 2 usage/setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common.h"

enum op {
	OP_READ, OP_MAPREAD, OP_WRITE, OP_MAPWRITE, OP_TRUNCATE,
	OP_FSYNC, OP_MSYNC, OP_REOPEN, OP_POLLUTE, OP_PUNCH, OP_ZERO,
	OP_FALLOC, OP_NR
};

static const char *const op_name[OP_NR] = {
	"read", "mapread", "write", "mapwrite", "truncate",
	"fsync", "msync", "reopen", "pollute", "punch", "zero", "falloc",
};

#define LOG_SIZE 64

struct log_entry {
	uint64_t nr;
	enum op op;
	long long off, len, size_before, size_after;
	int flag;		/* msync after mapwrite, etc. */
};

static struct log_entry oplog[LOG_SIZE];
static uint64_t log_count;

static const char *fname;
static int fd = -1;
static long psize;
static long long maxlen = 256 * 1024;
static long long maxoplen = 16 * 1024;
static long long size;			/* the model's file size */
static unsigned char *good;		/* the model, maxlen + psize bytes */
static unsigned char *temp;
static uint64_t seed, rng, opnr, nops = 3000, reopen_every = 500;
static const char *ckpt;
static int verify_only, quiet, no_pollution;
static int have_drop = 1;
static unsigned char *pmap;		/* the persistent shared mapping */
static size_t pmap_len;
static int no_persistent;
static int do_holes, do_zero, do_falloc;	/* -H, -Z, -A */

/* ------------------------------------------------------------------ */

static uint64_t rnd(void)
{
	return xorshift64s(&rng);
}

static long long rnd_range(long long n)
{
	return n > 0 ? (long long)(rnd() % (uint64_t)n) : 0;
}

static void log_op(enum op op, long long off, long long len,
		   long long before, long long after, int flag)
{
	struct log_entry *e = &oplog[log_count++ % LOG_SIZE];

	e->nr = opnr;
	e->op = op;
	e->off = off;
	e->len = len;
	e->size_before = before;
	e->size_after = after;
	e->flag = flag;
}

static void dump_log(void)
{
	uint64_t i = log_count > LOG_SIZE ? log_count - LOG_SIZE : 0;

	printf("fsx: last %" PRIu64 " operations (op-nr name offset len size-before -> size-after):\n",
	       log_count - i);
	for (; i < log_count; i++) {
		struct log_entry *e = &oplog[i % LOG_SIZE];

		printf("  %6" PRIu64 " %-8s 0x%06llx %6lld  0x%06llx -> 0x%06llx%s%s%s\n",
		       e->nr, op_name[e->op], e->off, e->len, e->size_before,
		       e->size_after,
		       e->flag & 1 ? " +msync" : "",
		       e->flag & 2 ? " (persistent mapping)" : "",
		       e->flag & 4 ? " keep-size" : "");
	}
}

static void __attribute__((noreturn)) finish_fail(void)
{
	dump_log();
	printf("fsx: FAILED seed=%" PRIu64 " at op %" PRIu64
	       "; replay: fsx -s %" PRIu64 " -N %" PRIu64 " -l %lld -o %lld -K %" PRIu64 " FILE\n",
	       seed, opnr, seed, opnr + 1, maxlen, maxoplen, reopen_every);
	fflush(stdout);
	exit(1);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
fatal(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	printf("fsx: op %" PRIu64 ": ", opnr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(err));
	finish_fail();
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* ------------------------------------------------------------------ */

static void drop_caches(void)
{
	int dfd;

	if (!have_drop)
		return;
	dfd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (dfd < 0 || write(dfd, "3\n", 2) != 2) {
		have_drop = 0;
		if (!quiet)
			printf("fsx: cannot drop caches (%s); continuing without\n",
			       strerror(errno));
	}
	if (dfd >= 0)
		close(dfd);
}

static void open_file(int trunc)
{
	fd = open(fname, O_RDWR | O_CREAT | (trunc ? O_TRUNC : 0), 0644);
	if (fd < 0)
		fatal("open %s", fname);
}

/* Compare @got (read at @off) with the model; report and fail on mismatch. */
static void check_buf(const unsigned char *got, long long off, long long len,
		      const char *how)
{
	long long i, first = -1, bad = 0, j, lo;

	for (i = 0; i < len; i++) {
		if (got[i] != good[off + i]) {
			if (first < 0)
				first = i;
			bad++;
		}
	}
	if (!bad)
		return;
	printf("fsx: MISMATCH (%s) at offset 0x%llx (%lld): got 0x%02x, expected 0x%02x; %lld bad bytes in [0x%llx, 0x%llx), file size 0x%llx\n",
	       how, off + first, off + first, got[first], good[off + first],
	       bad, off, off + len, size);
	lo = first - 8 < 0 ? 0 : first - 8;
	printf("fsx:   offset    got expected\n");
	for (j = lo; j < len && j < first + 24; j++)
		printf("fsx:   0x%06llx  %02x  %02x%s\n", off + j, got[j],
		       good[off + j], got[j] != good[off + j] ? "  <--" : "");
	finish_fail();
}

static void check_pread(long long off, long long len, const char *how)
{
	long long done = 0;

	while (done < len) {
		ssize_t n = pread(fd, temp + done, len - done, off + done);

		if (n < 0)
			fatal("pread 0x%llx+%lld", off + done, len - done);
		if (n == 0) {
			printf("fsx: short read at 0x%llx (model size 0x%llx)\n",
			       off + done, size);
			finish_fail();
		}
		done += n;
	}
	check_buf(temp, off, len, how);
}

static void check_size(const char *how)
{
	struct stat st;

	if (fstat(fd, &st))
		fatal("fstat");
	if (st.st_size != size) {
		printf("fsx: SIZE MISMATCH (%s): file 0x%llx, model 0x%llx\n",
		       how, (long long)st.st_size, size);
		finish_fail();
	}
}

static void check_all(const char *how)
{
	check_size(how);
	check_pread(0, size, how);
}

/*
 * The persistent mapping covers the largest file: its PTEs stay writable
 * across size changes, so stores through it exercise the write-protection
 * of the old EOF page and the re-fault after growth (holes read as zeros,
 * re-fault after growth).
 */
static void pmap_open(void)
{
	if (no_persistent)
		return;
	pmap_len = (maxlen + psize - 1) & ~(long long)(psize - 1);
	pmap = mmap(NULL, pmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pmap == MAP_FAILED)
		fatal("mmap (persistent) %zu", pmap_len);
}

static void pmap_close(void)
{
	if (pmap)
		munmap(pmap, pmap_len);
	pmap = NULL;
}

/*
 * Map [off, off+len) of the file; returns the pointer to @off.  Half the
 * time this is the persistent mapping (then *base is NULL: nothing to
 * unmap), else a fresh mapping of just that range.
 */
static unsigned char *map_range(long long off, long long len,
				unsigned char **base, size_t *maplen, int prot)
{
	long long pg = off & ~(long long)(psize - 1);

	if (pmap && rnd_range(2)) {
		*base = NULL;
		*maplen = off + len - pg;
		return pmap + off;
	}
	*maplen = off + len - pg;
	*base = mmap(NULL, *maplen, prot, MAP_SHARED, fd, pg);
	if (*base == MAP_FAILED)
		fatal("mmap 0x%llx+%zu", pg, *maplen);
	return *base + (off - pg);
}

/* msync and unmap what map_range() gave */
static void map_done(unsigned char *p, long long off, unsigned char *base,
		     size_t maplen, int sync)
{
	long long pg = off & ~(long long)(psize - 1);
	unsigned char *start = base ? base : p - (off - pg);

	if (sync && msync(start, maplen, MS_SYNC))
		fatal("msync 0x%llx+%zu", pg, maplen);
	if (base)
		munmap(base, maplen);
}

/* ------------------------------------------------------------------ */

static void fill_data(long long off, long long len)
{
	long long i;

	for (i = 0; i < len; i++)
		temp[i] = 1 + (unsigned char)((off + i) * 7 + opnr) % 255;
}

/*
 * Store junk through a mapping beyond EOF inside the EOF page.  The model
 * does not change: those bytes are beyond EOF and must never show up.
 */
static void pollute_eof(void)
{
	long long in_page = size % psize, pg = size - in_page;
	unsigned char *base, *p;
	size_t ml;
	int do_msync;
	long i;

	if (!in_page || no_pollution)
		return;
	do_msync = rnd_range(4) == 0;
	p = map_range(pg, psize, &base, &ml, PROT_READ | PROT_WRITE);
	if (sigsetjmp(bus_jmp, 1)) {
		printf("fsx: SIGBUS storing beyond EOF in the EOF page (size 0x%llx)\n",
		       size);
		finish_fail();
	}
	for (i = in_page; i < psize; i++)
		p[i] = 0x80 | (unsigned char)(rnd() & 0x7f);
	map_done(p, pg, base, ml, do_msync);
	log_op(OP_POLLUTE, size, psize - in_page, size, size,
	       do_msync | (base ? 0 : 2));
}

/* After the size grew from @old: the new hole must read zero right away. */
static void check_grown(long long old, long long new, const char *how)
{
	long long end = (old | (psize - 1)) + 1;

	if (end > new)
		end = new;
	if (end > old)
		check_pread(old, end - old, how);
	/*
	 * Half the time, store right away into the newly valid part of the
	 * old EOF page through the persistent mapping, whose PTE may still be
	 * writable from before the growth: unless the growth write-protected
	 * it, the store skips page_mkwrite and its blocks are never allocated
	 * (re-fault after growth); the next close + cache drop shows the loss.
	 */
	if (pmap && end > old && rnd_range(2)) {
		long long len = end - old;

		fill_data(old, len);
		if (sigsetjmp(bus_jmp, 1)) {
			printf("fsx: SIGBUS storing into the old EOF page 0x%llx+%lld after growth\n",
			       old, len);
			finish_fail();
		}
		memcpy(pmap + old, temp, len);
		memcpy(good + old, temp, len);
		log_op(OP_MAPWRITE, old, len, size, size, 2);
	}
}

static void do_truncate(long long newsize)
{
	long long old = size;

	pollute_eof();
	if (ftruncate(fd, newsize))
		fatal("ftruncate 0x%llx", newsize);
	if (newsize < old)
		memset(good + newsize, 0, old - newsize);
	size = newsize;
	log_op(OP_TRUNCATE, 0, 0, old, newsize, 0);
	check_grown(old, newsize, "hole after truncate up");
}

static void do_write(long long off, long long len)
{
	long long old = size;
	ssize_t n;

	if (off + len > size)
		pollute_eof();
	fill_data(off, len);
	n = pwrite(fd, temp, len, off);
	if (n != len)
		fatal("pwrite 0x%llx+%lld returned %zd", off, len, n);
	memcpy(good + off, temp, len);
	if (off + len > size)
		size = off + len;
	log_op(OP_WRITE, off, len, old, size, 0);
	if (off > old)
		check_grown(old, off, "hole after write beyond EOF");
}

static void do_mapwrite(long long off, long long len)
{
	long long old = size;
	unsigned char *base, *p;
	size_t ml;
	int do_msync = rnd_range(3) == 0;

	if (off + len > size) {
		/* like fsx: grow with ftruncate first, then store */
		pollute_eof();
		if (ftruncate(fd, off + len))
			fatal("ftruncate 0x%llx", off + len);
		size = off + len;
		check_grown(old, size, "hole after truncate up for mapwrite");
	}
	fill_data(off, len);
	p = map_range(off, len, &base, &ml, PROT_READ | PROT_WRITE);
	if (sigsetjmp(bus_jmp, 1)) {
		printf("fsx: SIGBUS in mapped write 0x%llx+%lld\n", off, len);
		finish_fail();
	}
	memcpy(p, temp, len);
	map_done(p, off, base, ml, do_msync);
	memcpy(good + off, temp, len);
	log_op(OP_MAPWRITE, off, len, old, size, do_msync | (base ? 0 : 2));
}

/*
 * fallocate @mode over [off, off+len), then check the range and, half the
 * time, store into it through the persistent mapping (see the header).
 */
static void do_fallocate(enum op op, long long off, long long len)
{
	int keep = op == OP_PUNCH || rnd_range(2);
	int mode = op == OP_PUNCH ? FALLOC_FL_PUNCH_HOLE :
		   op == OP_ZERO ? FALLOC_FL_ZERO_RANGE : 0;
	long long old = size, end = off + len, zend;

	if (keep)
		mode |= FALLOC_FL_KEEP_SIZE;
	/* preallocation beyond EOF keeping the size has no place on ext2 */
	if (op == OP_FALLOC && keep && end > size)
		end = size;
	if (end <= off)
		return;
	len = end - off;
	if (!keep && end > size)
		pollute_eof();
	if (fallocate(fd, mode, off, len))
		fatal("fallocate %s%s 0x%llx+%lld", op_name[op],
		      keep ? " keep-size" : "", off, len);
	if (op != OP_FALLOC) {
		zend = end < size ? end : size;
		if (zend > off)
			memset(good + off, 0, zend - off);
	}
	if (!keep && end > size)
		size = end;
	log_op(op, off, len, old, size, keep ? 4 : 0);
	if (size > old)
		check_grown(old, size, "hole after fallocate beyond EOF");
	zend = end < size ? end : size;
	if (zend <= off)
		return;
	check_pread(off, zend - off, op == OP_FALLOC ? "after preallocation" :
		    op == OP_PUNCH ? "punched range" : "zeroed range");
	if (pmap && rnd_range(2)) {
		long long s = off + rnd_range(zend - off);
		long long l = 1 + rnd_range(zend - s < 3000 ? zend - s : 3000);

		fill_data(s, l);
		if (sigsetjmp(bus_jmp, 1)) {
			printf("fsx: SIGBUS storing into 0x%llx+%lld after %s\n",
			       s, l, op_name[op]);
			finish_fail();
		}
		memcpy(pmap + s, temp, l);
		memcpy(good + s, temp, l);
		log_op(OP_MAPWRITE, s, l, size, size, 2);
	}
}

static void do_read(long long off, long long len)
{
	log_op(OP_READ, off, len, size, size, 0);
	check_pread(off, len, "read");
}

static void do_mapread(long long off, long long len)
{
	unsigned char *base, *p;
	size_t ml;

	p = map_range(off, len, &base, &ml, PROT_READ);
	log_op(OP_MAPREAD, off, len, size, size, base ? 0 : 2);
	if (sigsetjmp(bus_jmp, 1)) {
		printf("fsx: SIGBUS in mapped read 0x%llx+%lld\n", off, len);
		finish_fail();
	}
	memcpy(temp, p, len);
	map_done(p, off, base, ml, 0);
	check_buf(temp, off, len, base ? "mapread" : "mapread (persistent mapping)");
}

static void do_msync(void)
{
	unsigned char *base, *p;
	size_t ml;

	log_op(OP_MSYNC, 0, size, size, size, 0);
	if (!size)
		return;
	p = map_range(0, size, &base, &ml, PROT_READ);
	map_done(p, 0, base, ml, 1);
}

static void do_reopen(void)
{
	log_op(OP_REOPEN, 0, 0, size, size, 0);
	if (fsync(fd))
		fatal("fsync before close");
	pmap_close();
	if (close(fd))
		fatal("close");
	drop_caches();
	open_file(0);
	pmap_open();
	check_all("whole file after close + drop_caches + reopen");
}

/* Pick an offset: a third of the time near EOF, where the holes are. */
static long long pick_off(long long limit)
{
	if (limit <= 0)
		return 0;
	if (rnd_range(3) == 0 && size > 0) {
		long long o = size - psize + rnd_range(2 * psize);

		if (o >= 0 && o < limit)
			return o;
	}
	return rnd_range(limit);
}

static long long pick_len(long long max)
{
	long long l = rnd_range(4) ? 1 + rnd_range(2048) : 1 + rnd_range(maxoplen);

	return l > max ? max : l;
}

static void one_op(void)
{
	unsigned int r;
	long long off, len;

	if (do_holes || do_zero || do_falloc) {
		r = rnd_range(100);
		if (r < 12) {
			enum op op = r < 6 ? OP_PUNCH : r < 10 ? OP_ZERO : OP_FALLOC;

			if ((op == OP_PUNCH && !do_holes) ||
			    (op == OP_ZERO && !do_zero) ||
			    (op == OP_FALLOC && !do_falloc))
				return;
			off = pick_off(op == OP_PUNCH ? size : maxlen);
			len = pick_len(maxlen - off);
			do_fallocate(op, off, len ? len : 1);
			return;
		}
	}
	r = rnd_range(100);

	if (r < 15) {			/* read */
		if (!size)
			return;
		off = pick_off(size);
		do_read(off, pick_len(size - off));
	} else if (r < 27) {		/* mapped read */
		if (!size)
			return;
		off = pick_off(size);
		do_mapread(off, pick_len(size - off));
	} else if (r < 47) {		/* write */
		off = pick_off(maxlen);
		len = pick_len(maxlen - off);
		do_write(off, len ? len : 1);
	} else if (r < 64) {		/* mapped write */
		off = pick_off(maxlen);
		len = pick_len(maxlen - off);
		do_mapwrite(off, len ? len : 1);
	} else if (r < 88) {		/* truncate up or down */
		long long ns;

		if (rnd_range(2))
			ns = size + 1 + rnd_range(rnd_range(4) ? 3 * psize : maxlen / 2);
		else
			ns = rnd_range(size + 1);
		if (ns > maxlen)
			ns = maxlen - rnd_range(psize);
		do_truncate(ns);
	} else if (r < 94) {
		log_op(OP_FSYNC, 0, 0, size, size, 0);
		if (fsync(fd))
			fatal("fsync");
	} else {
		do_msync();
	}
}

/* ------------------------------------------------------------------ */
/* checkpoint: "fsx-ckpt 1 seed rng opnr size maxlen\n" + size bytes */

static int ckpt_load(void)
{
	unsigned long long s, r, n;
	long long sz, ml;
	FILE *f = fopen(ckpt, "r");

	if (!f)
		return 0;
	if (fscanf(f, "fsx-ckpt 1 %llu %llx %llu %lld %lld\n", &s, &r, &n,
		   &sz, &ml) != 5 || ml != maxlen || sz < 0 || sz > maxlen) {
		printf("fsx: bad checkpoint %s (or -l differs)\n", ckpt);
		exit(2);
	}
	if (sz && fread(good, 1, sz, f) != (size_t)sz) {
		printf("fsx: short checkpoint %s\n", ckpt);
		exit(2);
	}
	fclose(f);
	seed = s;
	rng = r;
	opnr = n;
	size = sz;
	return 1;
}

static void ckpt_save(void)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", ckpt);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "fsx-ckpt 1 %llu %llx %llu %lld %lld\n",
			  (unsigned long long)seed, (unsigned long long)rng,
			  (unsigned long long)opnr, size, maxlen) < 0 ||
	    (size && fwrite(good, 1, size, f) != (size_t)size) || fclose(f) ||
	    rename(tmp, ckpt)) {
		printf("fsx: cannot save checkpoint %s: %s\n", ckpt,
		       strerror(errno));
		exit(2);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fsx [-s SEED] [-N OPS] [-l MAXLEN] [-o MAXOPLEN] [-K REOPEN] [-P CKPT] [-V] [-q] [-E] [-F] FILE\n"
		"  -E  no EOF pollution (a control run: the stock kernel passes it)\n"
		"  -F  fresh mappings only (no persistent mapping)\n"
		"  -H  punch holes; -Z  zero ranges; -A  preallocate (fallocate)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	int opt, resumed = 0, seed_given = 0;
	uint64_t i;

	while ((opt = getopt(argc, argv, "s:N:l:o:K:P:VqEFHZA")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			seed_given = 1;
			break;
		case 'N':
			nops = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			maxlen = strtoll(optarg, NULL, 0);
			break;
		case 'o':
			maxoplen = strtoll(optarg, NULL, 0);
			break;
		case 'K':
			reopen_every = strtoull(optarg, NULL, 0);
			break;
		case 'P':
			ckpt = optarg;
			break;
		case 'V':
			verify_only = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'E':
			no_pollution = 1;
			break;
		case 'F':
			no_persistent = 1;
			break;
		case 'H':
			do_holes = 1;
			break;
		case 'Z':
			do_zero = 1;
			break;
		case 'A':
			do_falloc = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || maxlen < 4096 || maxoplen < 1 ||
	    (verify_only && !ckpt))
		usage();
	fname = argv[optind];
	psize = sysconf(_SC_PAGESIZE);
	if (!seed_given)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
	good = calloc(1, maxlen + psize);
	temp = calloc(1, maxlen + psize);
	if (!good || !temp)
		return 2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);

	if (ckpt)
		resumed = ckpt_load();
	if (!resumed)
		rng = seed * 0x9E3779B97F4A7C15ULL + 0x1234567;
	if (!rng)
		rng = 1;
	printf("seed=%" PRIu64 "\n", seed);
	if (verify_only && !resumed) {
		printf("fsx: no checkpoint %s to verify against\n", ckpt);
		return 2;
	}
	open_file(!resumed);
	pmap_open();
	if (resumed) {
		log_op(OP_REOPEN, 0, 0, size, size, 0);
		check_all("whole file against the checkpoint");
		printf("fsx: resumed at op %" PRIu64 ": file (0x%llx bytes) matches the checkpoint\n",
		       opnr, size);
	}
	if (!verify_only) {
		for (i = 0; i < nops; i++, opnr++) {
			if (reopen_every && opnr && opnr % reopen_every == 0)
				do_reopen();
			one_op();
		}
		check_all("whole file at the end");
		if (fsync(fd))
			fatal("final fsync");
	}
	pmap_close();
	if (close(fd))
		fatal("close");
	if (ckpt && !verify_only)
		ckpt_save();
	printf("fsx: ok, %" PRIu64 " ops (op %" PRIu64 " now), final size 0x%llx\n",
	       verify_only ? 0 : nops, opnr, size);
	return 0;
}
