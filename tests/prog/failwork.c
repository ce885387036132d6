// SPDX-License-Identifier: GPL-2.0
/*
 * failwork - a workload that keeps going through failures, for fault
 * injection (tests/suites/faultinj.*)
 *
 *   failwork [-f] DIR ROUNDS
 *
 * Each round works in DIR/wN: a 300 KiB file written in 16 KiB pieces,
 * truncated down and up and appended to; a file grown by ftruncate and
 * stored to through a shared mapping (msync, fsync); eight small files, one
 * renamed, two unlinked; DIR listed and every entry stat'ed; every third
 * round removes the directory of two rounds before.  Every error is counted
 * and the work goes on; a SIGBUS from a store is caught and counted.
 *
 * -f  write 1 to /proc/self/make-it-fail first, so that the kernel's fault
 *     injection with task-filter=Y fails only this process's allocations
 *     (set after exec: an exec under failslab would itself fail).
 *
 * Prints "failwork: ops=N errors=N enomem=N eio=N other=N sigbus=N".
 * Exit 0 when the rounds ran, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
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

#define MAPLEN (64 * 1024)

static unsigned long n_ops, n_err, n_enomem, n_eio, n_other, n_sigbus;
static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* count one operation; @ok false: it failed with errno */
static int op(int ok)
{
	n_ops++;
	if (ok)
		return 1;
	n_err++;
	if (errno == ENOMEM)
		n_enomem++;
	else if (errno == EIO)
		n_eio++;
	else
		n_other++;
	return 0;
}

static void big_file(const char *d)
{
	static unsigned char buf[16384];
	char p[1024];
	int fd, i;

	snprintf(p, sizeof(p), "%s/a", d);
	memset(buf, 0x61, sizeof(buf));
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (!op(fd >= 0))
		return;
	for (i = 0; i < 19; i++)
		op(pwrite(fd, buf, sizeof(buf), (off_t)i * (off_t)sizeof(buf)) >= 0);
	op(ftruncate(fd, 7777) == 0);
	op(ftruncate(fd, 200000) == 0);
	op(pwrite(fd, "append\n", 7, 200000) >= 0);
	close(fd);
}

static void mapped_file(const char *d)
{
	static const long offs[] = { 100, 5000, 30000, 40000, 60000 };
	volatile unsigned char *m;
	struct sigaction sa;
	char p[1024];
	volatile unsigned int i;
	int fd;

	snprintf(p, sizeof(p), "%s/m", d);
	fd = open(p, O_RDWR | O_CREAT, 0644);
	if (!op(fd >= 0))
		return;
	if (!op(ftruncate(fd, 3000) == 0))
		goto out;
	m = mmap(NULL, MAPLEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!op(m != MAP_FAILED))
		goto out;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_bus;
	sigaction(SIGBUS, &sa, NULL);
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		/* grow under the mapping, then store into the new part */
		op(ftruncate(fd, offs[i] + 1000) == 0);
		n_ops++;
		if (sigsetjmp(bus_jmp, 1)) {
			n_sigbus++;
			continue;
		}
		m[offs[i]] = (unsigned char)(i + 1);
		m[offs[i] / 2] = (unsigned char)(i + 7);
	}
	op(msync((void *)m, MAPLEN, MS_SYNC) == 0);
	op(fsync(fd) == 0);
	munmap((void *)m, MAPLEN);
out:
	close(fd);
}

static void small_files(const char *d)
{
	char p[1024], q[1024];
	int fd, i;

	for (i = 0; i < 8; i++) {
		snprintf(p, sizeof(p), "%s/s%d", d, i);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (!op(fd >= 0))
			continue;
		op(write(fd, p, strlen(p)) >= 0);
		close(fd);
	}
	snprintf(p, sizeof(p), "%s/s1", d);
	snprintf(q, sizeof(q), "%s/r1", d);
	op(rename(p, q) == 0);
	snprintf(p, sizeof(p), "%s/s2", d);
	op(unlink(p) == 0);
	snprintf(p, sizeof(p), "%s/s3", d);
	op(unlink(p) == 0);
}

static void list(const char *dir)
{
	char p[1024];
	struct dirent *e;
	struct stat st;
	DIR *dp = opendir(dir);

	if (!op(dp != NULL))
		return;
	while ((e = readdir(dp))) {
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		op(lstat(p, &st) == 0);
	}
	closedir(dp);
}

static void remove_dir(const char *d)
{
	char p[1024];
	struct dirent *e;
	DIR *dp = opendir(d);

	if (!op(dp != NULL))
		return;
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", d, e->d_name);
		op(unlink(p) == 0);
	}
	closedir(dp);
	op(rmdir(d) == 0);
}

int main(int argc, char **argv)
{
	int self = 0, rounds, r, fd;
	char d[512];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "-f")) {
		self = 1;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: failwork [-f] DIR ROUNDS\n");
		return 2;
	}
	rounds = atoi(argv[2]);
	if (self) {
		fd = open("/proc/self/make-it-fail", O_WRONLY);
		if (fd < 0 || write(fd, "1", 1) != 1) {
			perror("failwork: /proc/self/make-it-fail");
			return 2;
		}
		close(fd);
	}
	for (r = 1; r <= rounds; r++) {
		snprintf(d, sizeof(d), "%s/w%d", argv[1], r);
		op(mkdir(d, 0755) == 0 || errno == EEXIST);
		big_file(d);
		mapped_file(d);
		small_files(d);
		list(argv[1]);
		list(d);
		if (r % 3 == 0) {
			snprintf(d, sizeof(d), "%s/w%d", argv[1], r - 2);
			remove_dir(d);
		}
		fd = open(argv[1], O_RDONLY | O_DIRECTORY);
		if (op(fd >= 0)) {
			op(fsync(fd) == 0);
			close(fd);
		}
	}
	printf("failwork: ops=%lu errors=%lu enomem=%lu eio=%lu other=%lu sigbus=%lu\n",
	       n_ops, n_err, n_enomem, n_eio, n_other, n_sigbus);
	return 0;
}
