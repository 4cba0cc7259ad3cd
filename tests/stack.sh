#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The patch stack tool (scripts/stack.sh): the course's patches are what the
# tags export, byte for byte; a stack changed with ordinary git (a reworded
# commit, through rebase -i) exports that change and nothing else, its notes
# carried along; a commit with no file, or out of apply-steps.sh's order,
# stops the export before it writes anything.
#
# Works in its own branch and worktree (build/test-stack); the exports go to
# a scratch copy of kernel-steps/ and solutions/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"
export NO_COLOR=1

"$TOP/scripts/import-kernel.sh" >/dev/null 2>&1 || true
"$TOP/scripts/apply-steps.sh" >/dev/null 2>&1 || true

out=$("$TOP/scripts/stack.sh" check 2>&1)
rc=$?
t_expect "export: every course patch is what the tags export, byte for byte" 0 "$rc"
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | head -30 | sed 's/^/#   /'

S=$BUILD/test-stack br=userns-labs-test-stack
w=$S/linux
rm -rf "$S"
mkdir -p "$S"
kgit worktree prune
tc=""
cleanup() {
	# the test's own commit is the same commit on every run: its note goes
	[ -z "$tc" ] || kgit notes --ref=refs/notes/userns-labs remove --ignore-missing "$tc" 2>/dev/null
	kgit worktree remove --force "$w" >/dev/null 2>&1 || true
	kgit branch -D "$br" >/dev/null 2>&1 || true
	rm -rf "$S"
}
trap cleanup EXIT
FORCE=1 "$TOP/scripts/stack.sh" make "$br" >/dev/null 2>&1
t_expect "make: the branch has one commit per course patch" \
	"$(find "$STEPS_DIR" "$SOLUTIONS_DIR" -maxdepth 1 -name '[0-9][0-9]-*.patch' | wc -l)" \
	"$(kgit rev-list --count "distro..$br")"
# a sparse worktree: the files the stack changes, and no other (rebase
# needs no more, and the whole tree costs a minute to check out)
kgit worktree add -q --no-checkout "$w" "$br" 2>/dev/null || t_fail "a worktree for the stack"
kgit log --name-only --format= "distro..$br" | sort -u | grep . | sed 's#^#/#' >"$S/sparse"
git -C "$w" sparse-checkout set --no-cone --stdin <"$S/sparse" 2>/dev/null
git -C "$w" read-tree -mu HEAD 2>/dev/null || t_fail "the stack's sparse worktree"

# the course's patches, copied: the exports write there
copy() {
	rm -rf "$S/course"
	mkdir -p "$S/course"
	cp -a "$STEPS_DIR" "$S/course/kernel-steps"
	cp -a "$SOLUTIONS_DIR" "$S/course/solutions"
}
changed() { # the course files that differ from the repository's
	(cd "$S/course" && git diff --no-index --name-only -- "$STEPS_DIR" kernel-steps 2>/dev/null | sed 's#.*/#kernel-steps/#'
		git diff --no-index --name-only -- "$SOLUTIONS_DIR" solutions 2>/dev/null | sed 's#.*/#solutions/#') | sort -u | tr '\n' ' '
}
export_course() { STEPS_DIR=$S/course/kernel-steps SOLUTIONS_DIR=$S/course/solutions "$TOP/scripts/stack.sh" export "$br" 2>&1; }

# a maintainer rewords the first rewind with rebase -i: every commit is
# made again, the notes follow, the export changes that one file
first=$(basename "$(printf '%s\n' "$STEPS_DIR"/00-*.patch | head -1)")
# (the editors in the environment: they win over any git configuration)
GIT_SEQUENCE_EDITOR="sed -i '1s/^pick/reword/'" GIT_EDITOR="sed -i '1s/\$/ (reworded)/'" \
	git -C "$w" rebase -q -i distro >"$S/rebase.out" 2>&1 || t_fail "rebase -i of the stack" "$(tail -5 "$S/rebase.out")"
copy
out=$(export_course)
rc=$?
t_expect "export after rebase -i: it succeeds" 0 "$rc"
t_expect "export after rebase -i: only the reworded commit's file changed" "kernel-steps/$first " "$(changed)"
t_grep "export after rebase -i: ... with the new subject" '^Subject: \[PATCH\] .*|^ .*\(reworded\)$' \
	"$(cat "$S/course/kernel-steps/$first" 2>/dev/null)"

# a new commit with no file: nothing is written, and the commit is named
copy
echo "/* userns-labs stack test */" >>"$w/kernel/fork.c"
git -C "$w" commit -q -am "fork: a commit the stack does not know"
if [ "$(git -C "$w" log -1 --format=%s)" = "fork: a commit the stack does not know" ]; then
	tc=$(git -C "$w" rev-parse HEAD)
	kgit notes --ref=refs/notes/userns-labs remove --ignore-missing "$tc" 2>/dev/null
else
	t_fail "the test's commit could not be made"
fi
out=$(export_course)
rc=$?
t_expect "a commit with no file: export fails" 1 "$rc"
t_grep "... and names the commit and the command that names it" 'a commit the stack does not know: no file \(scripts/stack.sh name' "$out"
t_expect "... and writes nothing" "" "$(changed)"

# named out of order (a lab 1 scaffold after lab 17's answer): refused
"$TOP/scripts/stack.sh" name "$(git -C "$w" rev-parse HEAD)" kernel-steps/01-late-scaffold.patch >/dev/null 2>&1
out=$(export_course)
rc=$?
t_expect "a commit out of apply-steps.sh's order: export fails" 1 "$rc"
t_grep "... and says why" "comes after .* before it in apply-steps.sh's order" "$out"
t_expect "... and writes nothing" "" "$(changed)"

# named as a new last patch, a patch of the last lab: written, and nothing
# else changes
tp=solutions/$(lab_num "$(lab_dirs | tail -1)")-stack-test.patch
"$TOP/scripts/stack.sh" name "$(git -C "$w" rev-parse HEAD)" "$tp" >/dev/null 2>&1
out=$(export_course)
rc=$?
t_expect "a new commit, named: export succeeds" 0 "$rc"
t_expect "... writing its file (and the reworded one)" "kernel-steps/$first $tp " "$(changed)"
t_grep "... which is the commit's patch" '^\+/\* userns-labs stack test \*/' \
	"$(cat "$S/course/$tp" 2>/dev/null)"

# a course patch no commit names is removed by the export: the stack
# without its test commit and lab 17's answer
last=$(basename "$(printf '%s\n' "$SOLUTIONS_DIR"/17-*.patch | head -1)")
git -C "$w" reset -q --hard HEAD~2
copy
out=$(export_course)
t_expect "a commit dropped from the stack: its file is removed" no \
	"$([ -e "$S/course/solutions/$last" ] && echo yes || echo no)"
t_grep "... and the export says so" "removed: solutions/$last" "$out"

t_summary stack
