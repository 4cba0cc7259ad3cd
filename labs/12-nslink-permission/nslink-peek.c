// SPDX-License-Identifier: GPL-2.0
/*
 * nslink-peek - readlink() and open() namespace links, and show whether a
 * link that root has just looked up lets an unprivileged user through.
 *
 *	nslink-peek PATH...
 *	nslink-peek -s [-u UID[:GID]]
 *
 * With PATHs, each one is read with readlink() and opened with open(), and
 * with open(O_PATH) (which follows the link but asks no permission of the
 * file it finds), as the caller, and the answers are printed.
 *
 * With -s (run as root), a scenario: a root-owned target process is
 * started; UID (default 1000:1000) peeks at the target's ipc link, which
 * nobody has looked at yet; root looks up the target's net and uts links;
 * UID peeks at them again; UID peeks at its own links. Then UID peeks at
 * another process of its own uid, and at a non-dumpable one whose net link
 * root has just looked up; last, UID makes a user namespace, maps itself
 * to root there and peeks at the root-owned target's uts link again. A
 * process whose real uid is UID but whose filesystem uid is UID + 1000
 * peeks at the process of UID (access to a file is judged by the
 * filesystem ids), and root without CAP_SYS_PTRACE lists that process's ns
 * folder (listing it asks no ptrace access; following a link does).
 */
#include "../lib/ulab.h"
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

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
	fd = open(path, O_PATH);
	if (fd < 0) {
		printf("%sopen O_PATH %s: %s (%s)\n", who, path,
		       ulab_errname(errno), strerror(errno));
	} else {
		printf("%sopen O_PATH %s: ok\n", who, path);
		close(fd);
	}
	fflush(stdout);
}

/*
 * List the folder PATH as root without CAP_SYS_PTRACE, in a child process:
 * a reader the folder's mode lets in (CAP_DAC_READ_SEARCH) who may not
 * ptrace its process.
 */
static void list_without_ptrace(const char *what, const char *path)
{
	struct dirent *e;
	pid_t pid;
	DIR *dir;
	int n = 0;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ulab_die("fork");
	if (pid == 0) {
		ulab_effective_caps(~ULAB_CAP(CAP_SYS_PTRACE));
		dir = opendir(path);
		errno = dir ? 0 : errno;
		while (dir && (e = readdir(dir)))
			n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		if (errno)
			printf("as root without CAP_SYS_PTRACE, list %s: %s (%s)\n",
			       what, ulab_errname(errno), strerror(errno));
		else
			printf("as root without CAP_SYS_PTRACE, list %s: %s\n",
			       what, n ? "entries" : "empty");
		if (dir)
			closedir(dir);
		fflush(stdout);
		_exit(0);
	}
	ulab_wait(pid);
}

/*
 * Peek at P from a process whose real ids are as_uid and as_gid and whose
 * effective (and so filesystem) uid is as_uid + 1000: no capabilities.
 */
static void peek_with_other_fsuid(const char *when, const char *p)
{
	uid_t fsuid = as_uid + 1000;
	char who[96];
	pid_t pid;

	snprintf(who, sizeof(who), "as ruid %u, fsuid %u, %s: ",
		 (unsigned int)as_uid, (unsigned int)fsuid, when);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ulab_die("fork");
	if (pid == 0) {
		if ((setgroups(0, NULL) && errno != EPERM) ||
		    setresgid(as_gid, as_gid, as_gid) ||
		    setresuid(as_uid, fsuid, fsuid)) {
			ulab_fail("setresuid");
			_exit(2);
		}
		peek(who, p);
		_exit(0);
	}
	ulab_wait(pid);
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

/*
 * Start a process that runs as UID:GID (root when UID is 0), is dumpable
 * or not as DUMPABLE says, and waits until GATE is closed. It returns once
 * the process is so: it says it with a byte on a pipe of its own, or dies.
 * Without that wait, a busy machine lets the parent look at a process
 * that has not yet changed its uid or its dumpable flag.
 */
static pid_t target(int gate[2], uid_t uid, gid_t gid, int dumpable)
{
	int ready[2];
	pid_t pid;
	char c = 0;

	if (pipe(ready))
		ulab_die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ulab_die("fork");
	if (pid == 0) {
		close(gate[1]);
		close(ready[0]);
		if (uid && ulab_become(uid, gid))
			_exit(2);
		if (prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0))
			_exit(2);
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		/* wait until the parent closes the pipe */
		if (read(gate[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		fprintf(stderr, "process %d did not get ready\n", (int)pid);
	close(ready[0]);
	return pid;
}

/*
 * As as_uid, make a user namespace, map as_uid and as_gid to its root and
 * peek at P as that root (who holds every capability there, none outside).
 */
static void peek_as_userns_root(const char *p)
{
	char map[32];
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ulab_die("fork");
	if (pid == 0) {
		if (ulab_become(as_uid, as_gid))
			_exit(2);
		/* a changed uid leaves the process non-dumpable: undo that */
		if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(2);
		if (unshare(CLONE_NEWUSER)) {
			ulab_fail("unshare(CLONE_NEWUSER)");
			_exit(2);
		}
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)as_uid);
		if (ulab_write_map(getpid(), "uid_map", map))
			_exit(2);
		ulab_write_map(getpid(), "setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)as_gid);
		if (ulab_write_map(getpid(), "gid_map", map))
			_exit(2);
		peek("as root of a user namespace, after root looked: ", p);
		_exit(0);
	}
	ulab_wait(pid);
}

static int scenario(void)
{
	char ipc[64], net[64], uts[64], mine[64], nodump[64], dir[64];
	pid_t root_t, mine_t, nodump_t;
	int gate[2];

	if (pipe(gate))
		ulab_die("pipe");
	root_t = target(gate, 0, 0, 1);
	mine_t = target(gate, as_uid, as_gid, 1);
	nodump_t = target(gate, as_uid, as_gid, 0);
	close(gate[0]);
	printf("target: process %d, owned by root\n", (int)root_t);
	printf("same-uid process: %d, owned by %u, dumpable\n", (int)mine_t,
	       (unsigned int)as_uid);
	printf("non-dumpable process: %d, owned by %u\n", (int)nodump_t,
	       (unsigned int)as_uid);
	snprintf(ipc, sizeof(ipc), "/proc/%d/ns/ipc", (int)root_t);
	snprintf(net, sizeof(net), "/proc/%d/ns/net", (int)root_t);
	snprintf(uts, sizeof(uts), "/proc/%d/ns/uts", (int)root_t);
	snprintf(mine, sizeof(mine), "/proc/%d/ns/net", (int)mine_t);
	snprintf(nodump, sizeof(nodump), "/proc/%d/ns/net", (int)nodump_t);
	snprintf(dir, sizeof(dir), "/proc/%d/ns", (int)mine_t);

	peek_as_user("before root looked", ipc, NULL);
	peek("as root: ", net);
	peek("as root: ", uts);
	peek_as_user("after root looked", net, uts);
	peek_as_user("own links", "/proc/self/ns/uts", "/proc/self/ns/net");
	peek_as_user("same-uid process", mine, NULL);
	peek_with_other_fsuid("same-uid process", mine);
	list_without_ptrace("the ns folder of uid 1000's process", dir);
	peek("as root: ", nodump);
	peek_as_user("non-dumpable process, after root looked", nodump, NULL);
	peek_as_userns_root(uts);

	close(gate[1]);
	ulab_wait(root_t);
	ulab_wait(mine_t);
	ulab_wait(nodump_t);
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
