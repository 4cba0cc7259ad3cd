#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Lint: shellcheck on every script, checkpatch.pl (from the kernel tree) on
# every patch and every C demo.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"
cd "$TOP" || exit 1

shell_files=$(ls scripts/*.sh tests/*.sh .ci/run guest-rootfs/init guest-rootfs/lib/ktap.sh labs/*/check labs/*/demo.sh 2>/dev/null)
if command -v shellcheck >/dev/null; then
	# shellcheck disable=SC2086
	if out=$(shellcheck -x -S warning $shell_files 2>&1); then
		t_ok "shellcheck: $(echo "$shell_files" | wc -w) scripts clean"
	else
		t_fail "shellcheck" "$out"
	fi
else
	t_fail "shellcheck is not installed (make lint installs it as root, or apt-get install shellcheck)"
fi

cp=$KERNEL_DIR/scripts/checkpatch.pl
if [ ! -f "$cp" ]; then
	printf '# checkpatch skipped: no kernel tree yet (make tree)\n'
else
	cpargs=(--no-tree --quiet --no-signoff --ignore "FILE_PATH_CHANGES,COMMIT_LOG_LONG_LINE,EMAIL_SUBJECT")
	for p in kernel-steps/*.patch kernel-steps/*/*.patch solutions/*.patch solutions/*/*.patch; do
		extra=()
		# A solution gives back Debian's code byte for byte, upstream's
		# own style nits included.
		# Its upstream commit ids are not in the imported tree's history
		# (a tarball has none): tests/citations.py checks them against
		# solutions/UPSTREAM instead.
		case $p in solutions/*) extra=(--ignore "LINE_SPACING,UNKNOWN_COMMIT_ID") ;; esac
		if out=$(perl "$cp" "${cpargs[@]}" "${extra[@]}" - <"$p" 2>&1); then
			t_ok "checkpatch: $p"
		else
			t_fail "checkpatch: $p" "$out"
		fi
	done
	for c in labs/*/*.c labs/lib/*.h solutions/*/*.c guest-rootfs/tools/*.c; do
		[ -e "$c" ] || continue
		if out=$(perl "$cp" --no-tree --quiet -f "$c" 2>&1); then
			t_ok "checkpatch: $c"
		else
			t_fail "checkpatch: $c" "$out"
		fi
	done
fi
# The review the grader makes of a student's patches (scripts/review.py),
# made of the course's own: every answer passes it whole, the rewind's
# patches all but the scope (tests/test_review.py CourseAnswers)
if [ -f "$cp" ]; then
	if out=$(python3 -m unittest -q tests.test_review.CourseAnswers 2>&1); then
		t_ok "review: every patch of the course passes the patch review it asks of students"
	else
		t_fail "review: a patch of the course fails the patch review (scripts/review.py)" "$(printf '%s\n' "$out" | tail -25)"
	fi
fi
# Mutants: each names a test point of its own lab's check, and every lab
# has at least three (their builds and boots are in the staircase)
mbad="" few=""
# (a base's own version, tests/mutants/BASE/NAME.patch, the same checks, and
# the same subject and point as the main base's file)
for m in tests/mutants/[0-9][0-9]-*.patch tests/mutants/*/[0-9][0-9]-*.patch; do
	[ -e "$m" ] || continue
	n=$(basename "$m" | cut -c1-2)
	caught=$(sed -n 's/^Caught-by: *//p' "$m" | head -1)
	grep -q '^Subject: \[MUTANT\] lab '"$n"': ' "$m" || mbad="$mbad $m(no '[MUTANT] lab $n:' subject)"
	o=tests/mutants/$(basename "$m")
	if [ "$o" != "$m" ] && [ -e "$o" ] &&
		[ "$(grep -m1 '^Subject: ' "$m")|$caught" != "$(grep -m1 '^Subject: ' "$o")|$(sed -n 's/^Caught-by: *//p' "$o" | head -1)" ]; then
		mbad="$mbad $m(its subject or Caught-by differs from $o's)"
	fi
	python3 scripts/gradelib.py points "$n" 2>/dev/null | awk '{ print $1 }' | grep -qxF -- "${caught:-?}" ||
		mbad="$mbad $m(Caught-by '${caught}' is no point of lab $n)"
done
for d in labs/[0-9][0-9]-*/; do
	n=$(basename "$d" | cut -c1-2)
	k=$(find tests/mutants -maxdepth 1 -name "$n-*.patch" | wc -l)
	[ "$k" -ge 3 ] || few="$few $n($k)"
done
if [ -z "$mbad" ]; then t_ok "mutants: each has a [MUTANT] subject and names a point of its lab's check"; else t_fail "mutants:$mbad"; fi
if [ -z "$few" ]; then t_ok "mutants: every lab has at least three"; else t_fail "mutants: labs with fewer than three:$few"; fi
# every source file says its licence in an SPDX line near its top (LICENSE):
# the tracked files but the book, the prose, the patches and data
nospdx=$(git ls-files | grep -vE '^(book/|LICENSES/|LICENSE$|kernel-steps/|tests/fixtures/|tests/mutants/|tests/mutate/)|\.(patch|md|txt|sum|json|re)$|(^|/)\.gitignore$|^guest-rootfs/etc-motd$|^solutions/UPSTREAM$' |
	while read -r f; do head -3 "$f" | grep -q 'SPDX-License-Identifier: ' || echo "$f"; done)
if [ -z "$nospdx" ]; then
	t_ok "licence: every source file has its SPDX line"
else
	t_fail "licence: source files without an SPDX-License-Identifier line in their first three lines (see LICENSE)" "$nospdx"
fi

# generated mutants (scripts/mutate.sh): no report left behind by a change of
# its lab's answer or check (the mutants themselves are not run here)
for b in $BASES; do
	if out=$(python3 scripts/mutate.py stale --top "$TOP" --base "$b" --quiet 2>&1); then
		t_ok "${out##*$'\n'}"
	else
		t_fail "mutate ($b): a report is out of date (scripts/mutate.sh NN makes it again)" "$out"
	fi
done
# every suite make test runs, and every script a target runs, can be run
# (a suite written without its x bit ends 'without a result (exit 126)')
noexec=""
# (the single quotes are meant: sed reads \$here and \$(S) as text)
# shellcheck disable=SC2016
for f in $(sed -n 's#.*"\$here/\([a-z-]*\.sh\)".*#tests/\1#p' tests/run.sh) \
	$(sed -n 's#.*\$(S)/\([a-z-]*\.sh\).*#scripts/\1#p' Makefile | sort -u); do
	[ -x "$f" ] || noexec="$noexec $f"
done
if [ -z "$noexec" ]; then t_ok "scripts: every suite and every script a target runs is executable"; else t_fail "not executable (chmod +x, and commit the mode):$noexec"; fi

# the answers credit their authors in the kernel's citation form, and cite
# only verified commit ids (solutions/UPSTREAM)
if out=$(python3 tests/citations.py "$PWD" 2>&1); then
	t_ok "citations: every answer says what it is based on, and by whom; every commit id of the answers, the book and the labs is verified (solutions/UPSTREAM)"
else
	t_fail "citations" "$out"
fi
t_summary lint
