#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The student's loop, as a student meets it: make check at a lab's start
# (its check fails, and says it is the start and what is wrong), again with
# nothing changed, after an edit, after committing the edit (no relink),
# Ctrl-C while QEMU runs (both ways check boots) and while the kernel
# builds (as a terminal sends it: SIGINT to the process group, by
# tests/interrupt.py), and make gdb's choice of layout in and out of tmux.
# No command's output may hold a shell's own error ("script: line N: ...").
#
# In build/gdbtest (tests/gdb.sh's worktree at lab-01-start and its
# objects, which make test hands on): the student's checkout is never
# touched. A commit made here is on no branch.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
. "$here/lib.sh"

main=$KERNEL_DIR
B=${LOOP_TEST_DIR:-$BUILD/gdbtest}
export BUILD=$B KERNEL_DIR=$B/linux OBJ_DIR=$B/obj GUEST_DIR=$B/guest LOG_DIR=$B/logs NO_COLOR=1
mkdir -p "$LOG_DIR"
if [ ! -e "$KERNEL_DIR/.git" ]; then
	git -C "$main" worktree prune
	git -C "$main" worktree add -q --detach "$KERNEL_DIR" lab-01-start
fi
g() { git -C "$KERNEL_DIR" "$@"; }
g checkout -q -f --detach lab-01-start
g clean -q -ffdx
lab() { "$TOP/scripts/lab.sh" "$@" 2>&1; }
# no_shell_errors NAME TEXT: bash's own complaints ("x.sh: line 97: ...")
no_shell_errors() {
	t_expect "$1: no shell error in the output" "" \
		"$(printf '%s\n' "$2" | grep -E '\.sh: line [0-9]+: |command not found|Traceback' | head -3)"
}
# (after a short wait: a file's time is the kernel's clock at its last
# tick, some 4 ms, and an edit in the tick that ended the last build is
# not newer than its record: no head start, and one test fails at random)
probe() {
	sleep 0.05
	printf '\nint userns_labs_loop_probe_%s(int x);\nint userns_labs_loop_probe_%s(int x)\n{\n\treturn x + %s;\n}\n' \
		"$1" "$1" "$RANDOM" >>"$KERNEL_DIR/fs/exec.c"
}

# --- a build with no record of the last one ------------------------------
# (as after a failed build: neither the record of the tree nor the key)
rm -f "$OBJ_DIR/.userns-labs-tree" "$OBJ_DIR/.userns-labs-built"
out=$("$TOP/scripts/build-kernel.sh" 2>&1)
no_shell_errors "a build with no record of the last" "$out"
# the record of the tree built is kept by a build that finds nothing to
# do, when none was there (an edit after it takes the fast path)
rm -f "$OBJ_DIR/.userns-labs-tree"
"$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
t_expect "a build with nothing to do keeps the record of its tree" yes \
	"$([ -s "$OBJ_DIR/.userns-labs-tree" ] && echo yes || echo no)"

# --- make check at the lab's start ---------------------------------------
out=$(lab check 1)
rc=$?
printf '%s\n' "$out" >"$LOG_DIR/loop-start.out"
t_expect "at lab 1's start, make check fails" 1 "$rc"
t_grep "... and says that this is the lab's start, as expected" 'This is the start of lab 1: its check fails until your change is in' "$out"
t_grep "... and what is wrong, in words, for a failed point (lab 1 too)" '^ +wrong: ' "$out"
no_shell_errors "make check at the start" "$out"
first=$(printf '%s\n' "$out" | grep -E '^  lab 01: ')

out=$(lab check 1)
t_grep "nothing changed: the kernel is not built again" 'kernel up to date' "$out"
t_expect "... and the result is the same" "$first" "$(printf '%s\n' "$out" | grep -E '^  lab 01: ')"
t_expect "... and no boot result is left behind in the logs folder" "" "$(find "$LOG_DIR" -maxdepth 1 -name '.boot-*')"

# --- an edit, then its commit: built once ---------------------------------
probe edit
out=$(lab check 1)
t_grep "an edit: one object compiled, then the link" '1 object\(s\) to compile, then the link' "$out"
t_expect "... and it is no longer the lab's start" "" "$(printf '%s\n' "$out" | grep 'This is the start')"
t_grep "... and the kernel booted ran the check" '^  lab 01: ' "$out"
no_shell_errors "an edit" "$out"
before=$(sha256sum <"$OBJ_DIR/vmlinux")
g add -A && g -c user.name=t -c user.email=t@t commit -qm "loop test: the edit"
out=$(lab check 1)
t_grep "a commit of what was built: nothing to build (the version string names no commit)" 'kernel up to date' "$out"
t_expect "... the same kernel" "$before" "$(sha256sum <"$OBJ_DIR/vmlinux")"
t_grep "... which names its tree" "@tree-$(g rev-parse --short=12 'HEAD^{tree}')" "$(strings "$OBJ_DIR/vmlinux" | grep -m1 'userns-labs@\|@tree-')"
g checkout -q -f --detach lab-01-start

# --- the fast path's head start, and its link ------------------------------
"$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
probe head
out=$(VERBOSE=1 "$TOP/scripts/build-kernel.sh" 2>&1)
t_grep "an edit of the lab's file: compiled at once, while git finds what else changed" \
	"compiling at once .*: fs/exec\.o" "$out"
t_grep "... then the fast path, with nothing left to compile but the version" '1 object\(s\) to compile, then the link' "$out"
t_grep "... which makes neither it nor init/version.o again (both made beside git)" \
	'made already, beside git: (init/version\.o fs/exec\.o|fs/exec\.o init/version\.o)$' "$out"
t_expect "... and the kernel holds the edit" 1 "$(grep -c ' userns_labs_loop_probe_head$' "$OBJ_DIR/System.map")"
no_shell_errors "the head start" "$out"
older=no
[ "$OBJ_DIR/vmlinux.a" -nt "$OBJ_DIR/vmlinux.o" ] && older=yes
if grep -qE '^CONFIG_(LTO_CLANG|X86_KERNEL_IBT|NOINSTR_VALIDATION)=y' "$OBJ_DIR/.config"; then older=yes; fi
t_expect "... linked from vmlinux.a, without vmlinux.o (modpost's)" yes "$older"
# (a new function: new names in the kallsyms tables, whose size changes;
# scripts/fastlink.sh then needs the two passes kbuild makes)
t_expect "... by fastlink.sh: the new name, two passes" 2 "$(grep -c '^  KSYMS   ' "$LOG_DIR/build-obj.log")"
fast=$(sha256sum <"$OBJ_DIR/vmlinux")
FULL_BUILD=1 FORCE_BUILD=1 "$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
t_expect "... which kbuild's next full run makes again, then modpost" yes \
	"$([ "$OBJ_DIR/vmlinux.o" -nt "$OBJ_DIR/vmlinux.a" ] && grep -q 'MODPOST' "$LOG_DIR/build-obj.log" && echo yes || echo no)"
t_expect "... with the edit in it as well" 1 "$(grep -c ' userns_labs_loop_probe_head$' "$OBJ_DIR/System.map")"
t_expect "... and the same bytes as the fast path's link" "$fast" "$(sha256sum <"$OBJ_DIR/vmlinux")"
# --- an edit inside a function: the same names, one kallsyms pass ------------
# (twice: after kbuild's full run, off the student's branches, the first
# build saves kbuild's environment, and the second has its head start and
# the version's objects made beside git)
sleep 0.05
sed -i 's/^\treturn x + \([0-9]*\);$/\treturn x * \1 + (x >> 3) - (x \& 0x55);/' "$KERNEL_DIR/fs/exec.c"
out=$("$TOP/scripts/build-kernel.sh" 2>&1)
t_grep "an edit inside a function: the fast path" '1 object\(s\) to compile, then the link' "$out"
sleep 0.05
sed -i 's/^\(\treturn x \* [0-9]* + (x >> 3) - (x & 0x55)\);$/\1 + (x << 5) \/ 3;/' "$KERNEL_DIR/fs/exec.c"
map=$(cat "$OBJ_DIR/System.map")
out=$(VERBOSE=1 "$TOP/scripts/build-kernel.sh" 2>&1)
t_grep "... and another: made beside git, all but the link" \
	'made already, beside git: (init/version\.o fs/exec\.o|fs/exec\.o init/version\.o)$' "$out"
t_expect "... whose link makes the kallsyms tables once (fastlink.sh)" "1 1" \
	"$(grep -c '^  KSYMS   ' "$LOG_DIR/build-obj.log") $(grep -c '^  LD      \.tmp_vmlinux' "$LOG_DIR/build-obj.log")"
t_expect "... and compiles nothing (the version's second object too was made beside git, by the link's command)" "" \
	"$(grep '^  CC  ' "$LOG_DIR/build-obj.log")"
t_expect "... though the addresses after the function moved" yes \
	"$([ "$map" != "$(cat "$OBJ_DIR/System.map")" ] && echo yes || echo no)"
fast=$(sha256sum <"$OBJ_DIR/vmlinux")
FULL_BUILD=1 FORCE_BUILD=1 "$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
t_expect "... and the same bytes as kbuild's own full run links" "$fast" "$(sha256sum <"$OBJ_DIR/vmlinux")"
printf '\nint userns_labs_loop_nowhere(void);\nint userns_labs_loop_linkfail(void) { return userns_labs_loop_nowhere(); }\n' >>"$KERNEL_DIR/fs/exec.c"
out=$("$TOP/scripts/build-kernel.sh" 2>&1)
rc=$?
t_expect "a link error (a function defined nowhere): the build fails" 2 "$rc"
t_expect "... and names the symbol once, from kbuild's own link (fastlink.sh's attempt is not shown)" 1 \
	"$(printf '%s\n' "$out" | grep -cE "undefined (symbol: |reference to .)userns_labs_loop_nowhere")"
no_shell_errors "a link error" "$out"
printf '\nint userns_labs_loop_broken(void) { return 1 }\n' >>"$KERNEL_DIR/fs/exec.c"
out=$("$TOP/scripts/build-kernel.sh" 2>&1)
rc=$?
t_expect "a compile error in the lab's file, found by the head start: the build fails" 2 "$rc"
t_grep "... and names the error, from the compile after it" "fs/exec\.c:[0-9]+:[0-9]+: error: expected" "$out"
no_shell_errors "a compile error" "$out"
g checkout -q -f -- fs/exec.c
# (a good build first, and an edit's: a failed one leaves no record, and a
# full run off the student's branches no saved environment: no head start)
"$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
probe before_ctrl_c_head
"$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
probe ctrl_c_head
out=$(VERBOSE=1 python3 "$here/interrupt.py" --when-output 'compiling at once' --after 0.1 --timeout 300 -- \
	"$TOP/scripts/build-kernel.sh")
read -r res <<<"$out"
t_grep "Ctrl-C during the head start: the build ends by it, and nothing of it is left" \
	'^rc=130 signal=SIGINT secs=[0-9.]+ left=0$' "$res"
g checkout -q -f -- fs/exec.c
"$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
# (the version's objects, made in the background beside git: their make
# must stop on Ctrl-C too; a simple command in the background would not)
probe before_ctrl_c_stamp
"$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
probe ctrl_c_stamp
out=$(python3 "$here/interrupt.py" --when-process 'Makefile\.build obj=init init/version' \
	--ignoring 'Makefile\.build obj=init init/version' --timeout 300 -- "$TOP/scripts/build-kernel.sh")
read -r res <<<"$out"
t_grep "Ctrl-C while the version's objects are made beside git: the build ends by it, nothing of it is left, and no make ignored it" \
	'^rc=130 signal=SIGINT secs=[0-9.]+ left=0 ignoring=0$' "$res"
g checkout -q -f -- fs/exec.c
"$TOP/scripts/build-kernel.sh" >/dev/null 2>&1

# --- Ctrl-C while QEMU runs ----------------------------------------------
"$TOP/scripts/build-kernel.sh" >/dev/null 2>&1
for way in early normal; do
	eb=1
	[ "$way" = normal ] && eb=0
	out=$(EARLY_BOOT=$eb python3 "$here/interrupt.py" --when-process "qemu-system.*$OBJ_DIR/vmlinux" \
		--after 1 --timeout 300 -- "$TOP/scripts/lab.sh" check 1)
	printf '%s\n' "$out" >"$LOG_DIR/loop-ctrl-c-$way.out"
	read -r res <<<"$out"
	t_grep "Ctrl-C during a check ($way boot): make check ends by it, at once, and nothing of it is left" \
		'^rc=130 signal=SIGINT secs=[0-4]\.[0-9] left=0$' "$res"
	t_grep "... and says so" 'stopped \(Ctrl-C\): the boot in QEMU; no result was read' "$out"
	t_expect "... with no result printed" "" "$(printf '%s\n' "$out" | grep -E '^  lab 01: |passes')"
	t_grep "... and the kernel log kept, with the word that it was stopped" \
		'the boot was stopped by a signal' "$(cat "$LOG_DIR/check-lab-01.log" 2>&1)"
	t_expect "... and no results file" no "$([ -e "$LOG_DIR/check-lab-01.ktap" ] && echo yes || echo no)"
	no_shell_errors "Ctrl-C during a check ($way)" "$out"
done

# --- Ctrl-C while the kernel builds ----------------------------------------
probe ctrl_c
out=$(python3 "$here/interrupt.py" --when-output 'building the kernel' --after 0.5 --timeout 300 -- \
	"$TOP/scripts/lab.sh" check 1)
printf '%s\n' "$out" >"$LOG_DIR/loop-ctrl-c-build.out"
read -r res <<<"$out"
t_grep "Ctrl-C during the build: make check ends by it, and nothing of it is left" \
	'^rc=130 signal=SIGINT secs=[0-9.]+ left=0$' "$res"
t_grep "... and says that the build stopped" 'stopped \(Ctrl-C\): the kernel build' "$out"
t_expect "... with no word of a compile error, nor a traceback" "" \
	"$(printf '%s\n' "$out" | grep -E 'does not compile|Traceback|KeyboardInterrupt')"
out=$("$TOP/scripts/build-kernel.sh" 2>&1)
t_grep "... and the next build goes on, and links" 'kernel built in' "$out"
g checkout -q -f -- fs/exec.c

# --- make gdb inside tmux, and outside ---------------------------------------
if command -v tmux >/dev/null && command -v script >/dev/null; then
	t_expect "make gdb in a terminal, outside tmux: a tmux session of its own" session \
		"$(env -u TMUX script -qec "$TOP/scripts/gdb.sh layout" /dev/null </dev/null | tr -d '\r')"
	t_expect "make gdb inside tmux: a pane of that session (tmux does not nest)" pane \
		"$(TMUX=/tmp/tmux-test,1,0 script -qec "$TOP/scripts/gdb.sh layout" /dev/null </dev/null | tr -d '\r')"
fi
t_expect "make gdb with no terminal: the guest alone, gdb from make gdb-attach" alone \
	"$("$TOP/scripts/gdb.sh" layout </dev/null | cat)"

t_summary loop
