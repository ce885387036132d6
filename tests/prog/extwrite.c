// SPDX-License-Identifier: GPL-2.0
/*
 * extwrite - a write beyond EOF grows the file only together with its data.
 *
 *   extwrite DIR ok|fail|dio
 *
 * A file of 1000 bytes; a thread writes 2048 bytes at 8192 from a buffer
 * whose page is missing and registered with userfaultfd, so the write
 * blocks inside write(2) while it faults its source in.  While it is
 * blocked:
 *   - stat must still show 1000 bytes (the data is not in yet);
 *   - a store through a shared mapping into the page at 4096, wholly beyond
 *     the old EOF page, must raise SIGBUS, as for any page beyond EOF.
 * Then "fail" unmaps the buffer and closes the userfaultfd: the write
 * fails with EFAULT and the file must be unchanged.  "ok" resolves
 * the fault with a pattern: the write completes, the file is 10240 bytes,
 * [1000, 8192) reads zero and [8192, 10240) is the pattern.
 *
 * "dio" is an O_DIRECT write of 512 bytes at EOF (1536, inside the EOF
 * page) blocked on its source page after the page cache was invalidated:
 * a store through a mapping beyond EOF made then must not end up over the
 * written data once the file has grown (in the cache or after writeback).
 *
 * Last line: "extwrite <mode>: ok ..." or "extwrite <mode>: BUG - ...".
 * Exit 0 ok, 1 bug, 2 setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common.h"

static int old_size = 1000, wpos = 8192, wlen = 2048;
#define OLD_SIZE	old_size
#define WPOS		wpos
#define WLEN		wlen

static const char *mode;
static int fd, wfd;
static char *src;
static ssize_t wret;
static int werr;
static sigjmp_buf jb;
static int dio;

#define die(...) die_setup("extwrite", mode, __VA_ARGS__)

static int bug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bug(const char *fmt, ...)
{
	va_list ap;

	printf("extwrite %s: BUG - ", mode);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return 1;
}

static void *writer(void *arg)
{
	(void)arg;
	wret = pwrite(wfd, src, WLEN, WPOS);
	werr = wret < 0 ? errno : 0;
	return NULL;
}

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

static off_t fsize(void)
{
	struct stat st;

	if (fstat(fd, &st))
		die("fstat");
	return st.st_size;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct uffd_msg msg;
	struct pollfd pfd;
	volatile char *map;
	char path[4096], d[1536], *buf;
	long psize = sysconf(_SC_PAGESIZE);
	pthread_t th;
	int uffd, i, k;
	volatile int sigbus, rc = 0;
	off_t during;

	if (argc != 3 || (strcmp(argv[2], "ok") && strcmp(argv[2], "fail") &&
			  strcmp(argv[2], "dio"))) {
		fprintf(stderr, "usage: extwrite DIR ok|fail|dio\n");
		return 2;
	}
	mode = argv[2];
	dio = !strcmp(mode, "dio");
	if (dio) {
		old_size = 1536;
		wpos = 1536;
		wlen = 512;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(path, sizeof(path), "%s/extwrite.%s", argv[1], mode);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s", path);
	memset(d, 'D', sizeof(d));
	if (pwrite(fd, d, OLD_SIZE, 0) != OLD_SIZE)
		die("pwrite");
	wfd = dio ? open(path, O_RDWR | O_DIRECT) : fd;
	if (wfd < 0)
		die("open O_DIRECT");

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		die("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		die("UFFDIO_API");
	src = mmap(NULL, psize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		die("mmap source");
	reg.range.start = (unsigned long)src;
	reg.range.len = psize;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");

	if (pthread_create(&th, NULL, writer, NULL))
		die("pthread_create");
	pfd.fd = uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 20000) != 1)
		die("the write never faulted on its source buffer");
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		die("userfaultfd message");

	/* The writer is blocked inside write(2), before its data is in. */
	during = fsize();
	if (during != OLD_SIZE)
		rc = bug("stat shows %lld bytes while the write beyond EOF has copied nothing (old size %d)",
			 (long long)during, OLD_SIZE);

	map = mmap(NULL, 3 * psize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap file");
	sigaction(SIGBUS, &sa, NULL);
	sigbus = 0;
	if (sigsetjmp(jb, 1))
		sigbus = 1;
	else if (dio)
		memset((char *)map + OLD_SIZE, 'J', psize - OLD_SIZE);
	else
		map[psize + 100] = 'J';
	signal(SIGBUS, SIG_DFL);
	if (dio && sigbus)
		die("SIGBUS on a store into the EOF page");
	if (!dio && !sigbus && !rc)
		rc = bug("a store into the page at %ld, beyond the old EOF page, was accepted while the write was blocked",
			 psize);
	munmap((void *)map, 3 * psize);

	if (!strcmp(mode, "fail")) {
		munmap(src, psize);
		close(uffd);
	} else {
		struct uffdio_copy cp = { 0 };

		buf = mmap(NULL, psize, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			die("mmap");
		memset(buf, 'X', psize);
		cp.dst = (unsigned long)src;
		cp.src = (unsigned long)buf;
		cp.len = psize;
		if (ioctl(uffd, UFFDIO_COPY, &cp))
			die("UFFDIO_COPY");
	}
	pthread_join(th, NULL);

	if (!strcmp(mode, "fail")) {
		if (wret >= 0 || werr != EFAULT)
			die("the write returned %zd (%s), not EFAULT", wret,
			    strerror(werr));
		if (fsize() != OLD_SIZE && !rc)
			rc = bug("size %lld after the failed write", (long long)fsize());
		memset(d, 0, sizeof(d));
		if (pread(fd, d, sizeof(d), 0) != OLD_SIZE)
			die("pread");
		for (i = 0; i < OLD_SIZE; i++)
			if (d[i] != 'D' && !rc)
				rc = bug("byte %d changed by the failed write", i);
	} else {
		char *all = calloc(1, WPOS + WLEN + 1);

		if (!all)
			die("calloc");
		if (wret != WLEN)
			die("the write returned %zd (%s)", wret, strerror(werr));
		if (fsize() != WPOS + WLEN && !rc)
			rc = bug("size %lld after the write, not %d",
				 (long long)fsize(), WPOS + WLEN);
		for (k = 0; k < 2 && !rc; k++) {
			/* the page cache, then the disk */
			if (k && (fsync(fd) ||
				  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)))
				die("fsync/fadvise");
			if (pread(fd, all, WPOS + WLEN + 1, 0) != WPOS + WLEN)
				die("pread all");
			for (i = OLD_SIZE; i < WPOS + WLEN && !rc; i++) {
				char want = i < WPOS ? 0 : 'X';

				if (all[i] != want)
					rc = bug("byte %d is 0x%02x, not 0x%02x (%s)", i,
						 (unsigned char)all[i], want,
						 k ? "after writeback and a cache drop" :
						     "in the page cache");
			}
		}
		free(all);
	}
	if (wfd != fd)
		close(wfd);
	close(fd);
	if (!rc)
		printf("extwrite %s: ok - %s\n", mode,
		       dio ? "a store beyond EOF while the direct write waited did not reach the data" :
		       !strcmp(mode, "fail") ? "size unchanged and SIGBUS beyond the old EOF page while the write waited; the failed write left the file as it was" :
		       "size unchanged and SIGBUS beyond the old EOF page while the write waited; hole zero and data in after it");
	return rc;
}
