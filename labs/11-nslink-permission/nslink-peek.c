// SPDX-License-Identifier: GPL-2.0
/*
 * nslink-peek - readlink() and open() namespace links, and show whether a
 * link that root has just looked up lets an unprivileged user through.
 *
 *	nslink-peek PATH...
 *	nslink-peek -s [-u UID[:GID]]
 *
 * With PATHs, each one is read with readlink() and opened with open(), as
 * the caller, and the answers are printed.
 *
 * With -s (run as root), a scenario: a root-owned target process is
 * started; UID (default 1000:1000) peeks at the target's ipc link, which
 * nobody has looked at yet; root looks up the target's net and uts links;
 * UID peeks at them again; UID peeks at its own links.
 */
#include "../lib/ulab.h"

static uid_t as_uid = 1000;
static gid_t as_gid = 1000;

static void peek(const char *who, const char *path)
{
	char buf[128];
	ssize_t n;
	int fd;

	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0) {
		printf("%sreadlink %s: %s (%s)\n", who, path,
		       ulab_errname(errno), strerror(errno));
	} else {
		buf[n] = '\0';
		printf("%sreadlink %s: \"%s\"\n", who, path, buf);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("%sopen %s: %s (%s)\n", who, path,
		       ulab_errname(errno), strerror(errno));
	} else {
		printf("%sopen %s: ok\n", who, path);
		close(fd);
	}
	fflush(stdout);
}

/* Peek at P1 and, if not NULL, P2 as as_uid, in a child process. */
static void peek_as_user(const char *when, const char *p1, const char *p2)
{
	char who[64];
	pid_t pid;

	snprintf(who, sizeof(who), "as uid %u, %s: ", (unsigned int)as_uid,
		 when);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ulab_die("fork");
	if (pid == 0) {
		if (ulab_become(as_uid, as_gid))
			_exit(2);
		peek(who, p1);
		if (p2)
			peek(who, p2);
		_exit(0);
	}
	ulab_wait(pid);
}

static int scenario(void)
{
	char ipc[64], net[64], uts[64];
	int gate[2];
	pid_t target;
	char c;

	if (pipe(gate))
		ulab_die("pipe");
	target = fork();
	if (target < 0)
		ulab_die("fork");
	if (target == 0) {
		close(gate[1]);
		/* wait, as root, until the parent closes the pipe */
		if (read(gate[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(gate[0]);
	printf("target: process %d, owned by root\n", (int)target);
	snprintf(ipc, sizeof(ipc), "/proc/%d/ns/ipc", (int)target);
	snprintf(net, sizeof(net), "/proc/%d/ns/net", (int)target);
	snprintf(uts, sizeof(uts), "/proc/%d/ns/uts", (int)target);

	peek_as_user("before root looked", ipc, NULL);
	peek("as root: ", net);
	peek("as root: ", uts);
	peek_as_user("after root looked", net, uts);
	peek_as_user("own links", "/proc/self/ns/uts", "/proc/self/ns/net");

	close(gate[1]);
	ulab_wait(target);
	return 0;
}

int main(int argc, char **argv)
{
	int opt, s = 0;

	while ((opt = getopt(argc, argv, "su:")) != -1) {
		switch (opt) {
		case 's':
			s = 1;
			break;
		case 'u':
			if (ulab_parse_ids(optarg, &as_uid, &as_gid))
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (s)
		return scenario();
	if (optind == argc)
		goto usage;
	for (; optind < argc; optind++)
		peek("", argv[optind]);
	return 0;

usage:
	fprintf(stderr, "usage: %s PATH... | %s -s [-u UID[:GID]]\n",
		argv[0], argv[0]);
	return 2;
}
