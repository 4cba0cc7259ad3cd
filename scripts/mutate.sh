#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Mutants made by rule from a lab's reference answer (issue 30), beside the
# hand-written ones of tests/mutants/:
#
#   scripts/mutate.sh NN...
#
# generates lab NN's (scripts/mutate.py generate) into build/mutate/NN/
# (a user-space lab's from its reference program and the skeleton the
# student starts from; each mutant a patch of the reference program),
# builds and boots each one with lab NN's check, on two lanes, with the
# runner of tests/mutants-lib.sh, and writes tests/mutate/NN.report: for
# each mutant killed (by which points), SURVIVED, BAD (does not build), or
# equivalent when tests/mutate/NN.equivalent ("NAME why", one a line) says
# why it is no wrong answer. On the second base (KERNEL=6.1) the report and
# equivalents are tests/mutate/6.1/NN.*. Exit 1 when a mutant survived.
#
#   --generate-only   write the patches only: no kernel is built
#   MUTATE_MAX=N      at most N mutants a lab (mutate.py's default, 40)
#   MUTATE_DIR=DIR    where the worktrees, objects and logs go
#                     (build/mutate/run; give each concurrent run its own)
#
# A lab costs what its mutants do: a build (seconds to a minute: an
# incremental one of the files the answer touches) and a boot each, two at
# a time. make test does not run this; its stale check (mutate.py stale)
# says which report an answer or a check has left behind.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/mutants-lib.sh
. "$TOP/tests/mutants-lib.sh"

usage() { sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'; }

gen_only=0
labs=()
for a in "$@"; do
	case $a in
	--generate-only) gen_only=1 ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option $a (scripts/mutate.sh --help)" ;;
	*) labs+=("$a") ;;
	esac
done
[ "${#labs[@]}" -gt 0 ] || die "usage: scripts/mutate.sh [--generate-only] NN... (--help says more)"

# the labs, as NN, and their answers: a kernel lab's is a patch of its
# base; a user-space lab's (lab.conf USERSPACE, one program) is the
# reference program in solutions/NN-*/, and its start the lab's skeleton
want=() answers=() programs=()
for a in "${labs[@]}"; do
	case $a in *[!0-9]* | "") die "'$a' is not a lab number" ;; esac
	n=$(printf '%02d' "$((10#$a))")
	lab_dir "$n" >/dev/null || die "there is no lab $n"
	us=$(lab_conf "$n" USERSPACE)
	if [ -n "$us" ]; then
		[ "$(echo "$us" | wc -w)" = 1 ] || die "lab $n: USERSPACE names more than one file"
		ref=$TOP/solutions/$(basename "$(lab_dir "$n")")/${us##*/}
		[ -f "$ref" ] || die "lab $n has no reference program ${ref#"$TOP"/}"
		want+=("$n")
		answers+=("$ref")
		programs+=("$us")
		continue
	fi
	set -- "$(base_patches solutions "$n-*.patch" | head -1)"
	[ -f "$1" ] || die "lab $n has no answer on $KERNEL (solutions/$n-*.patch${BASE_SUB:+ or solutions/$BASE_SUB/$n-*.patch})"
	want+=("$n")
	answers+=("$1")
	programs+=("")
done
[ "${#want[@]}" -gt 0 ] || exit 0

"$TOP/scripts/import-kernel.sh" || exit 1
"$TOP/scripts/apply-steps.sh" || exit 1

# the patches: build/mutate/NN/NN-gen-OPERATOR-K.patch
gen_dir() { echo "$BUILD/mutate/$1"; }
for i in "${!want[@]}"; do
	n=${want[$i]}
	info "lab $n: generating mutants from ${answers[$i]#"$TOP"/}"
	if [ -n "${programs[$i]}" ]; then
		from=(--start-file "$TOP/${programs[$i]}" --path "${programs[$i]}")
	else
		from=(--tree "$KERNEL_DIR" --start "lab-$n-start")
	fi
	python3 "$TOP/scripts/mutate.py" generate --lab "$n" --answer "${answers[$i]}" "${from[@]}" \
		--out "$(gen_dir "$n")" ${MUTATE_MAX:+--max "$MUTATE_MAX"} ||
		die "lab $n: mutate.py generate failed"
done
[ "$gen_only" = 0 ] || exit 0

# the runner's layout (tests/mutants-lib.sh): a worktree and objects per
# lane, the logs, a guest of its own
T=${MUTATE_DIR:-$BUILD/mutate/run}
runner_layout

# gen_results NN FILE: what mutate.py report reads, a line per mutant queued:
# NAME killed POINTS..., NAME SURVIVED, or NAME BAD WHY. Unlike mutants_eval,
# any point may kill a generated mutant: none names one in its header.
gen_results() {
	local e n name st rc failed
	: >"$2"
	for e in ${mlist[@]+"${mlist[@]}"}; do
		read -r n name <<<"$e"
		if [ -f "$LOG_DIR/mutant-$name.bad" ]; then
			printf '%s BAD %s\n' "$name" "$(tr '\n' ' ' <"$LOG_DIR/mutant-$name.bad")"
			continue
		fi
		rc=$(boot_rc "mutant-$name")
		st=$("$TOP/scripts/ktap.sh" results "$LOG_DIR/mutant-$name.ktap" "$n" | awk '{ print $2 }')
		if [ "$st" = PASS ]; then
			printf '%s SURVIVED\n' "$name"
		else
			failed=$(mutant_failed "$LOG_DIR/mutant-$name.ktap" "$n" 2>/dev/null || true)
			printf '%s killed %s\n' "$name" "${failed:-"(the check: $st, boot exit $rc)"}"
			rm -f "$LOG_DIR/mutant-$name.log"
		fi
	done >>"$2"
}

survived=0
cost_reset
for i in "${!want[@]}"; do
	n=${want[$i]}
	report=$TOP/tests/mutate${BASE_SUB:+/$BASE_SUB}/$n.report
	# the runner, pointed at this lab's generated patches; it is written
	# for set -u alone (tests/mutants.sh), so errexit is off while it runs
	mdir=$(gen_dir "$n") mlist=() mcount=0 mrows="" mbad=0
	set +e
	mutants_queue "$n"
	if [ "$mcount" -eq 0 ]; then
		set -e
		warn "lab $n: no mutant generated"
		continue
	fi
	info "lab $n: $mcount mutants, each built and booted with the lab's check"
	mutants_worker b &
	lane_b=$!
	mutants_worker main
	wait "$lane_b" || warn "lane b stopped early: lane main worked the rest of the queue"
	gen_results "$n" "$T/results-$n"
	set -e
	python3 "$TOP/scripts/mutate.py" report --lab "$n" --answer "${answers[$i]}" \
		--check "$(lab_dir "$n")/check" --results "$T/results-$n" --mutants "$(gen_dir "$n")" \
		--base "$KERNEL" --out "$report"
	s=$(awk '$2 == "SURVIVED"' "$report" | wc -l)
	if [ "$s" -gt 0 ]; then
		printf '%s\n' "lab $n: $s survived (kernel logs in ${LOG_DIR#"$TOP"/}):"
		awk '$2 == "SURVIVED" { print "  " $0 }' "$report"
		survived=$((survived + s))
	fi
done
cost_summary
[ "$survived" -eq 0 ]
