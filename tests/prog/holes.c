// SPDX-License-Identifier: GPL-2.0
/*
 * holes: scenarios for the hole semantics of docs/design.md, "Guarantees":
 * no silent loss (S1, S6), holes read as zeros (S2, S3), re-fault after
 * growth (S4) and new-style writeback (S5).
 *
 *   holes SCENARIO MOUNTPOINT [setup|verify|all] [-v VARIANT] [options]
 *
 * SCENARIO is S1..S6 (S6 is S1 over a user block quota instead of a full
 * filesystem: run it as the limited user, see s6_setup).  "setup" does the
 * work and records what it saw in a
 * state file (/tmp by default), "verify" runs after the caller remounted the
 * filesystem and prints the verdict; "all" does both with a cache drop
 * instead of the remount (handy on the host).  The last line is the verdict:
 *
 *   holes S2/truncate: ok [details]
 *   holes S2/truncate: BUG - <what> [details]
 *   holes S6/truncate: SKIP - <why>
 *
 * Exit status: 0 ok, 1 bug detected, 2 setup error, 3 skipped.
 * ("BUG -", never "BUG" and a colon: the runner scans the console for the
 * kernel's "BUG" + colon and would fail the whole suite.)
 *
 * Block size 1 KiB, page size 4 KiB is the interesting case: the scenarios
 * work on other geometries too but prove little there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "common.h"

#define EXIT_OK		0
#define EXIT_BUG	1
#define EXIT_SETUP	2
#define EXIT_SKIP	3

enum target { T_STOCK, T_ALLOC, T_NOALLOC };
static const char *const target_name[] = { "stock", "alloc", "noalloc" };

static const char *mnt;
static const char *scen;
static const char *variant;
static const char *statedir = "/tmp";
static const char *sysfs_dir;
static char sysfs_buf[PATH_MAX];
static char mnt_source[PATH_MAX];	/* the device, for quotactl (S6) */
static enum target target;
static int target_given;
static int strict_sigbus;
static int race_secs = 10;
static long psize;
static char label[64];

/* ------------------------------------------------------------------ */
/* reporting */

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...)
{
	va_list ap;

	printf("holes %s: ", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
setup_error(const char *fmt, ...)
{
	va_list ap;

	printf("holes %s: ERROR - ", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (errno %d %s)\n", errno, strerror(errno));
	fflush(stdout);
	exit(EXIT_SETUP);
}

static int verdict_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int verdict_ok(const char *fmt, ...)
{
	va_list ap;

	printf("holes %s: ok ", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return EXIT_OK;
}

static int verdict_bug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int verdict_bug(const char *fmt, ...)
{
	va_list ap;

	printf("holes %s: BUG - ", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return EXIT_BUG;
}

/* ------------------------------------------------------------------ */
/* small helpers */

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", mnt, name);
}

static int open_file(const char *name, int flags)
{
	char p[PATH_MAX];
	int fd;

	path_of(p, sizeof(p), name);
	fd = open(p, flags, 0644);
	if (fd < 0)
		setup_error("open %s", p);
	return fd;
}

static void xpwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	if (n != (ssize_t)len)
		setup_error("pwrite %zu at %lld returned %zd", len,
			    (long long)off, n);
}

static void xftruncate(int fd, off_t len)
{
	if (ftruncate(fd, len))
		setup_error("ftruncate %lld", (long long)len);
}

static void *xmmap(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		setup_error("mmap %zu", len);
	return p;
}

static off_t fsize(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		setup_error("fstat");
	return st.st_size;
}

static long long fblocks(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		setup_error("fstat");
	return st.st_blocks;
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, "3\n", 2) != 2)
		info("drop_caches write failed: %s", strerror(errno));
	close(fd);
}

/* Read the whole file into a fresh buffer; *len gets the size. */
static unsigned char *read_all(const char *name, off_t *len)
{
	int fd = open_file(name, O_RDONLY);
	off_t sz = fsize(fd), done = 0;
	unsigned char *buf = malloc(sz + 1);

	if (!buf)
		setup_error("malloc");
	while (done < sz) {
		ssize_t n = pread(fd, buf + done, sz - done, done);

		if (n <= 0)
			setup_error("pread %s at %lld", name, (long long)done);
		done += n;
	}
	close(fd);
	*len = sz;
	return buf;
}

/* Read the whole file through a fresh shared mapping. */
static unsigned char *read_all_mapped(const char *name, off_t *len)
{
	int fd = open_file(name, O_RDONLY);
	off_t sz = fsize(fd);
	unsigned char *buf = malloc(sz + 1), *map;

	if (!buf)
		setup_error("malloc");
	if (sz) {
		map = mmap(NULL, sz, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			setup_error("mmap %s", name);
		memcpy(buf, map, sz);
		munmap(map, sz);
	}
	close(fd);
	*len = sz;
	return buf;
}

/*
 * Compare @got against @want; describe the first difference in @why.
 * Returns the number of differing bytes.
 */
static long compare(const unsigned char *got, off_t glen,
		    const unsigned char *want, off_t wlen,
		    char *why, size_t whylen)
{
	long bad = 0;
	off_t first = -1, i;

	if (glen != wlen) {
		snprintf(why, whylen, "size %lld, expected %lld",
			 (long long)glen, (long long)wlen);
		return 1;
	}
	for (i = 0; i < wlen; i++) {
		if (got[i] != want[i]) {
			if (first < 0)
				first = i;
			bad++;
		}
	}
	if (bad)
		snprintf(why, whylen,
			 "%ld bytes differ, first at %lld: 0x%02x, expected 0x%02x",
			 bad, (long long)first, got[first], want[first]);
	return bad;
}

/* ------------------------------------------------------------------ */
/* target detection: /proc/self/mountinfo and /sys/fs/ext2hole/<dev> */

static void detect_target(void)
{
	char line[4096], rmnt[PATH_MAX];
	char fstype[64] = "", source[PATH_MAX] = "", sopts[1024] = "";
	FILE *f;

	if (!realpath(mnt, rmnt))
		setup_error("realpath %s", mnt);
	f = fopen("/proc/self/mountinfo", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char mp[PATH_MAX], *sep;
			char t[64], s[PATH_MAX], o[1024];

			if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
				continue;
			if (strcmp(mp, rmnt))
				continue;
			sep = strstr(line, " - ");
			if (!sep || sscanf(sep + 3, "%63s %4095s %1023s",
					   t, s, o) != 3)
				continue;
			/* the last matching line is the one on top */
			strcpy(fstype, t);
			strcpy(source, s);
			strcpy(sopts, o);
		}
		fclose(f);
	}
	strcpy(mnt_source, source);
	if (!target_given) {
		if (!strcmp(fstype, "ext2hole"))
			target = strstr(sopts, "mkwrite=noalloc") ?
				T_NOALLOC : T_ALLOC;
		else
			target = T_STOCK;
	}
	if (target != T_STOCK && !sysfs_dir) {
		const char *dev = strrchr(source, '/');

		dev = dev ? dev + 1 : source;
		snprintf(sysfs_buf, sizeof(sysfs_buf), "/sys/fs/ext2hole/%s",
			 dev);
		sysfs_dir = sysfs_buf;
	}
}

static long long read_counter(const char *name)
{
	char p[PATH_MAX + 64], buf[64];
	long long v;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", sysfs_dir, name);
	f = fopen(p, "r");
	if (!f)
		setup_error("no counter %s", p);
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%lld", &v) != 1)
		setup_error("bad counter %s", p);
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------ */
/* state handed from "setup" to "verify" */

static void state_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/holes-state.%s", statedir, label);
	for (char *c = buf + strlen(statedir) + 1; *c; c++)
		if (*c == '/')
			*c = '_';
}

static void state_save(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void state_save(const char *fmt, ...)
{
	char p[PATH_MAX];
	va_list ap;
	FILE *f;

	state_path(p, sizeof(p));
	f = fopen(p, "w");
	if (!f)
		setup_error("state file %s", p);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static void state_load(char *buf, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	state_path(p, sizeof(p));
	f = fopen(p, "r");
	if (!f)
		setup_error("no state file %s: run the setup phase first", p);
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

/* The free-text second line of the state file. */
static void state_line2(char *buf, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	buf[0] = 0;
	state_path(p, sizeof(p));
	f = fopen(p, "r");
	if (!f)
		return;
	if (!fgets(buf, len, f) || !fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static long state_get(const char *st, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "%s=", key);
	for (p = st; (p = strstr(p, k)); p++)
		if (p == st || p[-1] == ' ')
			return strtol(p + strlen(k), NULL, 0);
	setup_error("state has no %s", key);
}

/* ------------------------------------------------------------------ */
/* S1: no silent loss at ENOSPC */

#define S1_FILE "s1.file"
#define S1_FILLDIR "s1.fill"

/*
 * Fill the filesystem but for @leave blocks: one-block files are set aside
 * first and deleted once everything else is full.  Returns the free blocks
 * then (should be @leave).
 */
static unsigned long long fill_fs(int leave)
{
	static char chunk[65536];
	char p[PATH_MAX], n[PATH_MAX + 32];
	unsigned long long done = 0;
	struct statvfs sv;
	int fd, i;
	size_t step;

	memset(chunk, 'F', sizeof(chunk));
	path_of(p, sizeof(p), S1_FILLDIR);
	if (mkdir(p, 0755) && errno != EEXIST)
		setup_error("mkdir %s", p);
	for (i = 0; i < leave; i++) {
		snprintf(n, sizeof(n), "%s/resv.%d", p, i);
		fd = open(n, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, chunk, 1024) != 1024)
			setup_error("reserve file %s", n);
		close(fd);
	}
	snprintf(n, sizeof(n), "%s/big", p);
	fd = open(n, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		setup_error("open %s", n);
	for (step = sizeof(chunk); step >= 1024; step /= 4) {
		for (;;) {
			ssize_t w = write(fd, chunk, step);

			if (w > 0) {
				done += w;
				continue;
			}
			if (w < 0 && errno != ENOSPC)
				setup_error("filling %s", n);
			break;
		}
	}
	fsync(fd);
	close(fd);
	/*
	 * The big file may stop with a few blocks free that it cannot use
	 * (it needs an indirect block too): soak them up with small files,
	 * whose blocks are all direct.
	 */
	for (i = 0; i < 100000; i++) {
		int k, wrote = 0;

		if (statvfs(mnt, &sv))
			setup_error("statvfs");
		if (sv.f_bfree == 0)
			break;
		snprintf(n, sizeof(n), "%s/small.%d", p, i);
		fd = open(n, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			break;
		for (k = 0; k < 12; k++) {
			if (write(fd, chunk, 1024) != 1024)
				break;
			wrote++;
		}
		close(fd);
		if (!wrote)
			break;
	}
	sync();
	if (statvfs(mnt, &sv))
		setup_error("statvfs");
	if (sv.f_bfree)
		return sv.f_bfree + leave;
	info("filled %llu KiB + %d small files", done / 1024, i);
	for (i = 0; i < leave; i++) {
		snprintf(n, sizeof(n), "%s/resv.%d", p, i);
		if (unlink(n))
			setup_error("unlink %s", n);
	}
	sync();
	if (statvfs(mnt, &sv))
		setup_error("statvfs");
	return sv.f_bfree;
}

/*
 * Remove what fill_fs or s6_fill_quota left in @filldir: big (S1) or
 * big.N (S6), resv.N, small.N.
 */
static void unfill(const char *filldir)
{
	char p[PATH_MAX], n[PATH_MAX + 32];
	int i;

	path_of(p, sizeof(p), filldir);
	snprintf(n, sizeof(n), "%s/big", p);
	unlink(n);
	for (i = 0; i < 8; i++) {
		snprintf(n, sizeof(n), "%s/big.%d", p, i);
		unlink(n);
		snprintf(n, sizeof(n), "%s/resv.%d", p, i);
		unlink(n);
	}
	for (i = 0; i < 100000; i++) {
		snprintf(n, sizeof(n), "%s/small.%d", p, i);
		if (unlink(n))
			break;
	}
	rmdir(p);
}

/*
 * The S1 and S6 sequence up to the store: 'D' x 1024 written, the page
 * made writable by map[0] = 'a', the file grown as the variant says
 * (truncate to 10000, or "E" written at 10000).  Returns the mapping.
 */
static unsigned char *map_and_grow(int fd)
{
	unsigned char buf[1024], *map;

	memset(buf, 'D', sizeof(buf));
	xpwrite(fd, buf, 1024, 0);
	map = xmmap(fd, psize);
	map[0] = 'a';
	if (!strcmp(variant, "truncate"))
		xftruncate(fd, 10000);
	else
		xpwrite(fd, "E", 1, 10000);
	return map;
}

/* The store at 3000 and the msync and fsync after it; returns SIGBUS or not. */
static int store_and_sync(unsigned char *map, int fd, int *merr, int *ferr)
{
	int bus = guarded_store(map + 3000, 'b');

	if (msync(map, psize, MS_SYNC))
		*merr = errno;
	if (fsync(fd))
		*ferr = errno;
	return bus;
}

/* What became of the S1 or S6 store, in words. */
static const char *store_how(int bus, int merr, int ferr)
{
	return bus ? "SIGBUS at the store" :
	       (merr || ferr) ? "store accepted, error reported by msync/fsync" :
	       "store accepted, msync/fsync succeeded";
}

/*
 * The verdict on an S1 or S6 store accepted, then failed by msync or
 * fsync: a bug under -x (@why: the store was accepted without allocation,
 * or over the quota), else reported (@more: what else held).
 */
static int reported_verdict(const char *why, const char *more, const char *how,
			    int merr, int ferr)
{
	const char *m = merr ? strerror(merr) : "ok";
	const char *f = ferr ? strerror(ferr) : "ok";

	if (strict_sigbus)
		return verdict_bug("store accepted %s and lost (msync %s, fsync %s): no SIGBUS at the fault",
				   why, m, f);
	return verdict_ok("reported: %s (msync %s, fsync %s)%s", how, m, f, more);
}

static void s1_setup(void)
{
	unsigned char *map;
	unsigned long long left;
	struct statvfs sv;
	int fd, bus, merr = 0, ferr = 0, need;

	/*
	 * Fill first, leaving exactly the blocks the file needs before the
	 * store (block 0, and block 9 for the pwrite variant), so that no
	 * writeback or sync runs between map[0] = 'a', the growth and the
	 * store: the PTE made writable by the first store is still writable
	 * and dirty unless the growth write-protects it (re-fault after
	 * growth), which is part of what this scenario checks.
	 */
	fd = open_file(S1_FILE, O_RDWR | O_CREAT | O_TRUNC);
	need = !strcmp(variant, "truncate") ? 1 : 2;
	left = fill_fs(need);
	if (left != (unsigned long long)need)
		setup_error("could not fill the filesystem: %llu blocks free, wanted %d",
			    left, need);
	map = map_and_grow(fd);
	if (statvfs(mnt, &sv))
		setup_error("statvfs");
	info("%llu blocks free before the store at 3000",
	     (unsigned long long)sv.f_bfree);
	if (sv.f_bfree)
		setup_error("filesystem not full before the store");
	bus = store_and_sync(map, fd, &merr, &ferr);
	munmap(map, psize);
	close(fd);
	info("store at 3000: %s; msync: %s; fsync: %s",
	     bus ? "SIGBUS" : "accepted", merr ? strerror(merr) : "ok",
	     ferr ? strerror(ferr) : "ok");
	state_save("sigbus=%d msync=%d fsync=%d", bus, merr, ferr);
}

static int s1_verify(void)
{
	char st[256];
	unsigned char *d;
	off_t len;
	int bus, merr, ferr, rc;
	const char *how;

	state_load(st, sizeof(st));
	bus = state_get(st, "sigbus");
	merr = state_get(st, "msync");
	ferr = state_get(st, "fsync");
	d = read_all(S1_FILE, &len);
	unfill(S1_FILLDIR);
	how = store_how(bus, merr, ferr);
	if (len < 3001)
		rc = verdict_bug("file is %lld bytes after remount (%s)",
				 (long long)len, how);
	else if (d[0] != 'a')
		rc = verdict_bug("byte 0 is 0x%02x, expected 'a' (%s)",
				 d[0], how);
	else if (d[3000] == 'b')
		rc = bus ? verdict_bug("'b' on disk after a SIGBUS")
			 : verdict_ok("persisted: 'b' on disk (%s)", how);
	else if (d[3000] != 0)
		rc = verdict_bug("byte 3000 is 0x%02x after remount (%s)",
				 d[3000], how);
	else if (bus)
		rc = verdict_ok("sigbus: %s, nothing lost silently", how);
	else if (merr || ferr)
		rc = reported_verdict("without allocation", "", how, merr, ferr);
	else
		rc = verdict_bug("silent loss: store accepted, msync/fsync ok, 'b' missing after remount");
	free(d);
	return rc;
}

/* ------------------------------------------------------------------ */
/* S2: holes read as zeros: stale post-EOF bytes must not appear in the hole */

#define S2_OLD 1000

/* The expected file after the S2 extension; returns its size. */
static off_t s2_expected(unsigned char *buf)
{
	memset(buf, 0, 16384);
	memset(buf, 'D', S2_OLD);
	if (!strcmp(variant, "truncate"))
		return 10000;
	if (!strcmp(variant, "pwrite")) {
		memset(buf + 5000, 'E', 100);
		return 5100;
	}
	if (!strcmp(variant, "inpage")) {
		memset(buf + 2000, 'E', 100);
		return 6000;
	}
	memset(buf + 6000, 'F', 100);
	return 6100;
}

static void s2_name(char *buf, size_t len)
{
	snprintf(buf, len, "s2.%s", variant);
}

/* Check the file against the model; returns the number of bad bytes. */
static long s2_check(const char *stage, int mapped)
{
	unsigned char want[16384], *got;
	char name[64], why[256];
	off_t wlen = s2_expected(want), glen;
	long bad;

	s2_name(name, sizeof(name));
	got = mapped ? read_all_mapped(name, &glen) : read_all(name, &glen);
	bad = compare(got, glen, want, wlen, why, sizeof(why));
	info("%s: %s", stage, bad ? why : "hole reads zero");
	free(got);
	return bad;
}

static void s2_setup(void)
{
	unsigned char buf[1024];
	unsigned char *map;
	char name[64];
	long bad = 0;
	int fd;

	memset(buf, 'D', sizeof(buf));
	s2_name(name, sizeof(name));
	fd = open_file(name, O_RDWR | O_CREAT | O_TRUNC);
	xpwrite(fd, buf, S2_OLD, 0);
	xftruncate(fd, S2_OLD);
	map = xmmap(fd, psize);
	memset(map + S2_OLD, 0xAA, psize - S2_OLD);
	if (msync(map, psize, MS_SYNC))
		setup_error("msync");
	memset(map + S2_OLD + 20, 0xBB, psize - S2_OLD - 20);
	if (!strcmp(variant, "truncate")) {
		xftruncate(fd, 10000);
	} else if (!strcmp(variant, "pwrite")) {
		memset(buf, 'E', 100);
		xpwrite(fd, buf, 100, 5000);
	} else if (!strcmp(variant, "inpage")) {
		/*
		 * Two growths inside the EOF page: a write at 2000 (hole
		 * 1000-2000, junk beyond 2100 stays beyond EOF), more junk
		 * stored beyond the new EOF, then truncate up to 6000.
		 */
		memset(buf, 'E', 100);
		xpwrite(fd, buf, 100, 2000);
		memset(map + 2100, 0xCC, psize - 2100);
		xftruncate(fd, 6000);
	} else {
		memset(buf, 'F', 100);
		if (lseek(fd, 6000, SEEK_SET) != 6000)
			setup_error("lseek");
		if (write(fd, buf, 100) != 100)
			setup_error("write after lseek");
	}
	munmap(map, psize);
	bad |= s2_check("read() after extension", 0) ? 1 : 0;
	bad |= s2_check("fresh mapping after extension", 1) ? 2 : 0;
	if (fsync(fd))
		setup_error("fsync");
	close(fd);
	drop_caches();
	bad |= s2_check("read() after fsync + drop_caches", 0) ? 4 : 0;
	state_save("bad=%ld", bad);
}

static int s2_verify(void)
{
	static const char *const stage[] = {
		"read()", "mapping", "after fsync+drop_caches",
	};
	char st[256], where[256] = "";
	long bad, remount;
	int i;

	state_load(st, sizeof(st));
	bad = state_get(st, "bad");
	remount = s2_check("read() after remount", 0);
	for (i = 0; i < 3; i++)
		if (bad & (1 << i))
			snprintf(where + strlen(where),
				 sizeof(where) - strlen(where), "%s%s",
				 *where ? ", " : "", stage[i]);
	if (remount)
		snprintf(where + strlen(where), sizeof(where) - strlen(where),
			 "%safter remount", *where ? ", " : "");
	if (*where)
		return verdict_bug("stale post-EOF bytes in the hole: %s",
				   where);
	return verdict_ok("hole reads zero in cache, mapping, after drop_caches and remount");
}

/* ------------------------------------------------------------------ */
/* S3: holes read as zeros, under a race */

static long fibmap(int fd, long blk);

struct s3_shared {
	volatile uint64_t counter;	/* child's store sequence */
	volatile int stop;
	volatile int child_ready;
	volatile uint64_t syncs;	/* writeback rounds (variant wb) */
	volatile int pause;		/* parent: hold the stores */
	volatile int paused;		/* child: holding */
};

/*
 * A tag is the 32-bit store sequence number in the low half of the word and
 * its complement in the high half.  pread() copies bytes, not words, so it
 * can return a word torn between a zero and a new tag, which would look like
 * an old tag; a torn word fails the check below and is only counted.
 */
static uint64_t s3_tag(uint64_t c)
{
	uint32_t t = (uint32_t)c;

	return (uint64_t)(uint32_t)~t << 32 | t;
}

/* The sequence number of a whole tag, or 0 for a torn word. */
static uint64_t s3_untag(uint64_t w)
{
	uint32_t t = (uint32_t)w;

	return (uint32_t)(w >> 32) == (uint32_t)~t ? t : 0;
}

/*
 * The old size S3 shrinks back to: S2_OLD, or 1536 for the dio variant,
 * whose direct write at EOF needs a 512-byte-aligned offset.
 */
static off_t s3_old = S2_OLD;

static void s3_child(int fd, struct s3_shared *sh)
{
	volatile uint64_t *map = (volatile uint64_t *)xmmap(fd, psize);
	unsigned int i = 0;
	size_t lo = s3_old / 8, n = psize / 8 - lo;
	struct sigaction sa = { .sa_handler = SIG_DFL };

	sigaction(SIGBUS, &sa, NULL);
	sh->child_ready = 1;
	while (!sh->stop) {
		uint64_t c;

		if (sh->pause) {
			sh->paused = 1;
			while (sh->pause && !sh->stop)
				sched_yield();
			sh->paused = 0;
			continue;
		}
		c = ++sh->counter;
		/* tag every word with the sequence number of its store */
		map[lo + (i++ * 7) % n] = s3_tag(c);
	}
	_exit(0);
}

/* The first violation: what the page cache, a mapping and the disk say. */
static void s3_diag(int fd, off_t off, long long iter, off_t grow,
		    uint64_t now)
{
	uint64_t again = 0, *map;
	long b;

	if (pread(fd, &again, 8, off) != 8)
		again = ~0ULL;
	map = mmap(NULL, psize, PROT_READ, MAP_SHARED, fd, 0);
	b = fibmap(fd, off / 1024);
	info("first violation: iteration %lld (grow to %lld%s) offset %lld: re-read %llu, via a new mapping %llu, counter at the check %llu, FIBMAP(%lld)=%ld, st_blocks %lld",
	     iter, (long long)grow,
	     iter % 4 >= 2 ? ", child held" :
	     iter % 4 ? ", after waiting" : ", racing",
	     (long long)off, (unsigned long long)s3_untag(again),
	     map == MAP_FAILED ? 0ULL :
	     (unsigned long long)s3_untag(map[off / 8]),
	     (unsigned long long)now, (long long)off / 1024, b, fblocks(fd));
	if (map != MAP_FAILED)
		munmap(map, psize);
}

static int s3_run(void)
{
	struct s3_shared *sh;
	uint64_t *buf;
	long long iters = 0, violations = 0, waited = 0, torn = 0;
	time_t end = time(NULL) + race_secs;
	off_t first_bad = -1;
	uint64_t bad_tag = 0, bad_before = 0;
	pid_t pid, wb_pid = 0;
	int fd, dfd = -1, status;
	unsigned char d[1536];
	void *zero;
	bool dio = !strcmp(variant, "dio");

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	buf = malloc(8192);
	if (sh == MAP_FAILED || !buf)
		setup_error("alloc");
	memset(sh, 0, sizeof(*sh));
	memset(d, 'D', sizeof(d));
	if (posix_memalign(&zero, 4096, 4096))
		setup_error("posix_memalign");
	memset(zero, 0, 4096);
	if (dio)
		s3_old = 1536;
	fd = open_file("s3.file", O_RDWR | O_CREAT | O_TRUNC);
	xpwrite(fd, d, s3_old, 0);
	if (dio)
		dfd = open_file("s3.file", O_RDWR | O_DIRECT);
	pid = fork();
	if (pid < 0)
		setup_error("fork");
	if (pid == 0)
		s3_child(fd, sh);
	if (!strcmp(variant, "wb")) {
		wb_pid = fork();
		if (wb_pid < 0)
			setup_error("fork");
		if (wb_pid == 0) {
			/* writeback racing with the stores and size changes */
			while (!sh->stop) {
				sync_file_range(fd, 0, 0,
						SYNC_FILE_RANGE_WRITE |
						SYNC_FILE_RANGE_WAIT_AFTER);
				sh->syncs++;
				usleep(200);
			}
			_exit(0);
		}
	}
	while (!sh->child_ready)
		usleep(1000);
	while (time(NULL) < end) {
		off_t grow = (iters & 1) ? 6000 : 2000, off;
		uint64_t before, c0;

		if (dio)
			grow = (iters & 2) ? 6144 : 2048;
		xftruncate(fd, s3_old);
		/*
		 * Usually let the child store junk beyond EOF first (the S2
		 * case); every fourth round race the growth directly.
		 */
		if (iters % 4) {
			c0 = sh->counter;
			while (sh->counter < c0 + 64 && time(NULL) < end) {
				sched_yield();
				waited++;
			}
		}
		/*
		 * Rounds 2 and 3 (mod 4) hold the child from here to the end
		 * of the check, so the junk it stored stays in place: a
		 * target that does not zero it is caught whatever the timing
		 * (a fast child would otherwise overwrite every junk word
		 * with a newer, legitimate tag during a slow growth, such as
		 * a direct write, and hide the bug).
		 */
		if (iters % 4 >= 2) {
			time_t lim = time(NULL) + 5;

			sh->pause = 1;
			while (!sh->paused && time(NULL) < lim)
				sched_yield();
		}
		before = sh->counter;
		if (!strcmp(variant, "pwrite")) {
			/* a write beyond EOF: the hole is [old, grow - 8) */
			xpwrite(fd, zero, 8, grow - 8);
		} else if (dio) {
			/*
			 * A direct write at EOF, up to the new size (even
			 * rounds), or beyond EOF after a hole (odd rounds).
			 */
			off_t pos = (iters & 1) ? grow - 512 : s3_old;
			ssize_t n = pwrite(dfd, zero, grow - pos, pos);

			if (n != grow - pos)
				setup_error("O_DIRECT pwrite %lld at %lld returned %zd",
					    (long long)(grow - pos), (long long)pos, n);
		} else {
			xftruncate(fd, grow);
		}
		for (off = s3_old; off < grow; off += 8192) {
			size_t len = grow - off < 8192 ? grow - off : 8192;
			ssize_t n = pread(fd, buf, len, off);
			size_t k;

			if (n != (ssize_t)len)
				setup_error("pread");
			for (k = 0; k < len / 8; k++) {
				/*
				 * A tag older than the growth is junk that
				 * was beyond EOF: it must have been zeroed.
				 * Newer tags may be legitimate stores.
				 */
				uint64_t t = s3_untag(buf[k]);

				if (buf[k] && !t)
					torn++;
				/* older, modulo 2^32: the counter may wrap */
				if (t && (uint32_t)((uint32_t)before - t) - 1 <
					 0x7fffffffU) {
					if (!violations++) {
						first_bad = off + 8 * k;
						bad_tag = t;
						bad_before = before;
						s3_diag(fd, first_bad, iters, grow,
							sh->counter);
					}
				}
			}
		}
		sh->pause = 0;
		iters++;
		/* the bug has shown: the verdict cannot change */
		if (violations && iters >= 10)
			break;
	}
	sh->stop = 1;
	waitpid(pid, &status, 0);
	if (wb_pid > 0)
		waitpid(wb_pid, NULL, 0);
	close(fd);
	if (dfd >= 0)
		close(dfd);
	free(zero);
	info("%lld iterations, %llu child stores, %llu writeback rounds, %lld torn reads (ignored), %lld violations",
	     iters, (unsigned long long)sh->counter,
	     (unsigned long long)sh->syncs, torn, violations);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return verdict_bug("storing child died (status 0x%x)", status);
	if (iters < 10)
		setup_error("only %lld iterations", iters);
	if (violations)
		return verdict_bug("%lld stale words in the hole after growth; first at %lld: tag %llu stored before the growth began (counter %llu)",
				   violations, (long long)first_bad,
				   (unsigned long long)bad_tag,
				   (unsigned long long)bad_before);
	return verdict_ok("%lld iterations, no stale bytes in the hole", iters);
}

/* ------------------------------------------------------------------ */
/* S4: re-fault after growth */

static long fibmap(int fd, long blk)
{
	int b = blk;

	if (ioctl(fd, FIBMAP, &b))
		return -errno;
	return b;
}

static int s4_run(int phase_setup, int phase_verify)
{
	unsigned char buf[1024], *map;
	long long blk0, blk1, blk2, c0 = 0, c1 = 0;
	const char *cname = target == T_NOALLOC ? "mkwrite_noalloc"
						: "mkwrite_alloc";
	char bug[512] = "", st[600];
	long map2;
	int fd, rc;

	if (phase_verify && !phase_setup) {
		off_t len;
		unsigned char *d = read_all("s4.file", &len);

		state_load(st, sizeof(st));
		state_line2(bug, sizeof(bug));
		if (len != 10000 || d[0] != 'a' || d[3000] != 'b' ||
		    d[1024] != 0 || d[2999] != 0)
			rc = verdict_bug("data after remount: size %lld, [0]=0x%02x [3000]=0x%02x",
					 (long long)len, d[0],
					 len > 3000 ? d[3000] : 0);
		else if (state_get(st, "bug"))
			rc = verdict_bug("%s (data intact after remount)", bug);
		else
			rc = verdict_ok("re-fault after growth; data intact after remount");
		free(d);
		return rc;
	}
	memset(buf, 'D', sizeof(buf));
	fd = open_file("s4.file", O_RDWR | O_CREAT | O_TRUNC);
	xpwrite(fd, buf, 1024, 0);
	if (fsync(fd))
		setup_error("fsync");
	map = xmmap(fd, psize);
	map[0] = 'a';
	if (!strcmp(variant, "truncate"))
		xftruncate(fd, 10000);
	else
		xpwrite(fd, "", 1, 9999);
	blk0 = fblocks(fd);
	if (target != T_STOCK)
		c0 = read_counter(cname);
	map[3000] = 'b';
	if (target != T_STOCK)
		c1 = read_counter(cname);
	blk1 = fblocks(fd);
	map2 = fibmap(fd, 2);
	if (msync(map, psize, MS_SYNC) || fsync(fd))
		setup_error("msync/fsync");
	blk2 = fblocks(fd);
	munmap(map, psize);
	close(fd);
	info("%s: st_blocks %lld -> %lld at the store, %lld after fsync; FIBMAP(2) at the store %ld; %s %lld -> %lld",
	     target_name[target], blk0, blk1, blk2, map2,
	     target == T_STOCK ? "no counter" : cname, c0, c1);
	if (target == T_STOCK) {
		if (blk1 <= blk0)
			snprintf(bug, sizeof(bug),
				 "stock: no re-fault allocation (st_blocks %lld -> %lld at the store into the old EOF page)",
				 blk0, blk1);
	} else if (c1 != c0 + 1) {
		snprintf(bug, sizeof(bug),
			 "%s went %lld -> %lld at the store into the old EOF page after growth: no re-fault",
			 cname, c0, c1);
	} else if (target == T_ALLOC && (blk1 < blk0 + 6 || map2 <= 0)) {
		snprintf(bug, sizeof(bug),
			 "re-fault allocated nothing: st_blocks %lld -> %lld, FIBMAP(2)=%ld",
			 blk0, blk1, map2);
	} else if (blk2 < blk0 + 6) {
		snprintf(bug, sizeof(bug),
			 "blocks 1-3 not allocated after fsync: st_blocks %lld -> %lld",
			 blk0, blk2);
	}
	if (!phase_verify) {
		if (*bug)
			info("detected: %s", bug);
		state_save("bug=%d\n%s", !!*bug, bug);
		return EXIT_OK;
	}
	if (*bug)
		return verdict_bug("%s", bug);
	return verdict_ok("re-fault after growth (%s)",
			  target == T_STOCK ? "st_blocks grew" : cname);
}

/* ------------------------------------------------------------------ */
/*
 * S5: new-style writeback: a store into the EOF page, a write that grows
 * the file, a store into the newly valid blocks, fsync: all of it survives
 * a remount
 */

static void s5_expected(unsigned char *buf)
{
	memset(buf, 0, 10001);
	memset(buf, 'D', 1024);
	buf[0] = 'a';
	buf[3000] = 'b';
	buf[10000] = 'E';
}

static void s5_setup(void)
{
	unsigned char buf[1024], *map;
	int fd;

	memset(buf, 'D', sizeof(buf));
	fd = open_file("s5.file", O_RDWR | O_CREAT | O_TRUNC);
	xpwrite(fd, buf, 1024, 0);
	map = xmmap(fd, psize);
	map[0] = 'a';
	xpwrite(fd, "E", 1, 10000);
	map[3000] = 'b';
	if (fsync(fd))
		setup_error("fsync");
	munmap(map, psize);
	close(fd);
	state_save("done=1");
}

static int s5_verify(void)
{
	unsigned char want[10001], *got;
	char why[256], st[64];
	off_t len;
	long bad;

	state_load(st, sizeof(st));
	s5_expected(want);
	got = read_all("s5.file", &len);
	bad = compare(got, len, want, sizeof(want), why, sizeof(why));
	free(got);
	if (bad)
		return verdict_bug("after fsync + remount: %s", why);
	return verdict_ok("'a', 'b', the extension byte and the zeros all survive fsync + remount");
}

/* ------------------------------------------------------------------ */
/* S6: no silent loss at EDQUOT */

#define S6_FILE "s6.file"
#define S6_FILLDIR "s6.fill"

/*
 * Blocks the calling user may still take under its hard block limit on
 * this mount; -1 when quota is off or the user has no block limit.
 */
static long long quota_left(void)
{
	struct dqblk dq;
	long long bs = 1024, limit;
	struct statvfs sv;

	if (!statvfs(mnt, &sv))
		bs = sv.f_bsize;
	memset(&dq, 0, sizeof(dq));
	if (quotactl(QCMD(Q_GETQUOTA, USRQUOTA), mnt_source, getuid(),
		     (caddr_t)&dq))
		return -1;
	if (!(dq.dqb_valid & QIF_BLIMITS) || !dq.dqb_bhardlimit)
		return -1;
	limit = (long long)dq.dqb_bhardlimit * 1024;	/* 1 KiB units */
	if ((long long)dq.dqb_curspace >= limit)
		return 0;
	return (limit - (long long)dq.dqb_curspace) / bs;
}

/* Write @len bytes of 'F' to new file @n; returns the bytes accepted. */
static long long s6_write_file(const char *n, long long len, size_t step)
{
	static char chunk[65536];
	long long done = 0;
	int fd;

	memset(chunk, 'F', sizeof(chunk));
	fd = open(n, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		setup_error("open %s", n);
	while (len < 0 || done < len) {
		size_t k = step;
		ssize_t w;

		if (len >= 0 && (long long)k > len - done)
			k = len - done;
		w = write(fd, chunk, k);
		if (w > 0) {
			done += w;
			continue;
		}
		if (w < 0 && errno != EDQUOT)
			setup_error("filling %s", n);
		break;
	}
	if (fsync(fd) && errno != EDQUOT)
		setup_error("fsync %s", n);
	close(fd);
	return done;
}

/*
 * Use up the caller's block quota but for @leave blocks, as fill_fs does
 * with the free space: one-block files set aside first, deleted once
 * everything else is charged.  Returns the blocks left then.
 */
static long long s6_fill_quota(int leave)
{
	char p[PATH_MAX], n[PATH_MAX + 32];
	long long done = 0;
	size_t step;
	int i;

	path_of(p, sizeof(p), S6_FILLDIR);
	if (mkdir(p, 0755) && errno != EEXIST)
		setup_error("mkdir %s", p);
	for (i = 0; i < leave; i++) {
		snprintf(n, sizeof(n), "%s/resv.%d", p, i);
		if (s6_write_file(n, 1024, 1024) != 1024)
			setup_error("reserve file %s", n);
	}
	/* one big file in shrinking steps, then direct-only small files */
	for (step = 65536, i = 0; step >= 1024; step /= 4, i++) {
		snprintf(n, sizeof(n), "%s/big.%d", p, i);
		done += s6_write_file(n, -1, step);
		sync();
	}
	for (i = 0; i < 100000 && quota_left() > 0; i++) {
		snprintf(n, sizeof(n), "%s/small.%d", p, i);
		if (!s6_write_file(n, 12 * 1024, 1024))
			break;
		sync();
	}
	if (quota_left())
		return quota_left() + leave;
	info("charged %lld KiB + %d small files to uid %d", done / 1024, i,
	     (int)getuid());
	for (i = 0; i < leave; i++) {
		snprintf(n, sizeof(n), "%s/resv.%d", p, i);
		if (unlink(n))
			setup_error("unlink %s", n);
	}
	sync();
	return quota_left();
}

/*
 * The S1 sequence with the user's block quota exhausted instead of the
 * free space: the page is made writable by map[0] = 'a', the file grows
 * (truncate or a pwrite beyond EOF) and the store at 3000 lands in a
 * hole that needs a block the quota no longer allows.  Run as a user
 * with a hard block limit (runas); without one it is a SKIP.
 */
static void s6_setup(void)
{
	unsigned char *map;
	long long left, ctr0 = -1, ctr1 = -1;
	int fd, bus, merr = 0, ferr = 0, need;

	if (quota_left() < 0) {
		printf("holes %s: SKIP - no user block quota for uid %d on %s (the quota suite runs S6 with one)\n",
		       label, (int)getuid(), mnt_source);
		exit(EXIT_SKIP);
	}
	fd = open_file(S6_FILE, O_RDWR | O_CREAT | O_TRUNC);
	need = !strcmp(variant, "truncate") ? 1 : 2;
	left = s6_fill_quota(need);
	if (left != need)
		setup_error("could not use up the quota: %lld blocks left, wanted %d",
			    left, need);
	map = map_and_grow(fd);
	left = quota_left();
	info("%lld quota blocks left before the store at 3000", left);
	if (left)
		setup_error("quota not used up before the store");
	if (target != T_STOCK)
		ctr0 = read_counter("mkwrite_edquot");
	bus = store_and_sync(map, fd, &merr, &ferr);
	if (target != T_STOCK)
		ctr1 = read_counter("mkwrite_edquot");
	munmap(map, psize);
	close(fd);
	info("store at 3000: %s; msync: %s; fsync: %s; mkwrite_edquot %lld -> %lld",
	     bus ? "SIGBUS" : "accepted", merr ? strerror(merr) : "ok",
	     ferr ? strerror(ferr) : "ok", ctr0, ctr1);
	state_save("sigbus=%d msync=%d fsync=%d edquot=%lld", bus, merr, ferr,
		   ctr1 - ctr0);
}

static int s6_verify(void)
{
	unsigned char want[10001], *d;
	char st[256], why[256];
	off_t len, wlen = !strcmp(variant, "truncate") ? 10000 : 10001;
	int bus, merr, ferr, rc;
	long edq;
	const char *how;

	state_load(st, sizeof(st));
	bus = state_get(st, "sigbus");
	merr = state_get(st, "msync");
	ferr = state_get(st, "fsync");
	edq = state_get(st, "edquot");
	d = read_all(S6_FILE, &len);
	unfill(S6_FILLDIR);
	how = store_how(bus, merr, ferr);
	/* every byte write() accepted: 'D' x 1024 (then 'a'), 'E' at 10000 */
	memset(want, 0, sizeof(want));
	memset(want, 'D', 1024);
	want[0] = 'a';
	if (wlen == 10001)
		want[10000] = 'E';
	if (len >= 3001 && d[3000] == 'b' && !bus)
		want[3000] = 'b';
	if (compare(d, len, want, wlen, why, sizeof(why)))
		rc = verdict_bug("after remount: %s (%s)", why, how);
	else if (want[3000] == 'b' && strict_sigbus)
		/* written back past the hard limit (root's or the flusher's
		 * writeback ignores limits): the limit did not hold */
		rc = verdict_bug("store accepted over the quota, on disk after remount: no SIGBUS at the fault (%s)",
				 how);
	else if (want[3000] == 'b')
		rc = verdict_ok("persisted: 'b' on disk (%s)", how);
	else if (bus && target == T_ALLOC && edq < 1)
		rc = verdict_bug("SIGBUS but mkwrite_edquot did not move");
	else if (bus && target != T_STOCK)
		rc = verdict_ok("sigbus: %s, nothing lost silently, mkwrite_edquot +%ld",
				how, edq);
	else if (bus)
		rc = verdict_ok("sigbus: %s, nothing lost silently", how);
	else if (merr || ferr)
		rc = reported_verdict("over the quota", ", every write() byte on disk",
				      how, merr, ferr);
	else
		rc = verdict_bug("silent loss: store accepted, msync/fsync ok, 'b' missing after remount");
	free(d);
	return rc;
}

/* ------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr,
		"usage: holes S1..S6 MOUNTPOINT [setup|verify|all] [-v VARIANT] [-m stock|alloc|noalloc]\n"
		"             [-x] [-t SECS] [-S SYSFSDIR] [-T STATEDIR]\n"
		"  S1, S6 variants: truncate pwrite   S2: truncate pwrite gapwrite inpage   S4: truncate pwrite\n"
		"  S3 variants: plain, wb (a third process forces writeback in a loop),\n"
		"               pwrite (growth by a write beyond EOF), dio (growth by O_DIRECT writes at and beyond EOF)\n"
		"  -x  S1, S6: a store accepted at ENOSPC/EDQUOT is a bug even when fsync reports it\n"
		"      (S6: or when writeback took it past the hard limit)\n"
		"  -t  S3 duration (default 10 s)\n");
	exit(EXIT_SETUP);
}

int main(int argc, char **argv)
{
	const char *phase = "all";
	int setup, verify, opt, rc = EXIT_OK;

	if (argc < 3)
		usage();
	scen = argv[1];
	mnt = argv[2];
	if (argc > 3 && argv[3][0] != '-') {
		phase = argv[3];
		optind = 4;
	} else {
		optind = 3;
	}
	while ((opt = getopt(argc, argv, "v:m:xt:S:T:")) != -1) {
		switch (opt) {
		case 'v':
			variant = optarg;
			break;
		case 'm':
			target_given = 1;
			if (!strcmp(optarg, "stock"))
				target = T_STOCK;
			else if (!strcmp(optarg, "alloc"))
				target = T_ALLOC;
			else if (!strcmp(optarg, "noalloc"))
				target = T_NOALLOC;
			else
				usage();
			break;
		case 'x':
			strict_sigbus = 1;
			break;
		case 't':
			race_secs = atoi(optarg);
			break;
		case 'S':
			sysfs_dir = optarg;
			break;
		case 'T':
			statedir = optarg;
			break;
		default:
			usage();
		}
	}
	setup = !strcmp(phase, "setup") || !strcmp(phase, "all");
	verify = !strcmp(phase, "verify") || !strcmp(phase, "all");
	if (!setup && !verify)
		usage();
	psize = sysconf(_SC_PAGESIZE);
	if (!variant)
		variant = !strcmp(scen, "S3") ? "plain" : "truncate";
	if (!strcmp(scen, "S2")) {
		if (strcmp(variant, "truncate") && strcmp(variant, "pwrite") &&
		    strcmp(variant, "gapwrite") && strcmp(variant, "inpage"))
			usage();
	} else if (!strcmp(scen, "S3")) {
		if (strcmp(variant, "plain") && strcmp(variant, "wb") &&
		    strcmp(variant, "pwrite") && strcmp(variant, "dio"))
			usage();
	} else if (strcmp(variant, "truncate") && strcmp(variant, "pwrite")) {
		usage();
	}
	if (!strcmp(scen, "S3") && !strcmp(variant, "plain"))
		snprintf(label, sizeof(label), "%s", scen);
	else
		snprintf(label, sizeof(label), "%s/%s", scen, variant);
	detect_target();

	if (!strcmp(scen, "S1")) {
		if (setup)
			s1_setup();
		if (setup && verify)
			drop_caches();
		if (verify)
			rc = s1_verify();
	} else if (!strcmp(scen, "S2")) {
		if (setup)
			s2_setup();
		if (verify)
			rc = s2_verify();
	} else if (!strcmp(scen, "S3")) {
		rc = s3_run();
	} else if (!strcmp(scen, "S4")) {
		rc = s4_run(setup, verify);
	} else if (!strcmp(scen, "S5")) {
		if (setup)
			s5_setup();
		if (setup && verify)
			drop_caches();
		if (verify)
			rc = s5_verify();
	} else if (!strcmp(scen, "S6")) {
		if (setup)
			s6_setup();
		if (setup && verify)
			drop_caches();
		if (verify)
			rc = s6_verify();
	} else {
		usage();
	}
	fflush(stdout);
	return rc;
}
