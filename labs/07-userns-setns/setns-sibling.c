// SPDX-License-Identifier: GPL-2.0
/*
 * setns-sibling - join, with setns(), the namespaces another process made.
 *
 *	setns-sibling [-o | -H] [-p] TYPE...	(TYPE: uts ipc net all)
 *	setns-sibling -b
 *
 * The program clones a child into a new user namespace and writes its maps
 * "0 UID 1" (setgroups "deny" before the gid map), so the child is root in
 * there. That child forks two processes:
 *
 *   the maker	unshare()s the chosen namespaces, sets the hostname
 *		"lab07-maker", makes a message queue and listens on an
 *		abstract unix socket, then waits;
 *   the joiner	(its sibling) opens /proc/MAKER/ns/TYPE and calls setns(),
 *		then looks at the hostname, the queue and the socket.
 *
 *  -o	the joiner is the calling process itself, outside the user namespace
 *	(uid 1000 has no CAP_SYS_ADMIN there; real root has it everywhere).
 *  -H	the joiner, inside the user namespace, tries to go back to the
 *	namespaces the program started in (the host's), through descriptors
 *	the caller opened before the user namespace was made.
 *  -p	the joiner names the maker's namespaces with a pidfd of the maker
 *	(pidfd_open(), Linux 5.3) instead of the files in /proc/MAKER/ns.
 *  -b	no namespace at all: setns() on no descriptor (-1), then on a file
 *	that is no namespace's (/etc/passwd). setns() looks at the
 *	descriptor before it asks for any capability: EBADF, then EINVAL,
 *	whoever calls it.
 */
#include "../lib/ulab.h"
#include <stddef.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define MAKER_NAME "lab07-maker"
#define NTYPES 3

struct ns_type {
	const char *name;
	int flag;
	const char *flag_name;
};

static const struct ns_type types[NTYPES] = {
	{ "uts", CLONE_NEWUTS, "CLONE_NEWUTS" },
	{ "ipc", CLONE_NEWIPC, "CLONE_NEWIPC" },
	{ "net", CLONE_NEWNET, "CLONE_NEWNET" },
};

static int chosen[NTYPES];
static int join_outside, join_host, join_pidfd;
static int host_fd[NTYPES] = { -1, -1, -1 };
static int ready[2];	/* maker -> joiner: the maker's pid, or -1 */
static int hold[2];	/* joiner -> maker: done, you may exit */
static key_t queue_key;
static struct sockaddr_un sock_addr;
static socklen_t sock_len;

/* Print what the joiner sees of namespace type T, WHEN = before/after. */
static void look(const struct ns_type *t, const char *when)
{
	char name[65] = "";
	int fd;

	switch (t->flag) {
	case CLONE_NEWUTS:
		gethostname(name, sizeof(name) - 1);
		printf("hostname %s setns: %s\n", when, name);
		break;
	case CLONE_NEWIPC:
		if (msgget(queue_key, 0) < 0)
			printf("maker's message queue seen %s setns: no (%s)\n",
			       when, ulab_errname(errno));
		else
			printf("maker's message queue seen %s setns: yes\n",
			       when);
		break;
	case CLONE_NEWNET:
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sock_addr, sock_len) < 0)
			printf("maker's abstract socket reachable %s setns: no (%s)\n",
			       when, ulab_errname(errno));
		else
			printf("maker's abstract socket reachable %s setns: yes\n",
			       when);
		close(fd);
		break;
	}
}

static int run_maker(void)
{
	pid_t me = getpid();
	int i, flags = 0, fd;
	char what[128] = "unshare(";
	char go;

	for (i = 0; i < NTYPES; i++) {
		if (!chosen[i])
			continue;
		if (flags)
			strcat(what, "|");
		strcat(what, types[i].flag_name);
		flags |= types[i].flag;
	}
	strcat(what, ")");
	if (unshare(flags)) {
		ulab_fail(what);
		me = -1;
		goto tell;
	}
	printf("maker %d: %s: ok\n", (int)me, what);
	if (flags & CLONE_NEWUTS) {
		if (sethostname(MAKER_NAME, strlen(MAKER_NAME)))
			ulab_fail("maker: sethostname");
		else
			printf("maker: hostname set to %s\n", MAKER_NAME);
	}
	if (flags & CLONE_NEWIPC) {
		if (msgget(queue_key, IPC_CREAT | 0600) < 0)
			ulab_fail("maker: msgget");
		else
			printf("maker: message queue made\n");
	}
	if (flags & CLONE_NEWNET) {
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 ||
		    bind(fd, (struct sockaddr *)&sock_addr, sock_len) ||
		    listen(fd, 1))
			ulab_fail("maker: abstract socket");
		else
			printf("maker: abstract socket listening\n");
	}
tell:
	if (write(ready[1], &me, sizeof(me)) != sizeof(me))
		return 2;
	if (me < 0)
		return 1;
	/* stay alive, and keep the namespaces alive, until the joiner is done */
	if (read(hold[0], &go, 1) < 0)
		return 2;
	return 0;
}

/* setns() into each chosen namespace of the maker; returns the failures. */
static int run_joiner(void)
{
	char path[64], what[96];
	int i, fd, failed = 0;
	pid_t maker_pid;

	if (read(ready[0], &maker_pid, sizeof(maker_pid)) != sizeof(maker_pid) ||
	    maker_pid < 0) {
		printf("joiner: the maker has no namespaces to join\n");
		return NTYPES;
	}
	ulab_print_ids("joiner");
	for (i = 0; i < NTYPES; i++) {
		const struct ns_type *t = &types[i];

		if (!chosen[i])
			continue;
		if (join_pidfd) {
			fd = syscall(SYS_pidfd_open, maker_pid, 0);
			if (fd < 0) {
				ulab_fail("pidfd_open");
				failed++;
				continue;
			}
			printf("joiner: pidfd %d of the maker %d\n", fd,
			       (int)maker_pid);
		} else if (join_host) {
			fd = host_fd[i];
			printf("joiner: fd %d is the %s namespace the program started in\n",
			       fd, t->name);
		} else {
			snprintf(path, sizeof(path), "/proc/%d/ns/%s",
				 (int)maker_pid, t->name);
			fd = open(path, O_RDONLY);
			if (fd < 0) {
				snprintf(what, sizeof(what), "open %s", path);
				ulab_fail(what);
				failed++;
				continue;
			}
			printf("joiner: opened %s\n", path);
		}
		look(t, "before");
		snprintf(what, sizeof(what), "setns(%s)", t->flag_name);
		if (setns(fd, t->flag)) {
			ulab_fail(what);
			failed++;
			continue;
		}
		printf("%s: ok\n", what);
		look(t, "after");
		if (join_pidfd)
			close(fd);
	}
	return failed;
}

static void release_maker(void)
{
	if (write(hold[1], "x", 1) != 1)
		perror("release the maker");
}

/* Root of the new user namespace: start the maker and (usually) the joiner. */
static int in_userns(void *unused)
{
	pid_t maker_pid, joiner_pid;
	int ret = 0;

	ulab_print_ids("inside the user namespace");
	maker_pid = fork();
	if (maker_pid == 0)
		exit(run_maker());
	close(ready[1]);
	if (!join_outside) {
		joiner_pid = fork();
		if (joiner_pid == 0)
			exit(run_joiner() ? 1 : 0);
		ret = ulab_wait(joiner_pid);
		release_maker();
	}
	ulab_wait(maker_pid);
	return ret;
}

static int bad_descriptors(void)
{
	int fd = open("/etc/passwd", O_RDONLY);

	if (setns(-1, 0) < 0)
		ulab_fail("setns(-1, 0)");
	else
		printf("setns(-1, 0): ok\n");
	if (setns(fd, 0) < 0)
		ulab_fail("setns(/etc/passwd, 0)");
	else
		printf("setns(/etc/passwd, 0): ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = in_userns };
	char path[64];
	int opt, i, n = 0, ret;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 2 && !strcmp(argv[1], "-b"))
		return bad_descriptors();
	while ((opt = getopt(argc, argv, "oHp")) != -1) {
		switch (opt) {
		case 'o':
			join_outside = 1;
			break;
		case 'H':
			join_host = 1;
			break;
		case 'p':
			join_pidfd = 1;
			break;
		default:
			goto usage;
		}
	}
	if (join_host && (join_outside || join_pidfd))
		goto usage;
	for (; optind < argc; optind++)
		for (i = 0; i < NTYPES; i++)
			if (!strcmp(argv[optind], types[i].name) ||
			    !strcmp(argv[optind], "all"))
				chosen[i] = 1;
	for (i = 0; i < NTYPES; i++)
		n += chosen[i];
	if (!n)
		goto usage;

	ulab_print_ids("caller");
	queue_key = 0x4c360000 | (getpid() & 0xffff);
	sock_addr.sun_family = AF_UNIX;
	snprintf(sock_addr.sun_path + 1, sizeof(sock_addr.sun_path) - 1,
		 "lab07-%d", (int)getpid());
	sock_len = offsetof(struct sockaddr_un, sun_path) + 1 +
		   strlen(sock_addr.sun_path + 1);
	if (pipe(ready) || pipe(hold))
		ulab_die("pipe");
	for (i = 0; join_host && i < NTYPES; i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", types[i].name);
		host_fd[i] = open(path, O_RDONLY);
	}

	pid = ulab_spawn(&child, CLONE_NEWUSER);
	if (pid < 0)
		ulab_die("clone(CLONE_NEWUSER)");
	printf("clone(CLONE_NEWUSER): ok\n");
	close(ready[1]);
	if (ulab_map_self(pid)) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		return 2;
	}
	ulab_release(&child);
	ret = 0;
	if (join_outside) {
		ret = run_joiner() ? 1 : 0;
		release_maker();
	}
	i = ulab_wait(pid);
	return ret ? ret : i;

usage:
	fprintf(stderr, "usage: %s [-o | -H] [-p] uts|ipc|net|all...\n", argv[0]);
	return 2;
}
