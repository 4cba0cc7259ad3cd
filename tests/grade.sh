#!/usr/bin/env bash
# The grader against bad input: every fixture submission gets its named
# result, with the evidence in its report, and a class run gives a CSV.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"
fx=$here/fixtures/grade
export NO_COLOR=1 GRADE_DIR=$BUILD/test/grade GRADE_OUT=$BUILD/test/grade/results
export GRADE_BOOT_TIMEOUT=${GRADE_BOOT_TIMEOUT:-25} GRADE_CHECK_TIMEOUT=15
rm -rf "$GRADE_OUT"

# expect_result FIXTURE RESULT [REPORT-PATTERN]
expect_result() {
	local f=$1 want=$2 pat=${3:-} out rep
	out=$("$TOP/scripts/grade.sh" "$fx/$f.patch" "${LAB:-1}" 2>&1)
	rep=$GRADE_OUT/$f/report.txt
	got=$(sed -n 's/^result: *//p' "$rep" 2>/dev/null)
	t_expect "grade $f: $want" "$want" "${got:-$(printf '%s\n' "$out" | tail -3)}"
	[ -n "$pat" ] && t_grep "grade $f: the report shows /$pat/" "$pat" "$(cat "$rep" 2>/dev/null)"
	for r in results.json results.tap results.csv; do
		[ -s "$GRADE_OUT/$f/$r" ] || t_fail "grade $f: $r was not written"
	done
}

expect_result good PASS 'score: +10.00 / 10'
expect_result crlf PASS
expect_result wrong FAIL 'not ok 4 setuid_mapped_owner_changes_euid'
expect_result tamper FAIL 'IGNORED.*labs/01-suid-unmapped/check'
expect_result noapply APPLY_FAILED 'fs/exec.c'
expect_result empty EMPTY
expect_result binary NOT_A_PATCH
expect_result nocompile BUILD_FAILED 'fs/exec.c:[0-9]+:[0-9]+: error'
expect_result panic PANIC 'Kernel panic - not syncing: lab 1 fixture'
expect_result oops OOPS 'NULL pointer dereference'
expect_result hang TIMEOUT
expect_result flood FLOOD
expect_result reboot REBOOT
expect_result segv FAIL 'killed by signal SIGSEGV'
# a user-space lab: the student's program is built into the guest and tested
LAB=16 expect_result lab16-good PASS 'lab 16  PASS +14/14'
LAB=16 expect_result tamper FAIL 'lab 16  FAIL' 
t_grep "grade: the JSON names the kernel that said it" '"kernel": "6\.1\.[0-9]+-userns-labs #grade-good-lab01-' "$(cat "$GRADE_OUT/good/results.json")"
t_grep "grade: the TAP has the guest's KTAP" '^ok 1 lab-01-suid-unmapped' "$(cat "$GRADE_OUT/good/results.tap")"

# a dirty repository is refused, and left as it was
repo=$(mktemp -d)
git -C "$repo" init -q && echo a >"$repo/f" && git -C "$repo" add f &&
	git -C "$repo" -c user.name=t -c user.email=t@t commit -qm a && echo b >>"$repo/f"
"$TOP/scripts/grade.sh" "$repo" 1 >/dev/null 2>&1
t_expect "grade dirty repo: DIRTY" DIRTY "$(sed -n 's/^result: *//p' "$GRADE_OUT/$(basename "$repo")/report.txt")"
t_expect "grade dirty repo: the work is still there" "a
b" "$(cat "$repo/f")"
rm -rf "$repo"

# a class: five mixed submissions, one per directory, then a resumed run
class=$(mktemp -d)
mkdir -p "$class"/{alice,bob,carol,dave,erin}
cp "$fx/good.patch" "$class/alice/"
cp "$fx/wrong.patch" "$class/bob/"
git -C "$GRADE_DIR/linux" checkout -q -f --detach lab-01-start
git -C "$GRADE_DIR/linux" am -q "$fx/good.patch"
git -C "$GRADE_DIR/linux" bundle create -q "$class/carol.bundle" HEAD ^lab-01-start 2>/dev/null
rmdir "$class/carol"
cp "$fx/nocompile.patch" "$class/dave/"
cp "$fx/crlf.patch" "$class/erin/"
out=$("$TOP/scripts/grade.sh" --all "$class" 1 2>&1)
csv=$GRADE_OUT/summary.csv
t_expect "grade-all: summary.csv has a header and 5 rows" 6 "$(wc -l <"$csv" 2>/dev/null)"
t_expect "grade-all: results per student" 'alice PASS
bob FAIL
carol.bundle PASS
dave BUILD_FAILED
erin PASS' "$(tail -n +2 "$csv" | awk -F, '{ gsub(/"/, "", $1); print $1, $3 }')"
start=$(date +%s)
out=$("$TOP/scripts/grade.sh" --all "$class" 1 2>&1)
t_grep "grade-all: a second run resumes (nothing graded again)" 'already graded' "$out"
t_expect "grade-all: the resumed run is quick" 1 "$([ $(($(date +%s) - start)) -lt 60 ] && echo 1 || echo 0)"
rm -rf "$class"

t_summary grade
