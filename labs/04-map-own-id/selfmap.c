// SPDX-License-Identifier: GPL-2.0
/*
 * selfmap - map your own uid and gid into a user namespace you created.
 *
 *	selfmap [-r UID:GID] [FILE=TEXT]...
 *	selfmap -n FILE=TEXT...
 *	selfmap -o FILE=TEXT...
 *
 * Run it as an ordinary user (runas 1000 selfmap). It clones a child into a
 * new user namespace, then writes, from outside and in the order given, each
 * TEXT to /proc/CHILD/FILE (FILE is uid_map, gid_map or setgroups; map lines
 * are separated by ','). Without arguments it does what an unprivileged
 * container tool does:
 *
 *	uid_map="0 UID 1" setgroups=deny gid_map="0 GID 1"
 *
 * The child then prints its ids as seen inside, the state of its setgroups
 * file, what setgroups(2) answers, and the owners of two files as it sees
 * them, named from /etc/passwd and /etc/group: ids with no mapping show as
 * the overflow ids (nobody:nogroup, 65534).
 *
 * With -r (run it as root) the child is created by UID:GID, as above, but
 * the files are opened by root and only then written by UID:GID: the map is
 * written by its owner through a file that someone else opened.
 *
 * With -n (run it as root) the maps are written from inside, one level
 * down: root makes a user namespace A with the ids 0-999 mapped to
 * 100000-100999, as a container manager does; there, uid 1 and gid 1 (no
 * capabilities) clone a child into a user namespace B of their own, which
 * writes each TEXT to its own /proc/self/FILE. B's parent is A, not the initial
 * namespace: "0 1 1" names uid 1 of A.
 *
 * With -o (run it as root) B is made the same way, and the writer is
 * someone else: A's root, without CAP_SETUID and CAP_SETGID, opens and
 * writes B's files. It is not B's owner, so its own uid (0 in A) is no map
 * it may write without those capabilities.
 */
#include "../lib/ulab.h"
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/capability.h>

static char uid_map[32], gid_map[32], deny[] = "setgroups=deny";

/* The name of ID in FILE (/etc/passwd or /etc/group), or "?" */
static const char *id_name(const char *file, unsigned int id, char *name,
			   size_t len)
{
	char line[256];
	FILE *f = fopen(file, "re");

	snprintf(name, len, "?");
	if (!f)
		return name;
	while (fgets(line, sizeof(line), f)) {
		char *pw = strchr(line, ':');
		char *idf = pw ? strchr(pw + 1, ':') : NULL;

		if (!idf || strtoul(idf + 1, NULL, 10) != id)
			continue;
		*pw = '\0';
		snprintf(name, len, "%.63s", line);
		break;
	}
	fclose(f);
	return name;
}

static void show_owner(const char *path)
{
	char user[64], group[64];
	struct stat st;

	if (stat(path, &st)) {
		printf("%s: %s\n", path, ulab_errname(errno));
		return;
	}
	printf("%s %s:%s %u:%u", path,
	       id_name("/etc/passwd", st.st_uid, user, sizeof(user)),
	       id_name("/etc/group", st.st_gid, group, sizeof(group)),
	       (unsigned int)st.st_uid, (unsigned int)st.st_gid);
}
static char * const defaults[] = { uid_map, deny, gid_map, NULL };

static int child_main(void *unused)
{
	char buf[32] = "";
	int fd;

	printf("uid inside: %u\n", (unsigned int)getuid());
	printf("gid inside: %u\n", (unsigned int)getgid());
	fd = open("/proc/self/setgroups", O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		close(fd);
		printf("setgroups file inside: %s\n", buf);
	}
	if (setgroups(0, NULL))
		ulab_fail("setgroups inside");
	else
		printf("setgroups inside: ok\n");
	printf("owners inside: ");
	show_owner("/etc/passwd");
	printf(", ");
	show_owner("/home/student");
	printf("\n");
	fflush(stdout);
	return 0;
}

static void write_opened(int fd, const char *file, const char *text);
static void commas_to_newlines(char *s);

/* -n: in B, write WRITES to its own files */
static int b_main(void *arg)
{
	char * const *writes = arg;
	char path[64];
	int fd;

	for (; *writes; writes++) {
		char *eq = strchr(*writes, '=');

		*eq = '\0';
		snprintf(path, sizeof(path), "/proc/self/%s", *writes);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			ulab_fail(path);
		write_opened(fd, *writes, eq + 1);
		if (fd >= 0)
			close(fd);
	}
	printf("in B, uid inside: %u\n", (unsigned int)getuid());
	printf("in B, gid inside: %u\n", (unsigned int)getgid());
	fflush(stdout);
	return 0;
}

/*
 * -n: in A, become root there and then uid 1 and gid 1 (which drops the
 * capabilities), and make B (a clone, as lab 02 allows)
 */
static int nested_main(void *arg)
{
	struct ulab_child b = { .fn = b_main, .arg = arg };
	pid_t pid;

	if (ulab_become(0, 0) || ulab_become(1, 1))
		return 2;
	/*
	 * The change of uid made this process undumpable, and B's /proc
	 * files (B inherits the flag) would belong to root: B could not
	 * open its own maps for writing.
	 */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		ulab_fail("prctl(PR_SET_DUMPABLE)");
		return 2;
	}
	pid = ulab_spawn(&b, CLONE_NEWUSER);
	if (pid < 0) {
		ulab_fail("clone(CLONE_NEWUSER) as uid 1 of A");
		return 2;
	}
	ulab_release(&b);
	return ulab_wait(pid);
}

/* -o: B, which waits until GATE is closed */
static int gate_main(void *arg)
{
	int *gate = arg;
	char c;

	close(gate[1]);
	return read(gate[0], &c, 1) == 0 ? 0 : 3;
}

/*
 * -o: in A, as its root; uid 1 of A makes B, and A's root, without the
 * capabilities to set ids, writes WRITES to B's files
 */
static int other_main(void *arg)
{
	char * const *writes = arg;
	int gate[2], pp[2], fd;
	char path[64];
	pid_t p2, b = -1;

	if (ulab_become(0, 0) || pipe(gate) || pipe(pp))
		return 2;
	fflush(stdout);
	p2 = fork();
	if (p2 < 0)
		return 2;
	if (p2 == 0) {
		struct ulab_child c = { .fn = gate_main, .arg = gate };

		close(pp[0]);
		/* B's files must be B's owner's, not root's: dumpable */
		if (ulab_become(1, 1) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(2);
		b = ulab_spawn(&c, CLONE_NEWUSER);
		close(gate[0]);
		close(gate[1]);
		if (b < 0 || write(pp[1], &b, sizeof(b)) != sizeof(b))
			_exit(2);
		ulab_release(&c);
		_exit(ulab_wait(b) ? 1 : 0);
	}
	close(pp[1]);
	close(gate[0]);
	if (read(pp[0], &b, sizeof(b)) != sizeof(b) || b <= 0) {
		printf("uid 1 of A did not make B\n");
		close(gate[1]);
		ulab_wait(p2);
		return 2;
	}
	ulab_effective_caps(~(ULAB_CAP(CAP_SETUID) | ULAB_CAP(CAP_SETGID)));
	for (; *writes; writes++) {
		char *eq = strchr(*writes, '=');

		*eq = '\0';
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)b, *writes);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			ulab_fail(path);
		write_opened(fd, *writes, eq + 1);
		if (fd >= 0)
			close(fd);
	}
	close(gate[1]);
	return ulab_wait(p2);
}

/*
 * -n and -o: A's maps written by root, from outside; the rest in
 * nested_main() or other_main()
 */
static int nested(char * const *writes, int (*fn)(void *))
{
	struct ulab_child a = { .fn = fn, .arg = (void *)writes };
	pid_t pid;
	int i;

	for (i = 0; writes[i]; i++)
		commas_to_newlines(strchr(writes[i], '=') + 1);
	pid = ulab_spawn(&a, CLONE_NEWUSER);
	if (pid < 0)
		ulab_die("clone(CLONE_NEWUSER)");
	if (ulab_write_map(pid, "uid_map", "0 100000 1000") ||
	    ulab_write_map(pid, "gid_map", "0 100000 1000")) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		return 2;
	}
	ulab_release(&a);
	return ulab_wait(pid);
}

/*
 * The -r case: create the child as UID:GID (real and effective ids, keeping
 * root as the saved ids), open the files it will write as root, then become
 * UID:GID for good. Returns the child's pid, or -1.
 */
static pid_t spawn_opened_by_root(struct ulab_child *child, const char *ids,
				  char * const *writes, int *fds)
{
	char path[64];
	uid_t uid;
	gid_t gid;
	pid_t pid;

	if (ulab_parse_ids(ids, &uid, &gid))
		return -1;
	if (setresgid(gid, gid, -1) || setresuid(uid, uid, -1))
		ulab_die("setresuid");
	printf("outside: uid %u gid %u\n", (unsigned int)geteuid(),
	       (unsigned int)getegid());
	fflush(stdout);
	pid = ulab_spawn(child, CLONE_NEWUSER);
	if (pid < 0)
		ulab_die("clone(CLONE_NEWUSER)");
	if (setresuid(-1, 0, -1) || setresgid(-1, 0, -1))
		ulab_die("back to root");
	for (; *writes; writes++, fds++) {
		size_t len = strcspn(*writes, "=");

		snprintf(path, sizeof(path), "/proc/%d/%.*s", (int)pid,
			 (int)len, *writes);
		*fds = open(path, O_WRONLY);
		if (*fds < 0)
			ulab_fail(path);
	}
	printf("files opened by uid %u, written by uid %u\n",
	       (unsigned int)geteuid(), (unsigned int)uid);
	fflush(stdout);
	if (ulab_become(uid, gid))
		exit(2);
	return pid;
}

/* Write TEXT to FD, opened on /proc/PID/FILE; print it as ulab_write_map. */
static void write_opened(int fd, const char *file, const char *text)
{
	char shown[256];
	ssize_t n = -1;
	size_t i;

	snprintf(shown, sizeof(shown), "%s", text);
	for (i = 0; shown[i]; i++)
		if (shown[i] == '\n')
			shown[i] = ',';
	if (fd >= 0)
		n = write(fd, text, strlen(text));
	if (n < 0)
		printf("write %s \"%s\": %s (%s)\n", file, shown,
		       ulab_errname(errno), strerror(errno));
	else
		printf("write %s \"%s\": ok\n", file, shown);
	fflush(stdout);
}

static void commas_to_newlines(char *s)
{
	for (; *s; s++)
		if (*s == ',')
			*s = '\n';
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = child_main };
	char * const *writes = argv + 1;
	const char *opened_by_root = NULL;
	int fds[16], i = 0;
	pid_t pid;

	snprintf(uid_map, sizeof(uid_map), "uid_map=0 %u 1",
		 (unsigned int)geteuid());
	snprintf(gid_map, sizeof(gid_map), "gid_map=0 %u 1",
		 (unsigned int)getegid());
	if (argc > 2 && !strcmp(argv[1], "-n")) {
		for (i = 2; argv[i]; i++)
			if (!strchr(argv[i], '='))
				goto usage;
		return nested(argv + 2, nested_main);
	}
	if (argc > 2 && !strcmp(argv[1], "-o")) {
		for (i = 2; argv[i]; i++)
			if (!strchr(argv[i], '='))
				goto usage;
		return nested(argv + 2, other_main);
	}
	if (argc > 2 && !strcmp(argv[1], "-r")) {
		opened_by_root = argv[2];
		writes += 2;
	}
	for (i = 0; writes[i]; i++)
		if (!strchr(writes[i], '=') || i + 1 >= 16)
			goto usage;
	if (!*writes) {
		if (opened_by_root)
			goto usage;
		writes = defaults;
	}

	if (opened_by_root) {
		pid = spawn_opened_by_root(&child, opened_by_root, writes, fds);
		if (pid < 0)
			goto usage;
	} else {
		printf("outside: uid %u gid %u\n", (unsigned int)geteuid(),
		       (unsigned int)getegid());
		fflush(stdout);
		pid = ulab_spawn(&child, CLONE_NEWUSER);
		if (pid < 0)
			ulab_die("clone(CLONE_NEWUSER)");
	}
	for (i = 0; writes[i]; i++) {
		char *eq = strchr(writes[i], '=');

		*eq = '\0';
		commas_to_newlines(eq + 1);
		if (opened_by_root)
			write_opened(fds[i], writes[i], eq + 1);
		else
			ulab_write_map(pid, writes[i], eq + 1);
	}
	ulab_release(&child);
	return ulab_wait(pid);

usage:
	fprintf(stderr, "usage: %s [-r UID:GID] [FILE=TEXT]... | -n|-o FILE=TEXT...\n",
		argv[0]);
	return 2;
}
