// SPDX-License-Identifier: GPL-2.0
/*
 * idmnt - an idmapped mount: owners of new and existing inodes seen and
 * set through it
 *
 *   idmnt SRC DST
 *
 * SRC is a directory on the filesystem under test, DST an empty directory
 * elsewhere.  A user namespace maps its ids 0..999 to 10000..10999; SRC
 * is mounted at DST with that namespace's idmap (open_tree, mount_setattr
 * MOUNT_ATTR_IDMAP, move_mount), so that an id k on disk shows as 10000 + k
 * through DST, and a caller's fsuid 10000 + k is stored as k.  Then:
 *   - a task with fsuid/fsgid 10005 creates a file, a directory, a symlink,
 *     a FIFO and a hard link through DST: on disk (seen through SRC) they
 *     belong to 5:5, through DST to 10005:10005;
 *   - root chowns a file through DST to 10007:10008: on disk 7:8;
 *   - a file root makes in SRC owned by 3:4 shows as 10003:10004 in DST;
 *   - root (fsuid 0, which the mount does not map) cannot create in DST
 *     (EOVERFLOW);
 *   - a setgid directory made through DST passes its group on.
 * DST is unmounted at the end.  Last line "idmnt: ok ..." or "idmnt: BUG -
 * ..."; "idmnt: setup error - ..." when the filesystem or the kernel
 * refuses the idmapped mount.  Exit 0 ok, 1 bug, 2 setup error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/mount.h>
#include "common.h"

#define die(...) die_setup("idmnt", NULL, __VA_ARGS__)

#define BASE	10000

static int bugs;
static char src[2048], dst[2048];

static void bug(const char *fmt, ...)
{
	va_list ap;

	bugs++;
	printf("idmnt: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void owner(const char *dir, const char *name, unsigned int uid,
		  unsigned int gid)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (lstat(p, &st)) {
		bug("lstat %s: %s", p, strerror(errno));
		return;
	}
	if (st.st_uid != uid || st.st_gid != gid)
		bug("%s: owner %u:%u, want %u:%u", p, st.st_uid, st.st_gid,
		    uid, gid);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("write %s", path);
	close(fd);
}

/* the idmapped mount of src at dst */
static void idmap_mount(void)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	int p[2], tree, ns;
	char path[64], map[64];
	pid_t pid;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		char c;

		close(p[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		/* stays until the parent has taken the namespace */
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	usleep(100000);
	snprintf(map, sizeof(map), "0 %d 1000\n", BASE);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		die("open %s", path);
	close(p[1]);
	waitpid(pid, NULL, 0);

	tree = syscall(SYS_open_tree, AT_FDCWD, src,
		       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		die("open_tree %s", src);
	attr.userns_fd = ns;
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr)))
		die("mount_setattr MOUNT_ATTR_IDMAP on %s: idmapped mounts refused",
		    src);
	if (syscall(SYS_move_mount, tree, "", AT_FDCWD, dst,
		    MOVE_MOUNT_F_EMPTY_PATH))
		die("move_mount to %s", dst);
	close(tree);
	close(ns);
}

/* a task with fsuid and fsgid @id creates the names through dst */
static void create_as(unsigned int id)
{
	char p[4096], q[4096];
	pid_t pid = fork();
	int status, fd;

	if (pid < 0)
		die("fork");
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(id, id, id) ||
		    setresuid(id, id, id))
			_exit(2);
		snprintf(p, sizeof(p), "%s/f", dst);
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || write(fd, "idmnt\n", 6) != 6)
			_exit(3);
		close(fd);
		snprintf(p, sizeof(p), "%s/d", dst);
		if (mkdir(p, 02775))
			_exit(4);
		snprintf(p, sizeof(p), "%s/l", dst);
		if (symlink("f", p))
			_exit(5);
		snprintf(p, sizeof(p), "%s/p", dst);
		if (mkfifo(p, 0644))
			_exit(6);
		snprintf(p, sizeof(p), "%s/f", dst);
		snprintf(q, sizeof(q), "%s/f2", dst);
		if (link(p, q))
			_exit(7);
		/* a name in the setgid directory: the directory's group */
		snprintf(p, sizeof(p), "%s/d/g", dst);
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			_exit(8);
		close(fd);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bug("create as %u through the idmapped mount failed at step %d",
		    id, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(int argc, char **argv)
{
	char p[4096];
	int fd;

	if (argc != 3)
		die("usage: idmnt SRC DST");
	snprintf(src, sizeof(src), "%s", argv[1]);
	snprintf(dst, sizeof(dst), "%s", argv[2]);
	idmap_mount();

	create_as(BASE + 5);
	owner(src, "f", 5, 5);
	owner(src, "d", 5, 5);
	owner(src, "l", 5, 5);
	owner(src, "p", 5, 5);
	owner(src, "d/g", 5, 5);
	owner(dst, "f", BASE + 5, BASE + 5);
	owner(dst, "f2", BASE + 5, BASE + 5);
	owner(dst, "d", BASE + 5, BASE + 5);

	snprintf(p, sizeof(p), "%s/f", dst);
	if (chown(p, BASE + 7, BASE + 8))
		bug("chown %s to %u:%u: %s", p, BASE + 7, BASE + 8,
		    strerror(errno));
	owner(src, "f", 7, 8);
	owner(dst, "f", BASE + 7, BASE + 8);

	snprintf(p, sizeof(p), "%s/r", src);
	fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0 || fchown(fd, 3, 4))
		die("create %s", p);
	close(fd);
	owner(dst, "r", BASE + 3, BASE + 4);

	snprintf(p, sizeof(p), "%s/root", dst);
	fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd >= 0) {
		bug("root, unmapped, created %s", p);
		close(fd);
	} else if (errno != EOVERFLOW) {
		bug("root creating %s: %s, want EOVERFLOW", p,
		    strerror(errno));
	}

	if (umount2(dst, MNT_DETACH))
		die("umount %s", dst);
	if (bugs) {
		printf("idmnt: BUG - %d wrong answers (above)\n", bugs);
		return 1;
	}
	printf("idmnt: ok - created, chowned and read through an idmapped mount (ids +%d), unmapped root refused\n",
	       BASE);
	return 0;
}
