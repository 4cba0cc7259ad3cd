// SPDX-License-Identifier: GPL-2.0
/*
 * userns-unshare - move the calling process into a new user namespace with
 * unshare(CLONE_NEWUSER), and show what it finds there.
 *
 *	userns-unshare [-t] [-F]
 *	userns-unshare -c
 *	userns-unshare -u
 *	userns-unshare -T
 *
 * The program compares /proc/self/ns/user before and after the call, reads
 * its own uid_map (empty until someone writes it), writes "0 EUID 1" there
 * itself, and uses its new capabilities (unshare(CLONE_NEWUTS)).
 *
 * -t   start a second thread first: unshare(CLONE_NEWUSER) implies
 *      CLONE_THREAD, so a multi-threaded caller is refused.
 * -F   share our fs_struct with a child first (clone(CLONE_FS)). After the
 *      unshare we chdir("/tmp") and the child prints its own working
 *      directory: it stays "/" only if the unshare gave us our own
 *      fs_struct (CLONE_FS is implied, CVE-2013-1858).
 * -c   try clone(CLONE_NEWUSER | CLONE_FS) instead, which is refused.
 * -u   unshare a user, a UTS and a mount namespace in one call: the new
 *      ones are owned by the new user namespace, where the caller holds
 *      every capability, so no privilege outside is asked for. First
 *      it tries CLONE_NEWUSER with CLONE_PARENT, a flag unshare() has
 *      never taken (refused with EINVAL).
 * -T   (as root) start a second thread, then unshare(CLONE_NEWUTS): only a
 *      new user namespace implies CLONE_THREAD; other namespaces do not.
 */
#include "../lib/ulab.h"
#include <pthread.h>
#include <sys/stat.h>

static void *thread_fn(void *unused)
{
	for (;;)
		pause();
	return NULL;
}

static int noop(void *unused)
{
	return 0;
}

/* The fs_struct sharer: once released, it reports its working directory. */
static int report_cwd(void *unused)
{
	char cwd[256];

	if (!getcwd(cwd, sizeof(cwd)))
		return ulab_fail("getcwd") ? 1 : 0;
	printf("cwd of the process sharing our fs_struct: %s\n", cwd);
	fflush(stdout);
	return 0;
}

/*
 * The inode number of our user namespace link, read through a descriptor
 * that stays open: until lab 13 puts one inode per namespace back, only
 * descriptors open at the same time are sure to share the inode of one
 * namespace, so the "before" descriptor is kept open across the unshare.
 */
static ino_t ns_inode(int *fd)
{
	struct stat st;

	*fd = open("/proc/self/ns/user", O_RDONLY);
	if (*fd < 0 || fstat(*fd, &st) < 0) {
		ulab_fail("open /proc/self/ns/user");
		return 0;
	}
	return st.st_ino;
}

static void show_uid_map(const char *when)
{
	char buf[512];
	ssize_t n;
	int fd = open("/proc/self/uid_map", O_RDONLY);

	if (fd < 0) {
		ulab_fail("open /proc/self/uid_map");
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		ulab_fail("read /proc/self/uid_map");
		return;
	}
	buf[n] = '\0';
	if (n == 0)
		printf("uid_map %s: empty\n", when);
	else
		printf("uid_map %s: %s", when, buf);
	fflush(stdout);
}

static int try_clone_fs(void)
{
	struct ulab_child child = { .fn = noop };
	pid_t pid = ulab_spawn(&child, CLONE_NEWUSER | CLONE_FS);

	if (pid < 0) {
		ulab_fail("clone(CLONE_NEWUSER|CLONE_FS)");
		return 1;
	}
	printf("clone(CLONE_NEWUSER|CLONE_FS): ok\n");
	ulab_release(&child);
	ulab_wait(pid);
	return 0;
}

static int unshare_together(void)
{
	if (unshare(CLONE_NEWUSER | CLONE_PARENT) < 0)
		ulab_fail("unshare(CLONE_NEWUSER | CLONE_PARENT)");
	else
		printf("unshare(CLONE_NEWUSER | CLONE_PARENT): ok\n");
	if (unshare(CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWNS) < 0)
		ulab_fail("unshare(CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWNS)");
	else
		printf("unshare(CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWNS): ok\n");
	fflush(stdout);
	return 0;
}

static int threaded_newuts(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_fn, NULL))
		ulab_die("pthread_create");
	if (unshare(CLONE_NEWUTS) < 0)
		ulab_fail("threads: 2, unshare(CLONE_NEWUTS)");
	else
		printf("threads: 2, unshare(CLONE_NEWUTS): ok\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct ulab_child sharer = { .fn = report_cwd };
	int opt, threaded = 0, share_fs = 0;
	pid_t sharer_pid = 0;
	uid_t outer_euid = geteuid();
	ino_t before, after;
	int fd_before, fd_after;
	char map[64];

	while ((opt = getopt(argc, argv, "tFcuT")) != -1) {
		switch (opt) {
		case 't':
			threaded = 1;
			break;
		case 'F':
			share_fs = 1;
			break;
		case 'c':
			return try_clone_fs();
		case 'u':
			return unshare_together();
		case 'T':
			return threaded_newuts();
		default:
			fprintf(stderr, "usage: %s [-t] [-F] | -c | -u | -T\n", argv[0]);
			return 2;
		}
	}

	if (chdir("/") < 0)
		ulab_die("chdir /");
	if (threaded) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_fn, NULL))
			ulab_die("pthread_create");
		printf("threads in this process: 2\n");
	}
	if (share_fs) {
		fflush(stdout);
		sharer_pid = ulab_spawn(&sharer, CLONE_FS);
		if (sharer_pid < 0)
			ulab_die("clone(CLONE_FS)");
		printf("sharing our fs_struct with process %d\n",
		       (int)sharer_pid);
	}
	/* book: unshare-call */
	ulab_print_ids("before");
	before = ns_inode(&fd_before);
	printf("user namespace before: %lu\n", (unsigned long)before);
	fflush(stdout);

	if (unshare(CLONE_NEWUSER) < 0) {
		ulab_fail("unshare(CLONE_NEWUSER)");
		if (sharer_pid > 0) {
			kill(sharer_pid, SIGKILL);
			waitpid(sharer_pid, NULL, 0);
		}
		return 1;
	}
	printf("unshare(CLONE_NEWUSER): ok\n");
	after = ns_inode(&fd_after);
	printf("user namespace after: %lu\n", (unsigned long)after);
	/* book: end unshare-call */
	printf("in a new user namespace: %s\n",
	       before && after && before != after ? "yes" : "no");
	show_uid_map("after unshare");
	printf("uid before any map: %u\n", (unsigned int)getuid());
	fflush(stdout);

	if (sharer_pid > 0) {
		if (chdir("/tmp") < 0)
			ulab_fail("chdir /tmp");
		else
			printf("chdir /tmp: ok\n");
		fflush(stdout);
		ulab_release(&sharer);
		ulab_wait(sharer_pid);
	}

	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)outer_euid);
	if (!ulab_write_map(getpid(), "uid_map", map)) {
		show_uid_map("now");
		printf("uid after writing the map: %u\n",
		       (unsigned int)getuid());
	}
	if (unshare(CLONE_NEWUTS) < 0)
		ulab_fail("unshare(CLONE_NEWUTS) in the new user namespace");
	else
		printf("unshare(CLONE_NEWUTS) in the new user namespace: ok\n");
	fflush(stdout);
	return 0;
}
