# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Tiny test helpers: t_ok/t_fail print TAP-like lines and count.
T_PASS=0
T_FAIL=0
# where a suite's time goes: the time from one result to the next, the
# longest named by t_summary (what to make faster first, in CI's log)
T_LAST=${EPOCHREALTIME/[.,]/}
T_SLOW=''
t_time() {
	local now=${EPOCHREALTIME/[.,]/}
	T_SLOW="$T_SLOW$(((now - T_LAST) / 1000)) $1"$'\n'
	T_LAST=$now
}
t_ok() { t_time "$1"; T_PASS=$((T_PASS + 1)); printf 'ok - %s\n' "$1"; }
t_fail() {
	t_time "$1"
	T_FAIL=$((T_FAIL + 1))
	printf 'not ok - %s\n' "$1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | head -30 | sed 's/^/#   /'
	return 0
}
# t_expect NAME EXPECTED ACTUAL
t_expect() {
	if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1" "expected: $2
got:      $3"; fi
}
# t_grep NAME PATTERN TEXT
t_grep() {
	if printf '%s\n' "$3" | grep -qE -- "$2"; then t_ok "$1"; else t_fail "$1" "no match for /$2/ in:
$3"; fi
}
t_summary() {
	printf '%s' "$T_SLOW" | sort -rn | head -8 | awk '$1 >= 1000 {
		ms = $1; $1 = ""; printf "# slowest: %5.1f s up to%s\n", ms / 1000, $0 }'
	printf '%s: %d passed, %d failed\n' "$1" "$T_PASS" "$T_FAIL"
	[ "$T_FAIL" -eq 0 ]
}

# grade_fixture NAME: the grader's test submission NAME for the base in
# KERNEL: tests/fixtures/grade/KERNEL/NAME.patch when the base has its own,
# else the main base's, tests/fixtures/grade/NAME.patch (tests/grade.sh,
# tests/workflows.sh)
grade_fixture() {
	local d=$TOP/tests/fixtures/grade
	if [ -f "$d/$KERNEL/$1.patch" ]; then
		echo "$d/$KERNEL/$1.patch"
	else
		echo "$d/$1.patch"
	fi
}
