# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Tiny test helpers: t_ok/t_fail print TAP-like lines and count.
T_PASS=0
T_FAIL=0
t_ok() { T_PASS=$((T_PASS + 1)); printf 'ok - %s\n' "$1"; }
t_fail() {
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
