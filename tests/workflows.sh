#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ci/github's two templates, run on this machine as a runner runs them
# (scripts/ghjob.py: every run: step of a job, in order, with the runner's
# env files), in a clone of HEAD as the workspace: classroom.yml on a
# student repository whose submission passes and on one whose submission is
# wrong, and class.yml's three jobs (list, one grade job per matrix entry,
# summary) on a class of two. Run by make test-fresh inside its brand-new
# Debian 12 root after make test, and by make test-workflows.
#
# The workspace is new (as on a runner) but its kernel tree, objects and
# compiler cache are this checkout's (KERNEL_DIR, OBJ_DIR, CCACHE_DIR), so
# each grade is one compile and one boot. Needs root, as the runner's
# container has: the templates' first step is apt-get.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"
[ "$(id -u)" -eq 0 ] || die "the workflow templates run as root (their first step is apt-get)"
[ -f "$OBJ_DIR/vmlinux" ] || die "no kernel built in ${OBJ_DIR#"$TOP"/} yet: run make lab-1 first"
w=$BUILD/test/workflows
rm -rf "$w"
mkdir -p "$w"
git clone -q "$TOP" "$w/ws" || die "cannot clone $TOP"
ws=$w/ws
export KERNEL_DIR OBJ_DIR NO_COLOR=1
ccache_dir=$(ccache -k cache_dir 2>/dev/null) || ccache_dir=$BUILD/ccache
ghjob() { (cd "$ws" && "$TOP/scripts/bin/python3" "$TOP/scripts/ghjob.py" "$@" --set CCACHE_DIR="$ccache_dir"); }
# what a job's grade left: the result of the one submission it graded
result_of() { sed -n 's/^result: *//p' "$ws"/build/grade/results/*/report.txt 2>/dev/null; }

# classroom.yml: a student's repository, submissions/lab-01, one push each
for case in good:PASS:0 wrong:FAIL:1; do
	f=${case%%:*} want=${case#*:} rc_want=${want#*:} want=${want%%:*}
	rm -rf "$ws/submissions" "$ws/build/grade/results"
	mkdir -p "$ws/submissions/lab-01"
	cp "$(grade_fixture "$f")" "$ws/submissions/lab-01/0001-lab-1.patch"
	out=$(ghjob ci/github/classroom.yml grade 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$w/classroom-$f.log"
	t_expect "classroom.yml on a $f submission: the job's exit status" "$rc_want" "$rc"
	t_expect "classroom.yml on a $f submission: graded $want" "$want" "$(result_of)"
	t_grep "classroom.yml on a $f submission: the job summary shows $want" \
		"^### .*: lab 01, $want, score " \
		"$(printf '%s\n' "$out" | sed -n '/^ghjob: the job.s summary:/,$p')"
	[ "$f" = good ] && t_grep "classroom.yml: the verdict step ran and passed" \
		'^ghjob: job grade passed$' "$out"
	[ "$f" = wrong ] && t_grep "classroom.yml: a wrong submission fails the job" \
		'^ghjob: job grade failed at: ' "$out"
done

# class.yml: an instructor's repository with class/, graded as a matrix
rm -rf "$ws/submissions" "$ws/build/grade/results" "$w/art"
mkdir -p "$ws/class"
cp "$(grade_fixture good)" "$ws/class/ann.patch"
cp "$(grade_fixture nocompile)" "$ws/class/bo b.patch"
if ghjob ci/github/class.yml list --outputs "$w/list.json" >"$w/class-list.log" 2>&1; then
	t_ok "class.yml: the list job"
else
	t_fail "class.yml: the list job" "$(tail -20 "$w/class-list.log")"
fi
n=0
while IFS= read -r entry; do
	[ -n "$entry" ] || continue
	n=$((n + 1))
	rm -rf "$ws/build/grade/results"
	ghjob ci/github/class.yml grade --needs list="$w/list.json" --input lab=1 \
		--matrix "$entry" --artifacts "$w/art" >"$w/class-grade-$n.log" 2>&1
	t_grep "class.yml: grade job $n ran its steps" '^ghjob: job grade (passed|failed at: grade)$' \
		"$(cat "$w/class-grade-$n.log")"
done < <("$TOP/scripts/bin/python3" -c '
import json, sys
for e in json.loads(json.load(open(sys.argv[1]))["matrix"]):
    print(json.dumps(e))' "$w/list.json" 2>/dev/null)
t_expect "class.yml: one grade job per submission" 2 "$n"
rm -rf "$ws/build/grade/results"
if ghjob ci/github/class.yml summary --input lab=1 --artifacts "$w/art" >"$w/class-summary.log" 2>&1; then
	t_ok "class.yml: the summary job"
else
	t_fail "class.yml: the summary job" "$(tail -20 "$w/class-summary.log")"
fi
sum=$ws/build/grade/results/summary.csv
t_expect "class.yml: summary.csv has a header and a row per submission" 3 "$(wc -l 2>/dev/null <"$sum")"
t_grep "class.yml: ann passes" '^"?ann"?,01,PASS,' "$(cat "$sum" 2>/dev/null)"
t_grep "class.yml: \"bo b\" does not compile" '^"?bo b"?,01,BUILD_FAILED,' "$(cat "$sum" 2>/dev/null)"
t_summary "workflows"
