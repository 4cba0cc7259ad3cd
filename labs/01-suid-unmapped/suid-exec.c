// SPDX-License-Identifier: GPL-2.0
/*
 * suid-exec - execute a set-uid/set-gid file from inside a user namespace.
 *
 *	suid-exec [-m UIDMAP] [-g GIDMAP] [-u UID[:GID]] FILE
 *
 * With -m, a child is cloned into a new user namespace (run this as root:
 * root may write any map), the maps are written by the parent, and the child
 * becomes UID:GID inside (default 1000:1000) before it executes FILE. Map
 * lines are separated by ',' on the command line: -m "1000 1000 1,2000 2000 1".
 * Without -m, the program becomes UID:GID and executes FILE directly.
 *
 * FILE is normally a copy of showids, which prints the ids it runs with.
 */
#include "../lib/ulab.h"
#include <sys/stat.h>

static uid_t as_uid = 1000;
static gid_t as_gid = 1000;
static const char *file;

static int become_and_exec(void *unused)
{
	struct stat st;

	if (ulab_become(as_uid, as_gid))
		return 2;
	ulab_print_ids("before exec");
	if (stat(file, &st) == 0)
		printf("exec %s: owner %u:%u (as seen here), mode %04o\n", file,
		       st.st_uid, st.st_gid, st.st_mode & 07777);
	fflush(stdout);
	execl(file, file, "after exec", (char *)NULL);
	ulab_fail("execve");
	return 1;
}

static void commas_to_newlines(char *s)
{
	for (; *s; s++)
		if (*s == ',')
			*s = '\n';
}

int main(int argc, char **argv)
{
	char *uid_map = NULL, *gid_map = NULL;
	struct ulab_child child = { .fn = become_and_exec };
	pid_t pid;
	int opt;

	while ((opt = getopt(argc, argv, "m:g:u:")) != -1) {
		switch (opt) {
		case 'm':
			uid_map = optarg;
			break;
		case 'g':
			gid_map = optarg;
			break;
		case 'u':
			if (ulab_parse_ids(optarg, &as_uid, &as_gid))
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	file = argv[optind];

	if (!uid_map)
		return become_and_exec(NULL);

	if (!gid_map)
		gid_map = uid_map;
	commas_to_newlines(uid_map);
	commas_to_newlines(gid_map);

	pid = ulab_spawn(&child, CLONE_NEWUSER);
	if (pid < 0)
		ulab_die("clone(CLONE_NEWUSER)");
	printf("child %d is in a new user namespace\n", (int)pid);
	if (ulab_write_map(pid, "uid_map", uid_map) ||
	    ulab_write_map(pid, "gid_map", gid_map)) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		return 2;
	}
	ulab_release(&child);
	return ulab_wait(pid);

usage:
	fprintf(stderr, "usage: %s [-m UIDMAP] [-g GIDMAP] [-u UID[:GID]] FILE\n",
		argv[0]);
	return 2;
}
