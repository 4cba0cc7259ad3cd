#!/usr/bin/env bash
# The lab's kernel under a debugger.
#
#   gdb.sh          build the debug kernel, then the guest and gdb side by side
#                   (in tmux when there is one; else the guest here and
#                   'make gdb-attach' in a second terminal)
#   gdb.sh build    the debug kernel only: build/obj-debug, the same tree with
#                   kernel-steps/debug.fragment (debug info, the kernel's gdb
#                   scripts); the normal build in build/obj is not touched
#   gdb.sh boot     the debug kernel in QEMU, an interactive shell, QEMU's gdb
#                   stub on 127.0.0.1:GDB_PORT (default 1234)
#   gdb.sh attach   gdb on build/obj-debug/vmlinux with the kernel's gdb
#                   scripts (lx-ps, lx-dmesg, $lx_current()), attached
#   gdb.sh test     a batch session (tests/gdb.sh): boot lab 1's check with
#                   the CPU stopped, break on bprm_fill_uid, let the guest
#                   run until a user-space execve() gets there, print the
#                   backtrace and the caller's credentials
set -eu
. "$(dirname "$0")/lib.sh"

export OBJ_DIR=$BUILD/obj-debug EXTRA_FRAGMENT=$STEPS_DIR/debug.fragment
port=${GDB_PORT:-1234}
case $port in *[!0-9]* | '') die "GDB_PORT must be a port number" ;; esac
vmlinux=$OBJ_DIR/vmlinux
# gdb as both the student's session and the batch test start it: no
# ~/.gdbinit, and the kernel's scripts next to vmlinux trusted and loaded
gdb_opts=(-q -nx -iex "add-auto-load-safe-path $OBJ_DIR" -iex "set auto-load python-scripts on")

build() {
	need_kernel_tree
	"$TOP/scripts/build-kernel.sh"
	# the kernel's gdb helpers: vmlinux-gdb.py next to vmlinux
	if [ ! -e "$OBJ_DIR/vmlinux-gdb.py" ]; then
		ARCH=x86_64 make -C "$KERNEL_DIR" O="$OBJ_DIR" scripts_gdb \
			>>"$LOG_DIR/build-obj-debug.log" 2>&1 ||
			warn "the kernel's gdb scripts did not build (see $LOG_DIR/build-obj-debug.log): lx-* commands will be missing"
	fi
	"$TOP/scripts/build-guest.sh"
}

gdb_cmd() { # gdb ARGS... with vmlinux and its scripts
	command -v gdb >/dev/null || die "gdb not found: install Debian's gdb (scripts/deps.sh --gdb)"
	[ -f "$vmlinux" ] || die "no debug kernel at $vmlinux: run 'make gdb' first"
	gdb "${gdb_opts[@]}" "$vmlinux" "$@"
}

attach() {
	info "gdb on ${vmlinux#"$TOP"/}, attached to the guest at 127.0.0.1:$port ('c' lets it run, Ctrl-C stops it)"
	gdb_cmd -ex "target remote 127.0.0.1:$port"
}

boot() {
	info "the debug kernel, gdb stub on 127.0.0.1:$port: attach with 'make gdb-attach' ('exit' or Ctrl-A X leaves the guest)"
	GDB_PORT=$port QEMU_APPEND="${QEMU_APPEND:-} nokaslr" "$TOP/scripts/run-qemu.sh" --shell
}

batch_test() {
	local out=${1:-$LOG_DIR/gdb-test.out} qrc=0 pid
	[ -f "$vmlinux" ] || die "no debug kernel at $vmlinux: run 'scripts/gdb.sh build' first"
	GDB_PORT=$port GDB_WAIT=1 QEMU_APPEND="${QEMU_APPEND:-} nokaslr" \
		"$TOP/scripts/run-qemu.sh" --labs 01 --timeout "${GDB_TEST_TIMEOUT:-300}" \
		--log "$LOG_DIR/gdb-test-guest.log" >/dev/null 2>&1 &
	pid=$!
	# the stub listens once QEMU is up
	for _ in $(seq 50); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		sleep 0.2
	done
	# the single quotes are meant: $lx_current() is gdb's, not the shell's
	# shellcheck disable=SC2016
	timeout -k 5 "${GDB_TEST_TIMEOUT:-300}" gdb "${gdb_opts[@]}" -batch \
		-ex "target remote 127.0.0.1:$port" \
		-ex "break bprm_fill_uid" \
		-ex 'python
for i in range(200):
    gdb.execute("continue")
    bt = gdb.execute("bt", to_string=True)
    if "sys_execve" in bt:
        print(bt)
        break
' \
		-ex 'print $lx_current().comm' \
		-ex 'print $lx_current().cred->euid.val' \
		-ex "kill" \
		"$vmlinux" >"$out" 2>&1 || qrc=$?
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	cat "$out"
	return "$qrc"
}

case ${1:-} in
build) build ;;
boot) boot ;;
attach) attach ;;
test) batch_test "${2:-}" ;;
'')
	build
	if command -v tmux >/dev/null && [ -t 0 ] && [ -t 1 ]; then
		info "the guest on the left, gdb on the right (tmux: Ctrl-B then an arrow moves between them)"
		export GDB_PORT=$port
		me=$(printf '%q' "$0")
		exec tmux new-session "$me boot" \; split-window -h "sleep 2; $me attach"
	fi
	boot
	;;
*) die "usage: gdb.sh [build|boot|attach|test [OUT]]" ;;
esac
