#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The student's commands.
#
#   lab.sh start N      put the kernel tree on branch student/lab-NN (made
#                       from tag lab-NN-start the first time), then check
#   lab.sh check [N]    build, boot, run lab N's check and every earlier one
#   lab.sh solution N   put the tree on branch solution/lab-NN (the reference
#                       answer), then check
#   lab.sh boot         an interactive shell in the guest
#   lab.sh status       every lab: its branch, commits, last check, hints;
#                       where the tree is and what is not committed
#   lab.sh hint [N]     the next hint of the lab the tree is on (or lab N),
#                       from labs/NN-*/hints.md: one more each time
#
# Nothing here throws work away: a tree with uncommitted changes is never
# switched, and existing branches are never reset.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu-outcomes.sh"

norm() { # N [EXAMPLE] -> NN, or die naming the command to use
	case ${1:-} in
	'') die "a lab number is needed, e.g. '${2:-make lab-1}'" ;;
	*[!0-9]*) die "'$1' is not a lab number (labs 1 to $(last_lab)), e.g. '${2:-make lab-1}'" ;;
	esac
	printf '%02d' "$((10#$1))"
}

last_lab() { lab_dirs | tail -1 | xargs basename | cut -c1-2 | sed 's/^0//'; }

# N: the lab's number, checked: it names a lab that exists
lab_num_checked() { # N EXAMPLE
	local n
	n=$(norm "$1" "$2") || exit 1
	lab_dir "$n" >/dev/null || die "there is no lab $((10#$n)): the labs are 1 to $(last_lab) (see labs/README.md)"
	printf '%s\n' "$n"
}

prepare() {
	"$TOP/scripts/import-kernel.sh"
	"$TOP/scripts/apply-steps.sh"
}

switch_to() { # BRANCH BASE-TAG
	local br=$1 tag=$2 cur
	cur=$(kgit symbolic-ref --short -q HEAD || true)
	if [ "$cur" = "$br" ]; then
		info "already on $br"
		return
	fi
	require_clean_tree
	if kgit rev-parse -q --verify "refs/heads/$br" >/dev/null; then
		kgit checkout -q "$br"
		info "on your branch $br again (your commits on it are kept)"
	else
		kgit checkout -q -b "$br" "$tag"
		info "made branch $br from $tag"
	fi
}

explain() { # NN: what the lab is about and where to look
	local n=$1 dir title marks
	dir=$(lab_dir "$n") || return 0
	title=$(lab_conf "$n" TITLE)
	printf '\nLab %s, "%s", is not done yet.\n' "$n" "$title"
	lab_conf "$n" HINT | fold -s -w 76 | sed 's/^/  /'
	# the marks are in the files the lab's scaffold commit touched: grep
	# those (the whole tree takes a second), else the whole tree
	local files
	files=$(kgit diff --name-only "lab-$n-start^" "lab-$n-start" 2>/dev/null || true)
	marks=""
	# shellcheck disable=SC2086 # file names from git, one per line
	[ -z "$files" ] || marks=$(kgit grep -n "LAB $((10#$n)):" -- $files 2>/dev/null | cut -d: -f1,2 || true)
	[ -n "$marks" ] || marks=$(kgit grep -n "LAB $((10#$n)):" 2>/dev/null | cut -d: -f1,2 || true)
	if [ -n "$marks" ]; then
		printf '  Look for "LAB %d:" in the kernel tree (%s):\n' "$((10#$n))" "${KERNEL_DIR#"$TOP"/}"
		printf '%s\n' "$marks" | sed 's/^/      /'
	fi
	printf '  The assignment: %s/README.md\n' "${dir#"$TOP"/}"
	if f=$(hints_file "$n"); then
		printf '  Stuck? make hint (%s of %s hints shown so far)\n' "$(hints_seen "$n")" "$(hints_total "$f")"
	fi
}

# build_both: build-kernel.sh, and build-guest.sh beside it (its question,
# whether the initramfs is up to date, costs some 0.3 s, which it then
# takes on the other core while the kernel compiles or links, at a lower
# priority: the kernel's compile is what the check waits for). What the
# guest's build says is shown after the kernel's, and not at all after a
# kernel that failed, unless it failed too. The status: the kernel's
# build's, else the guest's. (A subshell, not a command: a background
# command would ignore Ctrl-C. Its output waits in the logs folder,
# build-guest.out and .err: nothing is left elsewhere when Ctrl-C ends
# lab.sh.)
build_both() {
	local d=$LOG_DIR krc=0 grc=0 gpid
	mkdir -p "$d"
	(exec nice -n 10 "$TOP/scripts/build-guest.sh" >"$d/build-guest.out" 2>"$d/build-guest.err") &
	gpid=$!
	"$TOP/scripts/build-kernel.sh" || krc=$?
	wait "$gpid" || grc=$?
	if [ "$krc" -eq 0 ] || [ "$grc" -ne 0 ]; then
		cat "$d/build-guest.out"
		cat "$d/build-guest.err" >&2
	fi
	[ "$krc" -eq 0 ] || return "$krc"
	return "$grc"
}

# early_boot: (check's labs, log and append) the kernel and the
# initramfs last built are booted at once, while build-kernel.sh and
# build-guest.sh find out, on the other core, whether they are still this
# tree's: QEMU's CPU thread and that question overlap, and a check with
# nothing changed costs the boot alone. The first of them that has to
# build stops that boot (stop_early_boot, lib.sh), which is then thrown
# away, and builds; check then boots what was built. Returns 0 when the
# early boot's log and results are check's (rc: run-qemu.sh's status), 1
# when check must boot (the builds are done either way). EARLY_BOOT=0:
# never.
early_boot() {
	local spid f
	[ "${EARLY_BOOT:-1}" != 0 ] && [ -z "${FORCE_BUILD:-}" ] || return 2
	[ -f "$OBJ_DIR/vmlinux" ] && [ -f "$OBJ_DIR/.userns-labs-built" ] &&
		[ -f "$GUEST_DIR/initramfs.cpio" ] && command -v setsid >/dev/null || return 2
	# a file of the lab's (lab.conf FILES) newer than the last build: a
	# build is sure, and that boot would only take a core from it
	for f in $(lab_conf "$n" FILES); do
		[ ! "$KERNEL_DIR/$f" -nt "$OBJ_DIR/.userns-labs-built" ] || return 2
	done
	# what a run killed outright (SIGKILL) left: its folder, when its
	# lab.sh is gone (its QEMU ends at its own time limit)
	for f in "$LOG_DIR"/.boot-*; do
		[ -d "$f" ] && ! kill -0 "${f##*.boot-}" 2>/dev/null && rm -rf "$f"
	done
	spec=$LOG_DIR/.boot-$$
	rm -rf "$spec"
	mkdir -p "$spec"
	spid=
	trap 'spec_stop INT' INT
	trap 'spec_stop TERM' TERM
	trap 'spec_stop HUP' HUP
	# (a session of its own: stopped as a whole, QEMU with it)
	QEMU_APPEND=$append setsid "$TOP/scripts/run-qemu.sh" --labs "$labs" --log "$spec/check.log" \
		2>"$spec/stderr" &
	spid=$!
	local brc=0
	EARLY_BOOT_PID=$spid EARLY_BOOT_STALE=$spec/stale build_both || brc=$?
	if [ "$brc" -ne 0 ]; then
		# (a build failed: what it printed is the result)
		spec_kill
		rm -rf "$spec"
		exit "$brc"
	fi
	if [ -e "$spec/stale" ]; then
		wait "$spid" 2>/dev/null || true
		trap - INT TERM HUP
		rm -rf "$spec"
		return 1
	fi
	info "booting the kernel in QEMU and running the checks of lab(s) $labs"
	wait "$spid" || rc=$?
	trap - INT TERM HUP
	cat "$spec/stderr" >&2
	spec_keep
	return 0
}
# the boot's files become check's (log, results, what else was on the
# results channel)
spec_keep() {
	for ext in log ktap channel; do
		rm -f "${log%.log}.$ext"
		[ ! -f "$spec/check.$ext" ] || mv "$spec/check.$ext" "${log%.log}.$ext"
	done
	rm -rf "$spec"
}
# Ctrl-C or SIGTERM while that boot runs: it stops (its log kept, with the
# word that it was stopped), no result is read, and lab.sh ends by the signal
# spec_kill: that boot stopped, unless a build stopped it already (then it
# was reaped, and its pid may be another process's by now)
spec_kill() {
	[ -n "$spid" ] || return 0
	[ -e "$spec/stale" ] || kill -TERM -- "-$spid" "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
}
spec_stop() {
	trap - INT TERM HUP
	spec_kill
	if [ -e "$spec/stale" ]; then
		# a build was under way, and said that it stopped; that boot
		# was stale already
		rm -rf "$spec"
		kill -"$1" $$
		exit 130
	fi
	rm -f "$spec/check.ktap" "$spec/check.channel"
	spec_keep
	printf '\n%sstopped%s (%s): the boot in QEMU; no result was read (the kernel log so far: %s)\n' \
		"$C_RED" "$C_OFF" "$([ "$1" = INT ] && echo Ctrl-C || echo SIG"$1")" "$(here_path "$log")" >&2
	kill -"$1" $$
	exit 130
}

check() { # [NN]
	local n=${1:-} labs="" k log rc st failed=0 br append spec early rfd
	need_kernel_tree
	[ -n "$n" ] || n=$(current_lab) ||
		die "cannot tell which lab this tree is on (branch $(kgit symbolic-ref --short -q HEAD || echo detached)): use 'make check LAB=N'"
	n=$(lab_num_checked "$n" "make check LAB=3")
	for ((k = 1; k <= 10#$n; k++)); do
		lab_dir "$k" >/dev/null && labs="$labs $(printf '%02d' "$k")"
	done
	labs=${labs# }
	# ONLY=1: this lab's check alone (a quicker loop late in the course)
	[ -z "${ONLY:-}" ] || labs=$n
	# The student's result of lab N is check-lab-NN.*, with the branch it
	# was made on beside it (make status counts it on student/lab-NN only);
	# the reference branch's (make solution-N) is solution-lab-NN.*, and
	# never poses as the student's.
	br=$(kgit symbolic-ref --short -q HEAD || echo detached)
	log=$LOG_DIR/check-lab-$n.log
	case $br in solution/*) log=$LOG_DIR/solution-lab-$n.log ;; esac
	mkdir -p "$LOG_DIR"
	# A user-space lab tests the student's own program, except on the
	# reference branch (make solution-N).
	append=${QEMU_APPEND:-}
	case $br in
	solution/*) ;;
	*) append="$append $(lab_conf "$n" STUDENT_APPEND)" ;;
	esac
	rc=0 early=0
	early_boot || early=$?
	if [ "$early" -ne 0 ]; then
		if [ "$early" -eq 2 ]; then
			# (check runs on the left of '||' in start and solution,
			# where set -e does not hold: a failed build must stop it
			# by hand, or the last kernel would be booted and judged)
			build_both || exit $?
		fi
		info "booting the kernel in QEMU and running the checks of lab(s) $labs"
		QEMU_APPEND=$append "$TOP/scripts/run-qemu.sh" --labs "$labs" --log "$log" || rc=$?
	fi
	printf '%s\n' "$br" >"${log%.log}.branch"
	# (the results, for the loop below, read beside the report: the two
	# Python starts at once)
	exec {rfd}< <("$TOP/scripts/ktap.sh" results "${log%.log}.ktap" "$labs")
	"$TOP/scripts/ktap.sh" report "${log%.log}.ktap" "$labs"
	# how the boot ended, by its name and what it means (qemu-outcomes.sh)
	[ "$rc" -eq "$QEMU_OK" ] ||
		printf '%s%s:%s %s.\n' "$C_RED" "$(qemu_outcome "$rc")" "$C_OFF" "$(qemu_outcome_says "$rc")"
	printf 'Kernel log: %s   results: %s\n' "$(here_path "$log")" "$(here_path "${log%.log}.ktap")"
	CHECK_ONLY_THIS_FAILED=''
	while read -r k st _; do
		[ "$st" = PASS ] && continue
		failed=1
		if [ "$k" = "$n" ]; then
			explain "$n"
			[ -n "$CHECK_ONLY_THIS_FAILED" ] || CHECK_ONLY_THIS_FAILED=1
		else
			CHECK_ONLY_THIS_FAILED=0
		fi
	done <&"$rfd"
	exec {rfd}<&-
	[ "$rc" -eq "$QEMU_OK" ] || CHECK_ONLY_THIS_FAILED=0
	if [ "$failed" -eq 0 ] && [ "$rc" -eq "$QEMU_OK" ]; then
		case $(printf '%s\n' "$labs" | wc -w) in
		1) printf '\n%sLab %d passes.%s\n' "$C_GRN" "$((10#$n))" "$C_OFF" ;;
		*) printf '\n%sLab %d passes%s, and so do the labs before it (%s).\n' "$C_GRN" "$((10#$n))" "$C_OFF" \
			"$(printf '%s\n' "$labs" | sed 's/ [0-9]*$//; s/\b0//g; s/ /, /g')" ;;
		esac
		return 0
	fi
	# at the lab's start (its tag, nothing changed) its own check fails,
	# and only it: that is where the lab begins (make lab-N ends there
	# with success)
	# (the tree just built, whose id build-kernel.sh keeps first in its
	# record: git status over the whole tree would cost a third of a
	# second; the cheapest questions first: after an edit, the first)
	CHECK_AT_START=
	if [ "$CHECK_ONLY_THIS_FAILED" = 1 ] &&
		[ "$(cut -d' ' -f1 "$OBJ_DIR/.userns-labs-built" 2>/dev/null)" = "$(kgit rev-parse -q --verify "lab-$n-start^{tree}")" ] &&
		[ "$(kgit rev-parse HEAD)" = "$(kgit rev-parse -q --verify "lab-$n-start^{commit}")" ] &&
		[ -z "$(lab_conf "$n" USERSPACE)" ] && ran_to_its_end "${log%.log}.ktap" "$n"; then
		CHECK_AT_START=1
		printf '\nThis is the start of lab %d: its check fails until your change is in, as expected%s.\nEdit, then make check.\n' \
			"$((10#$n))" "$([ "$((10#$n))" -eq 1 ] || echo ' (the labs before it pass)')"
	fi
	return 1
}

# ran_to_its_end KTAP NN: lab NN's check failed having run every point it
# planned, each to a pass, a failure, a skip or an expected failure (not
# a check that crashed, timed out or never ran)
ran_to_its_end() {
	"$TOP/scripts/ktap.sh" ended "$1" "$2" 2>/dev/null
}

# Hints: labs/NN-*/hints.md has '## Hint K: title' sections, from a nudge
# to the shape of the change. Each 'make hint' shows the ones seen so far
# and one more; how many were shown is kept in build/hints/NN (for the
# student's own record; make status shows it).
hints_file() { # NN
	local d
	d=$(lab_dir "$1") || return 1
	[ -f "$d/hints.md" ] && printf '%s\n' "$d/hints.md"
}
hints_total() { grep -c '^## Hint ' "$1"; }
hints_seen() { cat "$BUILD/hints/$1" 2>/dev/null || echo 0; }

hint() { # [NN]
	local n=${1:-} f total seen k
	if [ -z "$n" ]; then
		need_kernel_tree
		n=$(current_lab) ||
			die "cannot tell which lab this tree is on: use 'make hint LAB=N'"
	fi
	n=$(lab_num_checked "$n" "make hint LAB=3")
	f=$(hints_file "$n") || die "lab $n has no hints ($(lab_dir "$n")/hints.md)"
	total=$(hints_total "$f")
	seen=$(hints_seen "$n")
	[ "$seen" -lt "$total" ] && seen=$((seen + 1))
	mkdir -p "$BUILD/hints"
	echo "$seen" >"$BUILD/hints/$n"
	printf '%sLab %s: hint %d of %d%s\n' "$C_BLD" "$n" "$seen" "$total" "$C_OFF"
	for ((k = 1; k <= seen; k++)); do
		awk -v k="$k" '
			/^## Hint / { i++; if (i == k) { sub(/^## /, ""); print; show = 1; next } show = 0 }
			show && /^$/ { blank++; next }
			show { while (blank) { print ""; blank-- } print }' "$f" | sed -e '1s/^/\n/' -e '2,$s/^/  /'
	done
	if [ "$seen" -lt "$total" ]; then
		printf '\n(make hint again for hint %d; %d of %d shown so far, kept in build/hints/%s)\n' \
			"$((seen + 1))" "$seen" "$total" "$n"
	else
		printf '\n(that was the last hint; the reference answer is make solution-%d)\n' "$((10#$n))"
	fi
}

# a path as the student can open it from where make was run
here_path() {
	case $1 in
	"$PWD"/*) printf '%s\n' "${1#"$PWD"/}" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# the other bases, and how to go to one: ", other: 6.12 (make status KERNEL=6.12)"
other_bases() {
	local b list=""
	for b in $BASES; do
		[ "$b" = "$KERNEL" ] && continue
		if [ -e "$(base_build "$b")/linux/.git" ]; then
			list="$list, also imported: $b (make status KERNEL=$b)"
		elif [ -f "/usr/src/linux-source-$b.tar.xz" ] ||
			deb_packaged "linux-source-$b"; then
			# (offered only where this release packages it: not 6.1 on Debian 13)
			list="$list, other: $b (make lab-1 KERNEL=$b)"
		fi
	done
	printf '%s' "$list"
}

# make lab-N KERNEL=B: the base is remembered for the commands after it
remember_base() {
	[ -n "$KERNEL_GIVEN" ] || return 0
	# only for the course's own build folders (a test's BUILD is its own)
	[ "$BUILD" = "$(base_build "$KERNEL")" ] || return 0
	mkdir -p "$TOP/build"
	[ "$(base_remembered)" = "$KERNEL" ] && return 0
	echo "$KERNEL" >"$TOP/build/KERNEL"
	info "kernel base $KERNEL remembered (build/KERNEL): make check, make status, ... use it; make lab-N KERNEL=... changes it"
}

# make status: where the tree is, then one row per lab
status() {
	local cur br on n dir title commits last res hints mark f when
	need_kernel_tree
	br=$(kgit symbolic-ref --short -q HEAD || echo "no branch (detached)")
	on=$(current_lab || true)
	printf 'kernel base: %s (%s)%s\n' "$KERNEL" "$(base_line)" "$(other_bases)"
	printf 'kernel tree: %s, on %s (%s)\n' "$(here_path "$KERNEL_DIR")" "$br" "$(tree_where)"
	cur=$(tree_dirt)
	if [ -z "$cur" ]; then
		echo "work tree:   clean (everything committed)"
	else
		printf 'not committed (%d files):\n' "$(printf '%s\n' "$cur" | wc -l)"
		printf '%s\n' "$cur" | head -10 | sed 's/^/    /'
	fi
	printf '\n    %-3s %-30s %-8s %-26s %s\n' lab title yours "last check" hints
	while read -r dir; do
		n=$(lab_num "$dir")
		title=$(lab_conf "$n" TITLE)
		[ "${#title}" -le 30 ] || title="${title:0:28}.."
		commits=-
		if kgit rev-parse -q --verify "refs/heads/student/lab-$n" >/dev/null; then
			commits=$(kgit rev-list --count "lab-$n-start..student/lab-$n" 2>/dev/null || echo '?')
			[ "$br" = "student/lab-$n" ] && [ -n "$cur" ] && commits="$commits+edits"
		fi
		last=- f=$LOG_DIR/check-lab-$n.ktap
		# (the student's own check of lab N: made on student/lab-NN; a
		# record with no branch beside it is older than that rule)
		if [ -s "$f" ] && { [ ! -f "${f%.ktap}.branch" ] ||
			[ "$(cat "${f%.ktap}.branch")" = "student/lab-$n" ]; }; then
			res=$("$TOP/scripts/ktap.sh" results "$f" "$n" | awk -v n="$n" '$1 == n { print $2, $3 "/" $4 }')
			when=$(date -r "$f" '+%Y-%m-%d %H:%M')
			last="${res:-?} $when"
		fi
		hints=-
		if f=$(hints_file "$n"); then
			hints="$(hints_seen "$n")/$(hints_total "$f")"
		fi
		mark=" "
		[ "$n" = "$on" ] && mark=">"
		printf '  %s %-3s %-30s %-8s %-26s %s\n' "$mark" "$((10#$n))" "$title" "$commits" "$last" "$hints"
	done < <(lab_dirs)
	printf '\n%s' "${on:+> the lab the tree is on. }"
	printf 'yours: commits on student/lab-NN beyond its start (- no branch; +edits: not committed).\n'
	printf 'last check: that lab'"'"'s own make check, points passed of planned.  hints: shown of all.\n'
	return 0
}

cmd=${1:-}
shift || true
case $cmd in
start)
	n=$(lab_num_checked "${1:-}" "make lab-1")
	# (remembered once its tree is there: a base this machine cannot
	# import is never left in build/KERNEL)
	prepare
	remember_base
	switch_to "student/lab-$n" "lab-$n-start"
	# how the labs chain: say it where the student starts
	if [ "$((10#$n))" -eq 2 ]; then
		info "lab-$n-start holds the reference answer of lab 1, not your own: labs can be done in any order"
	elif [ "$((10#$n))" -gt 2 ]; then
		info "lab-$n-start holds the reference answers of labs 1 to $((10#$n - 1)), not your own: labs can be done in any order"
	fi
	[ -n "${NO_CHECK:-}" ] && exit 0
	rc=0
	check "$n" || rc=$?
	[ "${CHECK_AT_START:-}" != 1 ] || exit 0
	exit "$rc"
	;;
solution)
	n=$(lab_num_checked "${1:-}" "make solution-1")
	remember_base
	prepare
	switch_to "solution/lab-$n" "lab-$n-done"
	# whatever the check says, say how to get back
	trap 'info "this is the reference answer (branch solution/lab-$n); back to your own work: make lab-$((10#$n))"' EXIT
	[ -n "${NO_CHECK:-}" ] || check "$n"
	;;
check) check "${1:-}" ;;
boot)
	need_kernel_tree
	"$TOP/scripts/build-kernel.sh"
	"$TOP/scripts/build-guest.sh"
	"$TOP/scripts/run-qemu.sh" --shell
	;;
status) status ;;
hint) hint "${1:-}" ;;
*) die "usage: lab.sh start N | check [N] | solution N | boot | status | hint [N]" ;;
esac
