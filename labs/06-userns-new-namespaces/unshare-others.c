// SPDX-License-Identifier: GPL-2.0
/*
 * unshare-others - create UTS, IPC, mount, net and PID namespaces, with or
 * without a user namespace around them, and show that they are new.
 *
 *	unshare-others [-U] [-c | -C] TYPE...	(TYPE: uts ipc mnt net pid all)
 *
 *  -U	first clone a child into a new user namespace; the parent writes the
 *	maps "0 UID 1" (setgroups "deny" before the gid map), so the child is
 *	root in there and does the rest.
 *  -c	create each namespace with clone() (a new child per type) instead of
 *	unshare().
 *  -C	(needs -U) create all of them in the same clone() call as the user
 *	namespace: clone(CLONE_NEWUSER | CLONE_NEWUTS | ...).
 *
 * What each new namespace shows:
 *  uts	sethostname() works inside, and the host keeps its own name;
 *  ipc	a System V and a POSIX message queue made outside are not seen
 *	inside;
 *  mnt	nothing is mounted (mounting in it comes in a later lab);
 *  net	an abstract unix socket listening outside cannot be reached;
 *  pid	the first process in the new namespace has pid 1.
 */
#include "../lib/ulab.h"
#include <stddef.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/un.h>

#define INSIDE_NAME "lab06-inside"

struct ns_type {
	const char *name;
	int flag;
	const char *flag_name;
};

#define NTYPES 5

static const struct ns_type types[NTYPES] = {
	{ "uts", CLONE_NEWUTS, "CLONE_NEWUTS" },
	{ "ipc", CLONE_NEWIPC, "CLONE_NEWIPC" },
	{ "mnt", CLONE_NEWNS, "CLONE_NEWNS" },
	{ "net", CLONE_NEWNET, "CLONE_NEWNET" },
	{ "pid", CLONE_NEWPID, "CLONE_NEWPID" },
};

static int chosen[NTYPES], nchosen;
static int use_clone, all_in_one;
static key_t queue_key;
static char mq_name[32];
static struct sockaddr_un sock_addr;
static socklen_t sock_len;

/* The chosen types as clone flags, and their names "CLONE_NEWUTS|..." */
static int chosen_flags(void)
{
	int i, flags = 0;

	for (i = 0; i < NTYPES; i++)
		if (chosen[i])
			flags |= types[i].flag;
	return flags;
}

static const char *chosen_names(void)
{
	static char buf[256];
	int i;

	buf[0] = '\0';
	for (i = 0; i < NTYPES; i++) {
		if (!chosen[i])
			continue;
		if (buf[0])
			strncat(buf, "|", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, types[i].flag_name, sizeof(buf) - strlen(buf) - 1);
	}
	return buf;
}

/* Fixtures in the caller's namespaces, for the ipc and net evidence. */
static void make_fixtures(void)
{
	int fd;

	queue_key = 0x4c350000 | (getpid() & 0xffff);
	if (msgget(queue_key, IPC_CREAT | 0600) < 0)
		ulab_fail("outside: msgget");
	/* a POSIX queue too: the mqueue filesystem of this IPC namespace */
	snprintf(mq_name, sizeof(mq_name), "/lab06-%d", (int)getpid());
	if (mq_open(mq_name, O_RDWR | O_CREAT | O_CLOEXEC, 0600, NULL) < 0)
		ulab_fail("outside: mq_open");

	sock_addr.sun_family = AF_UNIX;
	snprintf(sock_addr.sun_path + 1, sizeof(sock_addr.sun_path) - 1,
		 "lab06-%d", (int)getpid());
	sock_len = offsetof(struct sockaddr_un, sun_path) + 1 +
		   strlen(sock_addr.sun_path + 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sock_addr, sock_len) ||
	    listen(fd, 1))
		ulab_fail("outside: abstract socket");
	/* fd stays open (and listening) until the program ends */
}

static void drop_fixtures(void)
{
	int id = msgget(queue_key, 0);

	if (id >= 0)
		msgctl(id, IPC_RMID, NULL);
	mq_unlink(mq_name);
}

static int show_pid_child(void *unused)
{
	printf("first child's pid inside: %d\n", (int)getpid());
	return 0;
}

/* Print what the new namespace of type T looks like from in here. */
static void show(const struct ns_type *t, int cloned)
{
	char name[65] = "";
	int fd;

	switch (t->flag) {
	case CLONE_NEWUTS:
		if (sethostname(INSIDE_NAME, strlen(INSIDE_NAME)))
			ulab_fail("sethostname(\"" INSIDE_NAME "\")");
		else
			printf("sethostname(\"" INSIDE_NAME "\"): ok\n");
		gethostname(name, sizeof(name) - 1);
		printf("hostname inside: %s\n", name);
		break;
	case CLONE_NEWIPC:
		if (msgget(queue_key, 0) < 0)
			printf("outside message queue seen inside: no (%s)\n",
			       ulab_errname(errno));
		else
			printf("outside message queue seen inside: yes\n");
		if (mq_open(mq_name, O_RDONLY | O_CLOEXEC) < 0)
			printf("outside POSIX message queue seen inside: no (%s)\n",
			       ulab_errname(errno));
		else
			printf("outside POSIX message queue seen inside: yes\n");
		break;
	case CLONE_NEWNET:
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sock_addr, sock_len) < 0)
			printf("outside abstract socket reachable inside: no (%s)\n",
			       ulab_errname(errno));
		else
			printf("outside abstract socket reachable inside: yes\n");
		close(fd);
		break;
	case CLONE_NEWPID:
		if (cloned) {
			printf("pid of the cloned child inside: %d\n",
			       (int)getpid());
		} else {
			/* unshare() moves only the children into it */
			pid_t pid = fork();

			if (pid == 0)
				exit(show_pid_child(NULL));
			ulab_wait(pid);
		}
		break;
	}
}

static int show_cloned(void *arg)
{
	show(arg, 1);
	return 0;
}

/* Create each chosen namespace in turn; returns how many were made. */
static int create_each(void)
{
	char what[64];
	int i, made = 0;

	for (i = 0; i < NTYPES; i++) {
		const struct ns_type *t = &types[i];

		if (!chosen[i])
			continue;
		if (use_clone) {
			struct ulab_child c = { .fn = show_cloned,
						.arg = (void *)t };
			pid_t pid = ulab_spawn(&c, t->flag);

			snprintf(what, sizeof(what), "clone(%s)", t->flag_name);
			if (pid < 0) {
				ulab_fail(what);
				continue;
			}
			printf("%s: ok\n", what);
			made++;
			ulab_release(&c);
			ulab_wait(pid);
		} else {
			snprintf(what, sizeof(what), "unshare(%s)",
				 t->flag_name);
			if (unshare(t->flag)) {
				ulab_fail(what);
				continue;
			}
			printf("%s: ok\n", what);
			made++;
			show(t, 0);
		}
	}
	return made;
}

/* Runs where the namespaces are to be made: in the user namespace or not. */
static int work(void *in_userns)
{
	int i, made;

	if (in_userns)
		ulab_print_ids("inside the user namespace");
	if (all_in_one) {
		/* clone() already made them all: just look */
		for (i = 0; i < NTYPES; i++)
			if (chosen[i])
				show(&types[i], 1);
		made = nchosen;
	} else {
		made = create_each();
	}
	printf("namespaces created: %d of %d\n", made, nchosen);
	return made == nchosen ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = work, .arg = (void *)1 };
	char name[65] = "";
	int opt, i, userns = 0, ret, err;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	while ((opt = getopt(argc, argv, "UcC")) != -1) {
		switch (opt) {
		case 'U':
			userns = 1;
			break;
		case 'c':
			use_clone = 1;
			break;
		case 'C':
			all_in_one = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind == argc || (all_in_one && !userns))
		goto usage;
	for (; optind < argc; optind++) {
		for (i = 0; i < NTYPES; i++)
			if (!strcmp(argv[optind], types[i].name) ||
			    !strcmp(argv[optind], "all"))
				chosen[i] = 1;
	}
	for (i = 0; i < NTYPES; i++)
		nchosen += chosen[i];
	if (!nchosen)
		goto usage;

	ulab_print_ids("caller");
	make_fixtures();

	if (userns) {
		pid = ulab_spawn(&child, CLONE_NEWUSER |
				 (all_in_one ? chosen_flags() : 0));
		err = errno;
		if (all_in_one)
			printf("clone(CLONE_NEWUSER|%s)", chosen_names());
		else
			printf("clone(CLONE_NEWUSER)");
		if (pid < 0) {
			printf(": %s (%s)\n", ulab_errname(err), strerror(err));
			ret = 1;
			goto out;
		}
		printf(": ok\n");
		if (ulab_map_self(pid)) {
			kill(pid, SIGKILL);
			ulab_wait(pid);
			ret = 2;
			goto out;
		}
		ulab_release(&child);
	} else {
		/* a child, so that this process keeps the host's namespaces */
		pid = fork();
		if (pid == 0)
			exit(work(NULL));
	}
	ret = ulab_wait(pid);
out:
	gethostname(name, sizeof(name) - 1);
	printf("hostname outside: %s\n", name);
	drop_fixtures();
	return ret;

usage:
	fprintf(stderr, "usage: %s [-U] [-c | -C] uts|ipc|mnt|net|pid|all...\n",
		argv[0]);
	return 2;
}
