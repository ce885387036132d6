// SPDX-License-Identifier: GPL-2.0
/*
 * renamemix - rename, link, unlink, create, mkdir and rmdir in directories
 * that grow from one linear block through an index to a second index
 * level, checked against a model of the namespace after every step.
 *
 *   renamemix seq16 -m MODEL ROOT
 *	In ROOT/s16: 16 names of 50 bytes fill the directory's one block;
 *	then old-0 is renamed to a new 50-byte name, an add that makes the
 *	directory indexed (or full) while the old entry is still there.
 *   renamemix split40 -m MODEL ROOT
 *	In each of ROOT/split/d00..d39: 12 names of 250 bytes, then every one
 *	renamed to a new 250-byte name in the same directory: adds that split
 *	the leaf holding the old name.
 *   renamemix mix -s SEED -n STEPS [-f EVERY] -m MODEL ROOT
 *	In ROOT/mix/d0..d3: a random mix, growth first, then churn.  d0 gets
 *	names of 200-255 bytes (its index gains a second level within about
 *	400 names), the others 1-255.  Renames are within a directory (half),
 *	across directories, onto an existing name of the same type, and of
 *	one hard link onto another of the same inode.  -f EVERY: the whole of
 *	every directory is read back and compared every EVERY steps (default
 *	50; the names and inodes a step touched are checked after each step).
 *   renamemix verify -m MODEL ROOT
 *	After a remount: every directory of MODEL holds exactly its names,
 *	each naming its inode, and every inode has its link count.
 *
 * The model is written to MODEL after the run.  Exit 0 when everything
 * matched; 1 with the first difference printed (step, operation, what was
 * expected and found); 2 on a usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#define MAXDIRS 64
#define NAME_MAX_LEN 255

struct obj {
	ino_t ino;
	bool is_dir;
	int nlink;		/* expected link count */
	int links;		/* names in the model */
};

struct ent {
	char *name;
	int obj;
};

struct dir {
	char *path;		/* relative to ROOT */
	int obj;		/* its own object */
	struct ent *e;
	int n, cap;
	int lo, hi;		/* name lengths for new names */
};

static struct obj *objs;
static int nobjs, capobjs;
static struct dir dirs[MAXDIRS];
static int ndirs;
static int rootfd = -1;
static uint64_t rng;
static long step;
static char opdesc[2048];

/* S on stderr, bytes outside printable ASCII as \xNN */
static void put_escaped(const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c >= 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
}

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	char msg[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "renamemix: step %ld (", step);
	put_escaped(opdesc);
	fprintf(stderr, "): ");
	put_escaped(msg);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}

static int below(int n)
{
	return n ? (int)(rnd() % (uint64_t)n) : 0;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("realloc");
		exit(2);
	}
	return p;
}

static int new_obj(ino_t ino, bool is_dir)
{
	if (nobjs == capobjs) {
		capobjs = capobjs ? 2 * capobjs : 1024;
		objs = xrealloc(objs, capobjs * sizeof(*objs));
	}
	objs[nobjs] = (struct obj){ .ino = ino, .is_dir = is_dir,
				    .nlink = is_dir ? 2 : 1, .links = 0 };
	return nobjs++;
}

static int find_ent(struct dir *d, const char *name)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->e[i].name, name))
			return i;
	return -1;
}

static void add_ent(struct dir *d, const char *name, int obj)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->e = xrealloc(d->e, d->cap * sizeof(*d->e));
	}
	d->e[d->n].name = strdup(name);
	d->e[d->n].obj = obj;
	d->n++;
	objs[obj].links++;
}

static void del_ent(struct dir *d, int i)
{
	objs[d->e[i].obj].links--;
	free(d->e[i].name);
	d->e[i] = d->e[--d->n];
}

static int add_dir(const char *path, int lo, int hi)
{
	struct stat st;
	struct dir *d;

	if (ndirs == MAXDIRS) {
		fprintf(stderr, "renamemix: too many directories\n");
		exit(2);
	}
	if (mkdirat(rootfd, path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
	if (fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW))
		die("stat %s: %s", path, strerror(errno));
	d = &dirs[ndirs];
	memset(d, 0, sizeof(*d));
	d->path = strdup(path);
	d->obj = new_obj(st.st_ino, true);
	d->lo = lo;
	d->hi = hi;
	/* a subdirectory of a directory of the model is one of its names */
	for (int i = 0; i < ndirs; i++) {
		size_t l = strlen(dirs[i].path);

		if (!strncmp(path, dirs[i].path, l) && path[l] == '/' &&
		    !strchr(path + l + 1, '/')) {
			add_ent(&dirs[i], path + l + 1, d->obj);
			objs[dirs[i].obj].nlink++;
		}
	}
	return ndirs++;
}

/* the path of entry NAME of directory D, relative to ROOT */
static const char *at(struct dir *d, const char *name)
{
	static char buf[2][4096];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", d->path, name);
	return buf[k];
}

/* a name of D's lengths not in D; byte values 0x80-0xfe in some */
static void gen_name(struct dir *d, char *out)
{
	static const char cs[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.";
	int len, i;

	do {
		len = d->lo + below(d->hi - d->lo + 1);
		for (i = 0; i < len; i++)
			out[i] = below(10) ? cs[below(sizeof(cs) - 1)] :
					     (char)(0x80 + below(0x7f));
		out[len] = 0;
	} while (!strcmp(out, ".") || !strcmp(out, "..") ||
		 find_ent(d, out) >= 0);
}

/* ---- checks */

static void check_name(struct dir *d, const char *name)
{
	int i = find_ent(d, name);
	struct stat st;

	if (fstatat(rootfd, at(d, name), &st, AT_SYMLINK_NOFOLLOW)) {
		if (i >= 0)
			die("'%s' is missing: %s", at(d, name), strerror(errno));
		if (errno != ENOENT)
			die("stat '%s': %s", at(d, name), strerror(errno));
		return;
	}
	if (i < 0)
		die("'%s' exists (inode %ju), the model has no such name",
		    at(d, name), (uintmax_t)st.st_ino);
	if (st.st_ino != objs[d->e[i].obj].ino)
		die("'%s' names inode %ju, not %ju", at(d, name),
		    (uintmax_t)st.st_ino, (uintmax_t)objs[d->e[i].obj].ino);
}

static void check_obj(int o, const char *path)
{
	struct stat st;

	if (fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW))
		die("stat '%s': %s", path, strerror(errno));
	if (st.st_ino != objs[o].ino)
		die("'%s' is inode %ju, not %ju", path, (uintmax_t)st.st_ino,
		    (uintmax_t)objs[o].ino);
	if ((int)st.st_nlink != objs[o].nlink)
		die("inode %ju ('%s'): link count %ju, want %d",
		    (uintmax_t)st.st_ino, path, (uintmax_t)st.st_nlink,
		    objs[o].nlink);
}

/* the link count of every live object with a name in D, and D's own */
static void check_links_of(int di)
{
	struct dir *d = &dirs[di];

	check_obj(d->obj, d->path);
	for (int i = 0; i < d->n; i++)
		check_obj(d->e[i].obj, at(d, d->e[i].name));
}

struct gent {
	char *name;
	ino_t ino;
};

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name,
		      ((const struct ent *)b)->name);
}

static int gent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gent *)a)->name,
		      ((const struct gent *)b)->name);
}

/* readdir of D holds exactly the model's names, each with its inode */
static void check_dir(int di)
{
	struct dir *d = &dirs[di];
	struct gent *got = NULL;
	struct ent *want;
	int n = 0, cap = 0, fd, i;
	struct dirent *de;
	DIR *dp;

	fd = openat(rootfd, d->path, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || !(dp = fdopendir(fd)))
		die("open '%s': %s", d->path, strerror(errno));
	errno = 0;
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			got = xrealloc(got, cap * sizeof(*got));
		}
		got[n].name = strdup(de->d_name);
		got[n++].ino = de->d_ino;
	}
	if (errno)
		die("readdir '%s': %s", d->path, strerror(errno));
	closedir(dp);
	want = xrealloc(NULL, (d->n + 1) * sizeof(*want));
	memcpy(want, d->e, d->n * sizeof(*want));
	qsort(got, n, sizeof(*got), gent_cmp);
	qsort(want, d->n, sizeof(*want), ent_cmp);
	for (i = 0; i < n && i < d->n; i++) {
		int c = strcmp(got[i].name, want[i].name);

		if (c < 0 || (i > 0 && !strcmp(got[i].name, got[i - 1].name)))
			die("readdir '%s': '%s' %s (%d names, model %d)",
			    d->path, got[i].name,
			    c < 0 ? "is not in the model" : "comes twice", n,
			    d->n);
		if (c > 0)
			die("readdir '%s': '%s' is missing (%d names, model %d)",
			    d->path, want[i].name, n, d->n);
		if (got[i].ino != objs[want[i].obj].ino)
			die("readdir '%s': '%s' has inode %ju, want %ju", d->path,
			    got[i].name, (uintmax_t)got[i].ino,
			    (uintmax_t)objs[want[i].obj].ino);
	}
	if (n != d->n)
		die("readdir '%s': %d names, the model has %d (first extra or missing: '%s')",
		    d->path, n, d->n, n > d->n ? got[d->n].name : want[n].name);
	for (i = 0; i < n; i++)
		free(got[i].name);
	free(got);
	free(want);
}

static void check_all(void)
{
	for (int i = 0; i < ndirs; i++) {
		check_dir(i);
		check_links_of(i);
	}
}

/* ---- operations: each one on the filesystem, then on the model */

static void op_create(int di, const char *name)
{
	struct dir *d = &dirs[di];
	struct stat st;
	int fd;

	snprintf(opdesc, sizeof(opdesc), "create '%s'", at(d, name));
	fd = openat(rootfd, at(d, name), O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0 || fstat(fd, &st))
		die("%s", strerror(errno));
	close(fd);
	add_ent(d, name, new_obj(st.st_ino, false));
	check_name(d, name);
}

static void op_mkdir(int di, const char *name)
{
	struct dir *d = &dirs[di];
	struct stat st;

	snprintf(opdesc, sizeof(opdesc), "mkdir '%s'", at(d, name));
	if (mkdirat(rootfd, at(d, name), 0755) ||
	    fstatat(rootfd, at(d, name), &st, AT_SYMLINK_NOFOLLOW))
		die("%s", strerror(errno));
	add_ent(d, name, new_obj(st.st_ino, true));
	objs[d->obj].nlink++;
	check_name(d, name);
	check_obj(d->obj, d->path);
}

static void op_link(int sdi, int si, int ddi, const char *name)
{
	struct dir *s = &dirs[sdi], *d = &dirs[ddi];
	int o = s->e[si].obj;

	snprintf(opdesc, sizeof(opdesc), "link '%s' '%s'",
		 at(s, s->e[si].name), at(d, name));
	if (linkat(rootfd, at(s, s->e[si].name), rootfd, at(d, name), 0))
		die("%s", strerror(errno));
	add_ent(d, name, o);
	objs[o].nlink++;
	check_name(d, name);
	check_obj(o, at(d, name));
}

static void op_unlink(int di, int i)
{
	struct dir *d = &dirs[di];
	int o = d->e[i].obj;
	char *name = strdup(d->e[i].name);

	snprintf(opdesc, sizeof(opdesc), "%s '%s'",
		 objs[o].is_dir ? "rmdir" : "unlink", at(d, name));
	if (unlinkat(rootfd, at(d, name), objs[o].is_dir ? AT_REMOVEDIR : 0))
		die("%s", strerror(errno));
	del_ent(d, i);
	if (objs[o].is_dir) {
		objs[o].nlink = 0;
		objs[d->obj].nlink--;
		check_obj(d->obj, d->path);
	} else if (--objs[o].nlink) {
		for (int k = 0; k < ndirs; k++)
			for (int j = 0; j < dirs[k].n; j++)
				if (dirs[k].e[j].obj == o) {
					check_obj(o, at(&dirs[k], dirs[k].e[j].name));
					k = ndirs;
					break;
				}
	}
	check_name(d, name);
	free(name);
}

/* rename entry SI of directory SDI to NAME in DDI (which may exist) */
static void op_rename(int sdi, int si, int ddi, const char *name)
{
	struct dir *s = &dirs[sdi], *d = &dirs[ddi];
	int o = s->e[si].obj, ti = find_ent(d, name);
	char *old = strdup(s->e[si].name);

	snprintf(opdesc, sizeof(opdesc), "rename '%s' '%s'%s", at(s, old),
		 at(d, name), ti >= 0 ? " (replacing)" : "");
	if (renameat(rootfd, at(s, old), rootfd, at(d, name)))
		die("%s", strerror(errno));
	if (ti >= 0 && d->e[ti].obj == o) {
		/* two links of one inode: rename(2) does nothing */
		check_name(s, old);
		check_name(d, name);
		free(old);
		return;
	}
	if (ti >= 0) {
		int t = d->e[ti].obj;

		del_ent(d, ti);
		if (objs[t].is_dir) {
			objs[t].nlink = 0;
			objs[d->obj].nlink--;
		} else {
			objs[t].nlink--;
		}
	}
	si = find_ent(s, old);
	del_ent(s, si);
	add_ent(d, name, o);
	if (objs[o].is_dir && s != d) {
		objs[s->obj].nlink--;
		objs[d->obj].nlink++;
	}
	check_name(s, old);
	check_name(d, name);
	check_obj(o, at(d, name));
	check_obj(s->obj, s->path);
	check_obj(d->obj, d->path);
	if (objs[o].is_dir) {
		char dotdot[4096];
		struct stat st;

		snprintf(dotdot, sizeof(dotdot), "%s/..", at(d, name));
		if (fstatat(rootfd, dotdot, &st, 0) || st.st_ino != objs[d->obj].ino)
			die("'%s' is not '%s'", dotdot, d->path);
	}
	free(old);
}

/* ---- the model file */

static void save_model(const char *file)
{
	FILE *f = fopen(file, "w");

	if (!f) {
		perror(file);
		exit(2);
	}
	for (int i = 0; i < ndirs; i++) {
		fprintf(f, "D\t%s\t%ju\t%d\n", dirs[i].path,
			(uintmax_t)objs[dirs[i].obj].ino, objs[dirs[i].obj].nlink);
		for (int j = 0; j < dirs[i].n; j++) {
			struct obj *o = &objs[dirs[i].e[j].obj];

			fprintf(f, "E\t%s\t%ju\t%c\t%d\n", dirs[i].e[j].name,
				(uintmax_t)o->ino, o->is_dir ? 'd' : 'f', o->nlink);
		}
	}
	if (fclose(f)) {
		perror(file);
		exit(2);
	}
}

static int obj_by_ino(ino_t ino, bool is_dir, int nlink)
{
	for (int i = 0; i < nobjs; i++)
		if (objs[i].ino == ino)
			return i;
	int o = new_obj(ino, is_dir);

	objs[o].nlink = nlink;
	return o;
}

static void load_model(const char *file)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		perror(file);
		exit(2);
	}
	while (getline(&line, &cap, f) > 0) {
		char *fld[5], *p = line;
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		while (n < 5 && (fld[n] = strsep(&p, "\t")))
			n++;
		if (n == 4 && line[0] == 'D') {
			struct dir *d = &dirs[ndirs++];

			memset(d, 0, sizeof(*d));
			d->path = strdup(fld[1]);
			d->obj = obj_by_ino(strtoull(fld[2], NULL, 10), true,
					    atoi(fld[3]));
		} else if (n == 5 && line[0] == 'E' && ndirs) {
			add_ent(&dirs[ndirs - 1], fld[1],
				obj_by_ino(strtoull(fld[2], NULL, 10),
					   fld[3][0] == 'd', atoi(fld[4])));
		} else {
			fprintf(stderr, "renamemix: %s: bad line\n", file);
			exit(2);
		}
	}
	free(line);
	fclose(f);
}

/* ---- the runs */

static void pad_name(char *out, int len, const char *fmt, int k)
{
	int n = snprintf(out, NAME_MAX_LEN + 1, fmt, k);

	while (n < len)
		out[n++] = 'x';
	out[len] = 0;
}

static void run_seq16(void)
{
	char name[NAME_MAX_LEN + 1], old[NAME_MAX_LEN + 1];
	int d = add_dir("s16", 50, 50);

	for (int k = 0; k < 16; k++) {
		step++;
		pad_name(name, 50, "old-%d-", k);
		op_create(d, name);
	}
	step++;
	pad_name(name, 50, "new-%d-", 0);
	pad_name(old, 50, "old-%d-", 0);
	op_rename(d, find_ent(&dirs[d], old), d, name);
	check_all();
}

static void run_split40(void)
{
	char name[NAME_MAX_LEN + 1], old[NAME_MAX_LEN + 1], path[64];

	add_dir("split", 1, 1);
	for (int k = 0; k < 40; k++) {
		snprintf(path, sizeof(path), "split/d%02d", k);
		add_dir(path, 250, 250);
	}
	for (int k = 1; k <= 40; k++) {
		for (int j = 0; j < 12; j++) {
			step++;
			pad_name(name, 250, "old-%02d-", j);
			op_create(k, name);
		}
		for (int j = 0; j < 12; j++) {
			step++;
			pad_name(old, 250, "old-%02d-", j);
			pad_name(name, 250, "new-%02d-", j);
			op_rename(k, find_ent(&dirs[k], old), k, name);
		}
		check_dir(k);
	}
	check_all();
}

/* a random entry of D of the type wanted (-1: any); -1 when none */
static int pick(int di, int want_dir)
{
	struct dir *d = &dirs[di];

	if (!d->n)
		return -1;
	for (int tries = 0; tries < 16; tries++) {
		int i = below(d->n);

		if (want_dir < 0 || objs[d->e[i].obj].is_dir == want_dir)
			return i;
	}
	return -1;
}

static void run_mix(long steps, long every)
{
	char name[NAME_MAX_LEN + 1];
	int base;

	add_dir("mix", 1, 1);
	base = ndirs;
	add_dir("mix/d0", 200, 255);
	for (int k = 1; k < 4; k++) {
		snprintf(name, sizeof(name), "mix/d%d", k);
		add_dir(name, 1, 255);
	}
	for (step = 1; step <= steps; step++) {
		/*
		 * Growth for the first 60% of the steps (adds 55, links 15,
		 * removals 10, renames 20 in 100), then churn (adds 12, links
		 * 4, removals 16, renames 68).
		 */
		bool growth = step < steps * 6 / 10;
		int add = growth ? 55 : 12, lnk = add + (growth ? 15 : 4);
		int rm = lnk + (growth ? 10 : 16);
		int r = below(100), di = base + below(4), i, dj;

		if (r < add) {
			gen_name(&dirs[di], name);
			if (below(20))
				op_create(di, name);
			else
				op_mkdir(di, name);
		} else if (r < lnk) {
			i = pick(di, 0);
			dj = base + below(4);
			if (i < 0 || objs[dirs[di].e[i].obj].nlink >= 8)
				continue;
			gen_name(&dirs[dj], name);
			op_link(di, i, dj, name);
		} else if (r < rm) {
			i = pick(di, -1);
			if (i < 0)
				continue;
			op_unlink(di, i);
		} else {
			i = pick(di, -1);
			if (i < 0)
				continue;
			r = below(4);
			dj = r < 2 ? di : base + below(4);
			if (r == 3) {
				/* onto an existing name of the same type */
				int t = pick(dj, objs[dirs[di].e[i].obj].is_dir);

				if (t < 0 || (dj == di && t == i))
					continue;
				snprintf(name, sizeof(name), "%s", dirs[dj].e[t].name);
			} else {
				gen_name(&dirs[dj], name);
			}
			op_rename(di, i, dj, name);
		}
		if (every && step % every == 0)
			check_all();
	}
	step = steps;
	snprintf(opdesc, sizeof(opdesc), "final check");
	check_all();
}

static void usage(void)
{
	fprintf(stderr, "usage: renamemix seq16|split40|verify -m MODEL ROOT\n"
			"       renamemix mix -s SEED -n STEPS [-f EVERY] -m MODEL ROOT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode, *model = NULL;
	long steps = 2000, every = 50;
	uint64_t seed = 1;
	int c;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "s:n:f:m:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			steps = strtol(optarg, NULL, 0);
			break;
		case 'f':
			every = strtol(optarg, NULL, 0);
			break;
		case 'm':
			model = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || !model)
		usage();
	rootfd = open(argv[optind], O_RDONLY | O_DIRECTORY);
	if (rootfd < 0) {
		perror(argv[optind]);
		return 2;
	}
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	snprintf(opdesc, sizeof(opdesc), "setup");
	if (!strcmp(mode, "seq16")) {
		run_seq16();
	} else if (!strcmp(mode, "split40")) {
		run_split40();
	} else if (!strcmp(mode, "mix")) {
		printf("seed=%" PRIu64 "\n", seed);
		run_mix(steps, every);
	} else if (!strcmp(mode, "verify")) {
		load_model(model);
		snprintf(opdesc, sizeof(opdesc), "verify after remount");
		check_all();
		printf("renamemix: verify: %d directories, %d objects as in the model\n",
		       ndirs, nobjs);
		return 0;
	} else {
		usage();
	}
	save_model(model);
	{
		long names = 0;

		for (int i = 0; i < ndirs; i++)
			names += dirs[i].n;
		printf("renamemix: %s: %ld steps, %d directories, %ld names, all as in the model\n",
		       mode, step, ndirs, names);
	}
	return 0;
}
