# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154
# Kernels built one after another, each booted in the background while the
# next one builds (QEMU takes one core; a build's links leave the other one
# idle), and mutants, worked by two lanes. Sourced by tests/staircase.sh and
# tests/mutants.sh.
#
# The caller sets wt (the worktree, also KERNEL_DIR), T (a scratch folder),
# LOG_DIR, OBJ_DIR and GUEST_DIR (exported, for build-kernel.sh and
# run-qemu.sh).

# run-qemu.sh's outcomes by name, from beside this file (not from $TOP: a
# test may set TOP to a tree of stubs)
# shellcheck source=scripts/qemu-outcomes.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/qemu-outcomes.sh"

# runner_layout: under $T (set by the caller), the objects, the guest and
# the logs (exported OBJ_DIR, GUEST_DIR, LOG_DIR), a worktree wt of the
# kernel repository, which becomes KERNEL_DIR, and the guest packed
runner_layout() {
	export OBJ_DIR=$T/obj GUEST_DIR=$T/guest LOG_DIR=$T/logs
	wt=$T/linux
	mkdir -p "$T" "$LOG_DIR"
	if [ ! -e "$wt/.git" ]; then
		kgit worktree prune
		kgit worktree add -q --detach "$wt" lab-00 || die "cannot make the worktree $wt"
	fi
	export KERNEL_DIR=$wt
	"$TOP/scripts/build-guest.sh" >/dev/null || die "the guest initramfs does not build"
}

# --- background boots ---------------------------------------------------------
boot_pid=""
boot_wait() {
	[ -z "$boot_pid" ] || wait "$boot_pid" || true
	boot_pid=""
}
# keep_image NAME: the kernel just built, kept for its boot
keep_image() {
	mkdir -p "$T/kernels"
	cp "$OBJ_DIR/vmlinux" "$T/kernels/$1.vmlinux"
}
# boot_bg NAME LABS [APPEND] [INITRD] [SCRATCH]: boot the kept kernel NAME
# with the checks of LABS once the boot before it has ended. The results go
# to $LOG_DIR/NAME.ktap, the kernel's log to NAME.log and run-qemu.sh's exit
# status to NAME.rc; SCRATCH (a folder) is removed after the boot.
#
# With BOOT_RETRY=1 (the staircase), a boot in which a check ran out of time
# or the guest stopped before the end of the checks (TIMEOUT, MISSING) is
# booted once more: on a busy two-core machine a TCG guest can be starved
# past a check's time limit. The first boot's files are kept as
# NAME.first.{log,ktap,rc} and NAME.retried says which labs it lost; the
# second boot's results are the step's, and the caller says that it retried.
boot_bg() {
	local name=$1 blabs=$2 app=${3:-} ird=${4:-$GUEST_DIR/initramfs.cpio} scratch=${5:-}
	boot_wait
	rm -f "$LOG_DIR/$name.rc" "$LOG_DIR/$name.retried" "$LOG_DIR/$name".first.*
	(
		rc=0 t0=$(date +%s.%N)
		boot_once "$name" "$blabs" "$app" "$ird" || rc=$?
		lost=""
		[ "${BOOT_RETRY:-0}" != 1 ] || lost=$(boot_lost "$name" "$blabs" "$rc")
		if [ -n "$lost" ]; then
			for f in log ktap; do
				[ ! -f "$LOG_DIR/$name.$f" ] || mv "$LOG_DIR/$name.$f" "$LOG_DIR/$name.first.$f"
			done
			echo "$rc" >"$LOG_DIR/$name.first.rc"
			echo "$lost" >"$LOG_DIR/$name.retried"
			rc=0
			boot_once "$name" "$blabs" "$app" "$ird" || rc=$?
		fi
		echo "$rc" >"$LOG_DIR/$name.rc"
		cost_add boot "$t0"
		rm -f "$T/kernels/$name.vmlinux"
		[ -z "$scratch" ] || rm -rf -- "$scratch"
	) &
	boot_pid=$!
}
boot_rc() { cat "$LOG_DIR/$1.rc" 2>/dev/null || echo 99; }
boot_once() {
	QEMU_APPEND="${QEMU_APPEND:-} $3" INITRD=$4 KERNEL_IMAGE=$T/kernels/$1.vmlinux \
		"$TOP/scripts/run-qemu.sh" --labs "$2" --log "$LOG_DIR/$1.log" \
		>"$LOG_DIR/$1.out" 2>&1
}
# boot_lost NAME LABS RC: the labs of LABS that ran out of time or have no
# result in NAME's boot ("all" when run-qemu.sh itself timed out, RC
# QEMU_TIMEOUT)
boot_lost() {
	if [ "$3" -eq "$QEMU_TIMEOUT" ]; then
		echo all
		return
	fi
	"$TOP/scripts/ktap.sh" results "$LOG_DIR/$1.ktap" "$2" |
		awk '$2 == "TIMEOUT" || $2 == "MISSING" { printf "%s%s", sep, $1; sep = " " }'
}

# --- what a kernel costs the suite ---------------------------------------------
# cost_add KIND T0: one KIND (build, boot, mbuild, mboot) took from T0 (date
# +%s.%N) to now; the seconds are kept in $T/costs, one line each, for
# cost_summary. Builds and boots overlap (a boot runs beside the next
# build), so each is its own wall time on a busy machine, as make test has it.
cost_add() {
	awk -v k="$1" -v a="$2" -v b="$(date +%s.%N)" 'BEGIN { printf "%s %.1f\n", k, b - a }' >>"$T/costs"
}
cost_reset() { rm -f "$T/costs"; }
# cost_median KIND: "N s (median of M)" of the KIND lines, or nothing
cost_median() {
	awk -v k="$1" '$1 == k { print $2 }' "$T/costs" 2>/dev/null | sort -n |
		awk '{ a[NR] = $1 } END { if (NR) printf "%.0f s (median of %d)", a[int((NR + 1) / 2)], NR }'
}
# cost_summary: the "cost:" lines make test repeats at its end: what a step
# and a mutant take, and so what one more lab adds to this suite
cost_summary() {
	local b m nb nm per_row per_m nm_lab
	[ -f "$T/costs" ] || return 0
	b=$(cost_median build) m=$(cost_median mbuild)
	[ -z "$b" ] || printf 'cost: %s staircase, a step: build %s, boot with every check %s\n' "$KERNEL" "$b" "$(cost_median boot)"
	[ -z "$m" ] || printf 'cost: %s mutants, a mutant: build %s, boot with its lab'"'"'s check %s, on two lanes\n' \
		"$KERNEL" "$m" "$(cost_median mboot)"
	nb=$(awk '$1 == "build" || $1 == "boot"' "$T/costs" | wc -l)
	nm=$(awk '$1 == "mbuild"' "$T/costs" | wc -l)
	per_row=$(awk '$1 == "build" || $1 == "boot" { s += $2; n++ } END { if (n) printf "%.0f", 2 * s / n }' "$T/costs")
	per_m=$(awk '$1 == "mbuild" || $1 == "mboot" { s += $2 } END { printf "%.0f", s }' "$T/costs")
	[ "$nb" -gt 0 ] || return 0
	if [ "$nm" -gt 0 ]; then
		nm_lab=$(awk -v n="$nm" -v l="$(lab_dirs | wc -l)" 'BEGIN { printf "%.1f", n / l }')
		printf 'cost: one more lab on %s: about %s s of the staircase (its step built and booted) + %s s of mutants (%s of them, the mean per lab, on two lanes), and its check in every boot\n' \
			"$KERNEL" "$per_row" "$(awk -v s="$per_m" -v n="$nm" -v k="$nm_lab" 'BEGIN { printf "%.0f", s / n * k / 2 }')" "$nm_lab"
	else
		printf 'cost: one more lab on %s: about %s s of the staircase (its step built and booted), and its check in every boot\n' "$KERNEL" "$per_row"
	fi
}

# --- mutants ------------------------------------------------------------------
# tests/mutants/NN-*.patch are plausible wrong answers to lab NN, each naming
# in its header the test point that must catch it ("Caught-by: POINT"). Each
# is built and booted with lab NN's check, which must FAIL at that point.
#
# A kernel lab's mutant is a patch onto lab-NN-start, built into a kernel.
# A user-space lab's (lab.conf USERSPACE) is a patch of the reference answer
# (solutions/NN-*/FILE copied to the lab's FILE, as a student's submission
# would have it), built into a guest of its own and tested on the
# lab-NN-start kernel as make grade tests it.
#
# The mutants are written on the main base (6.12), as the series is. Where
# the second base's code differs so that one does not apply or build
# there, tests/mutants/KERNEL/NAME.patch (say tests/mutants/6.1/01-init-ns.patch)
# is the same wrong answer carried to that base, with the same header:
# mutant_file picks it for the base being tested. The names are still those of tests/mutants/*.patch; a base's file
# without that counterpart is never run, and is reported as an ORPHAN row.
mdir=$TOP/tests/mutants
mrows="" mbad=0 mcount=0 mlist=()
mutant_row() { mrows="$mrows$(printf '  %-30s %-9s %s' "$1" "$2" "$3")"$'\n'; }
# mutant_file NAME: the patch of mutant NAME for the base in KERNEL, its own
# (tests/mutants/KERNEL/NAME.patch) if it has one, else the main base's
mutant_file() {
	if [ -f "$mdir/$KERNEL/$1.patch" ]; then
		echo "$mdir/$KERNEL/$1.patch"
	else
		echo "$mdir/$1.patch"
	fi
}

# mutant_failed KTAP NN: the names of lab NN's points that did not pass
mutant_failed() {
	"$TOP/scripts/ktap.sh" json "$1" "$2" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for lab in d["labs"].values():
    print(" ".join(p["name"] for p in lab["points"] if p["status"] not in ("PASS", "SKIP", "XFAIL")))'
}

# The mutants are a queue ($T/queue, one file per mutant, in lab order)
# worked by two lanes, each with a worktree and an object folder of its own
# ($T/lane-L/linux and obj-L: the layout of $T, so ccache serves both):
# an incremental build is mostly single-threaded links, so two lanes use
# the two cores. A lane claims a mutant by renaming its file (atomic).
mutants_queue() { # [NN...]: queue the mutants of these labs (all by default)
	local m n
	rm -rf "$T/queue" "$T/claimed"
	mkdir -p "$T/queue" "$T/claimed"
	for m in "$mdir"/[0-9][0-9]-*.patch; do
		[ -e "$m" ] || continue
		n=$(basename "$m" | cut -c1-2)
		[ "$#" -eq 0 ] || [[ " $* " == *" $n "* ]] || continue
		: >"$T/queue/$(basename "$m" .patch)"
		mlist+=("$n $(basename "$m" .patch)")
		mcount=$((mcount + 1))
	done
	# a base's own version of a mutant that has no main file: never run
	for m in "$mdir"/*/[0-9][0-9]-*.patch; do
		[ -e "$m" ] || continue
		n=$(basename "$m" | cut -c1-2)
		[ "$#" -eq 0 ] || [[ " $* " == *" $n "* ]] || continue
		[ ! -e "$mdir/$(basename "$m")" ] || continue
		echo "error: ${m#"$TOP"/} has no tests/mutants/$(basename "$m"): it is never run" >&2
		mutant_row "$(basename "$m" .patch)" ORPHAN "${m#"$TOP"/} has no tests/mutants/$(basename "$m")"
		mbad=$((mbad + 1))
	done
}

# mutants_worker LANE: work the queue until it is empty. Lane "main" uses
# the caller's worktree and objects; any other its own.
mutants_worker() {
	local lane=$1 q
	local KERNEL_DIR=$wt OBJ_DIR=$OBJ_DIR
	if [ "$lane" != main ]; then
		KERNEL_DIR=$T/lane-$lane/linux OBJ_DIR=$T/lane-$lane/obj-$lane
		if [ ! -e "$KERNEL_DIR/.git" ]; then
			mkdir -p "$T/lane-$lane"
			git -C "$wt" worktree add -q --detach "$KERNEL_DIR" lab-00 2>/dev/null ||
				{ echo "lane $lane: no worktree" >&2; return 1; }
		fi
	fi
	export KERNEL_DIR OBJ_DIR
	while :; do
		q=$(find "$T/queue" -type f -printf '%f\n' 2>/dev/null | sort | head -1)
		[ -n "$q" ] || break
		mv "$T/queue/$q" "$T/claimed/$q" 2>/dev/null || continue
		echo "$lane" >"$T/claimed/$q"
		printf 'mutant %d of %d (lane %s): %s\n' "$(find "$T/claimed" -type f | wc -l)" "$mcount" "$lane" "$q"
		mutant_one "$q"
	done
}

# mutant_one NAME: build and boot one mutant in the lane's KERNEL_DIR and
# OBJ_DIR; $LOG_DIR/mutant-NAME.bad says why it could not run, else its
# results are in mutant-NAME.ktap and .rc
mutant_bad() { echo "$2" >"$LOG_DIR/mutant-$1.bad"; } # NAME WHY
mutant_one() {
	local name=$1 m n us copy ref f append="" initrd=$GUEST_DIR/initramfs.cpio rc t0
	m=$(mutant_file "$name") n=${name:0:2}
	rm -f "$LOG_DIR/mutant-$name".*
	us=$(lab_conf "$n" USERSPACE)
	git -C "$KERNEL_DIR" checkout -q -f --detach "lab-$n-start"
	t0=$(date +%s.%N)
	if [ -n "$us" ]; then
		append=$(lab_conf "$n" STUDENT_APPEND)
		copy=$T/course-$name
		# a repository of its own: git apply in a folder inside the
		# course's repository would skip paths outside that folder
		# (its labs/ beside a solutions/ with the reference program, which
		# the guest's container-ref.c includes: one for every base, in
		# solutions/NN-*/)
		ref=$SOLUTIONS_DIR
		rm -rf "$copy" && mkdir -p "$copy" && cp -a "$LABS_DIR" "$copy/labs" &&
			cp -a "$ref" "$copy/solutions" && git -C "$copy" init -q
		for f in $us; do cp "$ref/$(basename "$(lab_dir "$n")")/${f##*/}" "$copy/$f"; done
		if ! (cd "$copy" && git apply "$m") 2>/dev/null; then
			mutant_bad "$name" "${m#"$TOP"/} does not apply onto the reference $us"
			return
		fi
		if ! LABS_DIR=$copy/labs GUEST_DIR=$copy/guest "$TOP/scripts/build-guest.sh" \
			>"$LOG_DIR/build-mutant-$name.out" 2>&1; then
			mutant_bad "$name" "does not compile: see $LOG_DIR/build-mutant-$name.out"
			return
		fi
		initrd=$copy/guest/initramfs.cpio
		if ! BUILD_LABEL=lab-$n-start "$TOP/scripts/build-kernel.sh" >>"$LOG_DIR/build-mutant-$name.out" 2>&1; then
			mutant_bad "$name" "lab-$n-start does not build: see $LOG_DIR/build-mutant-$name.out"
			return
		fi
	else
		if ! git -C "$KERNEL_DIR" apply "$m" 2>/dev/null; then
			mutant_bad "$name" "${m#"$TOP"/} does not apply onto $KERNEL's lab-$n-start"
			return
		fi
		if ! BUILD_LABEL=mutant-$name "$TOP/scripts/build-kernel.sh" >"$LOG_DIR/build-mutant-$name.out" 2>&1; then
			mutant_bad "$name" "does not compile: see $LOG_DIR/build-mutant-$name.out"
			return
		fi
	fi
	cost_add mbuild "$t0"
	rc=0 t0=$(date +%s.%N)
	QEMU_APPEND="${QEMU_APPEND:-} $append" INITRD=$initrd \
		"$TOP/scripts/run-qemu.sh" --labs "$n" --log "$LOG_DIR/mutant-$name.log" \
		>"$LOG_DIR/mutant-$name.out" 2>&1 || rc=$?
	echo "$rc" >"$LOG_DIR/mutant-$name.rc"
	cost_add mboot "$t0"
	[ -z "$us" ] || rm -rf -- "$copy"
	git -C "$KERNEL_DIR" checkout -q -f --detach "lab-$n-start"
}

mutants_eval() { # once the lanes are done: each queued mutant, killed or not
	local e n name caught rc st failed
	for e in ${mlist[@]+"${mlist[@]}"}; do
		read -r n name <<<"$e"
		if [ -f "$LOG_DIR/mutant-$name.bad" ]; then
			mutant_row "$name" BAD "$(cat "$LOG_DIR/mutant-$name.bad")"
			mbad=$((mbad + 1))
			continue
		fi
		caught=$(sed -n 's/^Caught-by: *//p' "$(mutant_file "$name")" | head -1)
		rc=$(boot_rc "mutant-$name")
		st=$("$TOP/scripts/ktap.sh" results "$LOG_DIR/mutant-$name.ktap" "$n" | awk '{ print $2 }')
		failed=$(mutant_failed "$LOG_DIR/mutant-$name.ktap" "$n")
		if [ "$st" = PASS ]; then
			mutant_row "$name" SURVIVED "lab $n's check passed (boot exit $rc)"
			mbad=$((mbad + 1))
		elif [ -z "$caught" ] || [[ " $failed " != *" $caught "* ]]; then
			mutant_row "$name" WRONG "caught by '${failed:-no point ($st, boot exit $rc)}', not by its header's '${caught:-?}'"
			mbad=$((mbad + 1))
		else
			mutant_row "$name" killed "by $failed"
			rm -f "$LOG_DIR/mutant-$name.log"
		fi
	done
	mlist=()
}

# mutant_summary: the matrix and the verdict (t_ok or t_fail)
mutant_summary() {
	if [ "$mcount" -eq 0 ]; then
		t_fail "mutants: none found in $mdir"
		return
	fi
	printf '\nmutants: %d plausible wrong answers, each must fail its lab'"'"'s check at the point its header names\n' "$mcount"
	printf '%s' "$mrows" | sort
	if [ "$mbad" -eq 0 ]; then
		t_ok "mutants: all $mcount killed, each by the point its header names"
	else
		t_fail "mutants: $mbad of $mcount survived, or were caught by another point (see the matrix above)"
	fi
}
