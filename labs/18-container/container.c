// SPDX-License-Identifier: GPL-2.0
/*
 * container - an unprivileged container in one small C program (lab 18).
 *
 *	container [-n HOSTNAME] -r ROOTFS [COMMAND [ARG...]]
 *
 * Run it as an ordinary user. The child is cloned into new user, mount, PID,
 * UTS and network namespaces; the parent maps the caller's uid and gid to 0
 * inside; the child names its host, switches its root to ROOTFS with
 * pivot_root(2), mounts a proc of its own, brings up its loopback interface
 * and executes COMMAND (default /bin/sh) as PID 1, root inside, the caller
 * outside. The exit status of COMMAND is the exit status of the program.
 *
 * This is the skeleton of lab 18: it compiles and runs, and does none of the
 * namespace work yet. Do TODO 18.1 to 18.7, in order; the README says what
 * each needs and which lab of the course made it possible without privilege.
 * The reference answer is solutions/18-container/container.c.
 */
#include "../lib/ulab.h"
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define OLD_ROOT "/.old-root"

static const char *hostname = "container";
static const char *rootfs;
static char **command;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* glibc has no wrapper for pivot_root(2) */
static inline int pivot_root(const char *new_root, const char *put_old)
{
	return syscall(SYS_pivot_root, new_root, put_old);
}

/*
 * TODO 18.1: the namespaces the child is cloned into: user, mount, PID, UTS
 * and network (CLONE_NEW*, see clone(2) and the README).
 */
#define CONTAINER_NAMESPACES 0

/* Map the caller to root inside, one id each (run by the parent). */
static int write_maps(pid_t pid)
{
	/*
	 * TODO 18.2: with ulab_write_map(): "deny" to setgroups first (an
	 * unprivileged writer may not map a gid otherwise), then gid_map and
	 * uid_map: one line each, 0 inside for getgid()/getuid() outside.
	 */
	say("TODO 18.2: write the maps of child %d", (int)pid);
	return 0;
}

/* A host name of its own. */
static int set_hostname(void)
{
	/* TODO 18.3: sethostname(2) to 'hostname' */
	say("TODO 18.3: set the host name to \"%s\"", hostname);
	return 0;
}

/*
 * pivot_root() moves the current root mount to put_old, so that mount must
 * hang on a parent. On an ordinary system it does (the root file system sits
 * on the kernel's initial rootfs); a machine that runs from its initramfs,
 * as the course's guest does, has rootfs itself as its root, and
 * pivot_root() answers EINVAL. Bind the whole tree on top of itself and step
 * into the copy ("/.." at the root crosses into what is mounted on it): the
 * root we stand on then has a parent. On an ordinary system this costs one
 * mount and changes nothing else.
 */
static inline int stand_on_a_mount(void)
{
	if (mount("/", "/", NULL, MS_BIND | MS_REC, NULL))
		return ulab_fail("bind / on /");
	if (chdir("/..") || chroot("."))
		return ulab_fail("chroot into the copy of /");
	return 0;
}

/* Nothing mounted in here may propagate to the host. */
static int make_mounts_private(void)
{
	/* TODO 18.4: mount(2) with MS_REC | MS_PRIVATE on / */
	say("TODO 18.4: make every mount private");
	return 0;
}

/* ROOTFS becomes /, the old root waits at OLD_ROOT. */
static int enter_rootfs(void)
{
	/*
	 * TODO 18.5: stand_on_a_mount(); bind 'rootfs' on itself (pivot_root
	 * wants a mount point); chdir there; mkdir "." OLD_ROOT; then
	 * pivot_root(".", "." OLD_ROOT) and chdir("/").
	 */
	say("TODO 18.5: pivot_root into %s", rootfs);
	return 0;
}

/*
 * A proc of the new PID namespace on /proc. The kernel mounts a
 * new proc only where a complete proc is already visible to the mount
 * namespace: do it while the old root (and its /proc) is still there.
 */
static int mount_proc(void)
{
	/* TODO 18.6: mount "proc" on /proc (nosuid, nodev, noexec) */
	say("TODO 18.6: mount proc on /proc");
	return 0;
}

/* The old root goes: nothing of the host's file tree stays reachable. */
static int drop_old_root(void)
{
	/* Nothing was pivoted yet (TODO 18.5): there is no old root to drop. */
	if (access(OLD_ROOT, F_OK))
		return 0;
	if (umount2(OLD_ROOT, MNT_DETACH))
		return ulab_fail("umount " OLD_ROOT);
	if (rmdir(OLD_ROOT))
		return ulab_fail("rmdir " OLD_ROOT);
	say("old root detached: ok");
	return 0;
}

/* The loopback interface of the new network namespace, up. */
static int loopback_up(void)
{
	/*
	 * TODO 18.7: an AF_INET datagram socket, ioctl SIOCGIFFLAGS on "lo"
	 * (struct ifreq), set IFF_UP, ioctl SIOCSIFFLAGS.
	 */
	say("TODO 18.7: bring lo up");
	return 0;
}

/* The child: runs once the parent has written its maps. */
static int container_init(void *unused)
{
	if (set_hostname() || make_mounts_private() || enter_rootfs() ||
	    mount_proc() || drop_old_root() || loopback_up())
		return 125;
	say("exec %s", command[0]);
	execv(command[0], command);
	ulab_fail(command[0]);
	return 127;
}

int main(int argc, char **argv)
{
	char *shell[2] = { "/bin/sh", NULL };
	struct ulab_child child = { .fn = container_init };
	pid_t pid;
	int opt, status;

	while ((opt = getopt(argc, argv, "+n:r:")) != -1) {
		switch (opt) {
		case 'n':
			hostname = optarg;
			break;
		case 'r':
			rootfs = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!rootfs || rootfs[0] != '/')
		goto usage;
	command = optind < argc ? argv + optind : shell;

	/* book: parent */
	ulab_print_ids("container: caller");
	pid = ulab_spawn(&child, CONTAINER_NAMESPACES);
	if (pid < 0)
		ulab_die("clone");
	say("container: pid %d on the host", (int)pid);
	if (write_maps(pid)) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		return 125;
	}
	ulab_release(&child);
	status = ulab_wait(pid);
	say("container: exit status %d", status);
	return status;
	/* book: end parent */

usage:
	fprintf(stderr, "usage: %s [-n HOSTNAME] -r /ROOTFS [COMMAND [ARG...]]\n",
		argv[0]);
	return 2;
}
