// SPDX-License-Identifier: GPL-2.0
/*
 * userns-clone - create a user namespace with clone(2) and look around.
 *
 *	userns-clone [-u UID[:GID]] [-n]
 *
 * With -u the program first becomes UID:GID (run it as root for that);
 * otherwise it keeps the ids it was started with (runas 1000 userns-clone).
 * It prints the two sysctls that limit who may create user namespaces, then
 * clones a child with CLONE_NEWUSER and no map at all. The child prints its
 * ids, its effective capability set, and tries sethostname(), which acts on
 * the UTS namespace it still shares with the host.
 *
 * With -n the parent first maps its own uid and gid to 0 in the child (as
 * root may; an ordinary user may only from lab 04 on), and the child, root
 * of its namespace, then tries to create a nested user namespace itself.
 */
#include "../lib/ulab.h"
#include <linux/capability.h>
#include <sys/syscall.h>

static void show_sysctl(const char *name, const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f) {
		printf("%s: %s (%s)\n", name, ulab_errname(errno),
		       strerror(errno));
		return;
	}
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	printf("%s = %s\n", name, buf);
}

/* The effective set as one hex number, like CapEff in /proc/PID/status. */
static int print_cap_eff(const char *who)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[2];
	unsigned long long eff;

	if (syscall(SYS_capget, &hdr, data))
		return ulab_fail("capget");
	eff = ((unsigned long long)data[1].effective << 32) |
	      data[0].effective;
	printf("%s: CapEff=%016llx\n", who, eff);
	return 0;
}

static int nested_main(void *unused)
{
	return 0;
}

/* Create a user namespace inside the caller's own; print what happens. */
static void nested_clone(void)
{
	struct ulab_child grandchild = { .fn = nested_main };
	pid_t pid = ulab_spawn(&grandchild, CLONE_NEWUSER);

	if (pid < 0) {
		ulab_fail("nested clone(CLONE_NEWUSER)");
		return;
	}
	printf("nested clone(CLONE_NEWUSER): ok\n");
	fflush(stdout);
	ulab_release(&grandchild);
	ulab_wait(pid);
}

static int child_main(void *nested)
{
	char name[] = "userns-clone";
	const char *when = nested ? "" : " (no map yet)";

	printf("uid inside%s: %u\n", when, (unsigned int)getuid());
	printf("gid inside%s: %u\n", when, (unsigned int)getgid());
	print_cap_eff("capabilities inside");
	if (sethostname(name, strlen(name)))
		ulab_fail("sethostname in the host's UTS namespace");
	else
		printf("sethostname in the host's UTS namespace: ok\n");
	fflush(stdout);
	if (nested)
		nested_clone();
	return 0;
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = child_main };
	uid_t uid;
	gid_t gid;
	int opt, nested = 0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "u:n")) != -1) {
		switch (opt) {
		case 'u':
			if (ulab_parse_ids(optarg, &uid, &gid))
				goto usage;
			if (ulab_become(uid, gid))
				return 2;
			break;
		case 'n':
			nested = 1;
			child.arg = &nested;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;

	show_sysctl("kernel.unprivileged_userns_clone",
		    "/proc/sys/kernel/unprivileged_userns_clone");
	show_sysctl("user.max_user_namespaces",
		    "/proc/sys/user/max_user_namespaces");
	printf("uid outside: %u\n", (unsigned int)getuid());
	print_cap_eff("capabilities outside");
	fflush(stdout);		/* the child must not print it again */

	pid = ulab_spawn(&child, CLONE_NEWUSER);
	if (pid < 0) {
		ulab_fail("clone(CLONE_NEWUSER)");
		return 1;
	}
	printf("clone(CLONE_NEWUSER): ok, child %d\n", (int)pid);
	fflush(stdout);
	if (nested)
		ulab_map_self(pid);
	ulab_release(&child);
	return ulab_wait(pid);

usage:
	fprintf(stderr, "usage: %s [-u UID[:GID]] [-n]\n", argv[0]);
	return 2;
}
