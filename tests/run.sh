#!/usr/bin/env bash
# make test: unit tests, lint, the book, the patch stack, then the staircase and
# the identity, the kernel's selftests, the grader and make gdb.
#   tests/run.sh --quick   unit tests and lint only (no kernel build)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
pass=0 fail=0 start=$(date +%s) times=

run() { # NAME SCRIPT...: run a suite, add up its closing "N passed, N failed"
	local name=$1 out rc line t0
	shift
	printf '\n### %s\n' "$name"
	out=$(mktemp)
	t0=$(date +%s)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	times="$times$(printf '  %-12s %5d s' "$name" "$(($(date +%s) - t0))")"$'\n'
	line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed' "$out" | tail -1)
	rm -f "$out"
	if [ -z "$line" ]; then
		printf 'not ok - %s ended without a result (exit %s)\n' "$name" "$rc"
		fail=$((fail + 1))
		return
	fi
	pass=$((pass + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
	fail=$((fail + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
	[ "$rc" -eq 0 ] || [ "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')" -gt 0 ] ||
		{ printf 'not ok - %s exited %s\n' "$name" "$rc"; fail=$((fail + 1)); }
}

# The bases (scripts/lib.sh): every suite runs on the first, the one this
# machine has (or KERNEL=...; never the one make lab-N remembered); the
# staircase, the identity and the selftests run on the others too.
read -r installed bases < <(env -u KERNEL bash -c '. "$1/scripts/lib.sh" && echo "$(base_installed) $BASES"' _ "$top")
first=${KERNEL:-$installed}
others=$(printf '%s\n' $bases | grep -vx -- "$first" | tr '\n' ' ')
export KERNEL=$first
printf 'kernel bases: %s (every suite), %s(staircase, identity, selftests)\n' "$first" "$others"

run unit "$here/unit.sh"
if [ "${1:-}" != --quick ]; then
	for b in $first $others; do
		KERNEL=$b "$top/scripts/import-kernel.sh" && KERNEL=$b "$top/scripts/apply-steps.sh" ||
			{ echo "not ok - the kernel tree of base $b could not be prepared"; fail=$((fail + 1)); }
	done
fi
run lint "$here/lint.sh"
run book "$here/book.sh"
[ "${1:-}" = --quick ] || run stack "$here/stack.sh"
[ "${1:-}" = --quick ] || run staircase "$here/staircase.sh"
[ "${1:-}" = --quick ] || run conformance "$here/conformance.sh"
[ "${1:-}" = --quick ] || run grade "$here/grade.sh"
[ "${1:-}" = --quick ] || run gdb "$here/gdb.sh"
if [ "${1:-}" != --quick ]; then
	for b in $others; do
		KERNEL=$b run "staircase-$b" "$here/staircase.sh" --base
		KERNEL=$b run "conformance-$b" "$here/conformance.sh"
	done
fi

printf '\n(make test took %d s)\n%s' "$(($(date +%s) - start))" "$times"
printf 'total: %d passed, %d failed\n' "$pass" "$fail"
[ "$fail" -eq 0 ]
