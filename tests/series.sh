#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One series for both kernel bases (scripts/stack.sh): the main base's
# patches are the series, the second base keeps a patch of its own only for
# a step whose code differs there.
#
#   - range-diff: the two bases' lines of tags, compared with git
#     range-diff, differ exactly at the steps where the second base has its
#     own patch, each with its lab's note in the book's base notes;
#   - the second base's export gives its own patches byte for byte and
#     needs no other (no step kept twice);
#   - make port: a change to a step both bases share goes into the series
#     alone; one to a step the second base keeps on its own changes that
#     patch too; one that cannot go there stops, naming the step, and
#     writes nothing.
#
# Needs both bases' trees and tags (tests/run.sh runs it once the second
# base is prepared). Works on branches of its own in both repositories and
# on a scratch copy of kernel-steps/ and solutions/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"
export NO_COLOR=1

other=""
for b in $BASES; do [ "$b" = "$MAIN_BASE" ] || other=$b; done
rmain=$(base_build "$MAIN_BASE")/linux rother=$(base_build "$other")/linux
for r in "$rmain" "$rother"; do
	if ! git -C "$r" rev-parse -q --verify refs/tags/lab-00 >/dev/null 2>&1; then
		t_fail "no lab tags in ${r#"$TOP"/}: both bases must be prepared first (make tree, make tree KERNEL=$other)"
		t_summary series
		exit 1
	fi
done

out=$("$TOP/scripts/stack.sh" range-diff --summary 2>&1)
rc=$?
t_expect "range-diff: the bases differ exactly where $other has its own patch, each with its note" 0 "$rc"
t_grep "... and says how many" "^range-diff: [0-9]+ steps, [0-9]+ the series' change on both bases, [0-9]+ with $other's own patch, 0 problems" "$out"
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | grep -E 'ERROR|NOT PAIRED' | head -20 | sed 's/^/#   /'

out=$(KERNEL=$other "$TOP/scripts/stack.sh" check 2>&1)
rc=$?
t_expect "$other's export: its own patches byte for byte, and no step kept twice" 0 "$rc"
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | head -20 | sed 's/^/#   /'

# --- make port ----------------------------------------------------------------
br=userns-labs-test-port
S=$BUILD/test-series
cleanup() {
	local r w
	for r in "$rmain" "$rother"; do
		for w in "$S/fix-$MAIN_BASE" "$S/fix-$other" "$(dirname "$r")/port-$br"; do
			git -C "$r" worktree remove --force "$w" >/dev/null 2>&1 || true
		done
		git -C "$r" worktree prune 2>/dev/null
		git -C "$r" branch -D "$br" >/dev/null 2>&1 || true
	done
	rm -rf "$S"
}
trap cleanup EXIT
cleanup
mkdir -p "$S"

copy() { # a fresh copy of the course's patches, and both stacks made again
	rm -rf "$S/course"
	mkdir -p "$S/course"
	cp -a "$STEPS_DIR" "$S/course/kernel-steps"
	cp -a "$SOLUTIONS_DIR" "$S/course/solutions"
	for b in $BASES; do
		KERNEL=$b FORCE=1 "$TOP/scripts/stack.sh" make "$br" >/dev/null 2>&1 || t_fail "make stack on $b"
	done
}
changed() { # the course files that differ from the repository's, as kind/name
	(cd "$S/course" && { diff -rq "$STEPS_DIR" kernel-steps; diff -rq "$SOLUTIONS_DIR" solutions; } 2>&1) |
		sed -E -e 's#^Files .* and (.*) differ$#\1#' -e 's#^Only in ([^:]*): (.*)$#\1/\2#' -e "s#^$TOP/##" |
		LC_ALL=C sort -u | tr '\n' ' '
}
# fixup BASE FILE LINE [PATH [SUBJECT]]: on BASE's stack, a 'git commit
# --fixup' of the step whose course file is FILE, adding LINE at the end of
# PATH (a new file, or one the second base does not have); with SUBJECT, an
# amend! that gives the step that subject
fixup() {
	local b=$1 f=$2 line=$3 path=${4:-} subject=${5:-} r c w
	r=$(base_build "$b")/linux
	c=$(git -C "$r" rev-list "distro..$br" | while read -r x; do
		[ "$(git -C "$r" notes --ref=refs/notes/userns-labs show "$x" 2>/dev/null)" = "userns-labs-file: $f" ] && echo "$x"
	done | head -1)
	[ -n "$c" ] || { echo "no commit of $f on $b" >&2; return 1; }
	[ -n "$path" ] || path=$(git -C "$r" diff-tree --no-commit-id --name-only -r "$c" | head -1)
	w=$S/fix-$b
	git -C "$r" worktree add -q --no-checkout "$w" "$br" 2>/dev/null || return 1
	printf '/%s\n' "$path" | git -C "$w" sparse-checkout set --no-cone --stdin 2>/dev/null
	git -C "$w" read-tree -mu HEAD 2>/dev/null
	mkdir -p "$(dirname "$w/$path")"
	printf '%s\n' "$line" >>"$w/$path"
	git -C "$w" add -f -- "$path"
	if [ -n "$subject" ]; then
		GIT_EDITOR="sed -i '3s/.*/$subject/'" \
			git -C "$w" -c user.name=t -c user.email=t@t commit -q --fixup=amend:"$c" || return 1
	else
		git -C "$w" -c user.name=t -c user.email=t@t commit -q --fixup="$c" || return 1
	fi
	git -C "$r" worktree remove --force "$w"
}
port() { STEPS_DIR=$S/course/kernel-steps SOLUTIONS_DIR=$S/course/solutions "$TOP/scripts/stack.sh" port "$br" 2>&1; }

# a step both bases share: the change goes into the series, and the second
# base, which gets it as it is, keeps no patch of its own
shared=$(cd "$SOLUTIONS_DIR" && for f in [0-9][0-9]-*.patch; do [ -e "$other/$f" ] || { echo "$f"; break; }; done)
copy
fixup "$MAIN_BASE" "solutions/$shared" '/* userns-labs series test */' userns-labs-series-test.c || t_fail "a fixup on $MAIN_BASE's stack"
out=$(port)
rc=$?
t_expect "port of a change to a shared step ($shared): it succeeds" 0 "$rc"
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | tail -15 | sed 's/^/#   /'
t_expect "... it changes the series' patch alone" "solutions/$shared " "$(changed)"
t_grep "... which carries the change" '^\+/\* userns-labs series test \*/' "$(cat "$S/course/solutions/$shared" 2>/dev/null)"
t_expect "... and $other's stack got it, folded into its step" "1 0" \
	"$(git -C "$rother" log -p "distro..$br" | grep -c '^+/\* userns-labs series test \*/') $(git -C "$rother" log --format=%s "distro..$br" | grep -c '^fixup! ')"

# an amend! (git commit --fixup=amend:COMMIT): the step's new message too,
# on both bases
copy
fixup "$MAIN_BASE" "solutions/$shared" '/* userns-labs series test, amend */' userns-labs-series-test.c \
	"userns: a subject the series test gave" || t_fail "an amend! on $MAIN_BASE's stack"
out=$(port)
rc=$?
t_expect "port of an amend! to a shared step: it succeeds" 0 "$rc"
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | tail -15 | sed 's/^/#   /'
t_grep "... the series' patch has the new subject" '^Subject: \[PATCH\] userns: a subject the series test gave$' \
	"$(cat "$S/course/solutions/$shared" 2>/dev/null)"
t_expect "... and $other's step too (so it keeps no patch of its own)" "1 solutions/$shared " \
	"$(git -C "$rother" log --format=%s "distro..$br" | grep -cx 'userns: a subject the series test gave') $(changed)"

# a step the second base keeps on its own: the change reaches both patches
own=$(cd "$SOLUTIONS_DIR/$other" && for f in [0-9][0-9]-*.patch; do echo "$f"; break; done)
copy
fixup "$MAIN_BASE" "solutions/$own" '/* userns-labs series test, own */' userns-labs-series-test.c || t_fail "a fixup on $MAIN_BASE's stack"
out=$(port)
rc=$?
t_expect "port of a change to a step $other keeps on its own ($own): it succeeds" 0 "$rc"
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | tail -15 | sed 's/^/#   /'
t_expect "... it changes the series' patch and $other's own" "solutions/$own solutions/$other/$own " "$(changed)"
t_grep "... $other's own carries it" '^\+/\* userns-labs series test, own \*/' \
	"$(cat "$S/course/solutions/$other/$own" 2>/dev/null)"

# a change to a file the second base does not have (a step of its own
# there): stopped, named, and nothing written on either base
cfile="" cpath=""
while read -r x; do
	for p in $(git -C "$rmain" diff-tree --no-commit-id --name-only -r "$x"); do
		git -C "$rother" cat-file -e "distro:$p" 2>/dev/null && continue
		cfile=$(git -C "$rmain" notes --ref=refs/notes/userns-labs show "$x" 2>/dev/null | sed -n 's/^userns-labs-file: //p')
		cpath=$p
		break
	done
	[ -z "$cfile" ] || break
done < <(git -C "$rmain" rev-list --reverse "distro..$(KERNEL=$MAIN_BASE BASE_SUB='' step_tag "$(BASE_SUB='' last_step)")")
copy
if [ -z "$cfile" ]; then
	t_fail "a step of $MAIN_BASE that changes a file $other does not have (none found)"
else
	# (a change that would go there first: all or none)
	fixup "$MAIN_BASE" "solutions/$shared" '/* userns-labs series test, first */' userns-labs-series-test.c ||
		t_fail "a fixup on $MAIN_BASE's stack"
	fixup "$MAIN_BASE" "$cfile" '/* userns-labs series test, conflict */' "$cpath" || t_fail "a fixup on $MAIN_BASE's stack"
	before=$(git -C "$rother" rev-parse "$br")
	out=$(port)
	rc=$?
	t_expect "port of a change to $cpath, which $other does not have ($cfile): it fails" 1 "$([ "$rc" -ne 0 ] && echo 1 || echo 0)"
	t_grep "... naming the step" "the change to $cfile does not apply to the stack of $other" "$out"
	t_grep "... and the file" "$cpath" "$out"
	t_expect "... and writes nothing" "" "$(changed)"
	t_expect "... and leaves $other's stack as it was, the change before it too" "$before" "$(git -C "$rother" rev-parse "$br")"
fi

t_summary series
