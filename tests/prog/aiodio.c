// SPDX-License-Identifier: GPL-2.0
/*
 * aiodio - many asynchronous O_DIRECT writes (O_DSYNC optional) in flight
 * inside a file while other writers grow it beyond EOF and shrink it, the
 * load of fstests' generic/113 (aio-stress -O -S) with a data check.
 *
 *   aiodio FILE [-S] [-t SECONDS] [-j THREADS] [-d DEPTH] [-s SEED]
 *
 * THREADS threads each keep DEPTH 4 KiB writes in flight through one AIO
 * context (io_submit/io_getevents, raw system calls) into the first
 * BASE bytes of FILE, opened O_DIRECT (and O_DSYNC with -S, so that every
 * completion runs fsync from the direct I/O completion workqueue).  One
 * more thread writes beyond EOF (O_DIRECT and buffered, with a gap) and
 * truncates back to BASE.  A block always holds the pattern of its offset,
 * so the end checks that every block of [0, BASE) reads back as it should.
 *
 * A hang is the harness's timeout; the last line is "aiodio: ok ..." or
 * "aiodio: BUG - ...".  Exit 0 ok, 1 bug, 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "common.h"

#define BS	4096
#define BASE	(4L << 20)
#define NBLK	(BASE / BS)

static const char *path;
static int dsync, depth = 16, nthreads = 4, secs = 20;
static unsigned int seed = 1;
static volatile int stop;
static long long nwrites, ngrow;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define die(...) die_setup("aiodio", NULL, __VA_ARGS__)

static void pattern(uint64_t *p, off_t off)
{
	size_t i;

	for (i = 0; i < BS / 8; i++)
		p[i] = (uint64_t)off * 0x9e3779b97f4a7c15ULL + i;
}

static void *aio_thread(void *arg)
{
	unsigned int r = seed + (unsigned int)(uintptr_t)arg * 7919;
	aio_context_t ctx = 0;
	struct iocb *cbs = calloc(depth, sizeof(*cbs));
	struct iocb **ptrs = calloc(depth, sizeof(*ptrs));
	struct io_event *ev = calloc(depth, sizeof(*ev));
	char *bufs;
	int fd, i, n;

	fd = open(path, O_RDWR | O_DIRECT | (dsync ? O_DSYNC : 0));
	if (fd < 0)
		die("open O_DIRECT");
	if (!cbs || !ptrs || !ev ||
	    posix_memalign((void **)&bufs, BS, (size_t)depth * BS))
		die("alloc");
	if (syscall(__NR_io_setup, depth, &ctx))
		die("io_setup");
	while (!stop) {
		for (i = 0; i < depth; i++) {
			off_t off = (off_t)(rand_r(&r) % NBLK) * BS;

			pattern((uint64_t *)(bufs + (size_t)i * BS), off);
			memset(&cbs[i], 0, sizeof(cbs[i]));
			cbs[i].aio_fildes = fd;
			cbs[i].aio_lio_opcode = IOCB_CMD_PWRITE;
			cbs[i].aio_buf = (uintptr_t)(bufs + (size_t)i * BS);
			cbs[i].aio_nbytes = BS;
			cbs[i].aio_offset = off;
			ptrs[i] = &cbs[i];
		}
		n = syscall(__NR_io_submit, ctx, depth, ptrs);
		if (n < 0)
			die("io_submit");
		for (i = 0; i < n; ) {
			int got = syscall(__NR_io_getevents, ctx, 1, n - i, ev,
					  NULL);

			if (got < 0) {
				if (errno == EINTR)
					continue;
				die("io_getevents");
			}
			for (int k = 0; k < got; k++)
				if (ev[k].res != BS) {
					errno = ev[k].res < 0 ? -ev[k].res : 0;
					die("AIO write returned %lld",
					    (long long)ev[k].res);
				}
			i += got;
		}
		pthread_mutex_lock(&lock);
		nwrites += n;
		pthread_mutex_unlock(&lock);
	}
	syscall(__NR_io_destroy, ctx);
	close(fd);
	free(bufs);
	free(cbs);
	free(ptrs);
	free(ev);
	return NULL;
}

/* Writes beyond EOF, direct and buffered, with gaps; then back to BASE. */
static void *grow_thread(void *arg)
{
	unsigned int r = seed ^ 0x5a5a;
	int dfd, bfd, k = 0;
	char *buf;

	(void)arg;
	dfd = open(path, O_RDWR | O_DIRECT | (dsync ? O_DSYNC : 0));
	bfd = open(path, O_RDWR);
	if (dfd < 0 || bfd < 0 || posix_memalign((void **)&buf, BS, BS))
		die("open/alloc");
	memset(buf, 'g', BS);
	while (!stop) {
		off_t off = BASE + (off_t)(1 + rand_r(&r) % 64) * BS;
		ssize_t n;

		if (k++ % 2)
			n = pwrite(dfd, buf, BS, off);
		else
			n = pwrite(bfd, buf, 100, off + 300);
		if (n < 0)
			die("write beyond EOF at %lld", (long long)off);
		if (k % 8 == 0 && ftruncate(bfd, BASE))
			die("ftruncate");
		pthread_mutex_lock(&lock);
		ngrow++;
		pthread_mutex_unlock(&lock);
	}
	close(dfd);
	close(bfd);
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[65], gth;
	uint64_t *want, *got;
	off_t off;
	int fd, opt, i;
	long long bad = 0;

	while ((opt = getopt(argc, argv, "St:j:d:s:")) != -1) {
		switch (opt) {
		case 'S':
			dsync = 1;
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'j':
			nthreads = atoi(optarg);
			break;
		case 'd':
			depth = atoi(optarg);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || nthreads < 1 || nthreads > 64 || depth < 1)
		die("usage: aiodio FILE [-S] [-t SECONDS] [-j THREADS] [-d DEPTH] [-s SEED]");
	path = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("aiodio: seed=%u threads=%d depth=%d %s %ds\n", seed, nthreads,
	       depth, dsync ? "O_DIRECT|O_DSYNC" : "O_DIRECT", secs);

	/* every block starts with its pattern */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	want = malloc(BS);
	got = malloc(BS);
	if (fd < 0 || !want || !got)
		die("open %s", path);
	for (off = 0; off < BASE; off += BS) {
		pattern(want, off);
		if (pwrite(fd, want, BS, off) != BS)
			die("pwrite");
	}
	if (fsync(fd))
		die("fsync");

	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, aio_thread, (void *)(uintptr_t)i))
			die("pthread_create");
	if (pthread_create(&gth, NULL, grow_thread, NULL))
		die("pthread_create");
	sleep(secs);
	stop = 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	pthread_join(gth, NULL);

	if (ftruncate(fd, BASE) || fsync(fd))
		die("final ftruncate/fsync");
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (off = 0; off < BASE; off += BS) {
		pattern(want, off);
		if (pread(fd, got, BS, off) != BS)
			die("pread");
		if (memcmp(want, got, BS) && !bad++)
			printf("aiodio: first bad block at %lld\n", (long long)off);
	}
	close(fd);
	printf("aiodio: %lld AIO writes, %lld writes beyond EOF\n", nwrites, ngrow);
	if (bad) {
		printf("aiodio: BUG - %lld blocks do not hold their pattern\n", bad);
		return 1;
	}
	if (!nwrites || !ngrow)
		die("no progress (%lld AIO writes, %lld beyond EOF)", nwrites, ngrow);
	printf("aiodio: ok - every block holds its pattern\n");
	return 0;
}
