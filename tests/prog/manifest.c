// SPDX-License-Identifier: GPL-2.0
/*
 * manifest - print a sorted, comparable description of a directory tree.
 *
 *   manifest [-t] [-x NAME]... DIR
 *
 * One line per entry, sorted by path (bytewise), root first as ".":
 *
 *   PATH TYPE mode=OOOO uid=U gid=G nlink=N ...  (the root "." has no
 *   nlink and no mtime: they depend on lost+found and on mkfs)
 *     f: size=N hash=SHA256 [link=FIRSTPATH]
 *     d: entries=N names=SHA256 (hash of the sorted entry names)
 *     l: target=ESCAPED
 *     c/b: rdev=MAJ:MIN
 *     p/s: nothing more
 *   -t adds mtime=SEC.
 *
 * File content is hashed as SHA-256 of the stream of every 4096-byte chunk
 * that is not all zeros, each preceded by its 8-byte little-endian offset,
 * then the 8-byte size: a function of the bytes only, but cheap on sparse
 * files.  link= names the first path (in sort order) of the same inode, so
 * hard-link structure compares without inode numbers.  -x NAME skips NAME
 * in the top directory (e.g. lost+found).  Names are escaped: bytes outside
 * 0x21..0x7e and '\' become \xHH.
 *
 * The same program runs on the host and in the guest; identical trees give
 * identical output.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- SHA-256 (FIPS 180-4) ---- */
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t n;
};

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) +
		     sha_k[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->n = 0;
}

static void sha_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->len += len;
	if (s->n) {
		while (len && s->n < 64) {
			s->buf[s->n++] = *p++;
			len--;
		}
		if (s->n < 64)
			return;
		sha_block(s, s->buf);
		s->n = 0;
	}
	while (len >= 64) {
		sha_block(s, p);
		p += 64;
		len -= 64;
	}
	memcpy(s->buf, p, len);
	s->n = len;
}

static void sha_final(struct sha256 *s, char out[65])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, z = 0, lenb[8];
	int i;

	sha_update(s, &pad, 1);
	while (s->n != 56)
		sha_update(s, &z, 1);
	for (i = 0; i < 8; i++)
		lenb[i] = bits >> (56 - 8 * i);
	sha_update(s, lenb, 8);
	for (i = 0; i < 8; i++)
		sprintf(out + 8 * i, "%08x", s->h[i]);
	out[64] = 0;
}

/* ---- tree walk ---- */
struct ent {
	char *path;	/* escaped, relative, "." for the root */
	char *line;	/* everything after the path */
	dev_t dev;
	ino_t ino;
	int multi;	/* regular file with nlink > 1 */
	const char *first;	/* first path of the same inode, if multi */
};

static struct ent *ents;
static size_t nents, cap;
static int with_mtime;
static char **excl;
static int nexcl;
static int errors;

static char *escape(const char *s, size_t len)
{
	char *o = malloc(len * 4 + 1), *q = o;
	size_t i;

	if (!o)
		exit(2);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c < 0x21 || c > 0x7e || c == '\\')
			q += sprintf(q, "\\x%02x", c);
		else
			*q++ = c;
	}
	*q = 0;
	return o;
}

/* Read up to len bytes, fewer only at end of file. */
static ssize_t read_full(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

static int hash_file(const char *path, char out[65])
{
	static unsigned char buf[1 << 16];
	static const unsigned char zero[4096];
	struct sha256 s;
	uint64_t off = 0;
	unsigned char le[8];
	int fd, i;

	fd = open(path, O_RDONLY | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	sha_init(&s);
	for (;;) {
		ssize_t n = read_full(fd, buf, sizeof(buf)), k;

		if (n < 0) {
			close(fd);
			return -1;
		}
		for (k = 0; k < n; k += 4096) {
			size_t len = n - k < 4096 ? n - k : 4096;

			if (memcmp(buf + k, zero, len)) {
				for (i = 0; i < 8; i++)
					le[i] = off >> (8 * i);
				sha_update(&s, le, 8);
				sha_update(&s, buf + k, len);
			}
			off += len;
		}
		if (n < (ssize_t)sizeof(buf))
			break;
	}
	close(fd);
	for (i = 0; i < 8; i++)
		le[i] = off >> (8 * i);
	sha_update(&s, le, 8);
	sha_final(&s, out);
	return 0;
}

static void add(char *path, char *line, const struct stat *st)
{
	if (nents == cap) {
		cap = cap ? cap * 2 : 1024;
		ents = realloc(ents, cap * sizeof(*ents));
		if (!ents)
			exit(2);
	}
	ents[nents].path = path;
	ents[nents].line = line;
	ents[nents].dev = st->st_dev;
	ents[nents].ino = st->st_ino;
	ents[nents].multi = S_ISREG(st->st_mode) && st->st_nlink > 1;
	ents[nents].first = NULL;
	nents++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int excluded(const char *name)
{
	int i;

	for (i = 0; i < nexcl; i++)
		if (!strcmp(name, excl[i]))
			return 1;
	return 0;
}

static void walk(const char *fs_path, const char *rel, int top)
{
	struct stat st;
	char *line = NULL, extra[1200], hash[65], mt[40] = "";
	size_t sz = 0;
	FILE *f;

	if (lstat(fs_path, &st)) {
		fprintf(stderr, "manifest: lstat %s: %s\n", fs_path, strerror(errno));
		errors++;
		return;
	}
	if (with_mtime)
		snprintf(mt, sizeof(mt), " mtime=%lld", (long long)st.st_mtime);
	f = open_memstream(&line, &sz);
	if (!f)
		exit(2);
	if (S_ISREG(st.st_mode)) {
		if (hash_file(fs_path, hash)) {
			fprintf(stderr, "manifest: read %s: %s\n", fs_path, strerror(errno));
			errors++;
			strcpy(hash, "READ-ERROR");
		}
		fprintf(f, " f mode=%04o uid=%u gid=%u nlink=%lu size=%lld hash=%s%s",
			st.st_mode & 07777, st.st_uid, st.st_gid,
			(unsigned long)st.st_nlink, (long long)st.st_size, hash, mt);
	} else if (S_ISLNK(st.st_mode)) {
		char tgt[8192];
		ssize_t n = readlink(fs_path, tgt, sizeof(tgt));
		char *e;

		if (n < 0) {
			fprintf(stderr, "manifest: readlink %s: %s\n", fs_path, strerror(errno));
			errors++;
			n = 0;
		}
		e = escape(tgt, n);
		fprintf(f, " l uid=%u gid=%u nlink=%lu size=%lld target=%s%s",
			st.st_uid, st.st_gid, (unsigned long)st.st_nlink,
			(long long)st.st_size, e, mt);
		free(e);
	} else if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(fs_path);
		struct dirent *de;
		char **names = NULL;
		size_t nn = 0, nc = 0, i;
		struct sha256 s;

		if (!d) {
			fprintf(stderr, "manifest: opendir %s: %s\n", fs_path, strerror(errno));
			errors++;
		}
		while (d && (errno = 0, de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (top && excluded(de->d_name))
				continue;
			if (nn == nc) {
				nc = nc ? nc * 2 : 64;
				names = realloc(names, nc * sizeof(*names));
				if (!names)
					exit(2);
			}
			names[nn++] = strdup(de->d_name);
		}
		if (d && errno) {
			fprintf(stderr, "manifest: readdir %s: %s\n", fs_path, strerror(errno));
			errors++;
		}
		if (d)
			closedir(d);
		qsort(names, nn, sizeof(*names), cmp_str);
		sha_init(&s);
		for (i = 0; i < nn; i++)
			sha_update(&s, names[i], strlen(names[i]) + 1);
		sha_final(&s, hash);
		if (top)	/* nlink, mtime depend on lost+found, mkfs */
			fprintf(f, " d mode=%04o uid=%u gid=%u entries=%zu names=%s",
				st.st_mode & 07777, st.st_uid, st.st_gid, nn, hash);
		else
			fprintf(f, " d mode=%04o uid=%u gid=%u nlink=%lu entries=%zu names=%s%s",
				st.st_mode & 07777, st.st_uid, st.st_gid,
				(unsigned long)st.st_nlink, nn, hash, mt);
		fclose(f);
		add(strdup(rel), line, &st);
		for (i = 0; i < nn; i++) {
			char *cfs, *crel, *e = escape(names[i], strlen(names[i]));

			if (asprintf(&cfs, "%s/%s", fs_path, names[i]) < 0)
				exit(2);
			if (top) {
				crel = e;
			} else {
				if (asprintf(&crel, "%s/%s", rel, e) < 0)
					exit(2);
				free(e);
			}
			walk(cfs, crel, 0);
			free(cfs);
			free(crel);
			free(names[i]);
		}
		free(names);
		return;
	} else {
		char t = S_ISCHR(st.st_mode) ? 'c' : S_ISBLK(st.st_mode) ? 'b' :
			 S_ISFIFO(st.st_mode) ? 'p' : S_ISSOCK(st.st_mode) ? 's' : '?';

		extra[0] = 0;
		if (t == 'c' || t == 'b')
			snprintf(extra, sizeof(extra), " rdev=%u:%u",
				 major(st.st_rdev), minor(st.st_rdev));
		fprintf(f, " %c mode=%04o uid=%u gid=%u nlink=%lu%s%s", t,
			st.st_mode & 07777, st.st_uid, st.st_gid,
			(unsigned long)st.st_nlink, extra, mt);
	}
	fclose(f);
	add(strdup(rel), line, &st);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (!strcmp(x->path, "."))
		return -1;
	if (!strcmp(y->path, "."))
		return 1;
	return strcmp(x->path, y->path);
}

static int cmp_ino(const void *a, const void *b)
{
	const struct ent *x = *(struct ent *const *)a, *y = *(struct ent *const *)b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Give every multi-link file the first path (in path order) of its inode. */
static void link_first(void)
{
	struct ent **v = calloc(nents + 1, sizeof(*v));
	size_t i, n = 0;

	if (!v)
		exit(2);
	for (i = 0; i < nents; i++)
		if (ents[i].multi)
			v[n++] = &ents[i];
	qsort(v, n, sizeof(*v), cmp_ino);
	for (i = 0; i < n; i++)
		v[i]->first = (i && v[i - 1]->dev == v[i]->dev &&
			       v[i - 1]->ino == v[i]->ino) ?
			      v[i - 1]->first : v[i]->path;
	free(v);
}

int main(int argc, char **argv)
{
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "tx:")) != -1) {
		switch (c) {
		case 't':
			with_mtime = 1;
			break;
		case 'x':
			excl = realloc(excl, (nexcl + 1) * sizeof(*excl));
			if (!excl)
				return 2;
			excl[nexcl++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: manifest [-t] [-x NAME]... DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: manifest [-t] [-x NAME]... DIR\n");
		return 2;
	}
	walk(argv[optind], ".", 1);
	qsort(ents, nents, sizeof(*ents), cmp_ent);
	link_first();
	for (i = 0; i < nents; i++)
		printf("%s%s%s%s\n", ents[i].path, ents[i].line,
		       ents[i].first ? " link=" : "",
		       ents[i].first ? ents[i].first : "");
	if (fflush(stdout) || errors) {
		fprintf(stderr, "manifest: %d errors\n", errors);
		return 1;
	}
	return 0;
}
