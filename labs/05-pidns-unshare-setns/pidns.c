// SPDX-License-Identifier: GPL-2.0
/*
 * pidns - unshare(CLONE_NEWPID) and setns() into a PID namespace, and what
 * a process sees when it does them.
 *
 *	pidns		unshare(CLONE_NEWPID), then fork children into it
 *	pidns -s	setns() into PID namespaces: a child's, an ancestor's,
 *			a sibling's, a child's through its pidfd, and (Linux
 *			6.11 and later) the file its pidfd's ioctl opens
 *	pidns -l	the PID namespace links in /proc/self/ns
 *	pidns -i	after unshare(CLONE_NEWPID): the two links, and (Linux
 *			6.11 and later) which files a pidfd's two PID
 *			namespace ioctls open
 *	pidns -c	a child cloned with CLONE_NEWPID (which 3.7 had)
 *
 * Unsharing a PID namespace does not move the caller: its pid, and the
 * namespace it sees pids in, stay what they were. The new namespace is
 * for its children; the first one is pid 1 there, its init. Once that
 * init is gone the namespace takes no one in: the next fork() fails with
 * ENOMEM. setns(fd, CLONE_NEWPID) works the same way, and only towards a
 * descendant of the caller's own PID namespace.
 */
#include "../lib/ulab.h"
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

/* <linux/pidfd.h> of Linux 6.11; the guest's headers may be older */
#ifndef PIDFD_GET_PID_NAMESPACE
#define PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5)
#endif
#ifndef PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE
#define PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE _IO(0xFF, 6)
#endif

/* Do the namespace files FD and PATH name the same namespace? -1: error */
static int same_ns(int fd, const char *path)
{
	struct stat a, b;

	if (fstat(fd, &a) || stat(path, &b))
		return -1;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Say which namespace file FD is: PATH's (the right one) or another. */
static void say_same(const char *what, int fd, const char *path)
{
	int same = same_ns(fd, path);

	if (same < 0)
		ulab_fail(what);
	else
		printf("%s: %s\n", what, same ? path : "another namespace");
	fflush(stdout);
}

/* A child that waits on GATE, then says its pid and exits with CODE. */
static pid_t child_saying(const char *who, int gate)
{
	pid_t pid;
	char go;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	if (gate >= 0 && read(gate, &go, 1) != 1)
		_exit(3);
	printf("%s pid inside: %d\n", who, (int)getpid());
	fflush(stdout);
	_exit(0);
}

static int do_unshare(void)
{
	pid_t self = getpid(), init, second;
	int gate[2], ready[2];
	char go;

	/* a flag unshare() has never taken is refused, with or without ours */
	fflush(stdout);
	init = fork();
	if (init == 0) {
		if (unshare(CLONE_NEWPID | CLONE_PARENT) < 0)
			ulab_fail("unshare(CLONE_NEWPID | CLONE_PARENT)");
		else
			printf("unshare(CLONE_NEWPID | CLONE_PARENT): ok\n");
		fflush(stdout);
		_exit(0);
	}
	ulab_wait(init);

	printf("pid before unshare: %d\n", (int)self);
	if (unshare(CLONE_NEWPID) < 0) {
		ulab_fail("unshare(CLONE_NEWPID)");
		return 1;
	}
	printf("unshare(CLONE_NEWPID): ok\n");
	printf("caller's pid after unshare: %s\n",
	       getpid() == self ? "unchanged" : "changed");

	/* the first child is the new namespace's init; it waits for us */
	if (pipe(gate) || pipe(ready))
		ulab_die("pipe");
	fflush(stdout);
	init = fork();
	if (init < 0) {
		ulab_fail("fork (first child)");
		return 1;
	}
	if (init == 0) {
		close(gate[1]);
		printf("first child's pid inside: %d\n", (int)getpid());
		fflush(stdout);
		if (write(ready[1], "r", 1) != 1 || read(gate[0], &go, 1) != 1)
			_exit(3);
		_exit(0);
	}
	close(gate[0]);
	close(ready[1]);
	if (read(ready[0], &go, 1) != 1)	/* init has spoken */
		ulab_die("read");
	second = child_saying("second child's", -1);
	if (second < 0)
		ulab_fail("fork (second child)");
	else
		ulab_wait(second);

	/* let init go: a namespace whose init is dead takes no one in */
	if (write(gate[1], "g", 1) != 1)
		ulab_die("write");
	close(gate[1]);
	ulab_wait(init);
	second = child_saying("after init died, a child's", -1);
	if (second < 0) {
		ulab_fail("fork after the namespace's init died");
		return 0;
	}
	ulab_wait(second);
	return 0;
}

/*
 * A child cloned into a PID namespace of its own: it ends when the pipe
 * GATE is closed by everyone else (it closes its own write end first).
 */
static int wait_for_release(void *arg)
{
	int *gate = arg;
	char go;

	close(gate[1]);
	if (read(gate[0], &go, 1) != 0)
		return 3;
	return 0;
}

static int open_ns(pid_t pid, const char *what)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		ulab_fail(what);
	return fd;
}

/* try setns(FD, CLONE_NEWPID) and report it as WHAT */
static void try_setns(int fd, const char *what)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "setns into %s", what);
	if (fd < 0) {
		printf("%s: no descriptor\n", msg);
		return;
	}
	if (setns(fd, CLONE_NEWPID) < 0)
		ulab_fail(msg);
	else
		printf("%s: ok\n", msg);
	fflush(stdout);
}

static int do_setns(void)
{
	int gate[2], own, a_fd, b_fd, net_fd, pidfd;
	struct ulab_child a = { .fn = wait_for_release, .arg = gate };
	struct ulab_child b = { .fn = wait_for_release, .arg = gate };
	pid_t a_pid, b_pid, pid;

	if (pipe(gate))
		ulab_die("pipe");
	a_pid = ulab_spawn(&a, CLONE_NEWPID);
	b_pid = ulab_spawn(&b, CLONE_NEWPID);
	if (a_pid < 0 || b_pid < 0)
		ulab_die("clone(CLONE_NEWPID)");
	ulab_release(&a);	/* each then waits on the shared gate */
	ulab_release(&b);
	own = open_ns(getpid(), "open our own /proc/PID/ns/pid");
	a_fd = open_ns(a_pid, "open a child's /proc/PID/ns/pid");
	b_fd = open_ns(b_pid, "open a second child's /proc/PID/ns/pid");

	/* the wrong type of namespace for CLONE_NEWPID */
	net_fd = open("/proc/self/ns/net", O_RDONLY);
	if (setns(net_fd, CLONE_NEWPID) < 0)
		ulab_fail("setns with a network namespace and CLONE_NEWPID");

	/* a pidfd names every namespace of its process (Linux 5.8) */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(gate[1]);
		pidfd = syscall(SYS_pidfd_open, a_pid, 0);
		if (pidfd < 0)
			ulab_die("pidfd_open");
		/* no type, or a flag that is no namespace's: refused */
		if (setns(pidfd, 0) < 0)
			ulab_fail("setns(pidfd, 0)");
		else
			printf("setns(pidfd, 0): ok\n");
		if (setns(pidfd, CLONE_NEWPID | CLONE_VM) < 0)
			ulab_fail("setns(pidfd, CLONE_NEWPID | CLONE_VM)");
		else
			printf("setns(pidfd, CLONE_NEWPID | CLONE_VM): ok\n");
		if (setns(pidfd, CLONE_NEWPID) < 0)
			ulab_fail("setns(pidfd, CLONE_NEWPID)");
		else
			printf("setns(pidfd, CLONE_NEWPID): ok\n");
		fflush(stdout);
		_exit(0);
	}
	ulab_wait(pid);

	/* since Linux 6.11 a pidfd also opens its process's namespaces */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char path[64];
		int nsfd;

		close(gate[1]);
		pidfd = syscall(SYS_pidfd_open, a_pid, 0);
		if (pidfd < 0)
			ulab_die("pidfd_open");
		nsfd = ioctl(pidfd, PIDFD_GET_PID_NAMESPACE, 0);
		if (nsfd < 0) {
			ulab_fail("ioctl(pidfd, PIDFD_GET_PID_NAMESPACE)");
			_exit(0);
		}
		snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)a_pid);
		say_same("a child's PIDFD_GET_PID_NAMESPACE", nsfd, path);
		try_setns(nsfd, "the PID namespace from PIDFD_GET_PID_NAMESPACE");
		_exit(0);
	}
	ulab_wait(pid);

	try_setns(a_fd, "a child's PID namespace");
	/* our pid stays; the next child is the namespace's second process */
	pid = child_saying("next child's", -1);
	if (pid < 0) {
		ulab_fail("fork after setns");
	} else {
		ulab_wait(pid);
		/* a process inside A may not leave for its parent or a sibling */
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			close(gate[1]);
			try_setns(own, "an ancestor PID namespace");
			try_setns(b_fd, "a sibling PID namespace");
			_exit(0);
		}
		ulab_wait(pid);
	}
	close(gate[1]);		/* both children end */
	ulab_wait(a_pid);
	ulab_wait(b_pid);
	return 0;
}

static void show_link(const char *name)
{
	char path[64], buf[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0) {
		ulab_fail(path);
		return;
	}
	buf[n] = '\0';
	printf("%s: %s\n", path, buf);
}

static int do_links(void)
{
	show_link("pid");
	show_link("pid_for_children");
	show_link("net");
	return 0;
}

/*
 * After unshare(CLONE_NEWPID) the caller has two PID namespaces: its own
 * (the pid link) and its children's (pid_for_children, which resolves
 * once the new namespace has its init). A pidfd's two ioctls open them.
 */
static int do_ioctls(void)
{
	int gate[2], pidfd, fd, pid_fd, same;
	pid_t init;
	char go;

	if (unshare(CLONE_NEWPID) < 0)
		ulab_die("unshare(CLONE_NEWPID)");
	if (pipe(gate))
		ulab_die("pipe");
	fflush(stdout);
	init = fork();
	if (init < 0)
		ulab_die("fork");
	if (init == 0) {
		close(gate[1]);
		_exit(read(gate[0], &go, 1) == 0 ? 0 : 3);
	}
	close(gate[0]);

	pid_fd = open("/proc/self/ns/pid", O_RDONLY);
	same = pid_fd < 0 ? -1 :
		same_ns(pid_fd, "/proc/self/ns/pid_for_children");
	if (same < 0)
		ulab_fail("the pid and pid_for_children links");
	else
		printf("after unshare, pid_for_children: %s\n",
		       same ? "the caller's own namespace" : "a new namespace");

	pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		ulab_die("pidfd_open");
	fd = ioctl(pidfd, PIDFD_GET_PID_NAMESPACE, 0);
	if (fd < 0)
		ulab_fail("ioctl(pidfd, PIDFD_GET_PID_NAMESPACE)");
	else
		say_same("PIDFD_GET_PID_NAMESPACE", fd, "/proc/self/ns/pid");
	fd = ioctl(pidfd, PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE, 0);
	if (fd < 0)
		ulab_fail("ioctl(pidfd, PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE)");
	else
		say_same("PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE", fd,
			 "/proc/self/ns/pid_for_children");
	close(gate[1]);
	ulab_wait(init);
	return 0;
}

static int say_pid(void *unused)
{
	printf("pid of a child cloned into a new PID namespace: %d\n",
	       (int)getpid());
	fflush(stdout);		/* a clone()d child returns without exit() */
	return 0;
}

static int do_clone(void)
{
	struct ulab_child c = { .fn = say_pid };
	pid_t pid;

	fflush(stdout);
	pid = ulab_spawn(&c, CLONE_NEWPID);
	if (pid < 0) {
		ulab_fail("clone(CLONE_NEWPID)");
		return 1;
	}
	ulab_release(&c);
	return ulab_wait(pid);
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return do_unshare();
	if (argc == 2 && !strcmp(argv[1], "-s"))
		return do_setns();
	if (argc == 2 && !strcmp(argv[1], "-l"))
		return do_links();
	if (argc == 2 && !strcmp(argv[1], "-c"))
		return do_clone();
	if (argc == 2 && !strcmp(argv[1], "-i"))
		return do_ioctls();
	fprintf(stderr, "usage: %s [-s | -l | -i | -c]\n", argv[0]);
	return 2;
}
