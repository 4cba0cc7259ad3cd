// SPDX-License-Identifier: GPL-2.0
/*
 * showids - print the real, effective and saved ids of this process.
 *
 * The labs copy it and give the copies set-uid or set-gid bits, so that
 * what execve(2) did with those bits can be seen.
 */
#include "../../labs/lib/ulab.h"

int main(int argc, char **argv)
{
	ulab_print_ids(argc > 1 ? argv[1] : "showids");
	return 0;
}
