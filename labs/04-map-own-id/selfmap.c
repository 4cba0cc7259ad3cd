// SPDX-License-Identifier: GPL-2.0
/*
 * selfmap - map your own uid and gid into a user namespace you created.
 *
 *	selfmap [-r UID:GID] [FILE=TEXT]...
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
 */
#include "../lib/ulab.h"
#include <sys/stat.h>

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
	fprintf(stderr, "usage: %s [-r UID:GID] [FILE=TEXT]...\n", argv[0]);
	return 2;
}
