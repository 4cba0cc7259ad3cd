/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ulab.h - small helpers shared by the userns-labs demos.
 *
 * Every demo prints what it sees in plain words, one fact per line, so that
 * a person can read it and a check can match it. An error is always shown
 * with its errno name (EPERM, EINVAL, ...).
 */
#ifndef ULAB_H
#define ULAB_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static inline const char *ulab_errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "E?";
}

/* Print "what: EXXX (text)" for the current errno and return -errno. */
static inline int ulab_fail(const char *what)
{
	int err = errno;

	printf("%s: %s (%s)\n", what, ulab_errname(err), strerror(err));
	fflush(stdout);
	return -err;
}

static inline void ulab_die(const char *what)
{
	ulab_fail(what);
	exit(2);
}

/* Write TEXT to PATH in a single write(2), as the /proc map files require. */
static inline int ulab_write_file(const char *path, const char *text)
{
	ssize_t len = strlen(text), n;
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	close(fd);
	return n == len ? 0 : -EIO;
}

/*
 * Write a map file of process PID ("uid_map", "gid_map" or "setgroups").
 * Prints what was written and what the kernel answered.
 */
static inline int ulab_write_map(pid_t pid, const char *file, const char *map)
{
	char path[64], shown[256];
	size_t i = 0;
	const char *c;
	int ret;

	/* shown on one line: the map's lines joined by ", " */
	for (c = map; *c && i < sizeof(shown) - 3; c++) {
		if (*c != '\n') {
			shown[i++] = *c;
		} else if (c[1]) {
			shown[i++] = ',';
			shown[i++] = ' ';
		}
	}
	shown[i] = '\0';

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	ret = ulab_write_file(path, map);
	if (ret)
		printf("write %s \"%s\": %s (%s)\n", file, shown,
		       ulab_errname(-ret), strerror(-ret));
	else
		printf("write %s \"%s\": ok\n", file, shown);
	fflush(stdout);
	return ret;
}

/*
 * Map the caller's own uid and gid to 0 in the user namespace of PID, the
 * way an unprivileged user may (lab 04): one id each, and setgroups denied
 * before the gid map (its failure is printed, and gid_map then tells).
 * Returns 0, or the -errno of the map write that failed.
 */
static inline int ulab_map_self(pid_t pid)
{
	char map[32];
	int ret;

	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)getuid());
	ret = ulab_write_map(pid, "uid_map", map);
	if (ret)
		return ret;
	ulab_write_map(pid, "setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)getgid());
	return ulab_write_map(pid, "gid_map", map);
}

/* The largest control message the demos pass: a descriptor or a struct ucred. */
#define ULAB_CMSG_MAX 16

/*
 * Send one byte over a unix socket with one SOL_SOCKET control message of
 * TYPE (SCM_RIGHTS, SCM_CREDENTIALS) carrying LEN bytes of DATA.
 * Returns 0, or -errno.
 */
static inline int ulab_send_cmsg(int sock, int type, const void *data,
				 size_t len)
{
	char byte = 'c';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(ULAB_CMSG_MAX)];
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = CMSG_SPACE(len),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	if (len > ULAB_CMSG_MAX)
		return -EINVAL;
	memset(&u, 0, sizeof(u));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

/*
 * Receive one byte sent by ulab_send_cmsg(), with recvmsg(2)'s FLAGS, and
 * copy the LEN bytes of its control message of TYPE into DATA. Returns 1
 * when that message came, 0 when the byte came without it, or -errno.
 */
static inline int ulab_recv_cmsg(int sock, int type, void *data, size_t len,
				 int flags)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(ULAB_CMSG_MAX)];
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;

	if (recvmsg(sock, &msg, flags) != 1)
		return -errno;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != type || c->cmsg_len != CMSG_LEN(len))
		return 0;
	memcpy(data, CMSG_DATA(c), len);
	return 1;
}

/* Pass an open file descriptor over a unix socket (SCM_RIGHTS). */
static inline int ulab_send_fd(int sock, int fd)
{
	return ulab_send_cmsg(sock, SCM_RIGHTS, &fd, sizeof(fd)) ? -1 : 0;
}

/* Receive a descriptor sent by ulab_send_fd(); -1 on failure. */
static inline int ulab_recv_fd(int sock)
{
	int fd = -1;

	return ulab_recv_cmsg(sock, SCM_RIGHTS, &fd, sizeof(fd), 0) == 1 ?
		fd : -1;
}

/* Print the ids of the calling process, prefixed by WHO. */
static inline void ulab_print_ids(const char *who)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	getresuid(&r, &e, &s);
	getresgid(&rg, &eg, &sg);
	printf("%s: uid=%u euid=%u suid=%u gid=%u egid=%u sgid=%u\n",
	       who, r, e, s, rg, eg, sg);
	fflush(stdout);
}

/*
 * A child started with clone(2) that waits for its parent's go-ahead, so the
 * parent can write its maps first. ulab_spawn() returns the child's pid, or
 * -1 with errno set, as clone(2) does; ulab_release() lets it run;
 * ulab_wait() returns its exit status.
 */
struct ulab_child {
	int (*fn)(void *arg);
	void *arg;
	int gate[2];
};

static inline int ulab_child_trampoline(void *p)
{
	struct ulab_child *c = p;
	char go;

	close(c->gate[1]);
	if (read(c->gate[0], &go, 1) != 1)
		return 3;
	close(c->gate[0]);
	return c->fn(c->arg);
}

static inline pid_t ulab_spawn(struct ulab_child *c, int flags)
{
	const size_t size = 256 * 1024;
	char *stack = malloc(size);	/* malloc aligns to 16 bytes */
	pid_t pid;

	if (!stack || pipe(c->gate))
		return -1;
	pid = clone(ulab_child_trampoline, stack + size, flags | SIGCHLD, c);
	if (pid < 0) {
		int err = errno;

		close(c->gate[0]);
		close(c->gate[1]);
		errno = err;
		return -1;
	}
	close(c->gate[0]);
	return pid;
}

static inline void ulab_release(struct ulab_child *c)
{
	if (write(c->gate[1], "g", 1) != 1)
		perror("release");
	close(c->gate[1]);
}

static inline int ulab_wait(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFSIGNALED(status)) {
		printf("child killed by signal %s\n",
		       sigabbrev_np(WTERMSIG(status)) ?: "?");
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

/* Parse "UID[:GID]" (GID defaults to UID). Returns 0 on success. */
static inline int ulab_parse_ids(const char *s, uid_t *uid, gid_t *gid)
{
	char *end;
	unsigned long u = strtoul(s, &end, 10), g = u;

	if (end == s)
		return -1;
	if (*end == ':')
		g = strtoul(end + 1, &end, 10);
	if (*end)
		return -1;
	*uid = u;
	*gid = g;
	return 0;
}

/*
 * Keep in the effective set only the permitted capabilities of KEEP (bit N
 * is capability N, ULAB_CAP(N); ~0ULL takes every permitted one back). The
 * process keeps its ids and its permitted set: it only has less in hand.
 * Exits on failure, which would make every later step meaningless.
 */
#define ULAB_CAP(n) (1ULL << (n))
static inline void ulab_effective_caps(unsigned long long keep)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, c))
		ulab_die("capget");
	c[0].effective = c[0].permitted & (unsigned int)keep;
	c[1].effective = c[1].permitted & (unsigned int)(keep >> 32);
	if (syscall(SYS_capset, &h, c))
		ulab_die("capset");
}

/* Drop every group and become UID/GID (real, effective and saved). */
static inline int ulab_become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) && errno != EPERM)
		return ulab_fail("setgroups");
	if (setresgid(gid, gid, gid))
		return ulab_fail("setresgid");
	if (setresuid(uid, uid, uid))
		return ulab_fail("setresuid");
	return 0;
}

#endif /* ULAB_H */
