// SPDX-License-Identifier: GPL-2.0
/*
 * userns-chown - chown and chmod files from inside a user namespace.
 *
 *	userns-chown [-m MAP] [-u UID[:GID]] OP...
 *
 * Run as root: a child is cloned into a new user namespace, the parent
 * writes MAP (default "0 100000 1000") to its uid_map and gid_map, and the
 * child becomes UID:GID inside (default 0:0, the namespace's root) and
 * performs the operations in order:
 *
 *	chown FILE UID:GID	chown(2); -1 leaves an id unchanged
 *	chmod FILE MODE		chmod(2), MODE in octal
 *	stat FILE		owner and mode as seen inside
 *
 * Every operation prints its result, then the file's owner and mode.
 * Map lines are separated by ',' on the command line.
 */
#include "../lib/ulab.h"
#include <sys/stat.h>

static uid_t as_uid;
static gid_t as_gid;
static char **ops;

static void show(const char *file)
{
	struct stat st;

	if (stat(file, &st)) {
		ulab_fail(file);
		return;
	}
	printf("%s: owner %u:%u mode %04o\n", file, (unsigned int)st.st_uid,
	       (unsigned int)st.st_gid, st.st_mode & 07777);
}

/* The effective capability set, as /proc/self/status shows it. */
static void show_caps(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			printf("capabilities inside: %s", line);
	fclose(f);
}

static void report(int ret, const char *what, const char *file,
		   const char *arg)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s %s %s", what, file, arg);
	if (ret)
		ulab_fail(buf);
	else
		printf("%s: ok\n", buf);
}

static int run_ops(void *unused)
{
	char **op;

	/*
	 * The child still holds the creator's ids (host root), which are
	 * not root here: become root inside first, so that a move to
	 * another uid drops the capabilities, as it would for any root.
	 */
	if (ulab_become(0, 0) || ulab_become(as_uid, as_gid))
		return 2;
	ulab_print_ids("inside");
	show_caps();
	for (op = ops; op[0]; op += 2) {
		const char *file = op[1];

		if (!file)
			break;
		if (!strcmp(op[0], "chown") && op[2]) {
			long u, g;

			if (sscanf(op[2], "%ld:%ld", &u, &g) != 2)
				return 2;
			report(chown(file, u, g), "chown", file, op[2]);
			op++;
		} else if (!strcmp(op[0], "chmod") && op[2]) {
			mode_t mode = strtoul(op[2], NULL, 8);

			report(chmod(file, mode), "chmod", file, op[2]);
			op++;
		} else if (strcmp(op[0], "stat")) {
			printf("unknown operation %s\n", op[0]);
			return 2;
		}
		show(file);
	}
	fflush(stdout);
	return 0;
}

static void commas_to_newlines(char *s)
{
	for (; *s; s++)
		if (*s == ',')
			*s = '\n';
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = run_ops };
	char defmap[] = "0 100000 1000";
	char *map = defmap;
	pid_t pid;
	int opt;

	while ((opt = getopt(argc, argv, "+m:u:")) != -1) {
		switch (opt) {
		case 'm':
			map = optarg;
			break;
		case 'u':
			if (ulab_parse_ids(optarg, &as_uid, &as_gid))
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind == argc)
		goto usage;
	ops = argv + optind;
	commas_to_newlines(map);

	pid = ulab_spawn(&child, CLONE_NEWUSER);
	if (pid < 0)
		ulab_die("clone(CLONE_NEWUSER)");
	if (ulab_write_map(pid, "uid_map", map) ||
	    ulab_write_map(pid, "gid_map", map)) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		return 2;
	}
	ulab_release(&child);
	return ulab_wait(pid);

usage:
	fprintf(stderr,
		"usage: %s [-m MAP] [-u UID[:GID]] {chown FILE U:G | chmod FILE MODE | stat FILE}...\n",
		argv[0]);
	return 2;
}
