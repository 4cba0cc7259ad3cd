// SPDX-License-Identifier: GPL-2.0
/*
 * status-view - read /proc/PID/status through descriptors opened in one user
 * namespace and read in another.
 *
 *	status-view [-m MAP]
 *
 * Run as root. A child is cloned into a new user namespace whose uid and
 * gid maps are MAP (default "0 1000 1"); it becomes 0:0 inside, which is
 * 1000:1000 outside, with the one supplementary group 0 (1000 outside). The
 * child's own status file is then read four ways:
 *
 *   opened outside, read outside   the parent opens and reads it
 *   opened outside, read inside    the parent opens it and passes the
 *                                  descriptor to the child (SCM_RIGHTS)
 *   opened inside, read inside     the child opens and reads it
 *   opened inside, read outside    the child opens it and passes the
 *                                  descriptor to the parent (SCM_RIGHTS)
 *
 * Each way prints the Uid:, Gid: and Groups: lines, tabs turned into spaces.
 */
#include "../lib/ulab.h"

static int sv[2];	/* parent's end, child's end */

/* Read FD from its start and print its Uid:, Gid:, Groups: lines after HOW. */
static void show_ids(const char *how, int fd)
{
	char buf[4096], *line, *save, *t;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0) {
		ulab_fail(how);
		return;
	}
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "Uid:", 4) && strncmp(line, "Gid:", 4) &&
		    strncmp(line, "Groups:", 7))
			continue;
		for (t = line; *t; t++)
			if (*t == '\t')
				*t = ' ';
		printf("%s: %s\n", how, line);
	}
	fflush(stdout);
}

static int child(void *unused)
{
	gid_t group = 0;
	char go;
	int fd;

	close(sv[0]);
	if (ulab_become(0, 0))
		return 2;
	if (setgroups(1, &group))
		ulab_fail("setgroups inside");
	ulab_print_ids("ids inside");

	fd = ulab_recv_fd(sv[1]);
	if (fd < 0) {
		printf("no descriptor came from the parent\n");
		return 1;
	}
	show_ids("opened outside, read inside", fd);
	close(fd);

	fd = open("/proc/self/status", O_RDONLY);
	if (fd < 0)
		return ulab_fail("open /proc/self/status") ? 1 : 0;
	show_ids("opened inside, read inside", fd);
	close(fd);

	fd = open("/proc/self/status", O_RDONLY);
	if (fd < 0 || ulab_send_fd(sv[1], fd))
		return ulab_fail("pass the descriptor") ? 1 : 0;
	close(fd);
	/* stay alive until the parent has read our status */
	if (read(sv[1], &go, 1) < 0)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct ulab_child c = { .fn = child };
	char path[64], map[128] = "0 1000 1";
	pid_t pid;
	int fd, opt, ret, outside_fd;

	while ((opt = getopt(argc, argv, "m:")) != -1) {
		if (opt != 'm')
			goto usage;
		snprintf(map, sizeof(map), "%s", optarg);
	}
	if (optind != argc)
		goto usage;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		ulab_die("socketpair");
	pid = ulab_spawn(&c, CLONE_NEWUSER);
	if (pid < 0)
		ulab_die("clone(CLONE_NEWUSER)");
	close(sv[1]);
	printf("child %d is in a new user namespace\n", (int)pid);
	if (ulab_write_map(pid, "uid_map", map) ||
	    ulab_write_map(pid, "gid_map", map)) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		return 2;
	}
	/* opened here, outside, and handed to the child */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	outside_fd = open(path, O_RDONLY);
	if (outside_fd < 0 || ulab_send_fd(sv[0], outside_fd))
		ulab_die("pass the descriptor");
	close(outside_fd);
	ulab_release(&c);

	fd = ulab_recv_fd(sv[0]);
	if (fd < 0) {
		printf("no descriptor came from the child\n");
	} else {
		show_ids("opened inside, read outside", fd);
		close(fd);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		ulab_fail("open status outside");
	else
		show_ids("opened outside, read outside", fd);

	close(sv[0]);
	ret = ulab_wait(pid);
	return ret;

usage:
	fprintf(stderr, "usage: %s [-m MAP]\n", argv[0]);
	return 2;
}
