// SPDX-License-Identifier: GPL-2.0
/*
 * runas - run a command as another uid/gid, with no supplementary groups.
 *
 *	runas UID[:GID] COMMAND [ARG...]
 *
 * busybox's setpriv cannot change the uid, and su needs a login shell:
 * the checks use this to act as the unprivileged student (1000).
 */
#include "../../labs/lib/ulab.h"

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 3 || ulab_parse_ids(argv[1], &uid, &gid)) {
		fprintf(stderr, "usage: runas UID[:GID] COMMAND [ARG...]\n");
		return 2;
	}
	if (ulab_become(uid, gid))
		return 2;
	execvp(argv[2], argv + 2);
	ulab_fail(argv[2]);
	return 127;
}
