// SPDX-License-Identifier: GPL-2.0
/*
 * ioerr - drive one I/O-error scenario around a device-table switch
 *
 * usage:
 *   ioerr wb-fsync FILE CMD      write 64 KiB, fsync (must work), overwrite
 *                                it, run CMD (makes writes fail), fsync:
 *                                must fail with EIO
 *   ioerr mmap-msync FILE CMD    ftruncate to 64 KiB, store through a
 *                                shared mapping into every page, run CMD,
 *                                msync(MS_SYNC): must fail with EIO
 *   ioerr mmap-dio FILE CMD      write 64 KiB of 0x5A to FILE.old, fsync,
 *                                unlink it (its blocks go back free with
 *                                those bytes on disk, and FILE, created
 *                                next by this process, takes them), then
 *                                as mmap-msync; then O_DIRECT reads of
 *                                FILE, whose writes failed: no byte may be
 *                                0x5A (the blocks are still
 *                                pending); prints STALE when one is, else
 *                                msync's result
 *   ioerr mkwrite FILE OFF CMD   map FILE shared, read-fault the page at
 *                                OFF, run CMD (makes a metadata read fail),
 *                                store into that page: prints SIGBUS if the
 *                                store faults, else msync's result
 *   ioerr fill FILE OFF LEN CMD  run CMD (makes some metadata write fail),
 *                                pwrite LEN bytes of 'f' at OFF (into a
 *                                hole), fsync: prints its result
 *
 * CMD is run with system(3) between the two phases.  The last line printed
 * is "ioerr: RESULT" where RESULT is EIO, SIGBUS, OK or another errno name;
 * exit status 0 when the run itself worked (whatever RESULT), 1 on setup
 * errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define IOERR_LEN	(64 * 1024)

static sigjmp_buf ioerr_jmp;

static void ioerr_sigbus(int sig)
{
	(void)sig;
	siglongjmp(ioerr_jmp, 1);
}

static void setup_fail(const char *what)
{
	printf("ioerr: setup failed: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void run(const char *cmd)
{
	int rc;

	fflush(stdout);
	rc = system(cmd);
	printf("ioerr: command '%s' -> %d\n", cmd, rc);
	if (rc != 0) {
		printf("ioerr: setup failed: the command failed\n");
		exit(1);
	}
}

static void result(int err)
{
	if (!err)
		printf("ioerr: OK\n");
	else if (err == EIO)
		printf("ioerr: EIO\n");
	else
		printf("ioerr: %s\n", strerrorname_np(err) ? strerrorname_np(err) : "E?");
}

static int wb_fsync(const char *file, const char *cmd)
{
	char *buf = malloc(IOERR_LEN);
	volatile int err = 0;
	int fd;

	if (!buf)
		setup_fail("malloc");
	memset(buf, 'a', IOERR_LEN);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		setup_fail("open");
	if (pwrite(fd, buf, IOERR_LEN, 0) != IOERR_LEN)
		setup_fail("first write");
	if (fsync(fd))
		setup_fail("first fsync");
	memset(buf, 'b', IOERR_LEN);
	if (pwrite(fd, buf, IOERR_LEN, 0) != IOERR_LEN)
		setup_fail("overwrite");
	run(cmd);
	if (fsync(fd))
		err = errno;
	printf("ioerr: fsync after failing writeback: %s\n", err ? strerror(err) : "ok");
	if (fsync(fd))
		printf("ioerr: second fsync: %s\n", strerror(errno));
	else
		printf("ioerr: second fsync: ok\n");
	close(fd);
	free(buf);
	result(err);
	return 0;
}

/*
 * mmap-dio: a deleted file's bytes on the blocks FILE gets; after a
 * failed msync, O_DIRECT reads of FILE (the first may return the
 * writeback error) must not show them.
 */
static int stale_after_error(const char *file)
{
	unsigned char *buf;
	int fd, i, stale = 0, tries;
	long k;

	fd = open(file, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, IOERR_LEN))
		setup_fail("open O_DIRECT");
	for (tries = 0; tries < 2; tries++) {
		ssize_t got = pread(fd, buf, IOERR_LEN, 0);

		printf("ioerr: O_DIRECT read %d: %s\n", tries + 1,
		       got < 0 ? strerror(errno) : "ok");
		if (got == IOERR_LEN)
			break;
	}
	if (tries == 2)
		setup_fail("O_DIRECT read");
	for (k = 0; k < IOERR_LEN; k++)
		stale += buf[k] == 0x5A;
	for (i = 0; i < IOERR_LEN / 1024; i++)
		printf("%c", buf[i * 1024] == 0x5A ? 'S' : buf[i * 1024] ? 'c' : '0');
	printf(" (per 1 KiB block: S deleted file's bytes, c the store, 0 zero)\n");
	printf("ioerr: %d bytes of the deleted file read by O_DIRECT\n", stale);
	close(fd);
	free(buf);
	return stale;
}

static void make_stale(const char *file)
{
	char old[4096], *buf = malloc(IOERR_LEN);
	int fd;

	snprintf(old, sizeof(old), "%s.old", file);
	fd = open(old, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !buf)
		setup_fail("open old");
	memset(buf, 0x5A, IOERR_LEN);
	if (pwrite(fd, buf, IOERR_LEN, 0) != IOERR_LEN || fsync(fd))
		setup_fail("write old");
	close(fd);
	if (unlink(old))
		setup_fail("unlink old");
	free(buf);
}

static int mmap_msync(const char *file, const char *cmd, int dio)
{
	volatile char *p;
	volatile int err = 0;
	int fd;
	long i;

	if (dio)
		make_stale(file);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		setup_fail("open");
	if (ftruncate(fd, IOERR_LEN))
		setup_fail("ftruncate");
	p = mmap(NULL, IOERR_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		setup_fail("mmap");
	if (sigsetjmp(ioerr_jmp, 1)) {
		printf("ioerr: SIGBUS before the device failed\n");
		exit(1);
	}
	for (i = 0; i < IOERR_LEN; i += 512)
		p[i] = 'c';
	run(cmd);
	if (msync((void *)p, IOERR_LEN, MS_SYNC))
		err = errno;
	printf("ioerr: msync after failing writeback: %s\n", err ? strerror(err) : "ok");
	if (!err && fsync(fd)) {
		err = errno;
		printf("ioerr: fsync: %s\n", strerror(err));
	}
	munmap((void *)p, IOERR_LEN);
	close(fd);
	if (dio && stale_after_error(file))
		printf("ioerr: STALE\n");
	else
		result(err);
	return 0;
}

static int mkwrite(const char *file, long off, const char *cmd)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *p;
	off_t size;
	volatile int err = 0;
	int fd;
	char c;

	fd = open(file, O_RDWR);
	if (fd < 0)
		setup_fail("open");
	size = lseek(fd, 0, SEEK_END);
	if (size < off + pg)
		setup_fail("file shorter than OFF + a page");
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		setup_fail("mmap");
	c = p[off];	/* read fault: the page is cached, clean, read-only mapped */
	printf("ioerr: read byte 0x%02x at %ld\n", (unsigned char)c, off);
	run(cmd);
	if (sigsetjmp(ioerr_jmp, 1)) {
		printf("ioerr: store at %ld raised SIGBUS\n", off);
		printf("ioerr: SIGBUS\n");
		return 0;
	}
	p[off] = 'd';
	printf("ioerr: store at %ld went through\n", off);
	if (msync((void *)p, size, MS_SYNC))
		err = errno;
	printf("ioerr: msync: %s\n", err ? strerror(err) : "ok");
	munmap((void *)p, size);
	close(fd);
	result(err);
	return 0;
}

static int fill(const char *file, long off, long len, const char *cmd)
{
	char *buf = malloc(len);
	int fd, err = 0;

	if (!buf)
		setup_fail("malloc");
	memset(buf, 'f', len);
	fd = open(file, O_RDWR);
	if (fd < 0)
		setup_fail("open");
	run(cmd);
	if (pwrite(fd, buf, len, off) != len)
		setup_fail("pwrite");
	if (fsync(fd))
		err = errno;
	printf("ioerr: fsync after filling the hole: %s\n", err ? strerror(err) : "ok");
	close(fd);
	free(buf);
	result(err);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ioerr_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (argc == 4 && !strcmp(argv[1], "wb-fsync"))
		return wb_fsync(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "mmap-msync"))
		return mmap_msync(argv[2], argv[3], 0);
	if (argc == 4 && !strcmp(argv[1], "mmap-dio"))
		return mmap_msync(argv[2], argv[3], 1);
	if (argc == 5 && !strcmp(argv[1], "mkwrite"))
		return mkwrite(argv[2], strtol(argv[3], NULL, 0), argv[4]);
	if (argc == 6 && !strcmp(argv[1], "fill"))
		return fill(argv[2], strtol(argv[3], NULL, 0),
			    strtol(argv[4], NULL, 0), argv[5]);
	fprintf(stderr, "usage: ioerr wb-fsync FILE CMD | mmap-msync FILE CMD | mmap-dio FILE CMD | mkwrite FILE OFF CMD | fill FILE OFF LEN CMD\n");
	return 1;
}
