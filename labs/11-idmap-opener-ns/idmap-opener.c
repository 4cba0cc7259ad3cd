// SPDX-License-Identifier: GPL-2.0
/*
 * idmap-opener - read and write /proc/PID/{uid,gid,projid}_map through
 * descriptors opened in one user namespace and used in another.
 *
 *	idmap-opener [-r] [-w]
 *
 * Run as root. With -r (reading), two sibling user namespaces are made:
 * A with the maps "0 100000 1000" and B with "0 200000 1000". A's map files
 * are then read:
 *
 *   opened outside, read in B     the parent opens, B reads
 *   opened in B, read outside     B opens, the parent reads
 *   opened in A, read in B        A opens its own file, B reads
 *   opened in B, read in B        B opens and reads (for comparison)
 *
 * Descriptors travel over unix sockets (SCM_RIGHTS).
 *
 * With -w (writing), the parent makes a namespace C ("0 100000 1000"), whose
 * root makes two grandchildren, G and G2. The initial root, which holds every
 * capability over G, opens G's map files and tries to write them; it also
 * opens G2's three map files and hands the descriptors to C, which tries to
 * write through them and then hands them on to G2, which tries too; then C,
 * G's parent, writes G's maps with files of its own. Last, a new namespace S
 * of the initial root writes its own maps (gid_map once setgroups is
 * denied).
 *
 * Without options both parts run.
 */
#include "../lib/ulab.h"
#include <sys/prctl.h>

static const char *const files[] = { "uid_map", "gid_map", "projid_map" };
#define NFILES 3

static int send_int(int sock, int v)
{
	return write(sock, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
}

static int recv_int(int sock)
{
	int v;

	return read(sock, &v, sizeof(v)) == sizeof(v) ? v : -1;
}

/* Print "WHAT: first lower count" for each line of FD, spaces collapsed. */
static void show_map(const char *what, int fd)
{
	char buf[4096], *line, *save;
	unsigned int first, lower, count;
	ssize_t n;

	if (fd < 0) {
		printf("%s: no descriptor\n", what);
		fflush(stdout);
		return;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		ulab_fail(what);
		return;
	}
	buf[n] = '\0';
	if (!n)
		printf("%s: (empty)\n", what);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%u %u %u", &first, &lower, &count) == 3)
			printf("%s: %u %u %u\n", what, first, lower, count);
	fflush(stdout);
}

static int open_map(pid_t pid, const char *file, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	return open(path, flags);
}

/* Try to write "0 0 1" to each map file of G, from WHERE; print each answer. */
static void write_maps_of_g(pid_t pid_g, const char *where)
{
	char what[80];
	int i, fd;

	for (i = 0; i < NFILES; i++) {
		snprintf(what, sizeof(what), "write %s of G from %s",
			 files[i], where);
		fd = open_map(pid_g, files[i], O_WRONLY);
		if (fd < 0) {
			ulab_fail(what);
			continue;
		}
		if (write(fd, "0 0 1\n", 6) == 6)
			printf("%s: ok\n", what);
		else
			ulab_fail(what);
		fflush(stdout);
		close(fd);
	}
}

static int write_maps(pid_t pid, const char *map)
{
	int i;

	for (i = 0; i < NFILES; i++)
		if (ulab_write_map(pid, files[i], map))
			return -1;
	return 0;
}

/* ---- reading: two siblings, A and B ---- */

static int sock_a[2], sock_b[2];
static pid_t pid_a;

static int sibling_a(void *unused)
{
	int i, fd;

	close(sock_a[0]);
	if (ulab_become(0, 0))
		return 2;
	for (i = 0; i < NFILES; i++) {
		char path[32];

		snprintf(path, sizeof(path), "/proc/self/%s", files[i]);
		fd = open(path, O_RDONLY);
		if (fd < 0 || ulab_send_fd(sock_a[1], fd))
			return ulab_fail("A: pass a descriptor") ? 1 : 0;
		close(fd);
	}
	/* stay alive while the others look at our maps */
	recv_int(sock_a[1]);
	return 0;
}

static int sibling_b(void *unused)
{
	char what[96];
	int i, fd;

	close(sock_b[0]);
	if (ulab_become(0, 0))
		return 2;
	for (i = 0; i < NFILES; i++) {
		fd = open_map(pid_a, files[i], O_RDONLY);
		if (fd < 0 || ulab_send_fd(sock_b[1], fd))
			return ulab_fail("B: pass a descriptor") ? 1 : 0;
		close(fd);
		fd = open_map(pid_a, files[i], O_RDONLY);
		snprintf(what, sizeof(what), "%s of A, opened in B, read in B",
			 files[i]);
		show_map(what, fd);
		close(fd);
	}
	for (i = 0; i < NFILES; i++) {
		fd = ulab_recv_fd(sock_b[1]);
		snprintf(what, sizeof(what),
			 "%s of A, opened outside, read in B", files[i]);
		show_map(what, fd);
		close(fd);
		fd = ulab_recv_fd(sock_b[1]);
		snprintf(what, sizeof(what), "%s of A, opened in A, read in B",
			 files[i]);
		show_map(what, fd);
		close(fd);
	}
	return 0;
}

static int reading(void)
{
	struct ulab_child a = { .fn = sibling_a }, b = { .fn = sibling_b };
	int fds_a[NFILES], i, fd;
	char what[96];
	pid_t pid_b;

	printf("sibling namespaces A and B, children of this one\n");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock_a) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sock_b))
		ulab_die("socketpair");
	pid_a = ulab_spawn(&a, CLONE_NEWUSER);
	if (pid_a < 0)
		ulab_die("clone(CLONE_NEWUSER) A");
	close(sock_a[1]);
	printf("A is process %d\n", (int)pid_a);
	if (write_maps(pid_a, "0 100000 1000"))
		return 2;
	ulab_release(&a);
	for (i = 0; i < NFILES; i++)
		fds_a[i] = ulab_recv_fd(sock_a[0]);

	pid_b = ulab_spawn(&b, CLONE_NEWUSER);
	if (pid_b < 0)
		ulab_die("clone(CLONE_NEWUSER) B");
	close(sock_b[1]);
	printf("B is process %d\n", (int)pid_b);
	if (write_maps(pid_b, "0 200000 1000"))
		return 2;
	ulab_release(&b);

	for (i = 0; i < NFILES; i++) {
		fd = ulab_recv_fd(sock_b[0]);
		snprintf(what, sizeof(what), "%s of A, opened in B, read outside",
			 files[i]);
		show_map(what, fd);
		close(fd);
	}
	for (i = 0; i < NFILES; i++) {
		fd = open_map(pid_a, files[i], O_RDONLY);
		snprintf(what, sizeof(what),
			 "%s of A, opened outside, read outside", files[i]);
		show_map(what, fd);
		close(fd);
		fd = open_map(pid_a, files[i], O_RDONLY);
		if (fd < 0 || ulab_send_fd(sock_b[0], fd) ||
		    ulab_send_fd(sock_b[0], fds_a[i]))
			ulab_fail("pass a descriptor to B");
		close(fd);
		close(fds_a[i]);
	}
	ulab_wait(pid_b);
	send_int(sock_a[0], 0);
	ulab_wait(pid_a);
	close(sock_a[0]);
	close(sock_b[0]);
	return 0;
}

/* ---- writing: the grandparent and the parent of G ---- */

static int sock_c[2], sock_g2[2];

static int grandchild(void *name)
{
	ulab_print_ids(name);
	return 0;
}

/* Write "0 0 1" to FD, a map FILE of G2, from WHERE; print the answer. */
static void write_g2_map(int fd, const char *file, const char *where)
{
	char what[96];

	snprintf(what, sizeof(what),
		 "write %s of G2 opened in the initial namespace, from %s",
		 file, where);
	if (fd < 0)
		printf("%s: no descriptor\n", what);
	else if (write(fd, "0 0 1\n", 6) == 6)
		printf("%s: ok\n", what);
	else
		ulab_fail(what);
	fflush(stdout);
}

/*
 * G2: the descriptors of its own maps that the initial root opened come
 * from C; G2 tries them itself. The opener's namespace decides, not the
 * writer's: the initial one is neither G2's nor its parent.
 */
static int grandchild_g2(void *unused)
{
	int i, fd;

	close(sock_g2[0]);
	ulab_print_ids("G2, inside");
	for (i = 0; i < NFILES; i++) {
		fd = ulab_recv_fd(sock_g2[1]);
		write_g2_map(fd, files[i], "inside G2");
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

static int middle_c(void *unused)
{
	struct ulab_child g = { .fn = grandchild, .arg = "G, inside" };
	struct ulab_child g2 = { .fn = grandchild_g2 };
	pid_t pid_g, pid_g2;
	int fd[NFILES], i;

	close(sock_c[0]);
	if (ulab_become(0, 0))
		return 2;
	/*
	 * Changing uid made this process undumpable, and its /proc files
	 * (and G's, which inherits the flag) would belong to the initial
	 * root: C could not open G's maps for writing.
	 */
	prctl(PR_SET_DUMPABLE, 1);
	pid_g = ulab_spawn(&g, CLONE_NEWUSER);
	if (pid_g < 0)
		return ulab_fail("C: clone(CLONE_NEWUSER) G") ? 1 : 0;
	printf("G is process %d, a child of C\n", (int)pid_g);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock_g2))
		return ulab_fail("C: socketpair") ? 1 : 0;
	pid_g2 = ulab_spawn(&g2, CLONE_NEWUSER);
	if (pid_g2 < 0)
		return ulab_fail("C: clone(CLONE_NEWUSER) G2") ? 1 : 0;
	printf("G2 is process %d, a child of C\n", (int)pid_g2);
	fflush(stdout);
	send_int(sock_c[1], pid_g);
	send_int(sock_c[1], pid_g2);
	for (i = 0; i < NFILES; i++)	/* G2's maps, opened by root */
		fd[i] = ulab_recv_fd(sock_c[1]);
	recv_int(sock_c[1]);	/* the grandparent has had its turn */

	close(sock_g2[1]);
	for (i = 0; i < NFILES; i++) {
		write_g2_map(fd[i], files[i], "C");
		/* and on to G2, which tries the same descriptor itself */
		if (fd[i] < 0 || ulab_send_fd(sock_g2[0], fd[i]))
			ulab_send_fd(sock_g2[0], open("/dev/null", O_RDONLY));
		if (fd[i] >= 0)
			close(fd[i]);
	}
	ulab_release(&g2);
	ulab_wait(pid_g2);
	close(sock_g2[0]);

	write_maps_of_g(pid_g, "its parent C");
	ulab_release(&g);
	ulab_wait(pid_g);
	return 0;
}

/*
 * S, a namespace of the initial root, writes its own maps: each one line
 * naming its creator's own id, which needs no privilege (for gid_map, once
 * setgroups is denied).
 */
static int self_writer(void *unused)
{
	char what[64], path[32];
	int i, ret;

	if (ulab_write_file("/proc/self/setgroups", "deny\n"))
		printf("deny setgroups inside S: failed\n");
	for (i = 0; i < NFILES; i++) {
		snprintf(what, sizeof(what), "write own %s from inside S",
			 files[i]);
		snprintf(path, sizeof(path), "/proc/self/%s", files[i]);
		ret = ulab_write_file(path, "0 0 1\n");
		if (ret)
			printf("%s: %s (%s)\n", what, ulab_errname(-ret),
			       strerror(-ret));
		else
			printf("%s: ok\n", what);
	}
	fflush(stdout);
	return 0;
}

static int writing(void)
{
	struct ulab_child c = { .fn = middle_c }, self = { .fn = self_writer };
	pid_t pid_c, pid_g, pid_g2, pid_s;
	int fd, i;

	printf("C a child of this namespace, G a child of C\n");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock_c))
		ulab_die("socketpair");
	pid_c = ulab_spawn(&c, CLONE_NEWUSER);
	if (pid_c < 0)
		ulab_die("clone(CLONE_NEWUSER) C");
	close(sock_c[1]);
	printf("C is process %d\n", (int)pid_c);
	if (write_maps(pid_c, "0 100000 1000"))
		return 2;
	ulab_release(&c);
	pid_g = recv_int(sock_c[0]);
	if (pid_g <= 0) {
		printf("C did not make G\n");
		return 2;
	}
	pid_g2 = recv_int(sock_c[0]);
	write_maps_of_g(pid_g, "the initial namespace");
	for (i = 0; i < NFILES; i++) {
		fd = pid_g2 > 0 ? open_map(pid_g2, files[i], O_WRONLY) : -1;
		if (fd < 0)
			ulab_fail("open a map of G2");
		else if (ulab_send_fd(sock_c[0], fd))
			ulab_fail("pass a map of G2 to C");
		if (fd >= 0)
			close(fd);
	}
	send_int(sock_c[0], 0);
	ulab_wait(pid_c);
	close(sock_c[0]);

	pid_s = ulab_spawn(&self, CLONE_NEWUSER);
	if (pid_s < 0)
		ulab_die("clone(CLONE_NEWUSER) S");
	ulab_release(&self);
	ulab_wait(pid_s);
	return 0;
}

int main(int argc, char **argv)
{
	int opt, r = 0, w = 0, ret = 0;

	while ((opt = getopt(argc, argv, "rw")) != -1) {
		switch (opt) {
		case 'r':
			r = 1;
			break;
		case 'w':
			w = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-r] [-w]\n", argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!r && !w)
		r = w = 1;
	if (r)
		ret |= reading();
	if (w)
		ret |= writing();
	return ret;
}
