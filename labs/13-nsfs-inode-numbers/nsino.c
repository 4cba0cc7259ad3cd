// SPDX-License-Identifier: GPL-2.0
/*
 * nsino - the inode numbers of namespace files: do they name a namespace?
 *
 *	nsino [TYPE]
 *
 * TYPE is a name in /proc/self/ns (default uts). The program stats
 * /proc/self/ns/TYPE (no descriptor is kept open between two looks) and
 * compares:
 *
 *   the number in the link text with st_ino;
 *   its own st_ino with that of another process in the same namespace;
 *   its own st_ino now and a moment later;
 *   its own st_ino with that of a child in a new namespace (uts only: the
 *   child is cloned with CLONE_NEWUTS, so run this as root);
 *   the st_ino of the initial uts and user namespaces with their fixed
 *   numbers (only meaningful when run in the initial namespaces).
 */
#include "../lib/ulab.h"
#include <sys/stat.h>

static char path[64];
static int sock[2];

/* st_ino of PATH, or 0 after printing the error */
static unsigned long long ino_of(const char *p)
{
	struct stat st;

	if (stat(p, &st) < 0) {
		ulab_fail(p);
		return 0;
	}
	return st.st_ino;
}

/* A child: send our st_ino to the parent. */
static int report(void *unused)
{
	unsigned long long ino = ino_of(path);

	return write(sock[1], &ino, sizeof(ino)) == sizeof(ino) ? 0 : 1;
}

static unsigned long long ino_from_child(int flags)
{
	struct ulab_child c = { .fn = report };
	unsigned long long ino = 0;
	pid_t pid;

	if (pipe(sock))
		ulab_die("pipe");
	pid = ulab_spawn(&c, flags);
	if (pid < 0) {
		ulab_fail("clone");
		return 0;
	}
	close(sock[1]);
	ulab_release(&c);
	if (read(sock[0], &ino, sizeof(ino)) != sizeof(ino))
		ino = 0;
	close(sock[0]);
	ulab_wait(pid);
	return ino;
}

static const char *same(unsigned long long a, unsigned long long b)
{
	return a && a == b ? "equal" : "different";
}

static void initial_ns(const char *type, unsigned long long want)
{
	char p[64];
	unsigned long long ino;

	snprintf(p, sizeof(p), "/proc/self/ns/%s", type);
	ino = ino_of(p);
	printf("st_ino of the initial %s namespace: %#llx (fixed number %#llx)\n",
	       type, ino, want);
}

int main(int argc, char **argv)
{
	const char *type = argc > 1 ? argv[1] : "uts";
	unsigned long long mine, other, later, fresh, in_link;
	char link[128], *open_bracket;
	ssize_t n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(path, sizeof(path), "/proc/self/ns/%s", type);

	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		ulab_die(path);
	link[n] = '\0';
	mine = ino_of(path);
	printf("readlink %s: \"%s\"\n", path, link);
	printf("st_ino: %llu\n", mine);
	open_bracket = strchr(link, '[');
	if (!open_bracket) {
		printf("number in the link text: none\n");
	} else {
		in_link = strtoull(open_bracket + 1, NULL, 10);
		printf("number in the link text: %llu, st_ino %s\n", in_link,
		       in_link == mine ? "equal" : "different");
	}

	other = ino_from_child(0);
	printf("st_ino in another process, same namespace: %llu\n", other);
	printf("two processes, one namespace: %s\n", same(mine, other));

	later = ino_of(path);
	printf("st_ino again, later: %llu\n", later);
	printf("one namespace, over time: %s\n", same(mine, later));

	if (!strcmp(type, "uts")) {
		fresh = ino_from_child(CLONE_NEWUTS);
		printf("st_ino in a new uts namespace: %llu\n", fresh);
		printf("two namespaces: %s\n", fresh && fresh != mine ?
		       "different" : "equal");
	}

	initial_ns("uts", 0xEFFFFFFEULL);
	initial_ns("user", 0xEFFFFFFDULL);
	return 0;
}
