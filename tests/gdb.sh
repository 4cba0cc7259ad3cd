#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make gdb works: at lab 1's start (build/gdbtest, its own worktree: the
# student's checkout is never touched) the debug kernel builds, boots with
# QEMU's gdb stub, and a batch gdb breaks on bprm_fill_uid when lab 1's
# check runs a program, with a backtrace through execve() and the kernel's
# gdb scripts ($lx_current()) at work.
#
# By default the quick debug kernel that 'make gdb' makes (the normal build
# with the lab's files and a few core files compiled with -g); in make test
# its normal build starts from a copy of the staircase's objects (build/test/
# obj), so only what lab 1's start changes is compiled. FULL=1 (make
# test-gdb): the debug build of every file, build/gdbtest/obj-debug.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"

main=$KERNEL_DIR
# the objects of the grader's last kernel (lab 1 submissions, graded last
# in make test) or of the staircase's
seed=$BUILD/test/obj
[ ! -f "$BUILD/test/grade/obj/vmlinux" ] || seed=$BUILD/test/grade/obj
B=${GDB_TEST_DIR:-$BUILD/gdbtest}
export BUILD=$B KERNEL_DIR=$B/linux OBJ_DIR=$B/obj GUEST_DIR=$B/guest LOG_DIR=$B/logs
mkdir -p "$LOG_DIR"
if [ ! -e "$KERNEL_DIR/.git" ]; then
	git -C "$main" worktree prune
	git -C "$main" worktree add -q --detach "$KERNEL_DIR" lab-01-start
fi
# (make test hands on the grader's worktree: what a submission left goes)
git -C "$KERNEL_DIR" checkout -q -f --detach lab-01-start
git -C "$KERNEL_DIR" clean -q -ffdx
# (a seed with no record of its tree is not copied: the build starts cold)
if [ -z "${FULL:-}" ] && [ ! -f "$OBJ_DIR/vmlinux" ] && [ -f "$seed/vmlinux" ]; then
	copy_obj "$seed" "$OBJ_DIR" || rm -rf "$OBJ_DIR"
fi
if [ -n "${FULL:-}" ]; then dbg=$B/obj-debug; else dbg=$B/obj-gdb; fi

t0=$(date +%s)
if "$TOP/scripts/gdb.sh" build >"$LOG_DIR/gdb-build.out" 2>&1; then
	t_ok "the ${FULL:+full }debug kernel builds ($(($(date +%s) - t0)) s, ${dbg#"$B"/})"
else
	t_fail "the ${FULL:+full }debug kernel builds" "$(tail -20 "$LOG_DIR/gdb-build.out")"
	t_summary gdb
	exit 1
fi
if [ -n "${FULL:-}" ]; then
	t_grep "the debug kernel has debug information" '^CONFIG_DEBUG_INFO=y' "$(cat "$dbg/.config")"
else
	t_grep "the quick debug kernel names lab 1's file" 'debug information for: fs/exec.c ' \
		"$(cat "$LOG_DIR/gdb-build.out")"
	t_grep "... which has debug information" '\.debug_info' "$(readelf -S "$dbg/fs/exec.o" 2>&1)"
	t_expect "... and the normal build has none (make check's kernel is as it was)" 0 \
		"$(readelf -S "$OBJ_DIR/fs/exec.o" 2>&1 | grep -c '\.debug_info')"
	out=$("$TOP/scripts/gdb.sh" build 2>&1)
	t_grep "... a second make gdb with nothing changed builds nothing" 'debug kernel up to date' "$out"
fi
t_expect "the kernel's gdb scripts are next to vmlinux" yes \
	"$([ -e "$dbg/vmlinux-gdb.py" ] && echo yes || echo no)"

port=$((20000 + RANDOM % 20000))
out=$LOG_DIR/gdb-test.out
GDB_PORT=$port "$TOP/scripts/gdb.sh" test "$out" >/dev/null 2>&1
text=$(cat "$out" 2>/dev/null)
t_grep "gdb stops on the breakpoint in bprm_fill_uid" 'Breakpoint 1, .*bprm_fill_uid' "$text"
t_grep "... and the backtrace goes through execve()" '__x64_sys_execve|__do_sys_execve' "$text"
t_expect "... with no error from the kernel's gdb scripts" 0 "$(printf '%s\n' "$text" | grep -c 'Traceback\|Python Exception')"
# gdb's value names ($1, $2), matched literally
# shellcheck disable=SC2016
{
	t_grep "... with the kernel's gdb scripts loaded (\$lx_current().comm)" '^\$1 = "' "$text"
	t_grep "... and the caller's euid printed" '^\$2 = [0-9]+' "$text"
}

# --- make record and make replay (not with FULL=1: the quick debug kernel) ---
if [ -z "${FULL:-}" ]; then
	export REPLAY_DIR=$B/replay
	# qemu_left: the QEMUs of these recordings still running (from /proc)
	qemu_left() {
		local f
		for f in /proc/[0-9]*/cmdline; do
			tr '\0' ' ' 2>/dev/null <"$f" | grep -F -- "rrfile=$REPLAY_DIR/" | grep '^qemu-system' || true
		done
	}
	out=$LOG_DIR/replay-test.out
	GDB_PORT=$port "$TOP/scripts/replay.sh" test "$out" >"$LOG_DIR/replay-test.all" 2>&1
	text=$(cat "$out" 2>/dev/null)
	t_grep "make record: lab 1's check at its start, recorded, its first failed point's execve found" \
		"point 1, .*: make replay stops where its execve returns EPERM" "$(cat "$LOG_DIR/replay-test.all")"
	t_grep "make replay: gdb stops where that execve returns EPERM" \
		'here its execve returns EPERM \(-1\)' "$text"
	t_grep "... and 'back bprm_fill_uid' goes back to the function that chose EPERM" '^replay-test frame: bprm_fill_uid$' "$text"
	t_grep "... to its last call before that return, by replays from the start" \
		'^back: bprm_fill_uid, reached [0-9]+ time\(s\) before; here is the last' "$text"
	t_grep "... in the exec of the set-uid file of that point" '/tmp/lab01/suid-root\\"' "$text"
	t_expect "... and no QEMU of it is left" "" "$(qemu_left)"
	# (the figures, for the closing note and HACKING.md)
	grep '^replay-test \(secs\|record\)' "$out" | sed 's/^/# /'
	# an interactive replay whose gdb ends (here: its input does)
	GDB_PORT=$port "$TOP/scripts/replay.sh" replay </dev/null >/dev/null 2>&1
	t_expect "make replay: when gdb ends, its QEMU is stopped" "" "$(qemu_left)"
	POINT=setgid_unmapped_group_runs_with_own_egid python3 "$TOP/scripts/replay_point.py" \
		"$REPLAY_DIR/record.ktap" /usr/include/x86_64-linux-gnu/asm/unistd_64.h "setgid_unmapped_group_runs_with_own_egid" \
		>"$LOG_DIR/replay-point.out" 2>&1
	t_grep "POINT=: the second point's execve is the second that returned EPERM" '^skip=1$' "$(cat "$LOG_DIR/replay-point.out")"
	res=$(LAB=1 GDB_PORT=$port python3 "$here/interrupt.py" --when-process "rr=record,rrfile=$REPLAY_DIR/" --after 1 \
		--timeout 300 -- "$TOP/scripts/replay.sh" record)
	res=${res%%$'\n'*}
	t_grep "Ctrl-C during make record: it ends by it, and its QEMU with it" '^rc=130 signal=SIGINT secs=[0-4]\.[0-9] left=0$' "$res"
fi
t_summary gdb
