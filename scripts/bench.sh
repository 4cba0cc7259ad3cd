#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Figures, not assertions: how long the things a student waits for take.
#   cold    import + steps + first build (empty ccache) + boot + lab 1 result
#   edit    at lab 1 (BENCH_LABS) and, with ONLY=1 (its own check alone),
#           the last kernel lab (BENCH_ONLY_LAB): the boot and the checks
#           alone (run-qemu.sh); make check with nothing changed; make
#           check after a one-line edit (a new function) of the .c file
#           the lab marks, then after one inside that function (the same
#           symbols); each BENCH_RUNS times (5)
#   boot    boot to the end of the KTAP output (x5)
#   gdb     make gdb's debug kernel at lab 1: nothing changed, then after
#           a one-line edit of fs/exec.c (BENCH_RUNS times each)
#   stair   the staircase and identity test (tests/staircase.sh)
#   class   make grade-all on a class of 30 lab 1 submissions (scripts/class.sh:
#           good, wrong, broken, CRLF, bundles, repositories), JOBS=1 and
#           JOBS=2: cold (code never compiled, no lanes, no kernels kept) and
#           warm (the same class again, its kernels and results removed)
#   classroom  GitHub Classroom's template (ci/github/classroom.yml), run by
#           scripts/ghjob.py as a runner runs it, on a student repository
#           whose submissions/lab-01 is lab 1's answer: a graded push's time
#           with this template (its first, every cache empty, then one with
#           what the first kept) and with the template before it kept the
#           tree (BENCH_CLASSROOM_BEFORE, a commit; the ccache warm, as its
#           own cache kept it), each in a fresh clone and ccache of its own
#   suite   make test as CI runs it, cold: a fresh clone of HEAD (committed
#           work only), an empty ccache of its own, CI=true; its total and
#           each suite's time, and what a kernel costs it (some 35 min)
# Everything happens under build/bench, with its own ccache: the student's
# tree and cache are not touched. BENCH="edit boot" picks a subset.
set -eu
. "$(dirname "$0")/lib.sh"

what=${BENCH:-cold edit boot gdb stair class suite}
# (classroom: only when asked, BENCH=classroom; some 30 minutes)
B=$BUILD/bench
mkdir -p "$B" "$B/logs"
export BUILD=$B KERNEL_DIR=$B/linux OBJ_DIR=$B/obj GUEST_DIR=$B/guest LOG_DIR=$B/logs
export CCACHE_DIR=$B/ccache NO_COLOR=1
declare -a rows=()
suite_costs=''
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# spread: "min / median / max s" of the times given
spread() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { printf "%s / %s / %s s", a[1], a[int((NR + 1) / 2)], a[NR] }'; }

if [[ " $what " == *" cold "* ]]; then
	info "bench: cold start (empty ccache, fresh import)"
	rm -rf "$KERNEL_DIR" "$OBJ_DIR" "$GUEST_DIR" "$CCACHE_DIR"
	t0=$(now)
	"$TOP/scripts/import-kernel.sh"
	"$TOP/scripts/apply-steps.sh"
	t1=$(now)
	kgit checkout -q -b student/lab-01 lab-01-start
	"$TOP/scripts/lab.sh" check 1 >/dev/null 2>&1 || true
	t2=$(now)
	rows+=("cold: import + tags|$(secs "$t0" "$t1") s")
	rows+=("cold: first build + boot + lab 1 result|$(secs "$t1" "$t2") s")
	rows+=("cold: total to first lab result|$(secs "$t0" "$t2") s")
fi

# xn PREP CMD...: CMD BENCH_RUNS times, 5 by default (after 'PREP I' each
# time), the spread of its times
xn() {
	local prep=$1 i t0 ts=""
	shift
	for ((i = 1; i <= ${BENCH_RUNS:-5}; i++)); do
		"$prep" "$i"
		t0=$(now)
		"$@" >/dev/null 2>&1 || true
		ts="$ts $(secs "$t0" "$(now)")"
	done
	echo "$ts" | spread
}
# add_function I: a one-line code change at the end of $edit_file (a new
# function on one line, a different one each time, so ccache cannot answer)
add_function() {
	printf 'int userns_labs_bench_%s_%s(int x) { return x + %s; }\n' "$1" "$RANDOM" "$RANDOM" >>"$KERNEL_DIR/$edit_file"
}
# edit_body I: a one-line change inside a function (the last that
# add_function added): new code, but the same symbols, as most of a lab's
# edits are (the kallsyms tables keep their size: scripts/fastlink.sh
# links once before the last link, where a new function takes twice).
# A term more each time: the code grows, and the symbols after it move,
# as they do after most edits (one that keeps the code's size to the byte
# moves none, and is linked once less: fastlink.sh's final()).
edit_body() {
	sed -i '$ s/{ return \(.*\); }$/{ return \1 + (x >> '"$1"'); }/' "$KERNEL_DIR/$edit_file"
}

# edit_bench NN: at lab NN (its start, on student/lab-NN): the boot and
# checks alone, make check with nothing changed, then after a one-line code
# change in the file the lab marks (add_function), then after a change
# inside that function (edit_body), BENCH_RUNS times each
edit_bench() {
	local n=$1
	kgit checkout -q -f "student/lab-$n" 2>/dev/null || kgit checkout -q -f -B "student/lab-$n" "lab-$n-start"
	edit_file=$(kgit diff --name-only "lab-$n-start^" "lab-$n-start" -- '*.c' | head -1)
	[ -n "$edit_file" ] || die "lab $n: no .c file with LAB marks"
	"$TOP/scripts/lab.sh" check "$n" >/dev/null 2>&1 || true
	local labs=$n k
	if [ -z "${ONLY:-}" ]; then
		labs=""
		for ((k = 1; k <= 10#$n; k++)); do lab_dir "$k" >/dev/null && labs="$labs $(printf '%02d' "$k")"; done
	fi
	rows+=("lab $((10#$n))${ONLY:+ (ONLY=1)}: the boot and check alone, run-qemu.sh (x5)|$(xn : "$TOP/scripts/run-qemu.sh" --labs "${labs# }" --log "$LOG_DIR/bench-boot.log")")
	rows+=("lab $((10#$n))${ONLY:+ (ONLY=1)}: nothing changed -> make check (x5)|$(xn : "$TOP/scripts/lab.sh" check "$n")")
	rows+=("lab $((10#$n))${ONLY:+ (ONLY=1)}: one-line edit of $edit_file -> make check (x5)|$(xn add_function "$TOP/scripts/lab.sh" check "$n")")
	rows+=("lab $((10#$n))${ONLY:+ (ONLY=1)}: one-line edit inside a function -> make check (x5)|$(xn edit_body "$TOP/scripts/lab.sh" check "$n")")
	kgit checkout -q -- "$edit_file"
}
if [[ " $what " == *" edit "* ]]; then
	[ -e "$KERNEL_DIR/.git" ] || die "run the cold bench first (BENCH=cold)"
	# lab 1 (every check up to it), and the last kernel lab (not a
	# user-space one) with ONLY=1 (its own check alone), as issue 32 asks
	last_kernel=$(lab_dirs | while read -r d; do
		[ -n "$(lab_conf "$(lab_num "$d")" USERSPACE)" ] || lab_num "$d"
	done | tail -1)
	for n in ${BENCH_LABS:-01}; do edit_bench "$n"; done
	ONLY=1 edit_bench "${BENCH_ONLY_LAB:-$last_kernel}"
	kgit checkout -q -f student/lab-01
fi

if [[ " $what " == *" boot "* ]]; then
	[ -f "$OBJ_DIR/vmlinux" ] || die "run the cold bench first (BENCH=cold)"
	ts=""
	for i in 1 2 3 4 5; do
		t0=$(now)
		"$TOP/scripts/run-qemu.sh" --labs "$(lab_dirs | while read -r d; do lab_num "$d"; done | tr '\n' ' ')" \
			--log "$LOG_DIR/bench-boot.log" || true
		ts="$ts $(secs "$t0" "$(now)")"
	done
	rows+=("boot + all checks to end of KTAP (min/median/max of 5)|$(echo "$ts" | spread)")
fi

if [[ " $what " == *" gdb "* ]]; then
	[ -e "$KERNEL_DIR/.git" ] || die "run the cold bench first (BENCH=cold)"
	kgit checkout -q -f student/lab-01
	"$TOP/scripts/gdb.sh" build >/dev/null 2>&1 || die "make gdb's debug kernel did not build"
	rows+=("make gdb's debug kernel at lab 1: nothing changed (x5)|$(xn : "$TOP/scripts/gdb.sh" build)")
	edit_file=fs/exec.c
	rows+=("make gdb's debug kernel at lab 1: one-line edit of fs/exec.c (x5)|$(xn add_function "$TOP/scripts/gdb.sh" build)")
	kgit checkout -q -- fs/exec.c
fi

if [[ " $what " == *" stair "* ]]; then
	[ -e "$KERNEL_DIR/.git" ] || die "run the cold bench first (BENCH=cold)"
	t0=$(now)
	"$TOP/tests/staircase.sh" >"$LOG_DIR/bench-staircase.out" 2>&1 || warn "the staircase failed (see $LOG_DIR/bench-staircase.out)"
	rows+=("staircase + identity, $(grep -c '^lab-' "$LOG_DIR/bench-staircase.out") steps (warm ccache)|$(secs "$t0" "$(now)") s")
fi

if [[ " $what " == *" class "* ]]; then
	[ -f "$OBJ_DIR/vmlinux" ] || die "run the cold bench first (BENCH=cold)"
	cn=${BENCH_CLASS:-30}
	declare -A warm=()
	"$TOP/scripts/apply-steps.sh" >/dev/null
	# grade_class K: a new class (new code: ccache has none of it) graded
	# with K lanes from nothing, then the same class again
	grade_class() {
		local k=$1 gd=$B/grade-j$1 t0 c w
		rm -rf -- "$gd" "$B/class"
		kgit worktree prune
		"$TOP/scripts/class.sh" "$B/class" "$cn" "$(date +%s)" >/dev/null 2>&1 || die "the class was not made"
		t0=$(now)
		GRADE_DIR=$gd GRADE_JOBS=$k JOBS='' "$TOP/scripts/grade.sh" --all "$B/class" 1 >"$LOG_DIR/bench-class-j$k.out" 2>&1 ||
			die "grade-all failed (see $LOG_DIR/bench-class-j$k.out)"
		c=$(secs "$t0" "$(now)")
		rm -rf -- "$gd/results" "$gd/kernels"
		t0=$(now)
		GRADE_DIR=$gd GRADE_JOBS=$k JOBS='' "$TOP/scripts/grade.sh" --all "$B/class" 1 >>"$LOG_DIR/bench-class-j$k.out" 2>&1 ||
			die "grade-all failed (see $LOG_DIR/bench-class-j$k.out)"
		w=$(secs "$t0" "$(now)")
		rows+=("class of $cn (lab 1), JOBS=$k: cold / warm|$c / $w s ($(awk -v a="$w" -v n="$cn" 'BEGIN { printf "%.1f", a / n }') s per submission warm)")
		warm[$k]=$w
	}
	grade_class 1
	grade_class 2
	rows+=("class of $cn: speed-up of JOBS=2 over JOBS=1 (warm)|$(awk -v a="${warm[1]}" -v b="${warm[2]}" 'BEGIN { printf "%.2fx", a / b }')")
	rm -rf -- "$B/class"
	kgit worktree prune
fi

if [[ " $what " == *" classroom "* ]]; then
	# push NAME WORKFLOW CACHES CCACHE: one graded push, in a new clone of
	# HEAD whose submissions/lab-01 is lab 1's answer; no setting of this
	# bench reaches it (the job makes its own tree, as on GitHub)
	cr=$B/classroom
	push() {
		local ws=$cr/ws-$1 t0 rc=0
		rm -rf -- "$ws"
		git clone -q "$TOP" "$ws" || die "cannot clone $TOP"
		mkdir -p "$ws/submissions/lab-01"
		cp "$TOP"/solutions/01-*.patch "$ws/submissions/lab-01/"
		git -C "$ws" add submissions && git -C "$ws" -c user.name=s -c user.email=s@s commit -qm "lab 1"
		t0=$(now)
		(cd "$ws" && env -u BUILD -u KERNEL_DIR -u OBJ_DIR -u GUEST_DIR -u LOG_DIR -u KERNEL \
			python3 "$TOP/scripts/ghjob.py" "$2" grade --cache "$3" --set CCACHE_DIR="$4") \
			>"$LOG_DIR/bench-classroom-$1.out" 2>&1 || rc=$?
		rows+=("classroom: $5|$(secs "$t0" "$(now)") s$([ "$rc" -eq 0 ] || echo " (exit $rc)")")
		rm -rf -- "$ws"
	}
	rm -rf -- "$cr"
	mkdir -p "$cr"
	before=${BENCH_CLASSROOM_BEFORE:-a046137}
	git -C "$TOP" show "$before:ci/github/classroom.yml" >"$cr/before.yml" ||
		die "no ci/github/classroom.yml at $before (BENCH_CLASSROOM_BEFORE)"
	push first "$TOP/ci/github/classroom.yml" "$cr/caches" "$cr/ccache" "a graded push, the first (every cache empty)"
	# (the ccache is the first's, as the template's restore-keys give it;
	# ghjob.py leaves the template's /ccache, outside the workspace, alone)
	push second "$TOP/ci/github/classroom.yml" "$cr/caches" "$cr/ccache" "a graded push with what the first kept"
	push before "$cr/before.yml" "$cr/caches-before" "$cr/ccache" "the template of $before, ccache warm"
	rm -rf -- "$cr"
fi

if [[ " $what " == *" suite "* ]]; then
	# its own clone and cache under build/bench/suite: none of the
	# settings above (this bench's folders) reach it
	sd=$B/suite
	rm -rf -- "$sd"
	mkdir -p "$sd"
	git clone -q "$TOP" "$sd/course" || die "cannot clone $TOP"
	info "bench: make test, cold, in $sd/course (some 35 minutes)"
	t0=$(now)
	rc=0
	(cd "$sd/course" && env -u BUILD -u KERNEL_DIR -u OBJ_DIR -u GUEST_DIR -u LOG_DIR -u KERNEL \
		CI=true CCACHE_DIR="$sd/ccache" make test) >"$LOG_DIR/bench-suite.out" 2>&1 || rc=$?
	t1=$(now)
	out=$LOG_DIR/bench-suite.out
	rows+=("make test, cold (fresh clone, empty ccache, CI=true)|$(secs "$t0" "$t1") s, $(grep '^total: ' "$out" | tail -1 | sed 's/^total: //')$([ "$rc" -eq 0 ] || echo " (exit $rc)")")
	while read -r name t _; do
		rows+=("  suite $name|$t s")
	done < <(sed -n '/^(make test took/,/^disk:/p' "$out" | awk '$2 ~ /^[0-9]+$/ && $3 == "s" { print $1, $2 }')
	# what a kernel costs it (tests/run.sh), printed after the table
	suite_costs=$(sed -n '/^what a kernel costs/,/^disk:/p' "$out" | grep -v '^disk:')
	rm -rf -- "$sd/course/build" "$sd/ccache"
fi

printf '\nuserns-labs bench on %s (%s cores, TCG; load average %s at the start, %s at the end)\n' \
	"$(uname -n)" "$(nproc)" "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)"
for r in "${rows[@]}"; do
	printf '  %-58s %s\n' "${r%%|*}" "${r#*|}"
done
[ -z "$suite_costs" ] || printf '%s\n' "$suite_costs"
