// SPDX-License-Identifier: GPL-2.0
/*
 * userns-setns - open /proc/PID/ns/user and enter that user namespace with
 * setns(2).
 *
 *	userns-setns -l
 *	userns-setns [-a UID[:GID]] [-t] [-F] [-k] [-b PATH] [-N]
 *	userns-setns -o PATH
 *
 * -l lists the links in /proc/self/ns and says whether "user" is there.
 *
 * Otherwise a child is cloned into a new user namespace (by whoever runs
 * this: uid 1000 may do it since lab 02), the parent writes "0 EUID 1" to
 * its uid_map and opens /proc/CHILD/ns/user. Then, in this order:
 *   -b PATH         bind-mount that link on PATH (as root), to keep the
 *                   namespace without a process or an open fd;
 *   -k              kill the child and reap it: only the fd holds the
 *                   namespace now;
 *   -a UID[:GID]    become UID:GID (run as root): a caller with no
 *                   capability over the namespace;
 *   -t              start a second thread, one that does not share our
 *                   fs_struct (clone() without CLONE_FS, as pthreads
 *                   would share it), so that only the thread rule can
 *                   refuse;
 *   -F              share our fs_struct with a child (clone(CLONE_FS));
 * and then setns(fd, CLONE_NEWUSER). When that works, the program shows its
 * ids and capabilities, uses them (unshare(CLONE_NEWUTS), sethostname()),
 * and tries setns() again into the same namespace and back to the one it
 * came from.
 *
 * -o PATH enters the user namespace named by the file PATH instead (a bind
 * mount made by -b).
 *
 * -N (nested): the child's namespace C gets a gid map too ("0 GID 1"). Once
 * in C, make two children of C, G and its sibling G2 (uid maps "0 0 1"),
 * enter G, and from there try C (G's parent), G2 (its sibling) and the
 * namespace the program started in.
 */
#include "../lib/ulab.h"
#include <sys/mount.h>
#include <sys/stat.h>

static void show_link(const char *path)
{
	char buf[64], what[80];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0) {
		snprintf(what, sizeof(what), "readlink %s", path);
		ulab_fail(what);
		return;
	}
	buf[n] = '\0';
	printf("%s: %s\n", path, buf);
	fflush(stdout);
}

static int list_links(void)
{
	static const char * const names[] = { "cgroup", "ipc", "mnt", "net",
					      "pid", "time", "user", "uts",
					      NULL };
	const char * const *name;
	char path[64];
	int fd;

	for (name = names; *name; name++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", *name);
		if (access(path, F_OK) == 0)
			show_link(path);
	}
	fd = open("/proc/self/ns/user", O_RDONLY);
	if (fd < 0)
		return ulab_fail("open /proc/self/ns/user") ? 1 : 0;
	printf("open /proc/self/ns/user: ok\n");
	close(fd);
	return 0;
}

/* The namespace's creator: it waits until it is killed. */
static int hold(void *unused)
{
	for (;;)
		pause();
	return 0;
}

/* Kill a child that only waits, and reap it. */
static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A second thread: it only waits, and dies with the thread group. */
static int thread_fn(void *unused)
{
	for (;;)
		pause();
	return 0;
}

/* Start a thread of this process that has an fs_struct of its own. */
static int start_thread(void)
{
	const size_t size = 64 * 1024;
	char *stack = malloc(size);

	if (!stack)
		return -1;
	return clone(thread_fn, stack + size,
		     CLONE_VM | CLONE_SIGHAND | CLONE_THREAD, NULL);
}


static int setns_user(const char *what, int fd)
{
	if (setns(fd, CLONE_NEWUSER) < 0)
		return ulab_fail(what);
	printf("%s: ok\n", what);
	fflush(stdout);
	return 0;
}

static void show_caps(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			printf("capabilities: %s", line);
	fclose(f);
	fflush(stdout);
}

/* What a process that has just entered the namespace of FD can do. */
static int entered(int fd, int parent_fd)
{
	struct stat st_fd, st_now;

	show_link("/proc/self/ns/user");
	if (fstat(fd, &st_fd) == 0 && stat("/proc/self/ns/user", &st_now) == 0)
		printf("in the namespace of the fd: %s\n",
		       st_fd.st_ino == st_now.st_ino ? "yes" : "no");
	printf("uid inside: %u\n", (unsigned int)getuid());
	show_caps();
	if (unshare(CLONE_NEWUTS) < 0) {
		ulab_fail("unshare(CLONE_NEWUTS) inside");
	} else {
		printf("unshare(CLONE_NEWUTS) inside: ok\n");
		if (sethostname("lab08", 5) < 0)
			ulab_fail("sethostname inside");
		else
			printf("sethostname inside: ok\n");
	}
	fflush(stdout);
	setns_user("setns again into the same user namespace", fd);
	if (parent_fd >= 0)
		setns_user("setns back to the parent user namespace", parent_fd);
	return 0;
}

/* Clone a waiting child into a new user namespace mapped "0 0 1". */
static pid_t spawn_mapped(struct ulab_child *c, const char *name)
{
	char what[64];
	pid_t pid = ulab_spawn(c, CLONE_NEWUSER);

	if (pid < 0) {
		snprintf(what, sizeof(what), "clone(CLONE_NEWUSER) %s", name);
		ulab_fail(what);
		return -1;
	}
	printf("%s is process %d, in a child namespace of C\n", name,
	       (int)pid);
	ulab_write_map(pid, "uid_map", "0 0 1");
	return pid;
}

static int open_userns(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	return open(path, O_RDONLY);
}

/* In C (the namespace of C_FD): enter a child G, then look back out. */
static int nested(int c_fd, int parent_fd)
{
	struct ulab_child g = { .fn = hold }, g2 = { .fn = hold };
	pid_t pid_g, pid_g2;
	int g_fd, g2_fd;

	pid_g = spawn_mapped(&g, "G");
	pid_g2 = spawn_mapped(&g2, "G2");
	if (pid_g < 0 || pid_g2 < 0)
		return 1;
	g_fd = open_userns(pid_g);
	g2_fd = open_userns(pid_g2);
	if (g_fd < 0 || g2_fd < 0) {
		ulab_fail("open /proc/G/ns/user");
	} else if (!setns_user("setns from C into its child G", g_fd)) {
		printf("uid in G: %u\n", (unsigned int)getuid());
		show_caps();
		setns_user("setns from G back to C, its parent", c_fd);
		setns_user("setns from G into G2, its sibling", g2_fd);
		if (parent_fd >= 0)
			setns_user("setns from G back to the initial namespace",
				   parent_fd);
	}
	end_child(pid_g);
	end_child(pid_g2);
	return 0;
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = hold }, sharer = { .fn = hold };
	const char *bind_path = NULL, *open_path = NULL;
	int opt, kill_child = 0, threaded = 0, share_fs = 0, drop = 0;
	int nest = 0;
	int fd, parent_fd, ret;
	uid_t as_uid = 0;
	gid_t as_gid = 0;
	char path[64], map[64], what[96];
	pid_t pid = 0, sharer_pid = 0;

	while ((opt = getopt(argc, argv, "la:tFkb:o:N")) != -1) {
		switch (opt) {
		case 'l':
			return list_links();
		case 'a':
			if (ulab_parse_ids(optarg, &as_uid, &as_gid))
				goto usage;
			drop = 1;
			break;
		case 't':
			threaded = 1;
			break;
		case 'F':
			share_fs = 1;
			break;
		case 'k':
			kill_child = 1;
			break;
		case 'b':
			bind_path = optarg;
			break;
		case 'o':
			open_path = optarg;
			break;
		case 'N':
			nest = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;

	/* where we come from, for the way back */
	parent_fd = open("/proc/self/ns/user", O_RDONLY);

	if (open_path) {
		fd = open(open_path, O_RDONLY);
		if (fd < 0)
			ulab_die(open_path);
		printf("opened %s\n", open_path);
	} else {
		pid = ulab_spawn(&child, CLONE_NEWUSER);
		if (pid < 0)
			ulab_die("clone(CLONE_NEWUSER)");
		printf("child %d is in a new user namespace\n", (int)pid);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)geteuid());
		if (nest)	/* C will make namespaces: its gid needs a map */
			ulab_map_self(pid);
		else
			ulab_write_map(pid, "uid_map", map);
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		show_link(path);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			snprintf(what, sizeof(what), "open %s", path);
			ulab_fail(what);
			end_child(pid);
			return 1;
		}
		printf("open %s: ok\n", path);
		if (bind_path) {
			if (mount(path, bind_path, NULL, MS_BIND, NULL) < 0)
				ulab_fail("bind mount");
			else
				printf("bind mount %s on %s: ok\n", path,
				       bind_path);
		}
		if (kill_child) {
			end_child(pid);
			printf("child %d: killed and reaped\n", (int)pid);
			pid = 0;
		}
	}
	fflush(stdout);

	if (drop) {
		if (pid > 0) {	/* we could not kill it any more */
			end_child(pid);
			pid = 0;
		}
		if (ulab_become(as_uid, as_gid))
			return 2;
		ulab_print_ids("became");
	}
	if (threaded) {
		if (start_thread() < 0)
			ulab_die("clone(CLONE_THREAD)");
		printf("threads in this process: 2 (the fs_struct not shared)\n");
	}
	if (share_fs) {
		sharer_pid = ulab_spawn(&sharer, CLONE_FS);
		if (sharer_pid < 0)
			ulab_die("clone(CLONE_FS)");
		ulab_release(&sharer);
		printf("sharing our fs_struct with process %d\n",
		       (int)sharer_pid);
	}
	fflush(stdout);

	ret = setns_user("setns(CLONE_NEWUSER)", fd) ? 1 : 0;
	if (!ret && nest)
		nested(fd, parent_fd);
	else if (!ret)
		entered(fd, parent_fd);

	if (sharer_pid > 0)
		end_child(sharer_pid);
	if (pid > 0)
		end_child(pid);
	return ret;

usage:
	fprintf(stderr,
		"usage: %s -l | [-a UID[:GID]] [-t] [-F] [-k] [-b PATH] [-N] | -o PATH\n",
		argv[0]);
	return 2;
}
