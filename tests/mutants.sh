#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2034,SC2154 # T is read, and wt set, by runner_layout (mutants-lib.sh)
# The mutants alone, without the staircase: tests/mutants.sh [NN...]
# builds and boots every mutant of the labs named (all by default) on top
# of lab-NN-start and prints the matrix. make test runs them inside the
# staircase; this is for writing a mutant or a check.
#   tests/mutants.sh --at TAG NN...   no mutant: build and boot TAG (say
#                   lab-04-done) and show the checks of the labs named
#   MUTANT_DIR=DIR  where the worktree, objects and logs go (build/mutants;
#                   give each concurrent run its own)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"
. "$here/mutants-lib.sh"

"$TOP/scripts/import-kernel.sh" || exit 1
"$TOP/scripts/apply-steps.sh" || exit 1

T=${MUTANT_DIR:-$BUILD/mutants}
runner_layout

if [ "${1:-}" = --at ]; then
	tag=$2
	shift 2
	labs=$(for n in "$@"; do printf '%02d ' "$((10#$n))"; done)
	labs=${labs% }
	git -C "$wt" checkout -q -f --detach "$tag" || die "no tag $tag"
	BUILD_LABEL=$tag "$TOP/scripts/build-kernel.sh" >"$LOG_DIR/build-$tag.out" 2>&1 ||
		die "$tag does not build: see $LOG_DIR/build-$tag.out"
	rc=0
	"$TOP/scripts/run-qemu.sh" --labs "$labs" --log "$LOG_DIR/at-$tag.log" || rc=$?
	"$TOP/scripts/ktap.sh" report "$LOG_DIR/at-$tag.ktap" "$labs"
	echo "(boot exit $rc; kernel log $LOG_DIR/at-$tag.log)"
	exit "$rc"
fi
for n in "$@"; do
	lab_dir "$n" >/dev/null || die "there is no lab $n"
done
mapfile -t want < <(for n in "$@"; do printf '%02d\n' "$((10#$n))"; done)
cost_reset
mutants_queue ${want[@]+"${want[@]}"}
mutants_worker b &
lane_b=$!
mutants_worker main
wait "$lane_b"
mutants_eval
mutant_summary
cost_summary
t_summary mutants
