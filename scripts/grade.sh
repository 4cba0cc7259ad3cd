#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Grade a submission with the repository's own checks, inside QEMU only.
#
#   grade.sh SUB [LAB]       one submission
#   grade.sh --all DIR LAB   every sub-directory of DIR (resumable), plus summary.csv
#
# SUB is a patch or mbox file (a mail as clients send it, a format-patch
# series with or without its cover letter), a folder of patches (found up to
# three folders down, applied in version order or by their [PATCH n/m]
# numbers), a git bundle, or a git repository ("path/to/repo", or
# "path/to/repo#branch" when no file has that whole name): a repository or
# bundle is judged as a whole tree against lab-NN-start. Files outside the
# kernel (labs/, guest-rootfs/, ...) are reported and left out.
#
# The data half (what the input is, the patch order and strip level, scores
# and the result files) is scripts/gradelib.py; this script keeps git, the
# build and the boot. Results go to $GRADE_OUT/ID/ (ID: the name made safe):
# report.txt, results.json, results.tap, results.csv, results.xml (JUnit).
# A fault of the grader itself (a worktree it cannot reset) is GRADER_ERROR,
# exit 70: never a student's result, never stamped as graded.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu-outcomes.sh"
# what the grader makes, the sandbox's user must read (worktrees, copies)
umask 022
# the branch of a repository submission is the submission's own ("repo#branch",
# below), never the caller's environment: in a class run it would be taken
# for every repository
SUB_REF=""

G=${GRADE_DIR:-$BUILD/grade}
OUT=${GRADE_OUT:-$G/results}
boot_timeout=${GRADE_BOOT_TIMEOUT:-120}
check_timeout=${GRADE_CHECK_TIMEOUT:-60}

py() { python3 "$TOP/scripts/gradelib.py" "$@"; }

# The top-level names of the kernel tree: a submitted path elsewhere is not kernel.
kernel_top() { kgit ls-tree --name-only distro; }

# reset_worktree TAG: the grading worktree at TAG and clean, whatever a
# killed run left (index.lock, rebase-apply, a half-applied patch); made
# anew when it cannot be; a grader error (exit 70) when that fails too.
reset_worktree() {
	local tag=$1 gd want why
	want=$(kgit rev-parse -q --verify "$tag^{commit}") || grader_error "cannot resolve the tag $tag in $KERNEL_DIR: run 'make tree'"
	if [ -e "$wt/.git" ]; then
		gd=$(git -C "$wt" rev-parse --absolute-git-dir 2>/dev/null || true)
		if [ -n "$gd" ]; then
			rm -f -- "$gd/index.lock" "$gd/HEAD.lock"
			rm -rf -- "$gd/rebase-apply" "$gd/rebase-merge"
		fi
		git -C "$wt" am --abort >/dev/null 2>&1
		# (ctime is not trusted: the sandbox without namespaces shows the
		# worktree as hard links, which change every file's ctime, and git
		# would then rewrite every file, and the next build compile all)
		if git -c core.trustctime=false -C "$wt" checkout -q -f --detach "$want" 2>/dev/null &&
			git -C "$wt" clean -q -ffdx 2>/dev/null &&
			[ "$(git -C "$wt" rev-parse HEAD 2>/dev/null)" = "$want" ] &&
			[ -z "$(git -c core.trustctime=false -C "$wt" status --porcelain --untracked-files=all 2>/dev/null | head -1)" ]; then
			return 0
		fi
		warn "the grading worktree $wt was left broken: making it again"
	fi
	rm -rf -- "$wt"
	kgit worktree prune
	if ! why=$(kgit worktree add -q --detach "$wt" "$want" 2>&1) ||
		[ "$(git -C "$wt" rev-parse HEAD 2>/dev/null)" != "$want" ]; then
		# git's last words say why (a full disk, most often)
		why=$(printf '%s\n' "$why" | grep -v '^ *$' | tail -1)
		rm -rf -- "$wt"
		kgit worktree prune
		grader_error "cannot make the grading worktree $wt at $tag${why:+ ($why)}"
	fi
}

# A fault of the grader, not of the submission: no result is written or
# stamped, and the run stops with this name.
grader_error() {
	printf '%sGRADER_ERROR:%s %s (no result was recorded; fix this and grade again)\n' "$C_RED" "$C_OFF" "$*" >&2
	exit 70
}

# U2: a patch that does not apply: the file and hunk from plain git apply,
# and the lab it was made for when it applies onto another lab's start.
why_no_apply() { # DIFF P
	local d=$1 p=$2 t idx msg
	msg=$(git -C "$wt" apply --check "-p$p" "${excl[@]}" "$d" 2>&1 | grep '^error:' | grep -v 'while searching for' | head -6)
	printf '%s\n' "${msg:-(git apply gave no reason)}"
	idx=$(mktemp)
	for t in $(kgit tag -l 'lab-[0-9][0-9]-start'); do
		[ "$t" = "$start_tag" ] && continue
		rm -f "$idx"
		GIT_INDEX_FILE=$idx kgit read-tree "$t" 2>/dev/null || continue
		if GIT_INDEX_FILE=$idx kgit apply --cached --check "-p$p" "${excl[@]}" "$d" 2>/dev/null; then
			printf 'it applies onto %s: is it a patch for lab %s? (LAB=%s)\n' "$t" "${t:4:2}" "$((10#${t:4:2}))"
			break
		fi
	done
	rm -f "$idx"
}

# What a submission's content touches runs in the sandbox (sandbox.sh):
# its kernel's build, its program's compile, a repository's own git. The
# sandbox sees the lane's worktree read-only at /tmp/sbx/linux and a fresh
# copy of the lane's objects of the start tree at /tmp/sbx/obj; the
# results, the kernels kept, the other lanes and the class's folder are
# hidden from it, and what comes out of it (vmlinux, the build's messages)
# is copied out as data.
SBX=/tmp/sbx
# (build/ is hidden whole: the kernel repository holds every lane's
# submission as commits)
sandbox() {
	"$TOP/scripts/sandbox.sh" --hide "$TOP/build" --hide "$G" --hide "$OUT" \
		${GRADE_CLASS_DIR:+--hide "$GRADE_CLASS_DIR"} "$@" 8>&- 9>&-
}
build_timeout=${GRADE_BUILD_TIMEOUT:-1800}
# what a submission may weigh: its diff (gradelib.py's limit for patches)
# and a bundle
max_diff=${GRADE_MAX_BYTES:-$((64 * 1024 * 1024))}
case $max_diff in '' | *[!0-9]*) max_diff=$((64 * 1024 * 1024)) ;; esac
max_bundle=$((256 * 1024 * 1024))

# seed_obj FROM TO: TO's first objects, a copy of FROM's, when TO has none
# (a lane's first build then compiles what differs, never the whole kernel)
seed_obj() {
	if [ ! -f "$2/.userns-labs-tree" ] && [ -f "$1/.userns-labs-tree" ]; then
		copy_obj "$1" "$2" || rm -rf -- "$2"
	fi
}

# lane_template L TAG: L's objects of TAG's tree, built on the host from the
# course's own code (trusted), copied as the sandbox will see them
# (copy_obj ... AS): $L/templates/TAG. The worktree must be at TAG. The
# last two tags' are kept.
lane_template() {
	local l=$1 tag=$2 t want
	t=$l/templates/$tag
	want="$(kgit rev-parse "$tag^{commit}") $(cat "$TOP/kernel-steps/config.fragment" "$TOP/scripts/build-kernel.sh" "$TOP/scripts/lib.sh" | sha1sum | cut -c1-12)"
	if [ ! -f "$t/.userns-labs-template" ] || [ "$(cat "$t/.userns-labs-template")" != "$want" ]; then
		rm -rf -- "$t"
		mkdir -p "$l/templates"
		# a lane's first objects: make check's (build/obj), when it has none
		seed_obj "$OBJ_DIR" "$obj"
		KERNEL_DIR=$wt OBJ_DIR=$obj LOG_DIR=$l "$TOP/scripts/build-kernel.sh" >"$l/template.out" 2>&1 ||
			grader_error "the start tree $tag does not build in $wt (see $l/template.out)"
		copy_obj "$obj" "$t" "$SBX/obj" || grader_error "cannot copy the objects of $tag to $t"
		echo "$want" >"$t/.userns-labs-template"
		# shellcheck disable=SC2012 # tag names: no quoting trouble
		ls -1t "$l/templates" | tail -n +3 | while read -r k; do rm -rf -- "${l:?}/templates/$k"; done
	fi
	# The worktree was just made TAG's again (reset_worktree): every file
	# its checkout wrote, another tag's or a submission's undone, is newer
	# than objects made before, and make would compile it again, with all
	# that includes it (after a change of lab, half of what the labs
	# touch, in every build). The objects are TAG's own, built from this
	# very tree: dated now, all of one time, they are up to date with it.
	# What the submission changes is dated after them (submission_dated).
	find "$t" -exec touch -c -h -d "@$(date +%s.%N)" -- {} +
}

# submission_dated TEMPLATE: every file the submission changed in the
# worktree, dated now, and newer than TEMPLATE's objects by the file
# system's own clock: a file that is not (one that keeps whole seconds,
# or FAT's two, or a clock set back meanwhile) would look as old as its
# object and not be compiled, and the kernel would be the start tag's.
# Dated again a second later, up to three times; then a grader error.
submission_dated() {
	local stamp=$1/.userns-labs-template f try old
	for try in 1 2 3 4; do
		git -C "$wt" diff -z --name-only --no-renames --diff-filter=d "$start_tag" HEAD 2>/dev/null |
			(cd "$wt" && xargs -r -0 touch -c -h -d "@$(date +%s.%N)" --) ||
			grader_error "cannot date the submission's files in $wt"
		old=""
		while IFS= read -r -d '' f; do
			[ -L "$wt/$f" ] || [ ! -e "$wt/$f" ] || [ "$wt/$f" -nt "$stamp" ] || old=$f
		done < <(git -C "$wt" diff -z --name-only --no-renames --diff-filter=d "$start_tag" HEAD 2>/dev/null)
		[ -n "$old" ] || return 0
		[ "$try" = 4 ] || sleep 1
	done
	grader_error "the submission's $old is not newer than the start tag's objects by this file system's clock (set back?)"
}

# sandbox_build TEMPLATE LABEL KDEST TMPD: the worktree's kernel built in the
# sandbox from a copy of TEMPLATE, as make check builds it (the same make
# command, so kbuild's records hold: only what the submission changed is
# compiled); vmlinux to KDEST and kbuild's identity files to TMPD; the
# build's messages on stdout. Its status is make's (124: out of time).
sandbox_build() {
	local tmpl=$1 label=$2 kdest=$3 td=$4 KMAKE
	# the make command of build-kernel.sh, as the sandbox sees the folders
	KERNEL_DIR=$SBX/linux OBJ_DIR=$SBX/obj kbuild_make
	sandbox --ro "$wt" linux --copy "$tmpl" obj \
		--out obj/vmlinux "$kdest" $((1024 * 1024 * 1024)) \
		--out obj/include/config/kernel.release "$td/kernel.release" 4096 \
		--out obj/include/generated/utsversion.h "$td/utsversion.h" 4096 \
		--setenv ARCH "$ARCH" --setenv KBUILD_BUILD_USER "$KBUILD_BUILD_USER" \
		--setenv KBUILD_BUILD_HOST "$KBUILD_BUILD_HOST" \
		--setenv KBUILD_BUILD_TIMESTAMP "$KBUILD_BUILD_TIMESTAMP" \
		--setenv KBUILD_BUILD_VERSION "$label" --setenv CCACHE_DISABLE 1 \
		--timeout "$build_timeout" -- "${KMAKE[@]}" vmlinux 2>&1
}

# repo_read REPO TAG TMPD: in the sandbox, REPO read-only, git there with
# safe.directory, no fsmonitor and no hooks (command-line config, above the
# repository's own): whether it has uncommitted changes (TMPD/state: clean
# or dirty; no file: it could not be read), its first untracked files
# (TMPD/untracked), and its commits as a bundle (TMPD/sub.bundle, without
# TAG's history when it has TAG's commit); git's complaints in TMPD/err.
# A filter the repository declares can only run there.
repo_read() {
	local r=$1 base td=$3
	base=$(kgit rev-parse "$2^{commit}")
	# shellcheck disable=SC2016 # the inner shell's own $1, $2 and $3
	sandbox --ro "$r" repo --dir out \
		--out out/sub.bundle "$td/sub.bundle" "$max_bundle" \
		--out out/state "$td/state" 100 --out out/untracked "$td/untracked" 100000 \
		--out out/err "$td/err" 100000 \
		--setenv GIT_CONFIG_NOSYSTEM 1 --setenv GIT_CONFIG_COUNT 3 \
		--setenv GIT_CONFIG_KEY_0 safe.directory --setenv GIT_CONFIG_VALUE_0 '*' \
		--setenv GIT_CONFIG_KEY_1 core.fsmonitor --setenv GIT_CONFIG_VALUE_1 false \
		--setenv GIT_CONFIG_KEY_2 core.hooksPath --setenv GIT_CONFIG_VALUE_2 /dev/null \
		--setenv GIT_OPTIONAL_LOCKS 0 \
		--timeout 600 -- sh -c '
		cd "$1/repo" 2>/dev/null || { echo "permission denied: cannot enter the repository" >>"$1/out/err"; exit 1; }
		s=$(git status --porcelain --untracked-files=no 2>>"$1/out/err") || exit 1
		if [ -z "$s" ]; then echo clean; else echo dirty; fi >"$1/out/state"
		git status --porcelain --untracked-files=all --ignored=matching 2>/dev/null |
			grep -e "^??" -e "^!!" | head -20 >"$1/out/untracked"
		not=
		git cat-file -e "$3^{commit}" 2>/dev/null && not=$3
		git bundle create -q "$1/out/sub.bundle" "$2" ${not:+--not "$not"} 2>>"$1/out/err"' \
		sh "$SBX" "${SUB_REF:-HEAD}" "$base" >/dev/null 2>&1
	[ $? -ne 71 ] || grader_error "the sandbox could not be made to read $r"
}

grade_one() { # SUB LAB NAME ID
	local sub=$1 lab name=$3 id=$4 kind status="" detail="" wt obj start_tag
	lab=$(printf '%02d' "$((10#$2))")
	# the one folder this submission owns: never anything above it
	local out=$OUT/$id
	case $id in '' | . | .. | */* | *[!A-Za-z0-9._-]*) grader_error "no safe results folder for '$name'" ;; esac
	rm -rf -- "$out"
	mkdir -p "$out/.facts"
	local facts=$out/.facts
	fact() { printf '%s' "$2" >"$facts/$1"; }
	fact name "$name"
	fact id "$id"
	fact lab "$lab"
	fact submission "$sub"
	start_tag=lab-$lab-start
	lab_dir "$lab" >/dev/null || die "there is no lab $lab"

	# this run's lane: its own worktree, obj dir and copies (grade-all
	# JOBS=k runs k lanes; lane 0 is $G itself)
	local L=${GRADE_LANE_DIR:-$G}
	wt=$L/linux obj=$L/obj
	# what it is, first: a submission that is none (empty, not a patch,
	# too large) needs no worktree and no objects
	{ IFS= read -r -d '' kind; IFS= read -r -d '' status; IFS= read -r -d '' detail; } < <(py classify "$sub")
	if [ -z "$status" ]; then
		reset_worktree "$start_tag"
		lane_template "$L" "$start_tag"
		# (the template's build may touch the worktree's files, copy_obj's
		# way: the index is told, or git apply --index finds them "not
		# matching")
		git -C "$wt" update-index -q --refresh >/dev/null 2>&1
	fi

	local kt userspace ufiles="" ucopy=$L/course ignored="" untracked=""
	userspace=$(lab_conf "$lab" USERSPACE)
	rm -rf -- "$ucopy"
	kt=$(kernel_top)

	local tmpd
	tmpd=$(mktemp -d)
	local input=$sub
	if [ -z "$status" ]; then
		case $kind in
		repo | bundle)
			# a repository is read in the sandbox (repo_read): its own
			# config, hooks and filters never run here; its commits come
			# back as a bundle, which git here only reads as data
			# (a path of its own: a name with a ':' is no remote)
			local from ref=${SUB_REF:-HEAD}
			from=$(realpath -- "$sub")
			if [ "$kind" = repo ]; then
				repo_read "$sub" "$start_tag" "$tmpd"
				from=$tmpd/sub.bundle
			fi
			if [ "$kind" = repo ] && [ "$(cat "$tmpd/state" 2>/dev/null)" = dirty ]; then
				status=DIRTY detail="the repository $sub has uncommitted changes: commit them first (git -C $sub commit -am 'submission'); nothing was changed"
			elif [ "$kind" = repo ] && [ "$(cat "$tmpd/state" 2>/dev/null)" != clean ]; then
				status=NOT_A_PATCH detail="cannot read the repository $sub: $(head -c 600 "$tmpd/err" 2>/dev/null | head -3)"
				! grep -qi 'permission denied' "$tmpd/err" 2>/dev/null || detail="$detail
(the grader reads a repository in its sandbox, as the user ${USERNS_SANDBOX_USER:-userns-grader} when run as root: make it readable by every user, chmod -R a+rX, or send a bundle: git bundle create NAME.bundle HEAD)"
			elif [ "$(stat -c %s -- "$from" 2>/dev/null || echo 0)" -gt "$max_bundle" ]; then
				status=TOO_LARGE detail="the bundle of $sub is larger than $max_bundle bytes"
			elif [ ! -s "$from" ]; then
				status=NOT_A_PATCH detail="cannot read $ref from $sub: $(head -c 600 "$tmpd/err" 2>/dev/null | head -3)"
			elif ! kgit -c core.hooksPath=/dev/null fetch -q --no-tags -- "$from" "+$ref:refs/grade/$id" 2>"$tmpd/fetch"; then
				status=NOT_A_PATCH detail="cannot read $ref from $sub: $(head -2 "$tmpd/fetch")"
			else
				# the diff, capped and timed: a small bundle can name a
				# huge tree (one blob in many trees)
				timeout 300 git -C "$KERNEL_DIR" diff --binary "$start_tag" "refs/grade/$id" 2>/dev/null |
					head -c $((max_diff + 1)) >"$tmpd/tree.diff"
				# its commits as mails, for the patch review's reading of
				# their messages only (the last 30 that are no merge,
				# capped): the tree above is what is graded
				timeout 300 git -C "$KERNEL_DIR" format-patch --stdout --no-signature -30 \
					"$start_tag..refs/grade/$id" -- 2>/dev/null | head -c $((16 * 1024 * 1024)) >"$tmpd/commits"
				kgit update-ref -d "refs/grade/$id" 2>/dev/null
				input=$tmpd/tree.diff
				if [ "$(stat -c %s -- "$input")" -gt "$max_diff" ]; then
					status=TOO_LARGE detail="$ref of $sub differs from $start_tag by more than $max_diff bytes of diff"
				elif [ ! -s "$input" ]; then
					status=EMPTY detail="$ref of $sub has the tree of $start_tag: nothing was changed"
				fi
				if [ "$kind" = repo ]; then
					untracked=$(sed -n 's/^[?!][?!] //p' "$tmpd/untracked" 2>/dev/null | head -20)
				fi
			fi
			;;
		esac
	fi

	# what the submission is made of: patches with a diff, in order, each
	# with its strip level (gradelib.py prepare)
	local list=() line
	if [ -z "$status" ]; then
		kgit ls-tree -r -z --name-only "$start_tag" >"$tmpd/tree"
		while IFS= read -r line; do list+=("$line"); done < <(py prepare "$input" "$tmpd/p" "$tmpd/tree")
		[ -f "$tmpd/p/plan.json" ] || grader_error "the submission $name could not be read (gradelib.py prepare wrote no plan)"
		status=$(py plan-field "$tmpd/p/plan.json" status)
		[ -z "$status" ] || detail=$(py plan-field "$tmpd/p/plan.json" detail)
	fi
	[ -f "$tmpd/p/plan.json" ] && fact notes "$(py plan-field "$tmpd/p/plan.json" notes)" &&
		fact skipped "$(py plan-field "$tmpd/p/plan.json" skipped)"

	# apply each: kernel files onto the start tag, a user-space lab's own
	# files onto a copy of the course's labs/, anything else left out
	local d dn p src f msg paths=()
	excl=()
	for line in "${list[@]}"; do
		[ -n "$status" ] && break
		IFS=$'\t' read -r dn p src <<<"$line"
		d=$tmpd/p/$dn
		paths=()
		while IFS= read -r -d '' f; do paths+=("$f"); done < <(py paths "$tmpd/p/plan.json" "$dn")
		excl=()
		for f in "${paths[@]}"; do
			if [ -n "$userspace" ] && [[ " $userspace " == *" $f "* ]]; then
				ufiles="$ufiles$f"$'\n'
				excl+=("--exclude=$f")
				[ -d "$ucopy/.git" ] || {
					# (the course's solutions/, whatever the base: a user-space
					# lab's reference program is there, and the labs' sources
					# include it by that path)
					mkdir -p "$ucopy" && cp -a "$LABS_DIR" "$ucopy/labs" &&
						cp -a "$TOP/solutions" "$ucopy/solutions" && git -C "$ucopy" init -q &&
						git -C "$ucopy" add -A && git -C "$ucopy" -c user.name=grader \
						-c user.email=grader@localhost commit -q -m course
				} || grader_error "cannot copy the course into $ucopy"
				msg=$(git -C "$ucopy" apply "-p$p" --include="$f" "$d" 2>&1) ||
					status=APPLY_FAILED detail="$src does not apply to $f:
$(printf '%s\n' "$msg" | head -8)"
				# the program's file changed, nothing else of the course
				# (a rename onto it, a deletion): the guest is the course's
				msg=$(git -C "$ucopy" -c core.quotePath=false status --porcelain --untracked-files=all |
					grep -vxF -f <(for u in $userspace; do printf ' M %s\n D %s\n?? %s\n' "$u" "$u" "$u"; done) | head -3)
				[ -z "$msg" ] || [ -n "$status" ] || status=APPLY_FAILED detail="$src changes course files besides $f (only $f is the student's):
$msg"
			elif ! printf '%s\n' "$kt" | grep -qxF -- "${f%%/*}"; then
				ignored="$ignored$f"$'\n'
				excl+=("--exclude=$f")
			fi
		done
		[ -n "$status" ] && break
		if msg=$(git -C "$wt" apply -3 --index "-p$p" "${excl[@]}" "$d" 2>&1); then
			git -C "$wt" -c user.name=grader -c user.email=grader@localhost commit -q --allow-empty \
				-m "submission: $src" ||
				grader_error "cannot commit in the grading worktree"
		else
			status=APPLY_FAILED
			detail="$src does not apply onto $start_tag:
$(why_no_apply "$d" "$p")"
			# (when a plain check finds no fault, what the apply itself said)
			case $detail in *"(git apply gave no reason)"*)
				detail="$detail
$(printf '%s\n' "$msg" | grep -v '^ *$' | head -4)" ;;
			esac
		fi
	done

	# W4: what the submission changed is what was applied
	local files=""
	if [ -z "$status" ] || [ "$status" = APPLY_FAILED ]; then
		files=$(git -C "$wt" -c core.quotePath=false diff --name-only "$start_tag" HEAD 2>/dev/null)
	fi
	# ... and newer than the template's objects (a file's own time is the
	# kernel's clock at its last tick: one written in the tick that dated
	# the template would look as old as its object)
	[ -n "$status" ] || submission_dated "$L/templates/$start_tag"
	fact files "$files"$'\n'"$(printf '%s' "$ufiles" | sort -u)"
	fact ufiles "$(printf '%s' "$ufiles" | sort -u)"
	fact ignored "$(printf '%s' "$ignored" | sort -u)"
	fact untracked "$untracked"
	fact kind "$kind"

	# the patch review (review.py): the patches as a maintainer reads them,
	# in a section and a score of their own, never the kernel's points
	if [ -z "$status" ] || [ "$status" = APPLY_FAILED ]; then
		local rvdir=$tmpd/p
		if [ -s "$tmpd/commits" ]; then
			rvdir=$tmpd/rv
			py prepare "$tmpd/commits" "$rvdir" "$tmpd/tree" >/dev/null 2>&1
		fi
		# (the scope item reads what was applied: a repository's merges
		# and older commits are in it, not in its last 30 mails; what did
		# not apply, its patches' own paths)
		printf '%s\n' "$files" "$(printf '%s' "$ufiles" | sort -u)" >"$tmpd/files.list"
		local rvopt=(--files="$tmpd/files.list")
		[ -z "$status" ] || rvopt=(--not-applied)
		if [ -f "$rvdir/plan.json" ] && checkpatch_dir &&
			python3 "$TOP/scripts/review.py" run "$rvdir" "$lab" "$cpd" "$facts/review.json" \
				"${rvopt[@]}" 2>"$tmpd/review.err"; then
			:
		else
			rm -f -- "$facts/review.json"
			fact review_error "the patch review could not be made: $(head -c 300 "$tmpd/review.err" 2>/dev/null)"
		fi
	fi

	local labs="" k log="$out/serial.log" ktap="$out/serial.ktap" rc said
	for ((k = 1; k <= 10#$lab; k++)); do lab_dir "$k" >/dev/null && labs="$labs $(printf '%02d' "$k")"; done
	labs=${labs# }
	fact labs "$labs"

	# The kernel is named by what it is built from, the tree: two
	# submissions with the same tree (a class's do-nothing copies, one
	# series sent as a folder and as an mbox) get the same kernel, built
	# once and kept in $G/kernels, keyed by the tree, the configuration
	# and the scripts that build it (its make command is lib.sh's). The boot and the checks are every
	# submission's own.
	local tree label kkey kc kimg="" kver="" kn=""
	# (none when the submission is none: the worktree was left as it was)
	tree=
	[ -n "$status" ] || tree=$(git -C "$wt" rev-parse 'HEAD^{tree}')
	# the reference answer itself (make solution-N's tree): graded, and said
	# (a user-space lab: its program is the answer's, solutions/NN-*/FILE)
	local same=1 u
	if [ -n "$status" ]; then
		same=0
	elif [ -n "$userspace" ]; then
		for u in $userspace; do
			cmp -s -- "$ucopy/$u" "$TOP/solutions/${u#labs/}" 2>/dev/null || same=0
		done
	else
		[ "$tree" = "$(kgit rev-parse -q --verify "lab-$lab-done^{tree}" 2>/dev/null)" ] || same=0
		# the same but for white space: said too. Only files both trees
		# have, with their modes, changed in text by spaces (-b: a space
		# removed between two words is a change) or blank lines; git must
		# have read both trees
		local raw wsd
		if [ "$same" = 0 ] && [ -z "$status" ] && kgit rev-parse -q --verify "lab-$lab-done^{tree}" >/dev/null &&
			raw=$(git -C "$wt" diff --raw --no-renames "lab-$lab-done" HEAD -- 2>/dev/null) && [ -n "$raw" ] &&
			! printf '%s\n' "$raw" | grep -qvE '^:(100644 100644|100755 100755) [0-9a-f]+ [0-9a-f]+ M'$'\t' &&
			wsd=$(git -C "$wt" diff -b --ignore-blank-lines --ignore-space-at-eol -U0 "lab-$lab-done" HEAD -- 2>/dev/null) &&
			! printf '%s\n' "$wsd" | grep -qE '^(@@|Binary files)'; then
			same=2
		fi
	fi
	case $same in
	1) fact reference same ;;
	2) fact reference whitespace ;;
	esac
	label=grade-lab$lab-${tree:0:12}
	kkey=$( { echo "$tree $lab"; cat "$TOP/kernel-steps/config.fragment" "$TOP/scripts/build-kernel.sh" "$TOP/scripts/sandbox.sh" "$TOP/scripts/lib.sh"; } |
		sha1sum | cut -c1-24)
	kc=$G/kernels/$kkey
	if [ -z "$status" ] && [ -s "$kc/vmlinux" ] && [ -s "$kc/kernel" ]; then
		kimg=$kc/vmlinux kver=$(cat "$kc/kernel")
		touch "$kc"
		echo "the kernel of tree $tree, built for an earlier submission: $kc" >"$out/build.out"
	elif [ -z "$status" ]; then
		{ mkdir -p "$G/kernels" && kn=$(mktemp -d "$G/kernels/.new.XXXXXX"); } ||
			grader_error "cannot keep the kernel in $G/kernels"
		sandbox_build "$L/templates/$start_tag" "$label" "$kn/vmlinux" "$tmpd" |
			head -c 4000000 >"$out/build.out"
		rc=${PIPESTATUS[0]}
		if [ "$rc" -eq 71 ]; then
			rm -rf -- "$kn"
			grader_error "the sandbox could not be made: $(grep '^sandbox:' "$out/build.out" | head -2)"
		elif [ "$rc" -ne 0 ] || [ ! -s "$kn/vmlinux" ]; then
			rm -rf -- "$kn"
			status=BUILD_FAILED
			[ "$rc" -ne 124 ] || detail="the build did not end within ${build_timeout}s"
			[ -n "$detail" ] || detail=$(grep -E -m3 -A3 'error:' "$out/build.out" | head -12)
			[ -n "$detail" ] || detail=$(tail -8 "$out/build.out")
		else
			# the kernel's identity, from kbuild's files as the build
			# left them (data: one line each, printable)
			local rel uts
			rel=$(head -1 "$tmpd/kernel.release" 2>/dev/null | tr -cd '[:alnum:]._+-')
			uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$tmpd/utsversion.h" 2>/dev/null | head -1 | tr -cd '[:print:]')
			case $uts in "#$label "*) kver="$rel $uts" ;; esac
			# kept under a name of its own, then renamed: another lane
			# may be keeping the same tree's kernel at the same time
			kimg=$kc/vmlinux
			printf '%s\n' "$kver" >"$kn/kernel" || grader_error "cannot keep the kernel in $kc"
			rm -rf -- "$kc"
			mv -T -- "$kn" "$kc" 2>/dev/null || [ -s "$kc/vmlinux" ] ||
				grader_error "cannot keep the kernel in $kc"
			rm -rf -- "$kn"
			# keep the 24 kernels used last (names are hex: no quoting trouble)
			# shellcheck disable=SC2012
			ls -1t "$G/kernels" | tail -n +25 | while read -r k; do rm -rf -- "${G:?}/kernels/$k"; done
		fi
	fi
	# a user-space lab: the student's program, compiled in the sandbox (as
	# build-guest.sh would), packed by the host into a guest of its own
	local initrd=$GUEST_DIR/initramfs.cpio append="" uf ub
	if [ -z "$status" ] && [ -n "$userspace" ]; then
		append=$(lab_conf "$lab" STUDENT_APPEND)
		if [ -d "$ucopy/labs" ]; then
			mkdir -p "$tmpd/prebuilt"
			for uf in $userspace; do
				case $uf in labs/*.c) ;; *) continue ;; esac
				ub=$(basename "${uf%.c}")
				rc=0
				sandbox --ro "$ucopy/labs" labs --dir out \
					--out "out/$ub" "$tmpd/prebuilt/$ub" $((64 * 1024 * 1024)) --timeout 300 -- \
					gcc -static -O2 -Wall -Wextra -Wno-unused-parameter -pthread \
					-o "$SBX/out/$ub" "$SBX/$uf" 2>&1 | head -c 1000000 >>"$out/guest.out"
				rc=${PIPESTATUS[0]}
				[ "$rc" -ne 71 ] || grader_error "the sandbox could not be made: $(grep '^sandbox:' "$out/guest.out" | head -2)"
				if [ "$rc" -ne 0 ] || [ ! -s "$tmpd/prebuilt/$ub" ]; then
					status=BUILD_FAILED
					detail=$(grep -E -m3 -A3 'error:' "$out/guest.out" | head -12)
					[ -n "$detail" ] || detail=$(tail -8 "$out/guest.out")
					break
				fi
			done
			if [ -z "$status" ] && ! GUEST_PREBUILT=$tmpd/prebuilt LABS_DIR=$ucopy/labs GUEST_DIR=$L/guest-user \
				"$TOP/scripts/build-guest.sh" >>"$out/guest.out" 2>&1; then
				grader_error "the guest with the student's program cannot be packed (see $out/guest.out)"
			fi
			initrd=$L/guest-user/initramfs.cpio
		fi
	fi
	if [ -z "$status" ]; then
		rc=0
		QEMU_APPEND="${QEMU_APPEND:-} $append" INITRD=$initrd KERNEL_IMAGE=$kimg \
			KERNEL_DIR=$wt OBJ_DIR=$obj "$TOP/scripts/run-qemu.sh" --labs "$labs" --log "$log" \
			--timeout "$boot_timeout" --check-timeout "$check_timeout" || rc=$?
		# how the boot ended (qemu-outcomes.sh); a status that is no outcome
		# (run-qemu.sh's own failure) is taken as a REBOOT, as it always was
		case $rc in
		"$QEMU_OK") status=COMPLETE ;;
		"$QEMU_TIMEOUT") status=TIMEOUT detail="the guest did not finish within ${boot_timeout}s" ;;
		"$QEMU_PANIC") status=PANIC detail=$("$TOP/scripts/ktap.sh" grep panic "$log" | head -1) ;;
		"$QEMU_FLOOD") status=FLOOD detail="the console printed more than its cap; output cut" ;;
		"$QEMU_UNAUTHENTICATED") status=UNAUTHENTICATED detail="the results channel carried no result of this boot's /init, only lines without its secret (written by the kernel itself?): none of them counts" ;;
		"$QEMU_REBOOT" | *) status=REBOOT detail="the guest reset (a reboot, a triple fault) before the checks ended" ;;
		esac
		# the kernel in trouble: the same list as make check (kernel-trouble.re),
		# but the panic, which the detail already has
		said=$("$TOP/scripts/ktap.sh" trouble "$log" --except panic | head -6 || true)
		if [ -n "$said" ]; then
			[ "$status" = COMPLETE ] && status=OOPS
			detail="$detail${detail:+
}$said"
		fi
		fact ktap "$ktap"
		fact console "$("$TOP/scripts/ktap.sh" grep oom-any "$log" | head -3)"
	fi
	rm -rf -- "$tmpd"

	fact kernel "$kver"
	fact base "$KERNEL ($(base_line))"
	[ "${USERNS_SANDBOX_MODE:-}" != uid ] || fact sandbox uid
	fact status "$status"
	fact detail "$detail"
	py finish "$facts" "$out" || grader_error "the result files of $name could not be written"
}

# checkpatch_dir: cpd, a folder with the base's checkpatch.pl and the
# files it reads, from the kernel tree's 'distro' tag (the course's copy,
# never a submission's), made once per base
checkpatch_dir() {
	local d f t
	d=$G/checkpatch/$(kgit rev-parse distro 2>/dev/null) || return 1
	if [ ! -f "$d/checkpatch.pl" ]; then
		# (lanes may race here: each writes its own, the first one stays)
		t=$d.new.$BASHPID
		rm -rf -- "$t"
		mkdir -p "$t" || return 1
		for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
			kgit show "distro:scripts/$f" >"$t/$f" 2>/dev/null || { rm -rf -- "$t"; return 1; }
		done
		mv -T -- "$t" "$d" 2>/dev/null || rm -rf -- "$t"
		[ -f "$d/checkpatch.pl" ] || return 1
	fi
	cpd=$d
}

# lane_dir N: lane 0 is $G itself, lane N its own folder
lane_dir() { if [ "$1" -eq 0 ]; then echo "$G"; else echo "$G/lanes/$1"; fi; }

# grade_task RUNDIR N: one task of a class run on another engine (a Slurm
# array task): the entry RUNDIR/N/entry (submission, name, id, stamp;
# NUL-separated), graded in the first lane no other task holds (flock),
# its result stamped, and RUNDIR/N/rc written last
grade_task() {
	local r=$1 n=$2 s nm id stamp lab ln fd=9 rc=0
	case $n in '' | *[!0-9]*) die "grade.sh --task: no task number ('$n')" ;; esac
	[ -f "$r/$n/entry" ] || die "grade.sh --task: no $r/$n/entry"
	{ IFS= read -r -d '' s; IFS= read -r -d '' nm; IFS= read -r -d '' id; IFS= read -r -d '' stamp; } <"$r/$n/entry"
	lab=$(cat "$r/lab") lanes=$(cat "$r/lanes")
	GRADE_CLASS_DIR=$(cat "$r/classdir" 2>/dev/null)
	for ((ln = 0; ln < lanes; ln++)); do
		: >>"$G/lane-$ln.lock"
		exec 9<"$G/lane-$ln.lock"
		flock -n "$fd" && break
		exec 9>&-
	done
	[ "$ln" -lt "$lanes" ] || grader_error "every one of the $lanes lanes is taken for task $n (is the array throttled to $lanes?)"
	export GUEST_DIR=$G/guest
	(GRADE_LANE_DIR=$(lane_dir "$ln") grade_one "$s" "$lab" "$nm" "$id") >"$r/$n/log" 2>&1 || rc=$?
	[ "$rc" -eq 70 ] || { [ -f "$OUT/$id/results.csv" ] && echo "$stamp" >"$OUT/$id/.stamp"; }
	echo "$rc" >"$r/$n/rc"
	exit "$rc"
}
if [ "${1:-}" = --task ]; then
	grade_task "${2:-}" "${3:-}"
fi

need_kernel_tree
mkdir -p "$G" "$OUT"
# One run at a time in a grading folder: the lanes, the kernels kept and
# the results are its. The lock is held by every process the run starts,
# so what is left of a killed run (a QEMU, a build) holds it too.
# (open for reading: nothing can be written through it)
: >>"$G/.lock"
exec 8<"$G/.lock"
flock -n 8 || die "another grading run is using $G (or what is left of one: a build or a QEMU it started still runs); wait for it or stop it, then grade again"

# descendants PID: every process below PID (from /proc, no procps needed)
descendants() {
	local f p pp rest q kids=() queue=("$1")
	declare -A below=()
	for f in /proc/[0-9]*/stat; do
		read -r p rest 2>/dev/null <"$f" || continue
		rest=${rest##*) }
		read -r _ pp _ <<<"$rest"
		below[$pp]="${below[$pp]:-} $p"
	done
	while [ "${#queue[@]}" -gt 0 ]; do
		q=${queue[0]} queue=("${queue[@]:1}")
		for p in ${below[$q]:-}; do kids+=("$p") queue+=("$p"); done
	done
	echo "${kids[*]}"
}
# Ctrl-C or a kill: every process of the run ends with it (the sandbox
# runs under timeout, in a process group of its own, which a terminal's
# Ctrl-C does not reach; a kill of this script alone reaches no child);
# what was being graded has no result,
# so the next run grades it
on_signal() {
	local k
	trap - INT TERM HUP
	k=$(descendants $$)
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$k" ] || kill -TERM $k 2>/dev/null
	sleep 1
	k=$(descendants $$)
	# shellcheck disable=SC2086
	[ -z "$k" ] || kill -KILL $k 2>/dev/null
	printf '\n%sstopped%s (%s): what was being graded has no result; run the same command again to go on\n' \
		"$C_RED" "$C_OFF" "$1" >&2
	exit 130
}
trap 'on_signal SIGINT' INT
trap 'on_signal SIGTERM' TERM
trap 'on_signal SIGHUP' HUP

"$TOP/scripts/apply-steps.sh" || exit 1
# --prepare LAB: everything a submission of LAB needs that is the course's
# own, made now (an autograder image's setup, ci/gradescope/setup.sh): the
# guest, lab-NN-start's worktree and kernel objects (lane 0's template),
# checkpatch.pl; a submission then costs what it changed and a boot. No
# submission is read, so no sandbox is needed.
if [ "${1:-}" = --prepare ]; then
	lab=${2:-}
	case $lab in '' | *[!0-9]*) die "usage: grade.sh --prepare LAB (a lab number)" ;; esac
	lab_dir "$lab" >/dev/null || die "there is no lab $lab (see labs/README.md)"
	lab=$(printf '%02d' "$((10#$lab))")
	if [ ! -f "$G/.sandboxed" ]; then
		rm -rf -- "$G/obj" "$G/lanes" "$G/templates" "$G/guest-user" "$G/kernels"
		: >"$G/.sandboxed"
	fi
	export GUEST_DIR=$G/guest
	"$TOP/scripts/build-guest.sh" >/dev/null 2>&1 || die "the guest initramfs does not build"
	wt=$G/linux obj=$G/obj
	reset_worktree "lab-$lab-start"
	lane_template "$G" "lab-$lab-start"
	checkpatch_dir || die "cannot take checkpatch.pl from the kernel tree's tag distro"
	info "ready to grade lab $lab: the start tree's kernel is built ($G/templates/lab-$lab-start)"
	exit 0
fi
# The sandbox must be possible here before anything is graded: a fault of
# the machine (no user namespaces, a chroot) is never a student's result
# (GRADE_SANDBOX_FALLBACK=uid, which the Gradescope autograder sets: on a
# machine that is a container of one submission, a user of its own without
# namespaces, sandbox.sh's USERNS_SANDBOX_MODE=uid; said in every report)
if [ "${USERNS_SANDBOX_MODE:-}" != uid ] && ! why=$("$TOP/scripts/sandbox.sh" -- true 2>&1); then
	if [ "${GRADE_SANDBOX_FALLBACK:-}" = uid ] && USERNS_SANDBOX_MODE=uid "$TOP/scripts/sandbox.sh" -- true >/dev/null 2>&1; then
		export USERNS_SANDBOX_MODE=uid
		warn "no namespaces here ($(printf '%s\n' "$why" | head -1)): the sandbox is a user of its own (USERNS_SANDBOX_MODE=uid)"
	else
		printf '%sGRADER_ERROR:%s the grader'"'"'s sandbox cannot be made on this machine: %s\n' \
			"$C_RED" "$C_OFF" "$(printf '%s\n' "$why" | head -2 | tr '\n' ' ')" >&2
		printf 'It needs bubblewrap and user namespaces (no chroot: a container or a machine of its own).\n' >&2
		exit 70
	fi
fi
# Obj dirs from before the sandbox were written by submissions' builds:
# nothing of them is run again (the lanes' objects are the host's own)
if [ ! -f "$G/.sandboxed" ]; then
	rm -rf -- "$G/obj" "$G/lanes" "$G/templates" "$G/guest-user" "$G/kernels"
	: >"$G/.sandboxed"
fi
export GUEST_DIR=$G/guest
"$TOP/scripts/build-guest.sh" >/dev/null 2>&1 || die "the guest initramfs does not build"

# LAB=N: a number, and nothing else reaches the shell's arithmetic
valid_lab() {
	case $1 in
	'' | *[!0-9]*) die "LAB must be a lab number (1 to 18), not '$1'" ;;
	esac
	lab_dir "$1" >/dev/null || die "there is no lab $1 (see labs/README.md)"
}

# lanes: how many submissions are graded at once. GRADE_JOBS (make
# grade-all JOBS=k) or, by default, one per core while each has 2 GiB of
# memory (a kernel build and a 256 MB guest)
default_lanes() {
	local cores mem
	cores=$(nproc 2>/dev/null || echo 1)
	mem=$(awk '/^MemAvailable:/ { print int($2 / 2097152) }' /proc/meminfo 2>/dev/null)
	[ -n "$mem" ] && [ "$mem" -ge 1 ] || mem=1
	echo $((cores < mem ? cores : mem))
}

# prepare_lanes N TAG: lane 0 is $G, lane i its own folder $G/lanes/i, each
# with a worktree made here, one at a time (git's worktree list is shared),
# and an obj dir copied from lane 0's (copy_obj): a lane's first build
# compiles what differs from what lane 0 built last, never the whole kernel.
# Lane 0's obj dir, when it has none, starts from make check's (build/obj).
prepare_lanes() {
	local n=$1 tag=$2 i L
	seed_obj "$OBJ_DIR" "$G/obj"
	for ((i = 0; i < n; i++)); do
		L=$(lane_dir "$i")
		mkdir -p "$L"
		wt=$L/linux reset_worktree "$tag"
		[ "$i" -eq 0 ] || seed_obj "$G/obj" "$L/obj"
	done
}

# progress NAME ID: one line per submission done: done/total, its result,
# the results that are not PASS so far, the time left
progress() {
	local res el left
	res=$(sed -n 's/^result: *//p' "$OUT/$2/report.txt" 2>/dev/null)
	case $res in PASS) ;; *) failed=$((failed + 1)) ;; esac
	el=$(($(date +%s) - t0))
	left=$(((total - done_n) * el / done_n))
	info "[$done_n/$total] $(printf '%q' "$1"): ${res:-no result} (not PASS so far: $failed; about $((left / 60))m$((left % 60))s left)"
}

# run_local: the class on this machine, $lanes at a time
run_local() {
	# the lanes: each submission is graded by grade_one in a process of
	# its own, in a lane that is idle; its output goes to its lane's log
	declare -A lane_of=() ent_of=()
	idle=()
	for ((i = 0; i < lanes; i++)); do idle+=("$i"); done
	done_n=0 failed=0 next=0
	while [ "$done_n" -lt "$total" ]; do
		while [ "$grader_rc" -eq 0 ] && [ "$next" -lt "$total" ] && [ "${#idle[@]}" -gt 0 ]; do
			ln=${idle[0]} idle=("${idle[@]:1}")
			i=${todo[next]} next=$((next + 1))
			L=$(lane_dir "$ln")
			GRADE_LANE_DIR=$L grade_one "${ents[i]}" "$lab" "${ents[i + 1]}" "${ents[i + 2]}" >"$L/lane.log" 2>&1 &
			lane_of[$!]=$ln ent_of[$!]=$i
		done
		[ "${#lane_of[@]}" -gt 0 ] || break
		pid="" rc=0
		wait -n -p pid "${!lane_of[@]}" || rc=$?
		[ -n "$pid" ] || continue
		ln=${lane_of[$pid]} i=${ent_of[$pid]}
		unset "lane_of[$pid]" "ent_of[$pid]"
		idle+=("$ln")
		done_n=$((done_n + 1))
		n=${ents[i + 1]} id=${ents[i + 2]}
		L=$(lane_dir "$ln")
		if [ "$rc" -eq 70 ]; then
			# a grader error: nothing more is started, nothing stamped
			grader_rc=70
			sed -n 's/^.*GRADER_ERROR/GRADER_ERROR/p' "$L/lane.log" >&2
			continue
		fi
		# only a result the grader finished is stamped
		[ -f "$OUT/$id/results.csv" ] && echo "${stamps[i]}" >"$OUT/$id/.stamp"
		progress "$n" "$id"
	done
}

# run_slurm: the class as one Slurm job array (sbatch --array), one task
# per submission and at most $lanes at once, each task in an idle lane of
# the ones made above (grade.sh --task); this command waits, shows each
# task as it ends, and the caller writes summary.csv. Partition, time
# limit, memory and cores per task: GRADE_PARTITION, GRADE_TIME (minutes,
# 30), GRADE_MEM (2G), GRADE_CPUS (1).
run_slurm() {
	local r k i jid rc gone=0
	r=$G/slurm/run-$(date +%Y%m%d-%H%M%S)-$$
	local -A seen=()
	slurm_run=$r lost=0 done_n=0 failed=0
	mkdir -p "$r" || grader_error "cannot make $r"
	echo "$lab" >"$r/lab"
	printf '%s' "${GRADE_CLASS_DIR:-}" >"$r/classdir"
	echo "$lanes" >"$r/lanes"
	for ((k = 0; k < total; k++)); do
		i=${todo[k]}
		mkdir -p "$r/$k"
		printf '%s\0%s\0%s\0%s\0' "${ents[i]}" "${ents[i + 1]}" "${ents[i + 2]}" "${stamps[i]}" >"$r/$k/entry"
	done
	# shellcheck disable=SC2016
	printf '#!/bin/bash\nexec %q --task %q "$SLURM_ARRAY_TASK_ID"\n' "$TOP/scripts/grade.sh" "$r" >"$r/task.sh"
	chmod +x "$r/task.sh"
	jid=$(sbatch --parsable --array="0-$((total - 1))%$lanes" --job-name=userns-labs-grade \
		--output="$r/%a/slurm.out" ${GRADE_PARTITION:+--partition="$GRADE_PARTITION"} \
		--time="${GRADE_TIME:-30}" --mem="${GRADE_MEM:-2G}" --cpus-per-task="${GRADE_CPUS:-1}" \
		"$r/task.sh" 2>"$r/sbatch.err") || die "sbatch refused the job array: $(head -3 "$r/sbatch.err")"
	jid=${jid%%;*}
	echo "$jid" >"$r/job"
	info "Slurm job $jid: $total task(s), $lanes at a time (tasks in $r)"
	while :; do
		for ((k = 0; k < total; k++)); do
			if [ -n "${seen[$k]:-}" ] || [ ! -f "$r/$k/rc" ]; then continue; fi
			seen[$k]=1 done_n=$((done_n + 1)) i=${todo[k]}
			rc=$(cat "$r/$k/rc")
			if [ "$rc" = 70 ]; then
				grader_rc=70
				sed -n 's/^.*GRADER_ERROR/GRADER_ERROR/p' "$r/$k/log" >&2
				scancel "$jid" 2>/dev/null
				continue
			fi
			progress "${ents[i + 1]}" "${ents[i + 2]}"
		done
		[ "$done_n" -lt "$total" ] || break
		# the array has left the queue (twice in a row: a task's last
		# files may trail its end): what has no rc ended without a result
		if [ -z "$(squeue -h -j "$jid" -o %i 2>/dev/null | head -1)" ]; then
			gone=$((gone + 1))
			if [ "$gone" -ge 3 ]; then
				for ((k = 0; k < total; k++)); do [ -n "${seen[$k]:-}" ] || lost=$((lost + 1)); done
				[ "$grader_rc" -ne 0 ] || [ "$lost" -eq 0 ] || grader_rc=75
				break
			fi
		else
			gone=0
		fi
		sleep 2
	done
}

if [ "${1:-}" = --all ]; then
	dir=${2:-} lab=${3:-}
	GRADE_CLASS_DIR=$(realpath -m -- "$dir")
	[ -d "$dir" ] || die "usage: make grade-all DIR=<directory of submissions> LAB=N [JOBS=k]"
	[ -n "$lab" ] || die "say which lab the class handed in: make grade-all DIR=$dir LAB=N"
	valid_lab "$lab"
	case ${GRADE_ENGINE:-local} in
	local) ;;
	slurm) command -v sbatch >/dev/null || die "ENGINE=slurm needs Slurm's sbatch and squeue (Debian's slurm-client; scripts/deps.sh --slurm)" ;;
	*) die "ENGINE must be local or slurm, not '${GRADE_ENGINE}'" ;;
	esac
	lanes=${GRADE_JOBS:-}
	case $lanes in
	'') lanes=$(default_lanes) ;;
	*[!0-9]* | 0*) die "JOBS must be a number of submissions graded at once (1, 2, ...), not '$lanes'" ;;
	esac
	# (the sandbox without namespaces has one folder and one user: one lane)
	[ "${USERNS_SANDBOX_MODE:-}" != uid ] || lanes=1
	harness=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
	lab=$(printf '%02d' "$((10#$lab))")
	# one entry per file or folder of DIR, NUL-separated: any name is data
	ents=()
	while IFS= read -r -d '' s && IFS= read -r -d '' n && IFS= read -r -d '' id; do
		ents+=("$s" "$n" "$id")
	done < <(py entries "$dir")
	# what is left to grade: resuming skips what this harness graded for
	# this lab from these very files
	todo=() stamps=()
	for ((i = 0; i < ${#ents[@]}; i += 3)); do
		s=${ents[i]} n=${ents[i + 1]} id=${ents[i + 2]}
		# the stamp: this harness, this lab, these files (names and contents)
		# (-H: an entry that is a link is read where it points, and where
		# it points is part of the stamp)
		stamp="$harness lab$lab $({ realpath -m -- "$s"; find -H "$s" -type f -print0 2>/dev/null | sort -z |
			xargs -0 -r sha1sum -- 2>/dev/null; } | sha1sum | cut -c1-12)"
		if [ -f "$OUT/$id/results.csv" ] && [ "$(cat "$OUT/$id/.stamp" 2>/dev/null)" = "$stamp" ]; then
			info "$(printf '%q' "$n"): already graded (remove $OUT/$id to grade again)"
			continue
		fi
		rm -f -- "$OUT/$id/.stamp"
		todo+=("$i")
		stamps[i]=$stamp
	done
	total=${#todo[@]}
	[ "$lanes" -le "$total" ] || lanes=$((total > 0 ? total : 1))
	if [ "$total" -gt 0 ]; then
		info "grading $total submission(s) of lab $lab, $lanes at a time"
		prepare_lanes "$lanes" "lab-$lab-start"
	fi
	t0=$(date +%s) grader_rc=0
	case ${GRADE_ENGINE:-local} in
	local) [ "$total" -eq 0 ] || run_local ;;
	slurm) [ "$total" -eq 0 ] || run_slurm ;;
	esac
	[ "$grader_rc" -ne 75 ] || {
		warn "$lost submission(s) ended without a result (see $slurm_run/N/slurm.out: a time limit, a machine lost?): make grade-all again grades them"
	}
	[ "$grader_rc" -eq 0 ] || [ "$grader_rc" -eq 75 ] || {
		printf '%sGRADER_ERROR:%s the class run stopped; what was graded is kept and stamped (grade-all resumes)\n' "$C_RED" "$C_OFF" >&2
		exit "$grader_rc"
	}
	{
		py csv-header "$lab"
		for ((i = 0; i < ${#ents[@]}; i += 3)); do
			cat "$OUT/${ents[i + 2]}/results.csv" 2>/dev/null
		done
	} >"$OUT/summary.csv"
	info "summary: $OUT/summary.csv ($total graded in $(($(date +%s) - t0)) s, $lanes at a time)"
	# (names shown with their control characters escaped: a name moves no cursor)
	py summary-table "$OUT/summary.csv"
	exit "$grader_rc"
fi

sub=${1-}
[ -n "$sub" ] || die "usage: make grade SUB=<patch|mbox|dir of patches|bundle|repo[#branch]> LAB=N"
# W9: "repo#branch" only when no file of that whole name exists
SUB_REF=""
if [ ! -e "$sub" ] && [[ $sub == *'#'* ]] && [ -e "${sub%%#*}" ]; then
	SUB_REF=${sub#*#} sub=${sub%%#*}
	case $SUB_REF in -* | '') die "not a branch name: '$SUB_REF'" ;; esac
	git check-ref-format --allow-onelevel "$SUB_REF" || git check-ref-format --allow-onelevel "refs/heads/$SUB_REF" ||
		die "not a branch name: '$SUB_REF'"
fi
lab=${2:-}
if [ -z "$lab" ]; then
	b=$SUB_REF
	# the branch, read from the repository's HEAD file: no git runs there
	[ -z "$b" ] && [ -f "$sub/.git/HEAD" ] && b=$(sed -n 's|^ref: refs/heads/||p' "$sub/.git/HEAD" | head -1)
	case $b in *lab-[0-9][0-9]) lab=${b##*lab-} ;; esac
	[ -n "$lab" ] || die "say which lab this is: make grade SUB=$sub LAB=N"
fi
valid_lab "$lab"
name=$(basename -- "$sub")
[ -d "$sub" ] || [ -z "${name%.patch}" ] || name=${name%.patch}
id=$(py safe-id "$name")
id=$id${SUB_REF:+-$(py safe-id "$SUB_REF")}
sdir=$(dirname -- "$(realpath -m -- "$sub")")
case $sdir in / | /usr | /usr/* | /etc | /etc/* | /bin | /sbin | /lib*) ;; *) GRADE_CLASS_DIR=$sdir ;; esac
# in the background, so that Ctrl-C stops it at once (on_signal)
grade_one "$sub" "$lab" "$name${SUB_REF:+#$SUB_REF}" "$id" &
rc=0
wait $! || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
echo "results: $OUT/$id/ (report.txt, results.json, results.tap, results.csv, results.xml)"
