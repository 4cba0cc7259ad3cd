# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Common settings and helpers for the userns-labs scripts. Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The kernel base: Debian's linux-source the course's patches are written
# for. 6.12, Debian stable's kernel (Debian 13's, and Debian 12's from its
# security suite), is the main base: its tree is build/linux, its build
# folder build/. 6.1 (Debian 12's own) is the second, in build/6.1/. The
# patches are one series, the main base's (kernel-steps/, solutions/); the
# other base keeps only its own patch of a step whose code differs there
# (kernel-steps/6.1/NAME, solutions/6.1/NAME, in place of NAME: base_patch
# below). Each base has its own kernel repository, so a student's branches
# are per base. KERNEL=6.1 on
# make's command line picks one, and make lab-N remembers it (build/KERNEL);
# without either, the main base if its source is installed, else the one
# that is, else the main base (make lab-N installs it).
MAIN_BASE=6.12
BASES="6.12 6.1"
base_installed() { # the base this machine has or would install
	local b
	for b in $BASES; do
		[ ! -f "/usr/src/linux-source-$b.tar.xz" ] || { echo "$b"; return; }
	done
	echo "$MAIN_BASE"
}
base_remembered() { cat "$TOP/build/KERNEL" 2>/dev/null || true; }
if [ -n "${KERNEL:-}" ]; then
	KERNEL_GIVEN=1
else
	KERNEL_GIVEN=
	KERNEL=$(base_remembered)
	[ -n "$KERNEL" ] || KERNEL=$(base_installed)
fi
case " $BASES " in
*" $KERNEL "*) ;;
*)
	printf 'error: KERNEL=%s: the course has the bases %s (KERNEL=6.12 or KERNEL=6.1)\n' "$KERNEL" "$BASES" >&2
	exit 2 ;;
esac
export KERNEL
# base_sub: '' for the main base, '6.1' for the other (its build folder's
# sub-folder, and of kernel-steps/ and solutions/ for its own patches);
# base_build: a base's own build folder
base_sub() { [ "$1" = "$MAIN_BASE" ] || echo "$1"; }
base_build() { local s; s=$(base_sub "$1"); echo "$TOP/build${s:+/$s}"; }

# layout_migrate: until 2026-12 the first layout was 6.1's (build/linux,
# build/6.12/linux). A checkout with that layout is moved once, kernel
# repositories, branches, objects and results alike, to the one above:
# 6.1's folders into build/6.1/, build/6.12/'s up into build/. Linked
# worktrees (make test's, the grader's) are repaired to their new places.
layout_migrate() {
	local b=$TOP/build e wts r
	[ -f "$b/linux/Makefile" ] && [ ! -e "$b/6.1" ] &&
		[ "$(sed -n 's/^PATCHLEVEL = //p' "$b/linux/Makefile" 2>/dev/null)" = 1 ] || return 0
	exec 9>"$b/.layout-lock"
	flock 9
	if [ -e "$b/6.1" ]; then exec 9>&-; return 0; fi # done by another process meanwhile
	printf '==> moving this checkout to the new layout: base 6.1 into build/6.1/, base 6.12 (the main base now) into build/\n' >&2
	mkdir "$b/6.1.moving"
	for e in "$b"/* "$b"/.[!.]*; do
		[ -e "$e" ] || continue
		case ${e##*/} in 6.12 | 6.1.moving | KERNEL | prewarm.log | .layout-lock) continue ;; esac
		mv -- "$e" "$b/6.1.moving/"
	done
	mv -- "$b/6.1.moving" "$b/6.1"
	if [ -d "$b/6.12" ]; then
		for e in "$b"/6.12/* "$b"/6.12/.[!.]*; do
			[ -e "$e" ] || continue
			mv -- "$e" "$b/"
		done
		rmdir -- "$b/6.12" 2>/dev/null || true
	fi
	# each repository's linked worktrees, where they are now
	for r in "$b/6.1" "$b"; do
		[ -e "$r/linux/.git" ] || continue
		wts=$(find "$r" -mindepth 1 \( -path "$b/6.1" -o -path "$r/linux" \) -prune -o -name .git -type f \
			-exec grep -l "^gitdir: .*/linux/.git/worktrees/" {} + 2>/dev/null | sed 's#/\.git$##')
		# shellcheck disable=SC2086 # paths without spaces: the course's own folders
		git -C "$r/linux" worktree repair $wts >/dev/null 2>&1 || true
		git -C "$r/linux" worktree prune 2>/dev/null || true
	done
	exec 9>&-
}
layout_migrate
BASE_SUB=$(base_sub "$KERNEL")
BUILD=${BUILD:-$(base_build "$KERNEL")}
KERNEL_DIR=${KERNEL_DIR:-$BUILD/linux}
OBJ_DIR=${OBJ_DIR:-$BUILD/obj}
GUEST_DIR=${GUEST_DIR:-$BUILD/guest}
LOG_DIR=${LOG_DIR:-$BUILD/logs}
TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-$KERNEL.tar.xz}
# The series (the main base's patches) and the config fragments both bases
# read; a base's own patches are in their sub-folder BASE_SUB
STEPS_DIR=${STEPS_DIR:-$TOP/kernel-steps}
SOLUTIONS_DIR=${SOLUTIONS_DIR:-$TOP/solutions}
# base_patch kernel-steps/NAME|solutions/NAME: the file base KERNEL applies
# for that step: its own (kernel-steps/6.1/NAME) if it has one, else the
# series' (kernel-steps/NAME), which may not exist
base_patch() {
	local s
	s=$(series_patch "$1") || return 1
	if [ -n "$BASE_SUB" ] && [ -f "${s%/*}/$BASE_SUB/${s##*/}" ]; then
		printf '%s\n' "${s%/*}/$BASE_SUB/${s##*/}"
	else
		printf '%s\n' "$s"
	fi
}
# series_patch kernel-steps/NAME|solutions/NAME: the series' file of that
# name (which may not exist)
series_patch() {
	case $1 in
	kernel-steps/*) printf '%s/%s\n' "$STEPS_DIR" "${1#kernel-steps/}" ;;
	solutions/*) printf '%s/%s\n' "$SOLUTIONS_DIR" "${1#solutions/}" ;;
	*) return 1 ;;
	esac
}
# base_patches kernel-steps|solutions GLOB: the files base KERNEL applies for
# the steps whose names match GLOB (the series' names and its own), in
# name order
base_patches() {
	local d f
	case $1 in kernel-steps) d=$STEPS_DIR ;; solutions) d=$SOLUTIONS_DIR ;; *) return 1 ;; esac
	for f in "$d"/$2 ${BASE_SUB:+"$d/$BASE_SUB"/$2}; do
		[ -f "$f" ] && printf '%s\n' "${f##*/}"
	done | LC_ALL=C sort -u | while read -r f; do base_patch "$1/$f"; done
}
# What a base's BASE file says (kernel-steps/BASE, kernel-steps/6.1/BASE):
# package, version, kernelversion, members, files
base_info() { sed -n "s/^$1=//p" "$STEPS_DIR${BASE_SUB:+/$BASE_SUB}/BASE" 2>/dev/null || true; }
# One line for headers and reports: "linux-source-6.12 6.12.118-1~deb12u1"
# (the version installed here when dpkg knows the package: Debian 13's and
# Debian 12's builds of one tree differ in it; else the BASE file's)
base_line() {
	local p v
	p=$(base_info package)
	p=${p:-linux-source-$KERNEL}
	v=$(dpkg-query -W -f '${Version}' "$p" 2>/dev/null) || v=""
	[ -n "$v" ] || v=$(base_info version)
	printf '%s %s\n' "$p" "${v:-(no BASE file)}"
}
LABS_DIR=${LABS_DIR:-$TOP/labs}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# Debian's python3 (the one make deps installs) before any other python3
# on PATH, and nothing else moved: a version manager's shim (pyenv's) costs
# some 0.3 s a call, and a check makes a dozen calls. scripts/bin holds
# only python3, which runs /usr/bin/python3.
case ":$PATH:" in
*":$TOP/scripts/bin:"*) ;;
*) [ ! -x /usr/bin/python3 ] || PATH=$TOP/scripts/bin:$PATH ;;
esac
# Relative paths given by the caller would be taken relative to the kernel
# tree once make changes directory: make them absolute here.
for _v in BUILD KERNEL_DIR OBJ_DIR GUEST_DIR LOG_DIR; do
	eval "$_v=\$(realpath -m -- \"\$$_v\")"
done
unset _v

# Fixed identity and dates: the tags made from the same patches get the same
# commit ids on every machine.
export GIT_COMMITTER_NAME="userns-labs"
export GIT_COMMITTER_EMAIL="userns-labs@localhost"
export GIT_COMMITTER_DATE="2012-12-10T00:00:00+0000"

if [ -t 2 ] && [ -z "${NO_COLOR:-}" ]; then
	C_RED=$'\e[31m' C_GRN=$'\e[32m' C_YEL=$'\e[33m' C_BLD=$'\e[1m' C_OFF=$'\e[0m'
else
	C_RED='' C_GRN='' C_YEL='' C_BLD='' C_OFF=''
fi

info() { printf '%s==>%s %s\n' "$C_BLD" "$C_OFF" "$*" >&2; }
warn() { printf '%swarning:%s %s\n' "$C_YEL" "$C_OFF" "$*" >&2; }
die() {
	printf '%serror:%s %s\n' "$C_RED" "$C_OFF" "$*" >&2
	exit 1
}

# stop_early_boot: a build is needed: the boot that lab.sh started with
# the last kernel and initramfs (its early_boot) is stopped, and marked
# stale so that none of its results is read
stop_early_boot() {
	[ -n "${EARLY_BOOT_PID:-}" ] && [ -n "${EARLY_BOOT_STALE:-}" ] || return 0
	# (once: after that the boot may be reaped, its pid another's)
	[ ! -e "$EARLY_BOOT_STALE" ] || return 0
	: >"$EARLY_BOOT_STALE"
	kill -TERM -- "-$EARLY_BOOT_PID" "$EARLY_BOOT_PID" 2>/dev/null || true
	EARLY_BOOT_PID=
}

# on_interrupt TEXT: Ctrl-C (SIGINT) or SIGTERM from here on says TEXT in
# one line ("stopped (Ctrl-C): TEXT"), runs the function interrupt_cleanup
# when the script has one, and ends the script by that same signal, so
# that whatever ran it (lab.sh, make) stops too and nothing reads a Ctrl-C
# as a result (a failed build, a failed check). Bash runs the trap once
# the command in the foreground has ended: a command that Ctrl-C reaches
# too (make, QEMU) ends first, its output written.
on_interrupt() {
	INTERRUPT_TEXT=$1
	trap '_interrupted INT' INT
	trap '_interrupted TERM' TERM
}
_interrupted() {
	trap - INT TERM
	[ "$(type -t interrupt_cleanup)" != function ] || interrupt_cleanup || true
	printf '\n%sstopped%s (%s): %s\n' "$C_RED" "$C_OFF" \
		"$([ "$1" = INT ] && echo Ctrl-C || echo SIG"$1")" "$INTERRUPT_TEXT" >&2
	kill -"$1" $$
	exit 130
}

# deb_packaged PKG: apt knows a package of exactly this name (apt-get and
# apt-cache take a name with a dot as a pattern: linux-source-6.1 would
# match linux-source-6.12)
deb_packaged() { apt-cache show --no-all-versions -- "$1" 2>/dev/null | grep -qx "Package: $1"; }

# git in the kernel tree
kgit() { git -C "$KERNEL_DIR" "$@"; }

# Lab folders, in course order: labs/NN-slug
lab_dirs() {
	local d
	for d in "$LABS_DIR"/[0-9][0-9]-*/; do
		[ -d "$d" ] && printf '%s\n' "${d%/}"
	done
}

# lab_dir N -> labs/NN-slug (N may be 1 or 01)
lab_dir() {
	local n
	n=$(printf '%02d' "$((10#$1))")
	local d
	for d in "$LABS_DIR"/"$n"-*/; do
		[ -d "$d" ] && { printf '%s\n' "${d%/}"; return 0; }
	done
	return 1
}

# lab_num labs/NN-slug -> NN
lab_num() { basename "$1" | cut -c1-2; }

# labconf_cache: the file of every lab's lab.conf values, as
# scripts/labconf.py (the one reader of a lab's declarations) reads them:
# shell assignments labconf_NN_KEY='value'. Named by what it was made from
# (LABS_DIR, and each lab.conf's name, size and time, and labconf.py's), so
# a changed lab.conf makes a new one; a Python start per value would cost
# a tenth of a second, the file a few milliseconds.
labconf_cache() {
	local key d
	if [ "${_labconf_dir-}" = "$LABS_DIR" ] && [ -f "${_labconf_file-}" ]; then
		printf '%s\n' "$_labconf_file"
		return
	fi
	d=$TOP/build/labconf
	key=$( { printf '%s\n' "$LABS_DIR"; stat -c '%n %s %.9Y' "$LABS_DIR"/*/lab.conf "$TOP/scripts/labconf.py" 2>/dev/null; } | cksum | cut -d' ' -f1)
	if [ ! -f "$d/$key.sh" ]; then
		mkdir -p "$d"
		python3 "$TOP/scripts/labconf.py" cache "$LABS_DIR" "$d/$key.sh" >&2 || return 1
	fi
	printf '%s\n' "$d/$key.sh"
}
# labconf_load: find the cache once in this shell, for a loop of lab_conf
# calls (each in a subshell of its own would look again)
labconf_load() {
	_labconf_file=$(labconf_cache) && _labconf_dir=$LABS_DIR
}

# lab_conf N KEY [default]: a value of labs/NN-*/lab.conf (scripts/labconf.py
# keys lists them), else DEFAULT, else the key's own default
lab_conf() {
	local dir n key=$2 def=${3:-} cache v
	case $key in "" | *[!A-Z_]*) die "lab_conf: '$key' is no key of lab.conf" ;; esac
	dir=$(lab_dir "$1") || return 1
	n=${dir##*/} n=${n:0:2}
	cache=$(labconf_cache) || return 1
	# shellcheck disable=SC1090 # written by labconf.py, values quoted
	. "$cache"
	eval "v=\${labconf_${n}_${key}-UNSET}"
	if [ "$v" = UNSET ]; then
		[ -f "$dir/lab.conf" ] || return 1
		die "lab_conf: $key is no key of lab.conf (scripts/labconf.py keys)"
	fi
	[ -n "$v" ] || v=$def
	# (the key's own default, from the cache too: labconf.py's get)
	[ -n "$v" ] || eval "v=\${labconf_${n}_${key}_dflt-}"
	printf '%s\n' "$v"
}

# The kernel step a lab's check needs (lab.conf NEEDS_STEP, default: its own number).
lab_needs_step() { lab_conf "$1" NEEDS_STEP "$((10#$1))"; }

# Highest numbered kernel step that exists (kernel-steps/NN-* or solutions/NN-*).
last_step() {
	local f n max=0
	while read -r f; do
		n=$(basename "$f" | cut -c1-2)
		[ "$((10#$n))" -gt "$max" ] && max=$((10#$n))
	done < <(base_patches solutions '[0-9][0-9]-*.patch')
	echo "$max"
}

# The tag a step number stands for: 0 -> lab-00, k -> lab-kk-done
step_tag() {
	if [ "$1" -eq 0 ]; then echo lab-00; else printf 'lab-%02d-done\n' "$1"; fi
}

# What the lab tags are made from: every patch, and the list of labs (a lab
# with no patch of its own still gets its tags). apply-steps.sh records it in
# the kernel repository's config as userns-labs.steps.
steps_fingerprint() {
	{
		{ base_patches kernel-steps '*.patch'; base_patches solutions '*.patch'; } | while read -r f; do
			basename "$f"
			cat "$f"
		done
		lab_dirs | xargs -r -n1 basename
	} | sha1sum | cut -c1-40
}

need_kernel_tree() {
	[ -e "$KERNEL_DIR/.git" ] || die "no kernel tree at $KERNEL_DIR: run 'make tree' (or 'make lab-1') first"
}

# Is the kernel work tree clean? Lists what is not, on stdout. Debian's
# top-level .gitignore hides every top-level entry, so ignored files count too
# (the build is out of tree: nothing belongs there but the student's work).
tree_dirt() {
	kgit status --porcelain --untracked-files=all --ignored=matching 2>/dev/null
}

# Where the tree is, in words: "lab 13 start + 1 commit", "lab 3 done",
# or the short commit id when no lab tag is near.
tree_where() {
	local d tag n k
	d=$(kgit describe --tags --match 'lab-*' HEAD 2>/dev/null) ||
		{ kgit describe --tags --exact-match HEAD 2>/dev/null || kgit rev-parse --short HEAD; return; }
	tag=${d%-*-g*}
	n=0
	if [ "$tag" != "$d" ]; then
		n=${d#"$tag"-}
		n=${n%%-*}
	fi
	case $tag in
	lab-00) tag="step 0 (the rewound 3.7 behaviour)" ;;
	lab-[0-9][0-9]-start | lab-[0-9][0-9]-done)
		k=${tag#lab-}
		tag="lab $((10#${k%%-*})) ${k#*-}" ;;
	esac
	case $n in
	0) printf '%s\n' "$tag" ;;
	1) printf '%s + 1 commit\n' "$tag" ;;
	*) printf '%s + %s commits\n' "$tag" "$n" ;;
	esac
}

# The whole state of the work tree (committed, staged, changed and new
# files) as one git tree id, without touching the real index: what the
# kernel would be built from. Empty when git cannot say. work_tree_id N:
# git runs at niceness N (beside a compile that must not wait for it: its
# lstat threads would take both cores).
work_tree_id() {
	local idx gd id="" keep nice=()
	[ -z "${1:-}" ] || nice=(nice -n "$1")
	gd=$(kgit rev-parse --absolute-git-dir 2>/dev/null) || return 0
	# An index of our own, kept from one call to the next beside the
	# objects (WORK_INDEX, or OBJ_DIR's): its record of each file's size
	# and times is fresh, so 'add -A' reads no file that did not change,
	# and write-tree reuses the trees it knows. A temporary copy of the
	# real index when there is no such place.
	keep=${WORK_INDEX:-$OBJ_DIR/.userns-labs-index}
	if [ -d "$(dirname "$keep")" ] && [ -w "$(dirname "$keep")" ]; then
		idx=$keep
		[ -f "$idx" ] || cp "$gd/index" "$idx" 2>/dev/null || true
	else
		keep=
		idx=$(mktemp "${TMPDIR:-/tmp}/userns-labs-index.XXXXXX")
		cp "$gd/index" "$idx" 2>/dev/null || true
	fi
	if GIT_INDEX_FILE=$idx "${nice[@]}" git -C "$KERNEL_DIR" add -A >/dev/null 2>&1; then
		id=$(GIT_INDEX_FILE=$idx "${nice[@]}" git -C "$KERNEL_DIR" write-tree 2>/dev/null || true)
	else
		# (a broken index of ours: made again next time)
		rm -f "$idx"
	fi
	[ -n "$keep" ] || rm -f "$idx"
	printf '%s\n' "$id"
}

require_clean_tree() {
	local dirt branch
	dirt=$(tree_dirt)
	[ -z "$dirt" ] && return 0
	branch=$(kgit symbolic-ref --short -q HEAD || echo "(detached)")
	printf '%serror:%s the kernel tree %s has work that is not committed (branch %s):\n' \
		"$C_RED" "$C_OFF" "$KERNEL_DIR" "$branch" >&2
	printf '%s\n' "$dirt" | head -20 | sed 's/^/    /' >&2
	cat >&2 <<EOT
Nothing was changed. Save your work first, then run the command again:
    git -C $KERNEL_DIR add -A && git -C $KERNEL_DIR commit -m "my work"   # keep it on $branch
or  git -C $KERNEL_DIR stash push --include-untracked                      # put it aside
EOT
	exit 1
}

# Debian's top-level .gitignore ends in '/*' and '!/debian/', which hides
# every new file from 'git status'. The commit keeps the file byte for byte;
# only the working copy drops those two lines, and git is told not to look.
unhide_new_files() {
	local gi=$KERNEL_DIR/.gitignore
	[ -f "$gi" ] || return 0
	if grep -qx '/\*' "$gi"; then
		kgit update-index --skip-worktree .gitignore
		grep -vx -e '/\*' -e '!/debian/' "$gi" >"$gi.new" || true
		mv "$gi.new" "$gi"
	fi
}

# The lab the tree is on: from the branch name, else from the tag at HEAD.
current_lab() {
	local b t
	b=$(kgit symbolic-ref --short -q HEAD || true)
	case $b in
	student/lab-[0-9][0-9] | solution/lab-[0-9][0-9]) echo "${b##*lab-}"; return ;;
	esac
	t=$(kgit describe --tags --exact-match HEAD 2>/dev/null || true)
	case $t in
	lab-[0-9][0-9]-*) echo "$t" | cut -c5-6; return ;;
	esac
	return 1
}

# guest_cmdline MODE: the kernel command line of a guest boot (run-qemu.sh,
# replay.sh), before the labs it runs: the console, /init, its mode, the base.
# pty.legacy_count=0: none of the 256 BSD ptys (/dev/ptyXX) that tinyconfig's
# LEGACY_PTYS makes at boot, a quarter of a second of the emulated CPU's
# boot; the guest has Unix98 ptys (devpts), and nothing in it opens the old.
# noapictimer: no calibration of the local APIC's timer against the PIT,
# two loops of a tenth of a second each in the emulated CPU, after which
# the emulated timer often failed the kernel's check and was not used
# anyway; the PIT gives the ticks (one CPU, nothing to broadcast to).
# i8042.noaux i8042.nokbd: no PS/2 mouse or keyboard probed; the mouse's
# probe ran for 0.4 to 0.7 s (initcall_debug) beside the unpacking and the
# start of /init, on the one emulated CPU, and without it /init started
# 0.23 s sooner (medians of 8 boots). The console, the only input, is the
# serial port. (Together some 0.4 s of a boot of 2.3 s here: guest times
# of the start of /init and of the end.)
guest_cmdline() {
	printf '%s\n' "console=ttyS0 loglevel=4 panic=-1 no_timer_check pty.legacy_count=0 noapictimer i8042.noaux i8042.nokbd rdinit=/init labs.mode=$1 labs.base=$KERNEL"
}

# kbuild_make: the make command of the course's kernel builds in KMAKE (out
# of tree in OBJ_DIR, ccache when there is one), and kbuild's fixed
# identity and date in the environment
KBUILD_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
kbuild_make() {
	export ARCH=x86_64 KBUILD_BUILD_USER=userns-labs KBUILD_BUILD_HOST=qemu
	export KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-2012-12-10}"
	# (with the system's PATH, the grader's sandbox's: what kbuild's
	# Kconfig probes for, a rustc, a python3, is then Debian's and the
	# same for make check and the grader; a rustc of rustup's in ~/.cargo
	# would put its version in .config, and the grader's build, which
	# has none, would run Kconfig again and build another configuration)
	KMAKE=(env PATH="$KBUILD_PATH" make -C "$KERNEL_DIR" O="$OBJ_DIR" -j"$JOBS" LOCALVERSION=-userns-labs)
	# LLVM's linker when it is installed (make deps installs it): kbuild
	# supports it beside gcc, and it links vmlinux in half of ld.bfd's
	# time (three links a build, for kallsyms). KERNEL_LD=ld: binutils'.
	local ld=${KERNEL_LD:-ld.lld}
	[ "$ld" != ld.lld ] || PATH=$KBUILD_PATH command -v ld.lld >/dev/null 2>&1 || ld=ld
	case $ld in ld | ld.bfd | ld.lld) ;; *) die "KERNEL_LD must be ld, ld.bfd or ld.lld, not '$ld'" ;; esac
	[ "$ld" = ld ] || KMAKE+=(LD="$ld")
	if PATH=$KBUILD_PATH command -v ccache >/dev/null 2>&1 && [ -z "${NO_CCACHE:-}" ]; then
		# (not ccache's depend mode, which would save the preprocessor's
		# run on a miss, a fifth of the compile: it gives gcc the paths as
		# kbuild wrote them, absolute, where ccache otherwise makes them
		# relative to CCACHE_BASEDIR; kbuild's -fmacro-prefix-map then
		# changes every __FILE__ in the object, so the kernel's bytes
		# would depend on what the cache held, and the compiler's
		# messages would name absolute paths)
		export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=1
		KMAKE+=(CC="ccache gcc")
	fi
}

# copy_obj FROM TO: a copy of a kernel obj dir, for a worktree of the same
# repository (FROM's .cmd files name sources relative to the obj dir,
# ../linux: TO must have the worktree as its sibling 'linux', as FROM has).
# The record of the tree FROM was built from goes with it: the next build in
# TO compiles what differs (build-kernel.sh's fast path), or kbuild's full
# run after the differing files are touched (.userns-labs-copied): each
# copied file is made newer than the worktree's, each differing file then
# newer than the copy. objtool's
# own build names its objects by absolute path: the copy's name the copy.
# AS: the path the copy will be seen at, when not TO (the grader's sandbox
# sees its copy at /tmp/sbx/obj, beside /tmp/sbx/linux).
copy_obj() {
	local from=$1 to=$2 as=${3:-$2} a b c d
	[ -f "$from/.userns-labs-tree" ] || return 1
	rm -rf -- "$to"
	cp -a -- "$from" "$to" || return 1
	# (and work_tree_id's index: its record of file times is the other
	# tree's, and would make git read every file of this one again; and
	# build-kernel.sh's saved kbuild environment, which names the other
	# tree's folders)
	rm -f -- "$to"/.userns-labs-built "$to/vmlinux-gdb.py" "$to/.userns-labs-index" \
		"$to/.userns-labs-kbuild-env"
	# absolute paths in kbuild's records: objtool's objects (by the obj
	# dir's path), host programs' sources, some folders' include paths, the
	# source tree that Kconfig read (include/config/auto.conf.cmd)
	a=$(printf '%s/' "$from" | sed 's/[].[*^$#\\/]/\\&/g')
	b=$(printf '%s/' "$as" | sed 's/[&#\\]/\\&/g')
	c=$(printf '%s/linux' "$(dirname "$from")" | sed 's/[].[*^$#\\/]/\\&/g')
	d=$(printf '%s/linux' "$(dirname "$as")" | sed 's/[&#\\]/\\&/g')
	{
		find "$to" -name '.*.cmd'
		[ ! -f "$to/include/config/auto.conf.cmd" ] || echo "$to/include/config/auto.conf.cmd"
	} | xargs -r -d '\n' grep -l -F -e "$from/" -e "$(dirname "$from")/linux" |
		xargs -r -d '\n' sed -i -e "s#$a#$b#g" -e "s#$c#$d#g"
	# every copied file newer than the worktree's sources, and all of one
	# time (one file newer than another it was made from, .config than
	# auto.conf, would make kbuild redo it): make's times say nothing about
	# another tree, the record does (see build-kernel.sh)
	find "$to" -exec touch -c -h -d "@$(date +%s.%N)" -- {} +
	: >"$to/.userns-labs-copied"
}
