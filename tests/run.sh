#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test: unit tests, lint, the book, the patch stack, then the staircase and
# the identity, the kernel's selftests, the grader, make gdb and make
# replay, and the student's loop (make check, Ctrl-C).
#   tests/run.sh --quick   unit tests and lint only (no kernel build)
#
# Disk and time: a kernel checkout is 1.5 GB and takes a minute or two to
# write, its objects some 100 MB. So the staircase's two worktrees are handed
# on (git worktree move: a rename) to the suites after it, which check out
# their own tag in them, and a suite's objects are removed once no later
# suite starts from them: make test needs room for the staircase's folders,
# not for every suite's (it prints the disk's free space at the end). The
# logs stay. TEST_KEEP=1 keeps every suite's folders; so does, outside CI, a
# suite that failed, to be looked into or run again warm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
pass=0 fail=0 start=$(date +%s) times='' costs='' suite_ok=1 kept_said=''

avail_kb() { df -Pk "$1" 2>/dev/null | awk 'NR == 2 { print $4 }'; }
gb() { awk -v k="$1" 'BEGIN { printf "%.1f GB", k / 1048576 }'; }
disk_least=$(avail_kb "$top")

# cpu_ticks: the machine's busy and idle time so far, in clock ticks
# (/proc/stat: a suite's share of the cores says whether it can go faster
# by overlapping another, or only by doing less)
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit }' /proc/stat; }
run() { # NAME SCRIPT...: run a suite, add up its closing "N passed, N failed"
	local name=$1 out rc t0 b0 i0 b1 i1
	shift
	printf '\n### %s\n' "$name"
	out=$(mktemp)
	t0=$(date +%s)
	read -r b0 i0 < <(cpu_ticks)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	read -r b1 i1 < <(cpu_ticks)
	account "$name" "$rc" "$out" "$(($(date +%s) - t0))" \
		"cores busy $(awk -v b="$((b1 - b0))" -v i="$((i1 - i0))" -v n="$(nproc)" 'BEGIN { printf "%.1f of %d", (b + i > 0 ? n * b / (b + i) : 0), n }')"
}
# run_beside NAME SCRIPT...: a suite that leaves a core idle (the grader's:
# one QEMU at a time, after a short build) runs beside the next ones, its
# output kept and printed by join_beside, with its result
bs_name='' bs_pid='' bs_out='' bs_t0=''
run_beside() {
	bs_name=$1
	shift
	bs_out=$(mktemp) bs_t0=$(date +%s)
	("$@" >"$bs_out" 2>&1; echo "$? $(date +%s)" >"$bs_out.end") &
	bs_pid=$!
	printf '\n### %s: started beside the suites that follow; its output when it ends\n' "$bs_name"
}
join_beside() {
	local rc=1 t1
	[ -n "$bs_pid" ] || return 0
	wait "$bs_pid" || true
	t1=$(date +%s)
	read -r rc t1 <"$bs_out.end" 2>/dev/null || true
	rm -f "$bs_out.end"
	printf '\n### %s (beside the suites above)\n' "$bs_name"
	cat "$bs_out"
	account "$bs_name" "$rc" "$bs_out" "$((t1 - bs_t0))" "beside others"
	bs_pid=''
}
# account NAME RC OUTPUT SECONDS WHAT: a suite's time, result and costs
account() {
	local name=$1 rc=$2 out=$3 line nfail
	f=$(avail_kb "$top")
	[ "$f" -ge "$disk_least" ] || disk_least=$f
	times="$times$(printf '  %-16s %5d s   %-18s (%s of disk left after it)' "$name" "$4" "$5" "$(gb "$f")")"$'\n'
	suite_ok=0 kept_said=''
	line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
	# what a step, a mutant, one more lab cost the suite (tests/mutants-lib.sh)
	costs="$costs$(sed -n 's/^cost: /  /p' "$out")"
	[ -z "$costs" ] || costs="${costs%$'\n'}"$'\n'
	rm -f "$out"
	if [ -z "$line" ]; then
		printf 'not ok - %s ended without a result (exit %s)\n' "$name" "$rc"
		fail=$((fail + 1))
		return
	fi
	nfail=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	pass=$((pass + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
	fail=$((fail + nfail))
	if [ "$rc" -eq 0 ] && [ "$nfail" -eq 0 ]; then
		suite_ok=1
	elif [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then
		printf 'not ok - %s exited %s\n' "$name" "$rc"
		fail=$((fail + 1))
	fi
}

# The bases (scripts/lib.sh): every suite runs on the first, the one this
# machine has (or KERNEL=...; never the one make lab-N remembered); the
# staircase, the identity and the selftests run on the others too.
read -r installed bases < <(env -u KERNEL bash -c '. "$1/scripts/lib.sh" && echo "$(base_installed) $BASES"' _ "$top")
first=${KERNEL:-$installed}
others=$(printf '%s\n' $bases | grep -vx -- "$first" | tr '\n' ' ')
# a base whose source this release does not package (deps.sh --test said
# so): left out, in one line (6.1 on Debian 13)
for b in $others; do
	[ -f "/usr/src/linux-source-$b.tar.xz" ] && continue
	others=$(printf '%s\n' $others | grep -vx -- "$b" | tr '\n' ' ')
	printf 'kernel base %s: left out, no /usr/src/linux-source-%s.tar.xz (not packaged for this Debian release)\n' "$b" "$b"
done
export KERNEL=$first
printf 'kernel bases: %s (every suite)%s\n' "$first" "${others:+, $others(staircase, identity, selftests)}"
printf 'disk: %s available in %s at the start\n' "$(gb "$disk_least")" "$top"

# base_dirs BASE: that base's build folder and kernel repository (lib.sh)
base_dirs() { KERNEL=$1 bash -c '. "$1/scripts/lib.sh" && echo "$BUILD $KERNEL_DIR"' _ "$top"; }
# keeping: TEST_KEEP=1, or (outside CI) the suite just run failed
keeping() {
	[ -z "${TEST_KEEP:-}" ] || return 0
	[ "$suite_ok" != 1 ] && [ -z "${CI:-}" ] || return 1
	[ -z "$kept_said" ] || return 0
	kept_said=1
	printf '# its folders are kept for looking into (the suite failed)\n'
}
# done_with BASE FOLDER...: no later suite needs these folders (under the
# base's build folder): removed, unless keeping
done_with() {
	local b=$1 d bd kd
	shift
	keeping && return 0
	read -r bd kd < <(base_dirs "$b")
	for d in "$@"; do rm -rf -- "${bd:?}/$d"; done
	git -C "$kd" worktree prune 2>/dev/null || true
}
# hand_on BASE FROM TO: the worktree FROM becomes TO (the next suite's), when
# TO is not there yet; unless keeping
hand_on() {
	local bd kd
	keeping && return 0
	read -r bd kd < <(base_dirs "$1")
	[ -e "$bd/$2/.git" ] && [ ! -e "$bd/$3" ] || return 0
	mkdir -p "$(dirname "$bd/$3")"
	git -C "$kd" worktree move "$bd/$2" "$bd/$3" 2>/dev/null ||
		printf '# could not move the worktree %s to %s: the next suite makes its own\n' "$2" "$3"
}
# prepare_base BASE: its kernel tree imported and its lab tags made
prepare_base() {
	KERNEL=$1 "$top/scripts/import-kernel.sh" && KERNEL=$1 "$top/scripts/apply-steps.sh" ||
		{ echo "not ok - the kernel tree of base $1 could not be prepared"; fail=$((fail + 1)); }
}

run unit "$here/unit.sh"
# prewarm BASE: the base's tree imported and its lab-00 kernel built once,
# at the lowest priority, in a scratch worktree removed after: its objects
# go to ccache (shared by path, CCACHE_BASEDIR), so the base's own
# staircase later finds its cold build done. It runs beside the first
# base's suites, on the cycles they leave (a boot is one QEMU thread: the
# other core waits).
prewarm() {
	local b=$1 bd kd t0
	t0=$(date +%s)
	read -r bd kd < <(base_dirs "$b")
	if ! { KERNEL=$b nice -n 19 "$top/scripts/import-kernel.sh" && KERNEL=$b nice -n 19 "$top/scripts/apply-steps.sh"; }; then
		return 1
	fi
	rm -rf -- "$bd/prewarm"
	git -C "$kd" worktree prune
	git -C "$kd" worktree add -q --detach "$bd/prewarm/linux" lab-00 || return 1
	KERNEL=$b KERNEL_DIR=$bd/prewarm/linux OBJ_DIR=$bd/prewarm/obj LOG_DIR=$bd/prewarm/logs \
		nice -n 19 "$top/scripts/build-kernel.sh" || return 1
	rm -rf -- "$bd/prewarm"
	git -C "$kd" worktree prune
	echo "prewarm of base $b: $(($(date +%s) - t0)) s"
}
prewarm_pid=""
if [ "${1:-}" != --quick ]; then
	prepare_base "$first"
	# the other bases' trees (2.3 GB each) are imported beside the first
	# base's suites, their lab-00 built into ccache (prewarm); TEST_PREWARM=0:
	# each when its turn comes
	if [ -n "$others" ] && [ "${TEST_PREWARM:-1}" != 0 ]; then
		mkdir -p "$top/build"
		(for b in $others; do prewarm "$b" || echo "prewarm of base $b failed: its suites import it"; done) \
			>"$top/build/prewarm.log" 2>&1 &
		prewarm_pid=$!
	fi
fi
run lint "$here/lint.sh"
run book "$here/book.sh"
[ "${1:-}" = --quick ] || run stack "$here/stack.sh"
# (conformance and grade start from the staircase's last objects, test/obj;
# gdb from the grader's, test/grade/obj)
if [ "${1:-}" != --quick ]; then
	run staircase "$here/staircase.sh"
	hand_on "$first" test/linux conformance/linux
	hand_on "$first" test/lane-b/linux test/grade/lanes/1/linux
	done_with "$first" test/linux test/lane-b test/kernels
	run conformance "$here/conformance.sh"
	hand_on "$first" conformance/linux gdbtest/linux
	done_with "$first" conformance/linux conformance/obj conformance/guest
	run gdb "$here/gdb.sh"
	# (the student's loop, in the gdb test's worktree and objects)
	run loop "$here/loop.sh"
	hand_on "$first" gdbtest/linux test/grade/linux
	done_with "$first" gdbtest/linux gdbtest/obj gdbtest/obj-gdb gdbtest/obj-debug gdbtest/replay
	# the grader's suite keeps one core busy (one QEMU at a time, after a
	# short build): the second base's suites, in another repository, take
	# the other (tests/grade.sh checks that it writes only below build/,
	# as they do); the series, which works in both repositories, after
	run_beside grade "$here/grade.sh"
	if [ -n "$prewarm_pid" ]; then
		t0=$(date +%s)
		wait "$prewarm_pid"
		printf '\n# waited %d s for the prewarm of %s: %s\n' "$(($(date +%s) - t0))" "$others" \
			"$(tail -1 "$top/build/prewarm.log" 2>/dev/null)"
	fi
	for b in $others; do
		printf '\n### the kernel tree of base %s\n' "$b"
		prepare_base "$b"
		KERNEL=$b run "staircase-$b" "$here/staircase.sh" --base
		hand_on "$b" test/linux conformance/linux
		done_with "$b" test/linux test/kernels
		KERNEL=$b run "conformance-$b" "$here/conformance.sh"
		done_with "$b" conformance/linux conformance/obj conformance/guest test/obj
	done
	join_beside
	done_with "$first" test/grade/linux test/grade/lanes test/grade/obj test/obj
	# both bases' tags exist now: the one series, its range-diff, make port
	[ -z "$others" ] || KERNEL=$first run series "$here/series.sh"
fi

printf '\n(%s took %d s)\n%s' "$([ "${1:-}" = --quick ] && echo make test-quick || echo make test)" \
	"$(($(date +%s) - start))" "$times"
[ -z "$costs" ] || printf 'what a kernel costs (wall time on the busy machine; a new lab adds these):\n%s' "$costs"
printf 'disk: %s available at the least (after a suite)\n' "$(gb "$disk_least")"
printf 'total: %d passed, %d failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
