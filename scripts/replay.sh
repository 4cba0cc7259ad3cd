#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make record, make replay: the lab's check recorded once, deterministically,
# by QEMU (-icount rr=record), then replayed under gdb, which can run it
# backwards from the return of the failing system call to the code that
# chose its errno.
#
#   replay.sh record    make gdb's debug kernel (the lab's files with -g),
#                       then the lab's check alone in QEMU, recorded into
#                       REPLAY_DIR (build/replay): the log of what was not
#                       deterministic (record.bin), a snapshot of the
#                       machine at its start (snapshot.qcow2, for reverse
#                       execution), the kernel and initramfs it ran, and
#                       the check's output. The point to replay: POINT=name
#                       (or its number), by default the first that failed.
#   replay.sh replay    QEMU replays the recording (the guest's console in
#                       REPLAY_DIR/replay.log), gdb stops it where the
#                       point's failed call returns (its output names the
#                       call and the errno: "execve: EPERM (...)"); from
#                       there gdb's 'back LOCATION' (scripts/replay_back.py)
#                       goes to the last time the replay reached LOCATION
#                       before, 'forth' returns; QEMU's own reverse-step,
#                       reverse-next, reverse-finish and reverse-continue
#                       work too, but may stall (HACKING.md). QEMU is
#                       stopped when gdb ends, or on Ctrl-C.
#   replay.sh test      a batch session (make test): record lab 1's check
#                       at its start, replay it to the failed execve's
#                       return, 'back bprm_fill_uid', and print where it
#                       stopped
#
# What makes reverse execution work here (HACKING.md, "make replay"): one
# CPU, no network, the initramfs only (no disk but the snapshot's), the
# same kernel, initramfs and command line as recorded (kept in
# REPLAY_DIR); a snapshot at the start (rrsnapshot=init) in a qcow2 image,
# copied afresh for each replay, because a replay writes to it and one
# stopped half-way leaves it unusable.
set -eu
. "$(dirname "$0")/lib.sh"

R=${REPLAY_DIR:-$BUILD/replay}
port=${GDB_PORT:-1234}
case $port in *[!0-9]* | '') die "GDB_PORT must be a port number" ;; esac
unistd=/usr/include/x86_64-linux-gnu/asm/unistd_64.h

qemu_pid=""
# stop_qemu: the QEMU of this run, and all of its session, gone (SIGTERM,
# then SIGKILL: a replaying QEMU may not heed SIGTERM)
stop_qemu() {
	local p
	# (and the one gdb's 'back' started last, scripts/replay_back.py)
	p=$(cat "$R/qemu.pid" 2>/dev/null || true)
	# (only a QEMU of this recording: the file may outlive its process,
	# and the number be another's by now)
	case $p in '' | *[!0-9]*) ;; *)
		if tr '\0' ' ' 2>/dev/null </proc/"$p"/cmdline | grep -qF -- "rrfile=$R/record.bin"; then
			kill -TERM -- "-$p" 2>/dev/null || true
			sleep 0.5
			kill -KILL -- "-$p" 2>/dev/null || true
		fi
		rm -f "$R/qemu.pid"
		;;
	esac
	[ -n "$qemu_pid" ] || return 0
	kill -TERM -- "-$qemu_pid" 2>/dev/null || true
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 -- "-$qemu_pid" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL -- "-$qemu_pid" 2>/dev/null || true
	wait "$qemu_pid" 2>/dev/null || true
	qemu_pid=""
}
trap stop_qemu EXIT
# shellcheck disable=SC2317 # run by lib.sh's trap (_interrupted)
interrupt_cleanup() { stop_qemu; }

need_tools() {
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found: make deps"
	command -v qemu-img >/dev/null || die "qemu-img not found: install Debian's qemu-utils (scripts/deps.sh --gdb)"
	command -v gdb >/dev/null || die "gdb not found: install Debian's gdb (scripts/deps.sh --gdb)"
	[ -f "$unistd" ] || die "no $unistd: install Debian's linux-libc-dev"
}

# qemu_cmd MODE: QEMU's command line for record or replay, in the array q
qemu_cmd() {
	local mode=$1 out
	out=record
	[ "$mode" = record ] || out=replay
	q=(qemu-system-x86_64 -accel tcg -m "${GUEST_MEM:-256}" -smp 1
		-kernel "$R/vmlinux" -initrd "$R/initrd" -append "$(cat "$R/append")"
		-no-reboot -nic none -display none -monitor none
		-serial "file:$R/$out.log" -serial "file:$R/$out.raw"
		-drive "file=$R/$out.qcow2,if=none,id=rr"
		-icount "shift=auto,rr=$mode,rrfile=$R/record.bin,rrsnapshot=init")
}

record() {
	local n append t0 secs rc=0 limit
	need_tools
	n=${LAB:-}
	[ -n "$n" ] || n=$(current_lab) ||
		die "cannot tell which lab this tree is on: use 'make record LAB=N'"
	n=$(printf '%02d' "$((10#$n))")
	lab_dir "$n" >/dev/null || die "there is no lab $((10#$n))"
	# the debug kernel make gdb boots (the same code as make check's)
	"$TOP/scripts/gdb.sh" build
	local dbg
	dbg=$(cat "$BUILD/gdb-kernel" 2>/dev/null || echo "$BUILD/obj-gdb")
	[ -f "$dbg/vmlinux" ] || die "no debug kernel at ${dbg#"$TOP"/}/vmlinux"
	rm -rf -- "$R"
	mkdir -p "$R"
	cp "$dbg/vmlinux" "$R/vmlinux"
	cp "$GUEST_DIR/initramfs.cpio" "$R/initrd"
	printf '%s\n' "$dbg" >"$R/objdir"
	printf '%s\n' "$n" >"$R/lab"
	append="$(guest_cmdline check) labs.run=$n nokaslr"
	case $(kgit symbolic-ref --short -q HEAD || true) in
	solution/*) ;;
	*) append="$append $(lab_conf "$n" STUDENT_APPEND)" ;;
	esac
	printf '%s\n' "$append" >"$R/append"
	qemu-img create -q -f qcow2 "$R/record.qcow2" 64M || die "qemu-img could not make the snapshot's image"
	limit=$(lab_conf "$n" TIMEOUT 60 2>/dev/null || echo 60)
	limit=$((60 + limit))
	qemu_cmd record
	info "recording lab $((10#$n))'s check in QEMU (${R#"$TOP"/}; at most $limit s)"
	on_interrupt "the recording; nothing was kept of it"
	t0=$(date +%s.%N)
	setsid timeout -k 5 "$limit" "${q[@]}" </dev/null >"$R/qemu.out" 2>&1 &
	qemu_pid=$!
	wait "$qemu_pid" || rc=$?
	qemu_pid=""
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	tr -d '\r' <"$R/record.raw" >"$R/record.ktap" 2>/dev/null || : >"$R/record.ktap"
	[ "$rc" -eq 0 ] || sed 's/^/    /' "$R/qemu.out" >&2
	mv "$R/record.qcow2" "$R/snapshot.qcow2"
	printf '%s\n' "$secs" >"$R/record.secs"
	info "recorded in $secs s: record.bin $(du -k "$R/record.bin" | cut -f1) KiB, the snapshot $(du -k "$R/snapshot.qcow2" | cut -f1) KiB"
	choose
}

# choose: the point to replay and its failed call, from the recording
# (POINT=, else the first failed point), in REPLAY_DIR/point
choose() {
	python3 "$TOP/scripts/replay_point.py" "$R/record.ktap" "$unistd" "${POINT:-}" >"$R/point.new" ||
		{ rm -f "$R/point.new"; exit 2; }
	mv "$R/point.new" "$R/point"
	load_point
	if [ -n "${nothing:-}" ]; then
		info "point $number, $point: its output names no failed system call; make replay stops at the start"
	else
		local after=""
		[ "${skip:-0}" -eq 0 ] || after=" (the $((skip + 1))th time: earlier points' failed the same way)"
		info "point $number, $point: make replay stops where its $call returns $errno$after"
		info "(counted from the points' printed output: a failure no point printed, such as a passed point's, comes first; then 'continue' goes to the next)"
	fi
}

load_point() {
	point="" number="" call="" errno="" errnum="" nrs="" skip=0 nothing=""
	# (written by replay_point.py: NAME=value, each value quoted by shlex)
	# shellcheck disable=SC1091
	. "$R/point"
}

# say TEXT: a gdb command that prints "[make replay] TEXT" on a line
say() { printf 'echo [make replay] %s\\n\n' "$1"; }
# gdb_script [extra commands...]: the commands that stop the replay where
# the point's call returns, in REPLAY_DIR/replay.gdb
gdb_script() {
	local cond="" nr k
	{
		echo "set confirm off"
		echo "target remote 127.0.0.1:$port"
		if [ -z "$nothing" ] && [ -n "$nrs" ]; then
			for nr in $nrs; do cond="$cond${cond:+ || }((struct pt_regs *)\$rdi)->orig_ax == $nr"; done
			# x86-64: the return value is in ax, -errno on failure; the
			# system call's number in orig_ax
			echo "break syscall_exit_to_user_mode if ($cond) && ((struct pt_regs *)\$rdi)->ax == -$errnum"
			echo "continue"
			for ((k = 0; k < skip; k++)); do echo "continue"; done
			echo "delete"
			say "point $number, $point: here its $call returns $errno (-$errnum)."
			say "To go back to where $errno was chosen: 'back FUNCTION' (or back file:line) stops where"
			say "the replay last reached it before here; 'forth' returns to where the last 'back' left."
			say "QEMU's own reverse-step, reverse-next, reverse-finish and reverse-continue work too, but"
			say "may stall (HACKING.md): then Ctrl-C, 'quit', make replay again. 'quit' ends the replay."
		else
			say "at the start of the recording: set breakpoints, then continue."
		fi
		for k in "$@"; do printf '%s\n' "$k"; done
	} >"$R/replay.gdb"
}

# start_replay: QEMU replaying, its gdb stub on the port, the CPU stopped
start_replay() {
	[ -f "$R/record.bin" ] && [ -f "$R/snapshot.qcow2" ] && [ -f "$R/point" ] ||
		die "no recording in ${R#"$TOP"/}: run 'make record' first"
	need_tools
	load_point
	# the port must be free: else gdb would attach to what holds it (a
	# guest of make gdb's, on the same default port)
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		die "127.0.0.1:$port is in use (a make gdb guest?): stop it, or choose another port (GDB_PORT=N make replay)"
	fi
	# a copy of the snapshot's image for this replay (QEMU writes to it)
	cp "$R/snapshot.qcow2" "$R/replay.qcow2"
	qemu_cmd replay
	q+=(-gdb "tcp:127.0.0.1:$port" -S)
	# (for gdb's 'back', which starts the replay anew)
	printf '%s\n' "${q[@]}" >"$R/qemu.args"
	printf '%s\n' "$port" >"$R/port"
	rm -f "$R/qemu.pid"
	setsid "${q[@]}" </dev/null >"$R/qemu.out" 2>&1 &
	qemu_pid=$!
	printf '%s\n' "$qemu_pid" >"$R/qemu.pid"
	for _ in $(seq 50); do
		kill -0 "$qemu_pid" 2>/dev/null || break
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && kill -0 "$qemu_pid" 2>/dev/null && return 0
		sleep 0.2
	done
	sed 's/^/    /' "$R/qemu.out" >&2
	die "the replaying QEMU did not open its gdb stub on 127.0.0.1:$port"
}

gdb_opts() {
	local obj
	obj=$(cat "$R/objdir" 2>/dev/null || echo "$BUILD/obj-gdb")
	# the sources: kbuild names them from the obj dir (../linux/fs/exec.c).
	# Not the kernel's gdb scripts (vmlinux-gdb.py, lx-*): with them loaded,
	# reverse-continue stalled each time it was tried (HACKING.md)
	g=(gdb -q -nx -iex "set auto-load python-scripts off" -iex "directory $obj" -iex "set pagination off"
		-x "$TOP/scripts/replay_back.py")
	export REPLAY_DIR=$R
	gdb_dir=$obj
	[ -d "$gdb_dir" ] || gdb_dir=$R
}

replay() {
	local g gdb_dir rc=0
	on_interrupt "the replay; QEMU is stopped"
	start_replay
	gdb_script
	gdb_opts
	info "gdb on the replay of lab $((10#$(cat "$R/lab")))'s check ('back FUNCTION' goes back to its last call, 'forth' returns)"
	# Ctrl-C while gdb runs is gdb's (it stops the replaying guest); when
	# gdb ends, so does QEMU
	trap ':' INT
	(cd "$gdb_dir" && "${g[@]}" -x "$R/replay.gdb" "$R/vmlinux") || rc=$?
	on_interrupt "the replay; QEMU is stopped"
	stop_qemu
	return "$rc"
}

# the batch test: lab 1 at its start (the caller's tree), its first failed
# point (an execve that returns EPERM), back to the function that chose it
batch_test() {
	local out=${1:-$LOG_DIR/replay-test.out} g gdb_dir rc=0 t0
	POINT=${POINT:-} LAB=1 record
	start_replay
	# shellcheck disable=SC2016 # gdb's $pc, not the shell's
	gdb_script "back bprm_fill_uid" \
		'python print("replay-test frame:", gdb.selected_frame().name())' \
		'python print("replay-test file:", gdb.selected_frame().find_sal().symtab.filename)' \
		"bt 3" "print \$_as_string(bprm->filename)" "kill"
	gdb_opts
	t0=$(date +%s.%N)
	(cd "$gdb_dir" && timeout -k 5 "${REPLAY_TEST_TIMEOUT:-300}" "${g[@]}" -batch -x "$R/replay.gdb" "$R/vmlinux") \
		>"$out" 2>&1 || rc=$?
	stop_qemu
	printf 'replay-test secs: %s\n' "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" >>"$out"
	printf 'replay-test record: %s s, record.bin %s KiB, snapshot %s KiB\n' "$(cat "$R/record.secs")" \
		"$(du -k "$R/record.bin" | cut -f1)" "$(du -k "$R/snapshot.qcow2" | cut -f1)" >>"$out"
	grep -v 'auto-load\|add-auto-load\|configuration file\|gdbinit\|safe-path\|Auto-loading\|info "(gdb)' "$out" || true
	return "$rc"
}

case ${1:-} in
record) record ;;
replay) replay ;;
test) batch_test "${2:-}" ;;
*) die "usage: replay.sh record|replay|test [OUT]" ;;
esac
