#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure (tinyconfig + kernel-steps/config.fragment, on either base) and build the kernel
# out of tree with ccache. The compiler's first errors are shown on failure.
set -eu
. "$(dirname "$0")/lib.sh"

need_kernel_tree
mkdir -p "$OBJ_DIR" "$LOG_DIR"
FRAG=$TOP/kernel-steps/config.fragment
log=$LOG_DIR/build-$(basename "$OBJ_DIR").log

kbuild_make
MAKE=("${KMAKE[@]}")

# EXTRA_FRAGMENT: merged after config.fragment (make gdb's debug build)
frags=("$FRAG")
[ -z "${EXTRA_FRAGMENT:-}" ] || frags+=("$EXTRA_FRAGMENT")
stamp=$OBJ_DIR/.userns-labs-config
want=$(cat "${frags[@]}" | sha1sum | cut -c1-40)
if [ ! -f "$OBJ_DIR/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	stop_early_boot
	info "configuring: tinyconfig + $(for f in "${frags[@]}"; do basename "$f"; done | paste -sd+ | sed 's/+/ + /g')"
	{
		"${MAKE[@]}" tinyconfig &&
			"$KERNEL_DIR"/scripts/kconfig/merge_config.sh -m -O "$OBJ_DIR" \
				"$OBJ_DIR/.config" "${frags[@]}" &&
			"${MAKE[@]}" olddefconfig
	} >"$log" 2>&1 || die "configuration failed, see $log"
	missing=""
	while IFS= read -r line; do
		case $line in CONFIG_*=y) grep -qx "$line" "$OBJ_DIR/.config" || missing="$missing ${line%=y}" ;; esac
	done < <(cat "${frags[@]}")
	[ -z "$missing" ] || warn "not set in .config after merging:$missing"
	# kbuild makes auto.conf again from .config only when .config is the
	# newer of the two, and an obj dir copied with copy_obj has every file
	# of one time (its touch below comes after this): without auto.conf,
	# kbuild must make it, and builds what the new options add.
	rm -f "$OBJ_DIR/include/config/auto.conf"
	echo "$want" >"$stamp"
fi

# The image is vmlinux itself: QEMU boots it through its PVH entry point,
# so there is no bzImage to compress here and none to unpack in the guest.
image=$OBJ_DIR/vmlinux
# the last good build's work tree, configuration and version string
built=$OBJ_DIR/.userns-labs-built
# the last good build's work tree and configuration, for the fast path
last=$OBJ_DIR/.userns-labs-tree
# (kbuild's command line and the flags it reads from the environment:
# kbuild rebuilds every object whose command changed, the fast path would not)
# The folders are named as the obj dir sees them (kbuild's commands name the
# source from the obj dir, ../linux), so that a copy of an obj dir next to
# another worktree (copy_obj, lib.sh) keeps its record.
cfg_of() {
	{
		cat "$OBJ_DIR/.config" "$0" "$TOP/scripts/fastbuild.py"
		for a in "${MAKE[@]}" "${KCFLAGS-}" "${KCPPFLAGS-}" "${KAFLAGS-}" "${LLVM-}" "${CCACHE_BASEDIR-}"; do
			a=${a//"$KERNEL_DIR"/@KERNEL_DIR} a=${a//"$OBJ_DIR"/@OBJ_DIR} a=${a//"$BUILD"/@BUILD}
			printf '%s\n' "$a"
		done
	} | grep -v '^-j' | sha1sum | cut -c1-40
}
cfg=$(cfg_of)
# an obj dir copied from another tree's (copy_obj; see below)
copied=$OBJ_DIR/.userns-labs-copied
# kbuild's environment: what its top Makefile exports to the sub-makes
# that do the work (the compiler flags, the tools, srctree...), saved once
# for this configuration and make command line ($cfg): kbuild itself
# prints it, from a target added to its top Makefile (--eval). The fast
# path then runs kbuild's own sub-makes with it (scripts/Makefile.build
# for an object, Makefile.vmlinux_o, Makefile.modpost, Makefile.vmlinux
# for the link, as the top Makefile runs them): their rules, commands and
# records are kbuild's, without the top Makefile's parse (its compiler
# probes, some 0.8 s here) and its walk.
# Its key: this configuration and command line, and the folders by their
# absolute names (kbuild's srctree and objtree are in it: an obj dir moved
# or copied must never build another tree's sources).
kenv_file=$OBJ_DIR/.userns-labs-kbuild-env
# (and the compiler, whose probes it holds). What else the top Makefile
# reads (its own text, the arch Makefile) is a file the fast path never
# takes: any full build drops the saved environment, to be saved again.
kenv_key_of() {
	printf '%s\n' "$cfg" "$(realpath "$KERNEL_DIR")" "$(realpath "$OBJ_DIR")" "$(PATH=$KBUILD_PATH gcc --version 2>&1 | head -1)" |
		sha1sum | cut -c1-40
}
kenv_key=$(kenv_key_of)
# kbuild_env: the saved environment, made now (a make of its own, with a
# target added to the top Makefile) when there is none for this key
kbuild_env() {
	local tmp rc=0
	[ "$(head -c 40 "$kenv_file" 2>/dev/null)" != "$kenv_key" ] || return 0
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/userns-labs-kenv.XXXXXX")
	env -0 >"$tmp/before"
	# (make's own $(...), in single quotes: make expands them, not the shell)
	# shellcheck disable=SC2016
	if ! "${MAKE[@]}" --eval 'userns-labs-kbuild-env: ; @env -0 >"$(USERNS_LABS_ENV_OUT)"; printf "LDFLAGS_vmlinux=%s\0" "$(LDFLAGS_vmlinux)" >>"$(USERNS_LABS_ENV_OUT)"' \
		USERNS_LABS_ENV_OUT="$tmp/after" userns-labs-kbuild-env >/dev/null 2>&1 || [ ! -s "$tmp/after" ]; then
		rm -rf "$tmp"
		return 1
	fi
	# what make added or changed; never the shell's own, nor make's
	# link to its jobserver (of that run), nor our own variable
	{
		printf '%s\n' "$kenv_key"
		python3 - "$tmp/before" "$tmp/after" <<'PY'
import re
import sys
def read(p):
    with open(p, "rb") as f:
        return dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
before, after = read(sys.argv[1]), read(sys.argv[2])
skip = {b"PWD", b"OLDPWD", b"SHLVL", b"_", b"USERNS_LABS_ENV_OUT", b"MAKEOVERRIDES"}
out = sys.stdout.buffer
for k, v in sorted(after.items()):
    if k in skip or before.get(k) == v:
        continue
    if k in (b"MAKEFLAGS", b"MFLAGS"):
        # words split at spaces that no backslash escapes
        words = re.split(rb"(?<!\\) ", v)
        v = b" ".join(w for w in words if not w.startswith((b"--eval", b"--jobserver", b"-j"))
                      and not w.startswith(b"USERNS_LABS_ENV_OUT="))
    out.write(k + b"=" + v + b"\0")
PY
	} >"$kenv_file.new" || rc=$?
	rm -rf "$tmp"
	if [ "$rc" -ne 0 ] || ! mv "$kenv_file.new" "$kenv_file"; then
		rm -f "$kenv_file.new"
		return 1
	fi
}
# kb MAKEFILE ARGS...: one of kbuild's sub-makes, in the saved environment
# (kenv_load: read once)
kenv=()
kenv_load() {
	local e
	[ "${#kenv[@]}" -eq 0 ] || return 0
	while IFS= read -r -d '' e; do kenv+=("$e"); done < <(tail -c +42 "$kenv_file")
}
# (kenv_run CMD...: any command so, in the obj dir)
kenv_run() { (cd "$OBJ_DIR" && exec env PATH="$KBUILD_PATH" "${kenv[@]}" "$@"); }
kb() { kenv_run make -j"$JOBS" -f "$KERNEL_DIR/scripts/$1" "${@:2}"; }

# A head start: the files of the lab the tree is on (lab.conf FILES)
# edited since the last good build are compiled at once, by kbuild's own
# Makefile.build in the saved environment, while git finds out what
# changed in the whole tree (below; some 0.4 s). Whatever git then says,
# this is work the build would do: the fast path and kbuild's full run
# find these objects made (make goes by the files' times and kbuild's
# .cmd records, which are the same), and wait for this first. A compile
# error here is said by the build that follows, which compiles the file
# again. Not after a change of configuration, nor in a copied obj dir, nor
# with no record of a good build: then nothing is started.
early_pid=""
# (the objects it made, one a line: the fast path need not make them again)
early_done=$OBJ_DIR/.userns-labs-early
early_start() {
	local last_cfg="" f o objs="" n
	rm -f "$early_done"
	[ -z "${FULL_BUILD:-}" ] && [ -z "${FORCE_BUILD:-}" ] && [ "${EARLY_COMPILE:-1}" != 0 ] || return 0
	[ -f "$image" ] && [ -f "$last" ] && [ ! -f "$copied" ] || return 0
	read -r _ last_cfg <"$last" || return 0
	[ "$last_cfg" = "$cfg" ] && [ "$(head -c 40 "$kenv_file" 2>/dev/null)" = "$kenv_key" ] || return 0
	n=$(current_lab 2>/dev/null) || return 0
	for f in $(lab_conf "$n" FILES 2>/dev/null); do
		case $f in *.c) ;; *) continue ;; esac
		o=${f%.c}.o
		if [ ! -f "$OBJ_DIR/$o" ] || [ ! "$KERNEL_DIR/$f" -nt "$last" ]; then continue; fi
		objs="$objs $o"
	done
	[ -n "$objs" ] || return 0
	[ -z "${VERBOSE:-}" ] || info "compiling at once (the lab's files, edited), while git finds what else changed:$objs"
	kenv_load
	# (one make for each folder, one after the other: the other core is
	# git's; the output is the log's, the errors the next build's)
	(
		c=
		trap '[ -z "$c" ] || kill -TERM "$c" 2>/dev/null || true; exit 143' TERM
		for o in $objs; do
			# (make itself in the background, so that $! is make's and
			# the trap's SIGTERM reaches it)
			cd "$OBJ_DIR" && exec env PATH="$KBUILD_PATH" "${kenv[@]}" make -j"$JOBS" \
				-f "$KERNEL_DIR/scripts/Makefile.build" obj="$(dirname "$o")" "$o" &
			c=$!
			if wait "$c"; then echo "$o" >>"$early_done"; fi
		done
	) >>"$log" 2>&1 </dev/null &
	early_pid=$!
}
# The link's compiles, with no ccache: what they compile is nearly always
# new (the version string names the work tree; kallsyms' tables hold the
# new addresses), so ccache, which preprocesses first to look for it, mostly
# adds that work. (link-vmlinux.sh compiles with kbuild's CC, and makes
# init/version-timestamp.o with a make of its own, which inherits this.)
# Not with debug information: ccache hands gcc the include folders as
# relative paths (CCACHE_BASEDIR), which the debug information records, so
# the image would differ from the one kbuild's full run links; without it,
# these objects are the same bytes either way.
link_cc=()
if ! grep -q '^CONFIG_DEBUG_INFO=y' "$OBJ_DIR/.config" 2>/dev/null; then
	for a in "${MAKE[@]}"; do
		case $a in CC=ccache\ *) link_cc=(CC="${a#CC=ccache }") ;; esac
	done
fi
# stamp_start: the two objects that hold the version string, made now in
# the background while the lab's file compiles on the other core:
# init/version.o (a weak copy of the banner, as kbuild compiles it, and
# with its CC: the same bytes and record as kbuild's full run would make),
# and at once init/version-timestamp.o (the one the kernel uses) by the command
# that link-vmlinux.sh gives it (the same make, the link's CC: it then
# finds it made). Only when the fast path is likely (its record and saved
# environment are this configuration's); whatever runs next waits for it
# (early_wait).
stamp_pid=""
stamp_start() {
	[ "$(head -c 40 "$kenv_file" 2>/dev/null)" = "$kenv_key" ] || return 0
	kenv_load
	(
		c=()
		trap '[ "${#c[@]}" -eq 0 ] || kill -TERM "${c[@]}" 2>/dev/null || true; exit 143' TERM
		cd "$OBJ_DIR" || exit 1
		# (each make itself in the background, so that $! is make's
		# and the trap's SIGTERM reaches it; in a subshell that execs
		# it: a simple command in the background would ignore Ctrl-C)
		# The two at once: each is mostly make's start-up, which a
		# second core halves. Each writes its own generated header,
		# object and .cmd record; they share one file: the make of
		# version-timestamp.o reads init/.version.o.cmd (Makefile.build
		# includes the records of the folder's objects), which the other
		# rewrites in place (fixdep's output). Read half-written, it
		# stops that make with a parse error (in the log); the object is
		# then not on the record, and the link makes it itself
		# (fastlink.sh without --made-version: some 0.25 s). Never a
		# wrong object: the record read is version.o's, which that make
		# does not build.
		goals=(init/version.o init/version-timestamp.o)
		for goal in "${goals[@]}"; do
			args=()
			[ "$goal" = init/version.o ] || args=("${link_cc[@]}")
			(exec "${bg_nice[@]}" env PATH="$KBUILD_PATH" "${kenv[@]}" make -j"$JOBS" \
				-f "$KERNEL_DIR/scripts/Makefile.build" obj=init "$goal" "${args[@]}") &
			c+=($!)
		done
		rc=0
		for i in 0 1; do
			if wait "${c[$i]}"; then echo "${goals[$i]}" >>"$early_done"; else rc=1; fi
		done
		exit "$rc"
	) >>"$log" 2>&1 </dev/null &
	stamp_pid=$!
}
# early_wait: that head start (and stamp_start's make), finished, before
# any other make runs
early_wait() {
	[ -z "$stamp_pid" ] || wait "$stamp_pid" 2>/dev/null || true
	stamp_pid=""
	[ -n "$early_pid" ] || return 0
	wait "$early_pid" 2>/dev/null || true
	early_pid=""
}
# a signal meanwhile: the head start stops too, its make with it (a
# terminal's Ctrl-C reaches them all; a SIGTERM to this script alone is
# passed on here)
# (shellcheck: run by lib.sh's trap)
# shellcheck disable=SC2317
interrupt_cleanup() {
	[ -z "$early_pid" ] || kill -TERM "$early_pid" 2>/dev/null || true
	[ -z "$stamp_pid" ] || kill -TERM "$stamp_pid" 2>/dev/null || true
}
on_interrupt "the kernel build; what was compiled is kept, and the next build goes on from there (log: ${log#"$TOP"/})"
early_start

# The version string says which tree this kernel was built from, so a report
# can be traced to its kernel: the branch (or tag) and the id of the work
# tree's content (git's tree id of every file, committed or not; git
# cat-file -p shows it while the tree or any commit of it exists). It
# names no commit: committing the work that was just built changes no byte
# of the kernel, and no relink follows (a commit id in the string cost one).
# (off any branch, the nearest tag: a commit made there changes no name)
describe=$(kgit describe --tags --abbrev=0 2>/dev/null || kgit rev-parse --short HEAD 2>/dev/null || echo unknown)
branch=$(kgit symbolic-ref --short -q HEAD || true)
# the whole work tree (changed and new files too) as one tree id: it names
# the kernel's changes and says whether anything changed since the last build
# (the head start's compile, when there is one, is what the build waits
# for, and lab.sh's early boot of the last kernel, when there is one, what
# check waits for: git and what follows it take the other core, at a lower
# priority; git's lstat threads would take both)
bg_nice=()
[ -z "$early_pid" ] && [ -z "${EARLY_BOOT_PID:-}" ] || bg_nice=(nice -n 10)
work=$(work_tree_id "${bg_nice[0]:+10}")
if [ -z "$work" ]; then
	dirt=$(kgit diff HEAD 2>/dev/null | sha1sum | cut -c1-8)
elif [ "$work" = "$(kgit rev-parse 'HEAD^{tree}')" ]; then
	dirt=clean
else
	dirt=${work:0:8}
fi
if [ -n "$work" ]; then
	KBUILD_BUILD_VERSION="${BUILD_LABEL:-${branch:-$describe}}@tree-${work:0:12}"
else
	KBUILD_BUILD_VERSION="${BUILD_LABEL:-${branch:-$describe}}@$(kgit rev-parse --short=10 HEAD):$dirt"
fi
# BUILD_VERSION: the whole string, as given (the grader names a kernel by
# its tree, so that the same tree builds the same kernel)
KBUILD_BUILD_VERSION=${BUILD_VERSION:-$KBUILD_BUILD_VERSION}
export KBUILD_BUILD_VERSION

# Nothing changed since the last good build (the same work tree, config,
# version string and this script): no kbuild run at all.
key=
[ -n "$work" ] && key="$work $cfg $KBUILD_BUILD_VERSION"
if [ -n "$key" ] && [ -f "$image" ] && [ "$(cat "$built" 2>/dev/null)" = "$key" ] && [ -z "${FORCE_BUILD:-}" ]; then
	info "kernel up to date: nothing changed since the last build (${image#"$TOP"/})"
	# (and the fast path's record of that tree, when a run before this
	# one left none: the next edit compiles only what it changed)
	[ -f "$last" ] || echo "$work $cfg" >"$last"
	early_wait
	exit 0
fi
# (lab.sh may be booting the last kernel meanwhile: not this tree's)
stop_early_boot
rm -f "$built"

# The fast path: when the edit since the last good build touched C files
# and headers that only a few vmlinux objects use (scripts/fastbuild.py
# reads that from kbuild's own .cmd files), build just those objects and
# link again, without kbuild's walk of every folder (some 5 s here).
# Anything else (a Makefile, Kconfig, a header that a generated file or
# many objects use, FULL_BUILD=1) takes kbuild's full run.
objs="" fast=""
last_tree="" last_cfg=""
# (no record on a first build, nor after a failed one)
[ ! -f "$last" ] || read -r last_tree last_cfg <"$last" || last_tree=""
if [ -n "$work" ] && [ -n "$last_tree" ] && [ "$last_cfg" = "$cfg" ] && [ -f "$image" ] &&
	[ -f "$OBJ_DIR/vmlinux.a" ] && [ -z "${FULL_BUILD:-}" ] && [ -z "${FORCE_BUILD:-}" ]; then
	# the two objects that hold the version string, started now on the
	# other core (see stamp_start)
	[ -f "$copied" ] || stamp_start
	set -o pipefail
	if objs=$(kgit diff-tree -r -z --no-renames --name-status "$last_tree" "$work" |
		"${bg_nice[@]}" python3 "$TOP/scripts/fastbuild.py" "$OBJ_DIR" "$KERNEL_DIR"); then
		fast=1
	else
		[ -z "${VERBOSE:-}" ] || info "full build: ${objs:-no record of the last build}"
		objs=""
	fi
	set +o pipefail
fi
early_wait
# A copy of an obj dir built from another tree (copy_obj): make goes by
# modification times, in kbuild's full run and for the fast path's objects
# alike, and a file that differs between that tree and this one may be
# older here than its object there. Touched, each differing file is newer
# than every copied object.
# Every copied file gets this moment's time first: the worktree may have
# been made after the copy (a checkout newer than every object would make
# kbuild redo everything).
if [ -f "$copied" ]; then
	if [ -n "$last_tree" ] && [ -n "$work" ]; then
		find "$OBJ_DIR" -exec touch -c -h -d "@$(date +%s.%N)" -- {} +
		kgit diff-tree -r -z --no-renames --name-only "$last_tree" "$work" |
			(cd "$KERNEL_DIR" && xargs -0 -r touch -c --)
	else
		# no record of the tree it was built from: nothing in it can be trusted
		info "a copied obj dir with no record of its tree: building it from nothing"
		find "$OBJ_DIR" -mindepth 1 -maxdepth 1 ! -name .config ! -name .userns-labs-config -exec rm -rf {} +
	fi
fi
[ -n "$fast" ] || rm -f "$last" "$kenv_file"

# fresh OBJECT: the head start or stamp_start made OBJECT, and no file of
# this edit is newer than it (what make would decide, without its parse of
# the folder)
fresh() {
	local f
	grep -qxF "$1" "$early_done" 2>/dev/null || return 1
	while IFS= read -r -d '' f; do
		[ ! "$KERNEL_DIR/$f" -nt "$OBJ_DIR/$1" ] || return 1
	done < <(kgit diff-tree -r -z --no-renames --name-only "$last_tree" "$work")
}
# fast_make OBJECTS: those objects, each by kbuild's scripts/Makefile.build
# for its folder (two folders at a time), then the link; with kbuild's full
# run instead when its environment cannot be had
fast_make() {
	local d o pids=() rc=0
	local -A by_dir=()
	if ! kbuild_env; then
		# shellcheck disable=SC2086 # object paths, no spaces
		"${MAKE[@]}" single-goals="$(printf './%s ' $1)" vmlinux
		return
	fi
	kenv_load
	for o in $1; do by_dir[$(dirname "$o")]+=" $o"; done
	for d in "${!by_dir[@]}"; do
		# shellcheck disable=SC2086 # object paths, no spaces
		kb Makefile.build obj="$d" ${by_dir[$d]} &
		pids+=($!)
	done
	for o in "${pids[@]}"; do wait "$o" || rc=1; done
	[ "$rc" -eq 0 ] || return 1
	# vmlinux.o (Makefile.vmlinux_o) is for modpost's checks of section
	# references, unless the link itself reads it (Clang's LTO, IBT,
	# objtool's noinstr check): then it is made as kbuild makes it. Else
	# it is left to kbuild's next full run (vmlinux.a, touched above, is
	# newer, and that run makes it again, then modpost), and vmlinux,
	# removed, is linked again from vmlinux.a and the new objects.
	if grep -qE '^CONFIG_(LTO_CLANG|X86_KERNEL_IBT|NOINSTR_VALIDATION)=y' "$OBJ_DIR/.config"; then
		kb Makefile.vmlinux_o && kb Makefile.modpost && kb Makefile.vmlinux "${link_cc[@]}"
		return
	fi
	rm -f "$OBJ_DIR/vmlinux"
	# the link with one kallsyms pass fewer (scripts/fastlink.sh: the
	# last build's tables to start from; the same bytes), else kbuild's
	# (FAST_LINK=0: always kbuild's)
	# (--made-version: stamp_start made init/version-timestamp.o, by the
	# link's own command, and nothing of the edit is newer: the make that
	# would find it made, some 0.25 s, is not run)
	local stamped=()
	! fresh init/version-timestamp.o || stamped=(--made-version)
	# (its output is shown when it links: a link error is then said once,
	# by kbuild's link)
	local out=$OBJ_DIR/.userns-labs-fastlink.out
	if [ "${FAST_LINK:-1}" != 0 ] &&
		kenv_run bash "$TOP/scripts/fastlink.sh" "${stamped[@]}" "$KERNEL_DIR/scripts/link-vmlinux.sh" "${link_cc[@]}" \
			>"$out" 2>&1; then
		cat "$out"
		rm -f "$out"
		return 0
	fi
	rm -f "$out"
	[ -z "${VERBOSE:-}" ] || info "the link again, as kbuild makes it (fastlink.sh could not)"
	rm -f "$OBJ_DIR/vmlinux" && kb Makefile.vmlinux "${link_cc[@]}"
}

# what is built, in words: the branch, where it stands, uncommitted changes
what=${branch:+branch $branch, }$(tree_where)
[ "$dirt" = clean ] || what="$what, with uncommitted changes"
[ -z "$fast" ] || what="$what; $(printf "%s\n" "$objs" | grep -c . || true) object(s) to compile, then the link"
info "building the kernel ($what; log: ${log#"$TOP"/})"
start=$(date +%s)
# progress from kbuild's own lines: a cold build expects the count of the
# last cold build of this obj dir (it keeps its own for the next one), or
# with none kept, the base's (its BASE file: objects=); any other build,
# which compiles what changed, only counts (no "8/1458 0%")
counts=$LOG_DIR/objects-$(basename "$OBJ_DIR")
expect=(--expect 0)
if [ ! -f "$OBJ_DIR/vmlinux" ]; then
	est=${OBJ_ESTIMATE:-$(base_info objects)}
	expect=(--count-file "$counts" --save --expect "${est:-0}")
fi
# Ctrl-C: make stops (its half-made targets removed), then this script,
# with no word of a compile error; the objects made so far are kept
rc=0
set -o pipefail
if [ -n "$fast" ]; then
	# kbuild's sub-makes (fast_make): the objects, then the link
	# (vmlinux.a is a thin archive: it reads the objects just built;
	# touched first, it is newer than vmlinux.o, which kbuild's next full
	# run then makes again).
	# The objects: what changed, and init/version.o (its weak copy of
	# the banner holds the version string), but those that the head
	# start or stamp_start made, fresh.
	todo="" made=""
	for o in init/version.o $objs; do
		if fresh "$o"; then made="$made $o"; else todo="$todo $o"; fi
	done
	[ -z "${VERBOSE:-}" ] || [ -z "$made" ] || info "made already, beside git:$made"
	touch "$OBJ_DIR/vmlinux.a"
	fast_make "$todo" 2>&1 |
		python3 "$TOP/scripts/progress.py" "$log" --what "building" --expect 0 || rc=$?
else
	"${MAKE[@]}" vmlinux 2>&1 | python3 "$TOP/scripts/progress.py" "$log" --what "building" \
		"${expect[@]}" || rc=$?
fi
set +o pipefail
if [ "$rc" -ne 0 ]; then
	# some objects of this tree may be built and others not: the next
	# build takes kbuild's full run
	rm -f "$last"
	# the compiler names files from the obj dir (../linux/fs/exec.c): name
	# them from where the student stands, so an editor can open them
	from=$(realpath -m --relative-to="$OBJ_DIR" "$KERNEL_DIR" | sed 's/[].[*^$#\\/]/\\&/g')
	to=$(realpath -m --relative-to="$PWD" "$KERNEL_DIR" | sed 's/[&#\\]/\\&/g')
	printf '%serror:%s the kernel does not compile. The first errors:\n' "$C_RED" "$C_OFF" >&2
	{ grep -E -A4 '(error|Error):|undefined reference|^make.*\*\*\*' "$log" | head -40 || tail -20 "$log"; } |
		sed -e "s#^$from/#$to/#" -e "s#\([ :'\"(]\)$from/#\1$to/#g" -e 's/^/    /' >&2
	printf 'Full log: %s\n' "$log" >&2
	exit 2
fi
grep -E 'warning:' "$log" | head -10 | sed 's/^/    /' >&2 || true
# kbuild may have written .config again during the build (its syncconfig,
# when a value Kconfig reads from the tools changed: an obj dir configured
# with another linker): the record is of the configuration built
cfg2=$(cfg_of)
if [ "$cfg2" != "$cfg" ]; then
	cfg=$cfg2
	[ -z "$key" ] || key="$work $cfg $KBUILD_BUILD_VERSION"
	kenv_key=$(kenv_key_of)
fi
# On a student's (or the reference answer's) branch, after a full run:
# kbuild's environment, saved now (a make of some 0.8 s), so that the
# first edit after it has its head start and its fast path too. (Not in
# a full run of its own: a goal beside vmlinux changes what kbuild's top
# Makefile does.)
case $branch in student/* | solution/*)
	[ -n "$fast" ] || [ "${EARLY_COMPILE:-1}" = 0 ] || kbuild_env || true ;;
esac
[ -n "$key" ] && echo "$key" >"$built"
rm -f "$copied"
[ -z "$work" ] || echo "$work $cfg" >"$last"
info "kernel built in $(($(date +%s) - start)) s: ${image#"$TOP"/}"
