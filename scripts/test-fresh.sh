#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test-fresh: the README's two commands on a brand-new Debian.
#
# A minimal root of the Debian release SUITE (trixie, Debian 13, by default;
# or bookworm, Debian 12), made by debootstrap --variant=minbase with make,
# the one program the README's commands need before they can install the
# rest, from the mirror this machine's apt uses (which serves both), with
# that release's own suites (updates, security); a clean clone of HEAD in
# it; then, as root inside it with /proc, /sys and /dev mounted:
#     make lab-1
#     make test
#     make test-workflows  (ci/github's templates, step by step as a runner)
#     make lab-1 KERNEL=6.1  (bookworm only: README, Debian 12's own kernel)
# Each step's time and result is printed, and the run ends with a summary.
# Nothing of this machine's own packages, caches or build trees is visible
# inside, so a program that only this machine has makes it fail.
#
#   SUITE=trixie|bookworm  the release (default trixie)
#   FRESH_DIR   where the root is made (default build/fresh-SUITE); it is
#               made anew on every run
#   FRESH_KEEP=1  keep the root afterwards (to look into it)
#   FRESH_ONLY="lab-1"  run only these (default: lab-1 test workflows, and
#               lab-1-6.1 on bookworm; also: gradescope, the autograder zip
#               set up and run as Gradescope runs it: make test-gradescope)
#
# Needs root (debootstrap, mounts, a mount namespace) and the network to the mirror.
# Too slow for CI (some 75 minutes on 2 cores): run it before submitting a
# change to dependencies, scripts or the README.
set -eu
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || die "make test-fresh needs root (debootstrap, mounts and a mount namespace)"
"$TOP/scripts/deps.sh" --fresh

suite=${SUITE:-trixie}
case $suite in
bookworm) release="Debian 12" second=" lab-1-6.1" ;;
trixie) release="Debian 13" second="" ;;
*) die "SUITE=$suite: make test-fresh makes a bookworm or a trixie root (SUITE=trixie, the default, or SUITE=bookworm)" ;;
esac
F=${FRESH_DIR:-$TOP/build/fresh-$suite}
root=$F/root
log=$F/test-fresh.log
only=${FRESH_ONLY:-lab-1 test workflows$second}
mkdir -p "$F"
exec 9>"$F/.lock"
flock -n 9 || die "another test-fresh is using $F"

mounted() { findmnt -rn -o TARGET | awk -v r="$root" 'index($0, r) == 1' | grep -q .; }
unmount_all() {
	local t
	for t in dev/pts dev/shm dev sys proc; do
		mountpoint -q "$root/$t" 2>/dev/null && umount -l "$root/$t" 2>/dev/null
	done
	mounted && umount -R -l "$root" 2>/dev/null
	return 0
}
remove_root() {
	[ -e "$root" ] || return 0
	unmount_all
	# never delete through a mount: /dev and /sys of this machine are bound in
	mounted && die "something is still mounted under $root: not removing it (see findmnt)"
	rm -rf --one-file-system "$root"
}
trap 'unmount_all' EXIT

step_n=0 summary=""
# step NAME CMD...: run and time one step; stop with the step's name on failure
step() {
	local name=$1 t0 rc=0
	shift
	step_n=$((step_n + 1))
	t0=$(date +%s)
	info "test-fresh step $step_n: $name"
	printf '\n### step %d: %s\n' "$step_n" "$name" >>"$log"
	"$@" >>"$log" 2>&1 || rc=$?
	local dt=$(($(date +%s) - t0))
	if [ "$rc" -eq 0 ]; then
		summary="$summary$(printf '  %-44s %s  %4d s' "$name" ok "$dt")
"
		return 0
	fi
	summary="$summary$(printf '  %-44s %s  %4d s' "$name" "FAILED (exit $rc)" "$dt")
"
	printf '%s' "$summary" >&2
	printf '%serror:%s test-fresh: step %d, "%s", failed (exit %d) after %d s. Its last lines:\n' \
		"$C_RED" "$C_OFF" "$step_n" "$name" "$rc" "$dt" >&2
	tail -25 "$log" | sed 's/^/    /' >&2
	printf 'Full log: %s\n' "$log" >&2
	exit 1
}

# The mirror, from this machine's Debian apt sources (one-line or deb822
# format): mirror main gives the archive's URI, mirror security the
# security archive's (the line of a *-security suite).
mirror() {
	local m
	m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v want="$1" '$1 == "deb" && $0 ~ /(bookworm|trixie)/ {
			sec = ($0 ~ /-security/); if ((want == "security") != sec) next
			for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }')
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk -v want="$1" 'BEGIN { RS = "" } /Suites:[^\n]*(bookworm|trixie)/ {
			sec = ($0 ~ /Suites:[^\n]*-security/); if ((want == "security") != sec) next
			if (match($0, /URIs: *[^ \n]+/)) { u = substr($0, RSTART, RLENGTH); sub(/URIs: */, "", u); print u; exit } }')
	[ -n "$m" ] || die "no Debian $1 mirror in /etc/apt/sources.list*: cannot debootstrap"
	echo "$m"
}

: >"$log"
start=$(date +%s)
head=$(git -C "$TOP" rev-parse --short HEAD)
remove_root
mkdir -p "$root"
m=$(mirror main)
ms=$(mirror security)
info "a minimal $release root in ${root#"$TOP"/}, from $m (log: ${log#"$TOP"/})"
step "debootstrap --variant=minbase $suite" \
	debootstrap --variant=minbase --include=make "$suite" "$root" "$m"

# the release's own suites, updates and security too (Debian 12 has
# linux-source-6.12 from its security suite), from this machine's mirror;
# its DNS and apt settings (a proxy)
step "apt sources ($suite, $suite-updates, $suite-security) and DNS" sh -c "
	rm -f '$root/etc/apt/sources.list'
	mkdir -p '$root/etc/apt/sources.list.d'
	printf 'Types: deb\\nURIs: %s\\nSuites: %s %s-updates\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n\\nTypes: deb\\nURIs: %s\\nSuites: %s-security\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n' \
		'$m' '$suite' '$suite' '$ms' '$suite' >'$root/etc/apt/sources.list.d/debian.sources'
	cp -L /etc/resolv.conf '$root/etc/resolv.conf' 2>/dev/null || :
	cp -a /etc/apt/apt.conf.d/. '$root/etc/apt/apt.conf.d/' 2>/dev/null || :"

# the commit named when the run began, not what HEAD is when debootstrap
# is done minutes later (a commit made meanwhile would be tested unsaid)
step "a clean clone of HEAD ($head)" \
	sh -c 'git clone -q --no-local --no-hardlinks "$1" "$2" && git -C "$2" checkout -q -B main "$3"' - \
	"$TOP" "$root/root/userns-labs" "$head"

printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" # no services started
chmod 755 "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"

# in_root CMD: run CMD in the clone inside the root, as a new login would.
# Not chroot: the kernel refuses a user namespace to a process in a chroot
# (user_namespaces(7)), and the grader's sandbox (bubblewrap) needs one. In
# a mount namespace of its own, the root becomes that namespace's root
# (pivot_root), as on a machine of its own.
in_root() {
	# shellcheck disable=SC2016 # the inner shell's own $1 and $2
	unshare --mount --propagation private --fork -- /bin/sh -c '
		mount --rbind "$1" "$1" && cd "$1" && mkdir -p .in-root-old &&
			pivot_root . .in-root-old || exit 125
		cd / && umount -l /.in-root-old && rmdir /.in-root-old
		exec /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -c "cd /root/userns-labs && $2"' sh "$root" "$1"
}
# in_container CMD: as in_root, but in a container of the root as it is
# now, as Docker starts one from an image: an overlay whose lower layer is
# the root and whose upper layer, $F/container/upper, is thrown away after
# (what the caller puts there first is in the container too). Nothing CMD
# does changes the root.
in_container() {
	local c=$F/container
	mkdir -p "$c/upper" "$c/work" "$c/merged"
	# shellcheck disable=SC2016 # the inner shell's own $1, $2 and $3
	unshare --mount --propagation private --fork -- /bin/sh -c '
		mount -t overlay userns-labs-container -o "lowerdir=$1,upperdir=$3/upper,workdir=$3/work" "$3/merged" &&
			mount -t proc proc "$3/merged/proc" && mount -t sysfs sysfs "$3/merged/sys" &&
			mount --rbind /dev "$3/merged/dev" || exit 125
		cd "$3/merged" && mkdir -p .in-root-old && pivot_root . .in-root-old || exit 125
		cd / && umount -l /.in-root-old && rmdir /.in-root-old
		exec /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -c "cd /root/userns-labs && $2"' sh "$root" "$1" "$c"
}
# gradescope_steps: the autograder zip (make gradescope LAB=1) laid out in
# the root as Gradescope lays out its image (/autograder/source, then
# run_autograder copied to /autograder/run_autograder), setup.sh run there
# as Gradescope runs it, then three submissions, each in a container of
# that image of its own (in_container), as Gradescope grades: lab 1's answer as a
# patch with the sandbox Gradescope's container allows (a user of its own,
# no namespaces), a wrong answer with the usual sandbox, and a file that
# is no patch. Each results.json must be valid (gradescope.py validate)
# and say what the grader said.
gradescope_steps() {
	local ag=$root/autograder c=$root/root/userns-labs
	step "make gradescope LAB=1 (the autograder zip)" \
		python3 "$c/scripts/gradescope.py" zip 1 "$F/autograder.zip"
	step "the zip laid out as Gradescope's image (/autograder)" python3 - "$F/autograder.zip" "$ag" <<'PY'
import os, shutil, sys, zipfile
z, ag = sys.argv[1], sys.argv[2]
shutil.rmtree(ag, ignore_errors=True)
src = os.path.join(ag, "source")
with zipfile.ZipFile(z) as f:
    for i in f.infolist():
        p = f.extract(i, src)
        mode = i.external_attr >> 16
        if mode:
            os.chmod(p, mode & 0o777)
assert os.access(os.path.join(src, "setup.sh"), os.X_OK), "setup.sh is not executable"
shutil.copy2(os.path.join(src, "run_autograder"), os.path.join(ag, "run_autograder"))
print("laid out in", ag)
PY
	step "setup.sh (as Gradescope builds the image)" in_root "cd /autograder/source && bash ./setup.sh"
	gs_submission "lab 1's answer, sandbox without namespaces" "USERNS_SANDBOX_MODE=uid" \
		"$c/solutions/01-userns-ignore-unmapped-setid.patch" 10 PASS
	gs_submission "a wrong answer" "" "$c/tests/fixtures/grade/wrong.patch" 0 FAIL
	gs_submission "a file that is no patch" "" "$c/README.md" 0 EMPTY
}
# gs_submission NAME ENV FILE SCORE RESULT: FILE as the submission, graded by
# /autograder/run_autograder; its results.json valid, its score SCORE and
# the grader's result RESULT
gs_submission() {
	local c=$F/container
	rm -rf -- "$c" "$root/autograder/submission" "$root/autograder/results"
	mkdir -p "$c/upper/autograder/submission" "$c/upper/autograder/results"
	cp -- "$3" "$c/upper/autograder/submission/"
	step "run_autograder: $1" in_container "$2 /autograder/run_autograder >/autograder/results/stdout 2>&1;
		python3 /autograder/source/scripts/gradescope.py validate /autograder/results/results.json &&
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(\"score\", d[\"score\"], \"time\", d.get(\"execution_time\"), \"s\"); sys.exit(not (d[\"score\"] == float(sys.argv[2]) and d.get(\"extra_data\", {}).get(\"result\") == sys.argv[3]))' /autograder/results/results.json $4 $5"
	cp -- "$c/upper/autograder/results/results.json" "$F/results-$(printf '%s' "$1" | tr -c 'A-Za-z0-9' '-').json" 2>/dev/null || :
	rm -rf -- "$c"
}
for cmd in $only; do
	case $cmd in
	# lab 1's check fails at its start, as it should, and make lab-1 says
	# so and succeeds: the step passes when it did, and the guest ran the
	# check to the end and said so on its results channel
	lab-1) step "make lab-1 (README, first command: base 6.12)" in_root "make lab-1 >/tmp/fresh-lab-1.out 2>&1; rc=\$?; cat /tmp/fresh-lab-1.out; [ \$rc -eq 0 ] &&
		grep -q 'This is the start of lab 1' /tmp/fresh-lab-1.out &&
		grep -qx '# userns-labs base: 6.12' build/logs/check-lab-01.ktap &&
		scripts/ktap.sh json build/logs/check-lab-01.ktap | grep -q '\"ended\": true' &&
		scripts/ktap.sh results build/logs/check-lab-01.ktap 01 | grep -E '^01 (FAIL|PASS) [0-9]+ [1-9]'" ;;
	lab-1-6.1) step "make lab-1 KERNEL=6.1 (README, Debian 12's own kernel)" in_root "make lab-1 KERNEL=6.1 &&
		grep -qx '# userns-labs base: 6.1' build/6.1/logs/check-lab-01.ktap &&
		scripts/ktap.sh json build/6.1/logs/check-lab-01.ktap | grep -q '\"ended\": true' &&
		KERNEL=6.1 scripts/ktap.sh results build/6.1/logs/check-lab-01.ktap 01 | grep -E '^01 (FAIL|PASS) [0-9]+ [1-9]'" ;;
	test) step "make test (README, second command)" in_root "make test" ;;
	workflows) step "ci/github templates, as a runner" in_root "make test-workflows" ;;
	gradescope) gradescope_steps ;;
	*) die "FRESH_ONLY: unknown command '$cmd' (lab-1, test, workflows, lab-1-6.1, gradescope)" ;;
	esac
done
tail -3 "$log" | grep -E '^total: ' | sed 's/^/    /' || true

unmount_all
[ -n "${FRESH_KEEP:-}" ] || remove_root
printf '\ntest-fresh (%s, %s): every step passed in %d s (HEAD %s)\n%s' "$suite" "$release" \
	"$(($(date +%s) - start))" "$head" "$summary"
