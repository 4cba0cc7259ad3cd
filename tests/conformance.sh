#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Conformance: at the final step the kernel is Debian's own again, so the
# kernel tree's own namespace selftests (nsfs, pidfd, ...) must pass there,
# or skip for a stated config reason. A failure means the series changed
# stock behaviour: fix the series, never the test.
#
# Runs scripts/conformance.sh in its own worktree and build directories
# (build/conformance): the student's checkout is never touched.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"

C=${CONFORMANCE_DIR:-$BUILD/conformance}
# the staircase built the final step last (build/test/obj): a copy of its
# objects only links here (copy_obj); with none, the build starts cold
if [ ! -f "$C/obj/vmlinux" ] && [ -f "$BUILD/test/obj/vmlinux" ]; then
	mkdir -p "$C"
	copy_obj "$BUILD/test/obj" "$C/obj" || rm -rf "$C/obj"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
"$TOP/scripts/conformance.sh" >"$out" 2>&1 || rc=$?
text=$(cat "$out")
# What the run said, for the log of make test
grep -vE '^    ' "$out" | sed 's/^/# /'

t_expect "conformance.sh exits 0 at the final step" 0 "$rc"
summary=$(printf '%s\n' "$text" | grep -E '^conformance: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' | tail -1)
t_grep "conformance.sh reports a summary with no failure" '^conformance: [1-9][0-9]* passed, 0 failed' "$summary"
tag=$(printf '%s\n' "$summary" | sed -n 's/.*(\(.*\))$/\1/p')
log=$C/logs/conformance-$tag.log
ktap=$C/logs/conformance-$tag.ktap
if [ -n "$tag" ] && [ -f "$log" ] && [ -f "$ktap" ]; then
	t_ok "the kernel log and the results are kept: ${log#"$TOP"/}, ${ktap#"$TOP"/}"
	t_grep "the guest ran the kernel of $tag" "^# conformance: kernel .*#$tag@" "$(cat "$ktap")"
	t_grep "the guest printed KTAP with a plan" '^1\.\.[0-9]+$' "$(grep -E '^(KTAP version 1|1\.\.[0-9]+)$' "$ktap")"
	kunit=$KERNEL_DIR/tools/testing/kunit/kunit.py
	if [ -f "$kunit" ]; then
		if python3 -B "$kunit" parse "$ktap" >"$out.kunit" 2>&1; then
			t_ok "kunit.py parse reads the conformance results"
		else
			t_fail "kunit.py parse reads the conformance results" "$(tail -15 "$out.kunit")"
		fi
		rm -f "$out.kunit"
	fi
else
	t_fail "no serial log for tag '$tag' in $C/logs"
fi
# Skips are fine only with a reason; and the core selftests must really run:
# a kernel config that turned them all into SKIP would prove nothing.
t_expect "every SKIP states its reason" "" \
	"$(printf '%s\n' "$text" | grep -E '^  SKIP ' | grep -vE 'needs CONFIG_|skipped itself: [^ ]' || true)"
for name in nsfs/owner nsfs/pidns nsfs/owner@uid1000 nsfs/pidns@uid1000 \
	pidfd/pidfd_setns_test pidfd/pidfd_setns_test@uid1000 pidfd/pidfd_fdinfo_test; do
	t_grep "$name passes (run, not skipped)" "^  PASS  $name\$" "$text"
done
failed=$(printf '%s\n' "$text" | grep -E '^  (FAIL|MISS) ' || true)
[ -z "$failed" ] || t_fail "selftests that fail at the final step (fix the series, not the test)" "$failed
$(printf '%s\n' "$text" | grep -E '^        ' | head -20)"

t_summary conformance
