/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the test programs in tests/prog, all static inline:
 * each program takes what it uses.
 */
#ifndef EXT2HOLE_TEST_COMMON_H
#define EXT2HOLE_TEST_COMMON_H

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The random testers' generators, on a state the caller keeps (so that a
 * seed replays exactly): xorshift64* and xorshift64 (the state must not
 * be 0) and splitmix64 (any state).
 */
static inline uint64_t xorshift64s(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * die_setup(PROG, MODE, FMT, ...): the program could not set its test up
 * (a failed call that is not the behaviour under test): prints
 * "PROG MODE: setup error - MESSAGE (strerror(errno))" on stdout and
 * exits 2, which the suites tell apart from a failed check (exit 1).
 * MODE is NULL for a program of one mode.
 */
static inline void __attribute__((format(printf, 3, 4), noreturn))
die_setup(const char *prog, const char *mode, const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	printf("%s%s%s: setup error - ", prog, mode ? " " : "", mode ? mode : "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (%s)\n", strerror(e));
	exit(2);
}

/*
 * guarded_store(P, C): store C at P and tell whether the store raised
 * SIGBUS (a page_mkwrite that failed: ENOSPC, EDQUOT, EIO).  A SIGBUS
 * outside such a store ends the program with exit 2 (a setup error).
 */
static sigjmp_buf guarded_jmp;
static volatile sig_atomic_t guarded_armed;

static inline void guarded_on_sigbus(int sig)
{
	(void)sig;
	if (guarded_armed)
		siglongjmp(guarded_jmp, 1);
	_exit(2);
}

static inline bool guarded_store(volatile unsigned char *p, unsigned char c)
{
	struct sigaction sa = { .sa_handler = guarded_on_sigbus };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(guarded_jmp, 1)) {
		guarded_armed = 0;
		return true;
	}
	guarded_armed = 1;
	*p = c;
	guarded_armed = 0;
	return false;
}

/* A record of the getdents64 system call (glibc's readdir hides d_off). */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#endif
