#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Conformance: the kernel tree's own selftests that cover namespaces, built
# statically from the tree at the tag, run in the guest at that tag.
#
#   conformance.sh [--tag TAG]   default: the final step (the highest
#                                lab-NN-done, or distro)
#
# At the final step the tree is Debian's own: every selftest must pass, or
# skip for a stated reason (a config option the guest kernel does not have).
# A failure there means the series changed stock behaviour: fix the series,
# never the test. At lab-00 (the rewound kernel) several of them fail.
#
# Everything happens in its own worktree and build directories
# (CONFORMANCE_DIR, default build/conformance): the student's tree is never
# touched. The selftests are rebuilt only when their sources, the kernel's
# UAPI headers, the compiler or the list below change. Exit status: 0 every
# selftest passed or skipped for a stated reason, 1 a selftest failed (or
# the guest did not finish), 2 something could not be built.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu-outcomes.sh"

# The selftests, one run per line:
#   NAME | SOURCE (under tools/testing/selftests) | EXTRA CFLAGS | UID | NEEDS | TIMEOUT
# NAME is the KTAP name; UID the user that runs it (1000: the unprivileged
# student, through the guest's runas); NEEDS the CONFIG_ options (without the
# prefix) the test cannot do without: when one is off in the guest kernel,
# the run is reported as SKIP with that reason, not run.
SELFTESTS='
nsfs/owner                 | nsfs/owner.c                 |               | 0    | USER_NS UTS_NS                      | 60
nsfs/owner@uid1000         | nsfs/owner.c                 |               | 1000 | USER_NS UTS_NS                      | 60
nsfs/pidns                 | nsfs/pidns.c                 |               | 0    | USER_NS PID_NS                      | 60
nsfs/pidns@uid1000         | nsfs/pidns.c                 |               | 1000 | USER_NS PID_NS                      | 60
pidfd/pidfd_setns_test     | pidfd/pidfd_setns_test.c     |               | 0    | USER_NS PID_NS NET_NS UTS_NS IPC_NS | 120
pidfd/pidfd_setns_test@uid1000 | pidfd/pidfd_setns_test.c |               | 1000 | USER_NS PID_NS NET_NS UTS_NS IPC_NS | 120
pidfd/pidfd_fdinfo_test    | pidfd/pidfd_fdinfo_test.c    |               | 0    | PID_NS                              | 60
pidfd/pidfd_fdinfo_test@uid1000 | pidfd/pidfd_fdinfo_test.c |             | 1000 | USER_NS PID_NS                      | 60
pidfd/pidfd_test           | pidfd/pidfd_test.c           |               | 0    | PID_NS EPOLL                        | 120
proc/setns-dcache          | proc/setns-dcache.c          | -D_GNU_SOURCE | 0    | NET_NS                              | 60
proc/setns-sysvipc         | proc/setns-sysvipc.c         | -D_GNU_SOURCE | 0    | IPC_NS SYSVIPC                      | 60
mount/unprivileged-remount-test@uid1000 | mount/unprivileged-remount-test.c | | 1000 | USER_NS UNIX98_PTYS          | 60
'
# What the selftests are compiled from (their sources, the shared headers)
# and with (the kernel's UAPI headers): the cache key.
SOURCES=(tools/testing/selftests/nsfs tools/testing/selftests/pidfd tools/testing/selftests/proc
	tools/testing/selftests/mount tools/testing/selftests/clone3 tools/testing/selftests/kselftest.h
	tools/testing/selftests/kselftest_harness.h include/uapi arch/x86/include/uapi scripts/headers_install.sh)
CFLAGS_ST="-static -O2 -g0 -Wall -pthread"
RECIPE=2 # bump when the way they are built changes

tag=""
while [ $# -gt 0 ]; do
	case $1 in
	--tag) [ $# -ge 2 ] || die "--tag needs a tag"; tag=$2; shift ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "conformance.sh: unknown argument '$1' (usage: conformance.sh [--tag TAG])" ;;
	esac
	shift
done

need_kernel_tree
if [ -z "$tag" ]; then
	tag=$(kgit tag -l 'lab-[0-9][0-9]-done' | LC_ALL=C sort | tail -1)
	[ -n "$tag" ] || tag=distro
fi
kgit rev-parse -q --verify "refs/tags/$tag" >/dev/null ||
	die "no tag '$tag' in $KERNEL_DIR (make tree makes the lab tags)"

C=${CONFORMANCE_DIR:-$BUILD/conformance}
wt=$C/linux
stage=$C/selftests
extra=$C/extra
export OBJ_DIR=$C/obj GUEST_DIR=$C/guest LOG_DIR=$C/logs
mkdir -p "$C" "$LOG_DIR" "$GUEST_DIR"
exec 9>"$C/.lock"
flock -n 9 || die "another conformance run is using $C"
start=$(date +%s)

# --- the worktree at the tag ---------------------------------------------
if [ ! -e "$wt/.git" ]; then
	kgit worktree prune
	kgit worktree add -q --detach "$wt" "$tag" || die "cannot make the worktree $wt"
fi
git -C "$wt" checkout -q -f --detach "$tag"
git -C "$wt" clean -q -fdx
commit=$(git -C "$wt" rev-parse --short=10 HEAD)
info "conformance at $tag ($commit), in ${C#"$TOP"/}"

# --- the selftests, static, cached ----------------------------------------
rows=$(printf '%s\n' "$SELFTESTS" | sed -e 's/ *| */|/g' -e 's/^ *//' -e 's/ *$//' | grep -v '^$')
key=$({
	git -C "$wt" ls-tree -r HEAD -- "${SOURCES[@]}"
	gcc --version | head -1
	printf '%s\n%s\n%s\n' "$RECIPE" "$CFLAGS_ST" "$rows" | cut -d'|' -f2,3
} | sha1sum | cut -c1-40)
if [ "$(cat "$stage/.key" 2>/dev/null)" != "$key" ]; then
	info "building the selftests (static, the tree's own UAPI headers)"
	rm -rf "$stage"
	mkdir -p "$stage/bin"
	blog=$LOG_DIR/selftests-build.log
	: >"$blog"
	make -s -C "$wt" O="$C/hdr-obj" ARCH=x86_64 INSTALL_HDR_PATH="$stage/usr" headers_install \
		>>"$blog" 2>&1 || { tail -20 "$blog" >&2; printf 'Full log: %s\n' "$blog" >&2; exit 2; }
	printf '%s\n' "$rows" | cut -d'|' -f2,3 | sort -u | while IFS='|' read -r src cflags; do
		out=$stage/bin/$(basename "${src%.c}")
		# compiled in its own directory, as its Makefile does (short __FILE__)
		# shellcheck disable=SC2086
		if ! (cd "$wt/tools/testing/selftests/$(dirname "$src")" &&
			gcc $CFLAGS_ST $cflags -isystem "$stage/usr/include" -o "$out" "$(basename "$src")") >>"$blog" 2>&1; then
			printf '%serror:%s the selftest %s does not compile:\n' "$C_RED" "$C_OFF" "$src" >&2
			grep -E 'error' "$blog" | head -20 | sed 's/^/    /' >&2
			exit 2
		fi
	done
	echo "$key" >"$stage/.key"
else
	info "selftests up to date (${stage#"$TOP"/}/bin)"
fi

# --- the kernel at the tag --------------------------------------------------
BUILD_LABEL=$tag KERNEL_DIR=$wt "$TOP/scripts/build-kernel.sh" || exit 2
config=$OBJ_DIR/.config

# --- the guest runner -------------------------------------------------------
rm -rf "$extra"
mkdir -p "$extra/selftests"
cp "$stage"/bin/* "$extra/selftests/"
runner=$extra/selftests/run.sh
n=$(printf '%s\n' "$rows" | wc -l)
total_timeout=30
{
	cat <<'EOT'
#!/bin/sh
# Written by scripts/conformance.sh: runs the selftests, prints KTAP.
t() { # NUM NAME UID TIMEOUT BIN [SKIP REASON...]
	num=$1 name=$2 uid=$3 to=$4 bin=$5
	shift 5
	if [ $# -gt 0 ]; then
		echo "ok $num $name # SKIP $*"
		return
	fi
	out=/tmp/.selftest-$num
	if [ "$uid" = 0 ]; then
		timeout "$to" "$bin" >"$out" 2>&1 </dev/null
	else
		timeout "$to" runas "$uid:$uid" "$bin" >"$out" 2>&1 </dev/null
	fi
	rc=$?
	# a selftest's own KTAP becomes a subtest (Documentation/dev-tools/ktap.rst):
	# indented by two, its version line, then the "# Subtest:" header
	if grep -qE '^(K?TAP version|1\.\.[0-9])' "$out"; then
		awk -v name="$name" '
		!h && /^K?TAP version/ { print "  " $0; print "  # Subtest: " name; h = 1; next }
		!h { print "  KTAP version 1"; print "  # Subtest: " name; h = 1 }
		{ print "  " $0 }' "$out"
	else
		sed 's/^/# /' "$out"
		echo "# exit status $rc"
	fi
	if [ "$rc" -eq 0 ] && ! grep -qE '^(not ok|Bail out!)' "$out"; then
		echo "ok $num $name"
	elif [ "$rc" -eq 4 ]; then
		why=$(grep -iE 'skip' "$out" | tail -1 | sed -e 's/^[# ]*//' -e 's/#/-/g')
		echo "ok $num $name # SKIP the selftest skipped itself: ${why:-no reason given}"
	elif [ "$rc" -eq 143 ] || [ "$rc" -eq 137 ]; then
		echo "not ok $num $name # TIMEOUT after ${to}s"
	else
		echo "not ok $num $name # exit $rc"
	fi
	rm -f "$out"
}
echo "KTAP version 1"
echo "# conformance: kernel $(uname -r) $(uname -v)"
EOT
	echo "echo 1..$n"
	i=0
	while IFS='|' read -r name src _cflags uid needs to; do
		i=$((i + 1))
		skip=""
		for opt in $needs; do
			grep -qx "CONFIG_$opt=y" "$config" || skip="$skip CONFIG_$opt"
		done
		[ -z "$skip" ] || skip="needs$skip, not set in this kernel (tinyconfig + kernel-steps/config.fragment)"
		total_timeout=$((total_timeout + to))
		printf 't %d %s %s %s /selftests/%s' "$i" "$name" "$uid" "$to" "$(basename "${src%.c}")"
		[ -z "$skip" ] && printf '\n' || printf " '%s'\n" "$skip"
	done <<<"$rows"
} >"$runner"
# The guest shell runs the runner under one timeout, the boot gets a minute more.
boot_timeout=$((total_timeout + 60))

GUEST_EXTRA=$extra "$TOP/scripts/build-guest.sh" || exit 2

# --- boot, run, read ----------------------------------------------------------
log=$LOG_DIR/conformance-$tag.log
info "booting $tag and running $n selftest runs (log: ${log#"$TOP"/})"
rm -f "$log"
rc=0
"$TOP/scripts/run-qemu.sh" --script /selftests/run.sh --log "$log" \
	--timeout "$boot_timeout" --check-timeout "$total_timeout" || rc=$?
[ -f "$log" ] || : >"$log"

ktap=${log%.log}.ktap
[ -f "$ktap" ] || : >"$ktap"
results=$(awk '{ sub(/\r$/, "") }
	/^ok [0-9]+ / { st = index($0, "# SKIP") ? "SKIP" : "PASS"; print $2, st, $3; next }
	/^not ok [0-9]+ / { print $3, "FAIL", $4; next }' "$ktap")
pass=0 fail=0 skip=0
kver=$(grep -m1 '^# conformance: kernel' "$ktap" | cut -d' ' -f4- || true)
printf '\nconformance at %s (kernel %s):\n' "$tag" "${kver:-unknown: no KTAP header in the log}"
i=0
while IFS='|' read -r name _rest; do
	i=$((i + 1))
	line=$(printf '%s\n' "$results" | awk -v i="$i" '$1 == i')
	st=$(echo "$line" | awk '{ print $2 }')
	[ -n "$st" ] || st=MISSING
	case $st in
	PASS) pass=$((pass + 1)); printf '  %sPASS%s  %s\n' "$C_GRN" "$C_OFF" "$name" ;;
	SKIP)
		skip=$((skip + 1))
		printf '  %sSKIP%s  %s: %s\n' "$C_YEL" "$C_OFF" "$name" \
			"$(grep -E "^ok $i .*# SKIP" "$ktap" | head -1 | sed 's/.*# SKIP //')"
		;;
	*)
		fail=$((fail + 1))
		why=$(grep -E "^not ok $i " "$ktap" | head -1 | sed -n 's/.* # //p')
		printf '  %s%s%s  %s%s\n' "$C_RED" "${st/MISSING/MISS}" "$C_OFF" "$name" "${why:+ ($why)}"
		# what the selftest said: its failed points and their diagnostics
		awk -v name="$name" '
			$0 == "  # Subtest: " name { on = 1; next }
			on && /^(not )?ok [0-9]+ / { exit }
			on { print }' "$ktap" | grep -vE '^  (# +(RUN|OK) |ok [0-9]|# .*Managed|# .*Adding|# .*Correctly)' |
			head -15 | sed 's/^  /        /'
		;;
	esac
done <<<"$rows"
if [ "$rc" -ne "$QEMU_OK" ]; then
	printf '  %sthe guest did not finish: %s%s\n' "$C_RED" "$(qemu_outcome "$rc")" "$C_OFF"
	"$TOP/scripts/ktap.sh" trouble "$log" | head -10 | sed 's/^/      /'
	[ "$fail" -gt 0 ] || fail=1
fi
printf 'kernel log: %s, results: %s\n' "${log#"$TOP"/}" "${ktap#"$TOP"/}"
printf '(%d s)\n' "$(($(date +%s) - start))"
printf 'conformance: %d passed, %d failed, %d skipped (%s)\n' "$pass" "$fail" "$skip" "$tag"
[ "$fail" -eq 0 ]
