// SPDX-License-Identifier: GPL-2.0
/*
 * mntns-mount - mount, umount, chroot and setns as the root of a user
 * namespace, in a mount namespace that it owns.
 *
 *	mntns-mount DIR        new user namespace + new mount namespace
 *	mntns-mount -U DIR     new user namespace only (the host's mounts)
 *	mntns-mount -R DIR     run by root: a new mount namespace only
 *	mntns-mount -u DIR     a user namespace, then (a second unshare())
 *	                       a mount namespace: still a slave of the host's
 *	mntns-mount -S         setns() into a container's mount namespace:
 *	                       by its creator from outside its user namespace,
 *	                       and with a pidfd into both; run by root, also
 *	                       without CAP_SYS_CHROOT or without CAP_SYS_ADMIN
 *	mntns-mount -L         a refused setns() into a mount namespace must
 *	                       keep no reference to it (run by the check as a
 *	                       user of its own, with user.max_mnt_namespaces
 *	                       at 1: a namespace kept alive is then the one
 *	                       the next clone(CLONE_NEWNS) finds no room for)
 *
 * Run it as an ordinary user (uid 1000), -R as root. DIR is prepared by
 * root:
 *	DIR/shared       a mount made shared (mount --make-shared)
 *	DIR/shared/sub   an empty directory on it
 *	DIR/root         a directory to chroot into, holding one file
 * The parent maps its own uid and gid to 0 in the child's user namespace
 * and, while the child holds its tmpfs mounted, looks for that mount in its
 * own (the host's) mount table.
 */
#include "../lib/ulab.h"
#include <dirent.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <linux/capability.h>

static const char *dir;
static int c2p[2], p2c[2];	/* child -> parent, parent -> child */
static int host_mntns = -1;	/* the host's mount namespace, from the parent */

static void report(const char *what, int ret)
{
	if (ret < 0)
		printf("%s: %s (%s)\n", what, ulab_errname(errno),
		       strerror(errno));
	else
		printf("%s: ok\n", what);
	fflush(stdout);
}

/*
 * The propagation of the mount at PATH, as /proc/self/mountinfo shows it:
 * the optional fields ("shared:N", "master:N", ...) or "private".
 * Returns 0 when PATH is not a mount point here.
 */
static int propagation(const char *path, char *out, size_t size)
{
	char line[1024], mp[512], *p;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int found = 0, i;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		/* id parent major:minor root mountpoint options [optional] - */
		if (sscanf(line, "%*d %*d %*s %*s %511s", mp) != 1 ||
		    strcmp(mp, path))
			continue;
		found = 1;	/* the last one wins: the top of the stack */
		p = line;
		for (i = 0; i < 6 && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		snprintf(out, size, "%s", p ? p : "");
		p = strstr(out, "- ");
		if (p)
			*p = '\0';
		for (p = out + strlen(out); p > out && p[-1] == ' '; p--)
			p[-1] = '\0';
		if (!*out)
			snprintf(out, size, "private");
	}
	fclose(f);
	return found;
}

static void show_propagation(const char *who, const char *path)
{
	char tags[256];

	if (propagation(path, tags, sizeof(tags)))
		printf("propagation of %s %s: %s\n", path, who, tags);
	else
		printf("%s %s: not a mount point\n", path, who);
	fflush(stdout);
}

static void show_root(void)
{
	DIR *d = opendir("/");
	struct dirent *e;

	if (!d) {
		ulab_fail("opendir /");
		return;
	}
	printf("after chroot, / holds:");
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			printf(" %s", e->d_name);
	printf("\n");
	fflush(stdout);
	closedir(d);
}

static int nothing(void *unused)
{
	return 0;
}

static void show_mntns(const char *what)
{
	char link[64] = "";

	if (readlink("/proc/self/ns/mnt", link, sizeof(link) - 1) < 0)
		ulab_fail("readlink /proc/self/ns/mnt");
	else
		printf("%s: %s\n", what, link);
	fflush(stdout);
}

/*
 * setns() into the mount namespace FD while another task shares our root
 * and working directory (CLONE_FS): the move would drag that task along.
 */
static int setns_with_shared_fs(int fd)
{
	struct ulab_child sibling = { .fn = nothing };
	int ret, err;
	pid_t pid;

	pid = ulab_spawn(&sibling, CLONE_FS);
	if (pid < 0)
		return -1;
	ret = setns(fd, CLONE_NEWNS);
	err = errno;
	ulab_release(&sibling);
	ulab_wait(pid);
	errno = err;
	return ret;
}

static void sync_with_parent(void)
{
	char c;

	if (write(c2p[1], "m", 1) != 1 || read(p2c[0], &c, 1) != 1)
		perror("sync");
}

static int in_new_mntns(void *unused)
{
	char shared[256], sub[256], root[256], first[64] = "", now[64] = "";
	int ret, fd;

	snprintf(shared, sizeof(shared), "%s/shared", dir);
	snprintf(sub, sizeof(sub), "%s/shared/sub", dir);
	snprintf(root, sizeof(root), "%s/root", dir);
	ulab_print_ids("inside");
	show_propagation("inside", shared);

	ret = mount("lab16", sub, "tmpfs", 0, "size=64k");
	report("mount tmpfs on DIR/shared/sub", ret);
	show_propagation("inside", sub);
	sync_with_parent();	/* the parent looks for it now */
	report("umount DIR/shared/sub", umount(sub));

	/* a type that never declared itself safe for a user namespace */
	ret = mount("lab16", sub, "devtmpfs", 0, NULL);
	report("mount devtmpfs on DIR/shared/sub", ret);
	if (!ret)
		umount(sub);

	report("umount inherited DIR/shared", umount(shared));

	/* setns: leave for a second mount namespace, then come back */
	fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	readlink("/proc/self/ns/mnt", first, sizeof(first) - 1);
	show_mntns("mount namespace");
	report("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
	show_mntns("mount namespace");
	report("setns back, sharing the root with another task (CLONE_FS)",
	       setns_with_shared_fs(fd));
	report("setns back into the first mount namespace",
	       setns(fd, CLONE_NEWNS));
	readlink("/proc/self/ns/mnt", now, sizeof(now) - 1);
	show_mntns("mount namespace");
	printf("back in the first mount namespace: %s\n",
	       strcmp(first, now) ? "no" : "yes");
	/* the root moved with the namespace: its mounts are ours again */
	ret = mount("lab16", sub, "tmpfs", 0, "size=64k");
	report("after setns: mount tmpfs on DIR/shared/sub", ret);
	if (!ret)
		umount(sub);
	report("setns into the host's mount namespace",
	       setns(host_mntns, CLONE_NEWNS));

	ret = chroot(root);
	report("chroot DIR/root", ret);
	if (!ret)
		show_root();
	return 0;
}

/* Only a user namespace: the mounts are still the host's. */
static int in_host_mntns(void *unused)
{
	char shared[256], sub[256];

	snprintf(shared, sizeof(shared), "%s/shared", dir);
	snprintf(sub, sizeof(sub), "%s/shared/sub", dir);
	ulab_print_ids("inside");
	report("host mntns: mount tmpfs on DIR/shared/sub",
	       mount("lab16", sub, "tmpfs", 0, "size=64k"));
	report("host mntns: umount DIR/shared", umount(shared));
	sync_with_parent();
	return 0;
}

/* No user namespace at all: uid 1000 holds no CAP_SYS_CHROOT anywhere. */
static void chroot_without_userns(void)
{
	char root[256];
	pid_t pid;

	snprintf(root, sizeof(root), "%s/root", dir);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ulab_fail("fork");
		return;
	}
	if (!pid) {
		report("no user namespace: chroot DIR/root", chroot(root));
		_exit(0);
	}
	ulab_wait(pid);
}

/* -R: root makes a mount namespace in its own user namespace */
static int privileged_unshare(void)
{
	char shared[256];

	snprintf(shared, sizeof(shared), "%s/shared", dir);
	show_propagation("on the host", shared);
	report("unshare(CLONE_NEWNS) by root", unshare(CLONE_NEWNS));
	show_propagation("after a privileged unshare", shared);
	return 0;
}

/*
 * -u: unshare(CLONE_NEWUSER), then, in a second call, unshare(CLONE_NEWNS):
 * the mount namespace is copied from one the new user namespace does not
 * own, so its shared mounts must become slaves all the same.
 */
static int separate_unshares(void)
{
	char sub[256], tags[256], c;
	pid_t pid;

	snprintf(sub, sizeof(sub), "%s/shared/sub", dir);
	if (pipe(c2p) || pipe(p2c))
		ulab_die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ulab_die("fork");
	if (pid == 0) {
		close(c2p[0]);
		close(p2c[1]);
		report("separate unshares: unshare(CLONE_NEWUSER)",
		       unshare(CLONE_NEWUSER));
		report("separate unshares: unshare(CLONE_NEWNS)",
		       unshare(CLONE_NEWNS));
		if (mount("lab16", sub, "tmpfs", 0, NULL) < 0) {
			report("separate unshares: mount tmpfs on DIR/shared/sub", -1);
			_exit(0);
		}
		report("separate unshares: mount tmpfs on DIR/shared/sub", 0);
		/* the parent looks at the host's table while this is held */
		if (write(c2p[1], "m", 1) != 1 || read(p2c[0], &c, 1) != 1)
			_exit(3);
		umount2(sub, MNT_DETACH);
		_exit(0);
	}
	close(c2p[1]);
	close(p2c[0]);
	if (read(c2p[0], &c, 1) == 1) {
		printf("separate unshares: host sees DIR/shared/sub mounted: %s\n",
		       propagation(sub, tags, sizeof(tags)) ? "yes" : "no");
		fflush(stdout);
		if (write(p2c[1], "c", 1) != 1)
			perror("sync");
	}
	return ulab_wait(pid);
}

/* a container's init for -S: it waits until GATE is closed */
static int wait_gate(void *arg)
{
	int *gate = arg;
	char c;

	close(gate[1]);
	return read(gate[0], &c, 1) == 0 ? 0 : 3;
}

/*
 * In a child process: without the effective capability DROP (none when
 * negative), from the folder /tmp, setns(FD, NSTYPE); report WHAT, and
 * where the working folder is then (the new root: "/").
 */
static void setns_child(const char *what, int fd, int nstype, int drop)
{
	char cwd[256];
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ulab_die("fork");
	if (pid == 0) {
		if (drop >= 0)
			ulab_effective_caps(~ULAB_CAP(drop));
		if (chdir("/tmp"))
			ulab_die("chdir /tmp");
		if (setns(fd, nstype) < 0) {
			report(what, -1);
			_exit(0);
		}
		report(what, 0);
		if (!getcwd(cwd, sizeof(cwd)))
			printf("%s, then the working folder: %s\n", what,
			       ulab_errname(errno));
		else
			printf("%s, then the working folder: %s\n", what, cwd);
		fflush(stdout);
		_exit(0);
	}
	ulab_wait(pid);
}

/*
 * -S: a container (new user and mount namespaces, its creator's ids mapped
 * to root) and the ways into its mount namespace
 */
static int setns_rules(void)
{
	struct ulab_child c = { .fn = wait_gate };
	char path[64];
	int gate[2], fd, pidfd;
	pid_t pid;

	if (pipe(gate))
		ulab_die("pipe");
	c.arg = gate;
	pid = ulab_spawn(&c, CLONE_NEWUSER | CLONE_NEWNS);
	if (pid < 0)
		ulab_die("clone(CLONE_NEWUSER|CLONE_NEWNS)");
	close(gate[0]);
	if (ulab_map_self(pid)) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		return 2;
	}
	ulab_release(&c);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	fd = open(path, O_RDONLY);
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0 || pidfd < 0)
		ulab_die("open the container's namespaces");
	if (getuid()) {
		/* owner of the container's user namespace, no capability here */
		setns_child("as its creator, from outside its user namespace: setns into its mount namespace",
			    fd, CLONE_NEWNS, -1);
		setns_child("as its creator: setns(pidfd, CLONE_NEWUSER | CLONE_NEWNS)",
			    pidfd, CLONE_NEWUSER | CLONE_NEWNS, -1);
	} else {
		setns_child("as root: setns into its mount namespace",
			    fd, CLONE_NEWNS, -1);
		setns_child("as root without CAP_SYS_CHROOT: setns into its mount namespace",
			    fd, CLONE_NEWNS, CAP_SYS_CHROOT);
		setns_child("as root without CAP_SYS_ADMIN: setns into its mount namespace",
			    fd, CLONE_NEWNS, CAP_SYS_ADMIN);
	}
	close(gate[1]);
	return ulab_wait(pid);
}

/* -L: a second thread, which shares the process's fs_struct */
static void *sleeper(void *unused)
{
	for (;;)
		pause();
	return NULL;
}

/*
 * -L, as root of a user namespace of its own: B, in a new mount namespace
 * M, and a setns() into M from this process with two threads, which must
 * be refused (EINVAL: the fs_struct is shared). Once B has ended, nothing
 * holds M, and it is freed: a new mount namespace fits in the limit of one
 * again. A reference the refusal did not give back would keep M alive.
 */
static int leak_probe(void *unused)
{
	struct ulab_child b = { .fn = wait_gate };
	struct ulab_child b2 = { .fn = nothing };
	char path[64];
	int gate[2], fd;
	pthread_t t;
	pid_t pid;

	if (pipe(gate))
		ulab_die("pipe");
	b.arg = gate;
	pid = ulab_spawn(&b, CLONE_NEWNS);
	if (pid < 0) {
		report("leak probe: clone(CLONE_NEWNS)", -1);
		return 2;
	}
	close(gate[0]);
	ulab_release(&b);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pthread_create(&t, NULL, sleeper, NULL))
		ulab_die("leak probe: open its namespace, start a thread");
	report("two threads: setns into a mount namespace",
	       setns(fd, CLONE_NEWNS));
	close(fd);
	close(gate[1]);
	ulab_wait(pid);
	pid = ulab_spawn(&b2, CLONE_NEWNS);
	report("then, that namespace's process gone: a new mount namespace",
	       pid < 0 ? -1 : 0);
	if (pid > 0) {
		ulab_release(&b2);
		ulab_wait(pid);
	}
	/*
	 * A clone()d child that returns ends its own thread only: the
	 * sleeper would keep the process alive. exit() ends them all.
	 */
	exit(0);
}

/* -L: a user namespace of the caller's own, its ids mapped to root */
static int leak_check(void)
{
	struct ulab_child a = { .fn = leak_probe };
	pid_t pid;

	pid = ulab_spawn(&a, CLONE_NEWUSER);
	if (pid < 0)
		ulab_die("clone(CLONE_NEWUSER)");
	if (ulab_map_self(pid)) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		return 2;
	}
	ulab_release(&a);
	return ulab_wait(pid);
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = in_new_mntns };
	int flags = CLONE_NEWUSER | CLONE_NEWNS;
	char sub[256], shared[256], tags[256], c;
	pid_t pid;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "-U")) {
		child.fn = in_host_mntns;
		flags = CLONE_NEWUSER;
		dir = argv[2];
	} else if (argc == 3 && !strcmp(argv[1], "-R")) {
		dir = argv[2];
		return privileged_unshare();
	} else if (argc == 3 && !strcmp(argv[1], "-u")) {
		dir = argv[2];
		return separate_unshares();
	} else if (argc == 2 && !strcmp(argv[1], "-S")) {
		return setns_rules();
	} else if (argc == 2 && !strcmp(argv[1], "-L")) {
		return leak_check();
	} else if (argc == 2) {
		dir = argv[1];
	} else {
		fprintf(stderr, "usage: %s [-U | -R | -u] DIR | -S | -L\n", argv[0]);
		return 2;
	}
	snprintf(sub, sizeof(sub), "%s/shared/sub", dir);
	snprintf(shared, sizeof(shared), "%s/shared", dir);
	host_mntns = open("/proc/self/ns/mnt", O_RDONLY);
	if (pipe(c2p) || pipe(p2c))
		ulab_die("pipe");

	ulab_print_ids("outside");
	show_propagation("on the host", shared);
	if (child.fn == in_host_mntns)
		chroot_without_userns();
	pid = ulab_spawn(&child, flags);
	if (pid < 0)
		ulab_die(flags & CLONE_NEWNS ? "clone(CLONE_NEWUSER|CLONE_NEWNS)" :
			 "clone(CLONE_NEWUSER)");
	close(c2p[1]);
	close(p2c[0]);
	if (ulab_map_self(pid))
		goto kill;
	ulab_release(&child);

	/* while the child holds its mount: is it in the host's table? */
	if (read(c2p[0], &c, 1) == 1) {
		printf("host sees DIR/shared/sub mounted: %s\n",
		       propagation(sub, tags, sizeof(tags)) ? "yes" : "no");
		fflush(stdout);
		if (write(p2c[1], "c", 1) != 1)
			perror("sync");
	}
	ret = ulab_wait(pid);
	printf("host sees DIR/shared/sub mounted after the child: %s\n",
	       propagation(sub, tags, sizeof(tags)) ? "yes" : "no");
	return ret;
kill:
	kill(pid, SIGKILL);
	ulab_wait(pid);
	return 2;
}
