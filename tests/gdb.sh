#!/usr/bin/env bash
# make gdb works: the debug kernel of lab 1's start builds (build/gdbtest,
# its own worktree: the student's checkout is never touched), boots with
# QEMU's gdb stub, and a batch gdb breaks on bprm_fill_uid when lab 1's
# check runs a program, with a backtrace through execve() and the kernel's
# gdb scripts ($lx_current()) at work.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"

main=$KERNEL_DIR
B=${GDB_TEST_DIR:-$BUILD/gdbtest}
export BUILD=$B KERNEL_DIR=$B/linux OBJ_DIR=$B/obj-debug GUEST_DIR=$B/guest LOG_DIR=$B/logs
mkdir -p "$LOG_DIR"
if [ ! -e "$KERNEL_DIR/.git" ]; then
	git -C "$main" worktree prune
	git -C "$main" worktree add -q --detach "$KERNEL_DIR" lab-01-start
fi
git -C "$KERNEL_DIR" checkout -q -f --detach lab-01-start

t0=$(date +%s)
if "$TOP/scripts/gdb.sh" build >"$LOG_DIR/gdb-build.out" 2>&1; then
	t_ok "the debug kernel builds ($(($(date +%s) - t0)) s, build/obj-debug)"
else
	t_fail "the debug kernel builds" "$(tail -20 "$LOG_DIR/gdb-build.out")"
	t_summary gdb
	exit 1
fi
t_grep "the debug kernel has debug information" '^CONFIG_DEBUG_INFO=y' "$(cat "$OBJ_DIR/.config")"
t_expect "the kernel's gdb scripts are next to vmlinux" yes \
	"$([ -e "$OBJ_DIR/vmlinux-gdb.py" ] && echo yes || echo no)"

port=$((20000 + RANDOM % 20000))
out=$LOG_DIR/gdb-test.out
GDB_PORT=$port "$TOP/scripts/gdb.sh" test "$out" >/dev/null 2>&1
text=$(cat "$out" 2>/dev/null)
t_grep "gdb stops on the breakpoint in bprm_fill_uid" 'Breakpoint 1, .*bprm_fill_uid' "$text"
t_grep "... and the backtrace goes through execve()" '__x64_sys_execve|__do_sys_execve' "$text"
# gdb's value names ($1, $2), matched literally
# shellcheck disable=SC2016
{
	t_grep "... with the kernel's gdb scripts loaded (\$lx_current().comm)" '^\$1 = "' "$text"
	t_grep "... and the caller's euid printed" '^\$2 = [0-9]+' "$text"
}
t_summary gdb
