# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# How a boot of scripts/run-qemu.sh ended: its exit status, by name. Sourced
# by run-qemu.sh, which exits through these names, and by every script that
# reads its status, which compares it with these names only (never with a
# bare number: tests/test_interfaces.py fails on one).
#
# The numbers are an interface: the grader, make check, the staircase and
# the tools of others read them. A new outcome takes a new number; a number
# is never changed or given to another outcome.
#
# Any other status is run-qemu.sh's own failure (1: a missing kernel, guest
# or QEMU, and the like; 2: a KERNEL= the course does not have): the guest
# was not booted, or its boot was not read.

QEMU_OK=0
QEMU_TIMEOUT=3
QEMU_PANIC=4
QEMU_REBOOT=5
QEMU_FLOOD=6
QEMU_UNAUTHENTICATED=7
# every outcome, in the order of its number
QEMU_OUTCOMES="OK TIMEOUT PANIC REBOOT FLOOD UNAUTHENTICATED"

# What each means, in one line (make check prints it after the name)
QEMU_SAYS_OK="the guest's /init ran to the end of its checks and said so, with this boot's secret"
QEMU_SAYS_TIMEOUT="the guest did not finish in time (a hang?)"
QEMU_SAYS_PANIC="the kernel panicked"
QEMU_SAYS_REBOOT="the guest reset (a reboot, a triple fault) before the checks ended"
QEMU_SAYS_FLOOD="the console printed too much: its output was cut at its cap, or it was still flooding when the time ran out"
QEMU_SAYS_UNAUTHENTICATED="the results channel carried no result of this boot's /init (lines the kernel wrote there itself?): nothing on it counts"

# qemu_outcome RC: the name of run-qemu.sh's exit status RC, or "exit RC"
# for a status that is none of the outcomes
qemu_outcome() {
	local o v
	for o in $QEMU_OUTCOMES; do
		v=QEMU_$o
		[ "${!v}" != "$1" ] || { echo "$o"; return 0; }
	done
	echo "exit $1"
}

# qemu_outcome_says RC: what that status means, in one line
qemu_outcome_says() {
	local v
	v=QEMU_SAYS_$(qemu_outcome "$1")
	case $v in
	*" "*) echo "run-qemu.sh failed before it could boot the guest or read its boot (see its message above)" ;;
	*) echo "${!v}" ;;
	esac
}
