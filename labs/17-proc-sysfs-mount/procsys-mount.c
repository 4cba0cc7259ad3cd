// SPDX-License-Identifier: GPL-2.0
/*
 * procsys-mount - mount proc and sysfs as the root of a user namespace.
 *
 *	procsys-mount DIR
 *
 * Run it as an ordinary user (uid 1000); DIR/proc and DIR/sys are empty
 * directories. Four children are made in turn, each in a new user namespace
 * (its own uid and gid mapped to 0) and a new mount namespace:
 *
 *	new pidns    + new PID namespace: mount proc on DIR/proc, list its pids
 *	same pidns   the host's PID namespace: mount proc (must be refused)
 *	new netns    + new network namespace: mount sysfs on DIR/sys, read
 *	             class/net/lo/flags (lo is down in a new netns)
 *	same netns   the host's network namespace: mount sysfs (refused)
 *	devtmpfs     mount devtmpfs on DIR/dev, a type that is not safe for a
 *	             user namespace (refused)
 *
 * DIR/dev is an empty directory too.
 */
#include "../lib/ulab.h"
#include <ctype.h>
#include <dirent.h>
#include <sys/mount.h>

static const char *dir;
static const char *who;

static int report(const char *what, int ret)
{
	if (ret < 0)
		printf("%s: %s: %s (%s)\n", who, what, ulab_errname(errno),
		       strerror(errno));
	else
		printf("%s: %s: ok\n", who, what);
	fflush(stdout);
	return ret;
}

static void show_pids(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d) {
		ulab_fail(path);
		return;
	}
	printf("%s: pids in the new proc:", who);
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			printf(" %s", e->d_name);
	printf("\n");
	fflush(stdout);
	closedir(d);
}

static void show_lo_flags(const char *sys, const char *where)
{
	char path[256], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), "%s/class/net/lo/flags", sys);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0) {
		ulab_fail(path);
	} else {
		buf[strcspn(buf, "\n")] = '\0';
		printf("%s: lo flags %s: %s\n", who, where, buf);
	}
	if (fd >= 0)
		close(fd);
	fflush(stdout);
}

static int mount_proc(void *unused)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/proc", dir);
	printf("%s: pid inside: %d\n", who, (int)getpid());
	if (!report("mount -t proc on DIR/proc",
		    mount("proc", path, "proc", 0, NULL)))
		show_pids(path);
	return 0;
}

static int mount_sysfs(void *unused)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/sys", dir);
	if (!report("mount -t sysfs on DIR/sys",
		    mount("sysfs", path, "sysfs", 0, NULL)))
		show_lo_flags(path, "in the new sysfs");
	return 0;
}

/* devtmpfs never set FS_USERNS_MOUNT: one instance, the host's /dev */
static int mount_devtmpfs(void *unused)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/dev", dir);
	if (!report("mount -t devtmpfs on DIR/dev",
		    mount("devtmpfs", path, "devtmpfs", 0, NULL)))
		umount(path);
	return 0;
}

static int run(const char *name, int (*fn)(void *), int flags)
{
	struct ulab_child child = { .fn = fn };
	pid_t pid;

	who = name;
	pid = ulab_spawn(&child, CLONE_NEWUSER | CLONE_NEWNS | flags);
	if (pid < 0)
		return ulab_fail("clone");
	if (ulab_map_self(pid))
		goto kill;
	ulab_release(&child);
	return ulab_wait(pid);
kill:
	kill(pid, SIGKILL);
	ulab_wait(pid);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	ulab_print_ids("outside");
	run("new pidns", mount_proc, CLONE_NEWPID);
	run("same pidns", mount_proc, 0);
	run("new netns", mount_sysfs, CLONE_NEWNET);
	run("same netns", mount_sysfs, 0);
	run("devtmpfs", mount_devtmpfs, 0);
	who = "host";
	show_lo_flags("/sys", "on the host");
	return 0;
}
