#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The lab's kernel under a debugger.
#
#   gdb.sh          build the debug kernel, then the guest and gdb side by side
#                   (in tmux when there is one; else the guest here and
#                   'make gdb-attach' in a second terminal)
#   gdb.sh build    the debug kernel only. By default, in seconds: the normal
#                   build (build/obj) copied to build/obj-gdb, with the files
#                   of the lab the tree is on (lab.conf FILES), DEBUG_FILES and
#                   a few core files (current_task, init_task, printk: what the
#                   kernel's gdb scripts read) compiled again with -g, then
#                   linked. gcc's code does not change with -g, so this is the
#                   kernel make check boots, with source-level debugging where
#                   the lab is. FULL=1: every file with debug information
#                   (build/obj-debug, kernel-steps/debug.fragment; a cold
#                   build of its own, minutes). Either way the kernel's gdb
#                   scripts (lx-ps, lx-dmesg, $lx_current()) are next to
#                   vmlinux and the normal build is left as it is.
#   gdb.sh boot     the debug kernel in QEMU, an interactive shell, QEMU's gdb
#                   stub on 127.0.0.1:GDB_PORT (default 1234)
#   gdb.sh attach   gdb on the debug kernel's vmlinux with the kernel's gdb
#                   scripts, attached
#   gdb.sh layout   how 'gdb.sh' would show the guest and gdb: session (a
#                   new tmux session), pane (inside tmux already: a new
#                   pane of it) or alone (no tmux, or no terminal)
#   gdb.sh test     a batch session (tests/gdb.sh): boot lab 1's check with
#                   the CPU stopped, break on bprm_fill_uid, let the guest
#                   run until a user-space execve() gets there, print the
#                   backtrace and the caller's credentials
set -eu
. "$(dirname "$0")/lib.sh"

normal_obj=$OBJ_DIR
# which debug kernel 'boot' and 'attach' use: the one 'build' made last
# (FULL=1 or not), as build/gdb-kernel says
record=$BUILD/gdb-kernel
if [ "${1:-}" = build ] || [ -z "${1:-}" ]; then
	if [ -n "${FULL:-}" ]; then OBJ_DIR=$BUILD/obj-debug; else OBJ_DIR=$BUILD/obj-gdb; fi
elif [ -n "${FULL:-}" ]; then
	OBJ_DIR=$BUILD/obj-debug
else
	OBJ_DIR=$(cat "$record" 2>/dev/null || echo "$BUILD/obj-gdb")
fi
export OBJ_DIR
port=${GDB_PORT:-1234}
case $port in *[!0-9]* | '') die "GDB_PORT must be a port number" ;; esac
vmlinux=$OBJ_DIR/vmlinux
# gdb as both the student's session and the batch test start it: no
# ~/.gdbinit, and the kernel's scripts next to vmlinux trusted and loaded
gdb_opts=(-q -nx -iex "add-auto-load-safe-path $OBJ_DIR" -iex "set auto-load python-scripts on")

# the source files compiled with -g in the quick debug build: the lab's,
# DEBUG_FILES, and those whose variables the kernel's gdb scripts read
# (current_task for $lx_current(), init_task for lx-ps, the printk ring
# for lx-dmesg)
debug_files() {
	local n
	n=$(current_lab 2>/dev/null || true)
	[ -z "$n" ] || lab_conf "$n" FILES
	echo "${DEBUG_FILES:-}"
	# (6.12's gdb scripts read IRQD_*, SLAB_* and struct vmap_area when
	# they load: chip.c, slab_common.c and vmalloc.c hold them)
	echo arch/x86/kernel/cpu/common.c init/init_task.c kernel/printk/printk.c fs/namespace.c \
		arch/x86/entry/common.c fs/binfmt_elf.c kernel/irq/chip.c mm/slab_common.c mm/vmalloc.c
}
gdb_scripts() { # MAKE-ARGS...: the kernel's gdb helpers, vmlinux-gdb.py next to vmlinux
	[ ! -e "$OBJ_DIR/vmlinux-gdb.py" ] || return 0
	# (kbuild's command line as the build's, the linker with it: another
	# would make Kconfig write .config again)
	kbuild_make
	"${KMAKE[@]}" "$@" scripts_gdb \
		>>"$LOG_DIR/build-$(basename "$OBJ_DIR").log" 2>&1 ||
		warn "the kernel's gdb scripts did not build (see $LOG_DIR/build-$(basename "$OBJ_DIR").log): lx-* commands will be missing"
}

build() {
	need_kernel_tree
	if [ -n "${FULL:-}" ]; then
		EXTRA_FRAGMENT=$STEPS_DIR/debug.fragment "$TOP/scripts/build-kernel.sh"
		gdb_scripts
	else
		quick_build
	fi
	echo "$OBJ_DIR" >"$record"
	"$TOP/scripts/build-guest.sh"
}

quick_build() {
	local f o objs="" names="" t0 rc=0 log mk key
	# the kernel make check builds, up to date
	OBJ_DIR=$normal_obj "$TOP/scripts/build-kernel.sh"
	t0=$(date +%s)
	for f in $(debug_files); do
		case $f in *.c) ;; *) continue ;; esac
		o=${f%.c}.o
		[ -f "$normal_obj/$o" ] || continue
		case " $objs " in *" $o "*) continue ;; esac
		objs="$objs $o" names="$names $f"
	done
	# the same normal build and the same files as last time: nothing to do
	key="$(cat "$normal_obj/.userns-labs-built" 2>/dev/null) $(sha1sum <"$0" | cut -c1-12)$objs"
	if [ -f "$OBJ_DIR/vmlinux" ] && [ "$(cat "$OBJ_DIR/.userns-labs-gdb" 2>/dev/null)" = "$key" ]; then
		info "debug kernel up to date: ${OBJ_DIR#"$TOP"/}/vmlinux"
		return
	fi
	# The kernel's gdb scripts (scripts_gdb: vmlinux-gdb.py and
	# scripts/gdb/, which the normal build has not) depend on the
	# configuration and on no file a lab changes: kept across the copy
	# while the configuration is the same (made again, they cost a make
	# of some seconds each time)
	local keep=""
	if [ -L "$OBJ_DIR/vmlinux-gdb.py" ] && [ -d "$OBJ_DIR/scripts/gdb" ] &&
		cmp -s "$OBJ_DIR/.config" "$normal_obj/.config"; then
		keep=$(mktemp -d "$BUILD/.gdb-scripts.XXXXXX")
		mv "$OBJ_DIR/vmlinux-gdb.py" "$OBJ_DIR/scripts/gdb" "$keep/"
	fi
	copy_obj "$normal_obj" "$OBJ_DIR" || die "cannot copy ${normal_obj#"$TOP"/} to ${OBJ_DIR#"$TOP"/}"
	if [ -n "$keep" ]; then
		mkdir -p "$OBJ_DIR/scripts"
		mv "$keep/vmlinux-gdb.py" "$OBJ_DIR/"
		mv "$keep/gdb" "$OBJ_DIR/scripts/"
		rmdir "$keep"
	fi
	log=$LOG_DIR/build-$(basename "$OBJ_DIR").log
	info "debug information for:$names (FULL=1: for every file; log: ${log#"$TOP"/})"
	# the normal build's command line, with -g: kbuild compiles again each
	# object whose command changed, given as the goals of the top folder's
	# walk (kbuild's single-goals: one make, as build-kernel.sh's fast
	# path without its saved environment), then links
	kbuild_make
	mk=("${KMAKE[@]}" KCFLAGS=-g)
	KBUILD_BUILD_VERSION="gdb@$(kgit rev-parse --short=10 HEAD)"
	export KBUILD_BUILD_VERSION
	touch "$OBJ_DIR/vmlinux.a"
	# shellcheck disable=SC2086 # object paths, no spaces
	"${mk[@]}" single-goals="$(printf './%s ' init/version.o $objs)" vmlinux >"$log" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || { tail -20 "$log" >&2; die "the debug kernel did not build (see ${log#"$TOP"/})"; }
	gdb_scripts KCFLAGS=-g
	echo "$key" >"$OBJ_DIR/.userns-labs-gdb"
	info "debug kernel built in $(($(date +%s) - t0)) s: ${OBJ_DIR#"$TOP"/}/vmlinux"
}

gdb_cmd() { # gdb ARGS... with vmlinux and its scripts
	command -v gdb >/dev/null || die "gdb not found: install Debian's gdb (scripts/deps.sh --gdb)"
	[ -f "$vmlinux" ] || die "no debug kernel at ${vmlinux#"$TOP"/}: run 'make gdb${FULL:+ FULL=1}' first"
	gdb "${gdb_opts[@]}" "$vmlinux" "$@"
}

attach() {
	info "gdb on ${vmlinux#"$TOP"/}, attached to the guest at 127.0.0.1:$port ('c' lets it run, Ctrl-C stops it)"
	# (in make gdb's tmux panes, where the student reads it)
	[ -z "${GDB_TIP:-}" ] || info "$GDB_TIP"
	gdb_cmd -ex "target remote 127.0.0.1:$port"
}

boot() {
	info "the debug kernel, gdb stub on 127.0.0.1:$port: attach with 'make gdb-attach' ('exit' or Ctrl-A X leaves the guest)"
	GDB_PORT=$port QEMU_APPEND="${QEMU_APPEND:-} nokaslr" "$TOP/scripts/run-qemu.sh" --shell
}

batch_test() {
	local out=${1:-$LOG_DIR/gdb-test.out} qrc=0 pid
	[ -f "$vmlinux" ] || die "no debug kernel at $vmlinux: run 'scripts/gdb.sh build' first"
	# (a session of its own: stopped as a whole below, QEMU with it; a
	# signal to run-qemu.sh alone waits for its QEMU)
	GDB_PORT=$port GDB_WAIT=1 QEMU_APPEND="${QEMU_APPEND:-} nokaslr" \
		setsid "$TOP/scripts/run-qemu.sh" --labs 01 --timeout "${GDB_TEST_TIMEOUT:-300}" \
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
	kill -TERM -- "-$pid" "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	cat "$out"
	return "$qrc"
}

# side by side in tmux: a new tmux session ("session"), or, inside one
# already (TMUX is set; tmux refuses to nest), a new pane of it ("pane");
# with no tmux or no terminal, "alone". Decided before the build, so that
# nothing fails after it.
layout() {
	if command -v tmux >/dev/null && [ -t 0 ] && [ -t 1 ]; then
		if [ -n "${TMUX:-}" ]; then echo pane; else echo session; fi
	else
		echo alone
	fi
}

case ${1:-} in
layout) layout ;;
build) build ;;
boot) boot ;;
attach) attach ;;
test) batch_test "${2:-}" ;;
'')
	layout=$(layout)
	build
	export GDB_PORT=$port
	# A pane's command gets the tmux server's environment, not make's:
	# what says which kernel and which stub goes in its command line
	# (the record says which debug kernel both panes use)
	me="env $(for v in KERNEL BUILD KERNEL_DIR OBJ_DIR GUEST_DIR LOG_DIR FULL GDB_PORT NO_COLOR; do
		[ -z "${!v:-}" ] || printf '%q ' "$v=${!v}"
	done)$(printf '%q' "$0")"
	case $layout in
	session)
		tip="the guest is on the left, gdb on the right: Ctrl-B then an arrow moves between them; Ctrl-B d leaves both running (tmux attach comes back)"
		exec tmux new-session "$me boot" \; split-window -h "sleep 2; GDB_TIP=$(printf '%q' "$tip") $me attach" \; \
			set-option status-right "Ctrl-B arrow: other pane"
		;;
	pane)
		tip="the guest is in the pane on the left, gdb here: Ctrl-B then an arrow moves between them"
		tmux split-window -h "sleep 2; GDB_TIP=$(printf '%q' "$tip") $me attach"
		boot
		;;
	*)
		info "no tmux here (or no terminal): gdb goes in a second terminal, 'make gdb-attach'"
		boot
		;;
	esac
	;;
*) die "usage: gdb.sh [build|boot|attach|layout|test [OUT]]" ;;
esac
