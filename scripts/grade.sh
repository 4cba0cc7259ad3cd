#!/usr/bin/env bash
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
		if git -C "$wt" checkout -q -f --detach "$want" 2>/dev/null &&
			git -C "$wt" clean -q -ffdx 2>/dev/null &&
			[ "$(git -C "$wt" rev-parse HEAD 2>/dev/null)" = "$want" ] &&
			[ -z "$(git -C "$wt" status --porcelain --untracked-files=all 2>/dev/null | head -1)" ]; then
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

grade_one() { # SUB LAB NAME ID
	local sub=$1 lab name=$3 id=$4 kind status="" detail="" wt obj start_tag
	lab=$(printf '%02d' "$((10#$2))")
	GRADE_ID=$id
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
	reset_worktree "$start_tag"

	local kt userspace ufiles="" ucopy=$L/course ignored="" untracked=""
	userspace=$(lab_conf "$lab" USERSPACE)
	rm -rf -- "$ucopy"
	kt=$(kernel_top)

	{ IFS= read -r -d '' kind; IFS= read -r -d '' status; IFS= read -r -d '' detail; } < <(py classify "$sub")
	local tmpd
	tmpd=$(mktemp -d)
	local input=$sub
	if [ -z "$status" ]; then
		case $kind in
		repo | bundle)
			if [ "$kind" = repo ] && [ -n "$(git -C "$sub" status --porcelain 2>/dev/null | grep -v '^??' | head -1)" ]; then
				status=DIRTY detail="the repository $sub has uncommitted changes: commit them first (git -C $sub commit -am 'submission'); nothing was changed"
			elif ! kgit fetch -q -- "$sub" "+${SUB_REF:-HEAD}:refs/grade/$id" 2>"$tmpd/fetch"; then
				status=NOT_A_PATCH detail="cannot read ${SUB_REF:-HEAD} from $sub: $(head -2 "$tmpd/fetch")"
			else
				kgit diff --binary "$start_tag" "refs/grade/$id" >"$tmpd/tree.diff"
				input=$tmpd/tree.diff
				[ -s "$input" ] || { status=EMPTY detail="${SUB_REF:-HEAD} of $sub has the tree of $start_tag: nothing was changed"; }
				if [ "$kind" = repo ]; then
					untracked=$(git -C "$sub" status --porcelain --untracked-files=all --ignored=matching 2>/dev/null |
						sed -n 's/^[?!][?!] //p' | head -20)
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
					mkdir -p "$ucopy" && cp -a "$LABS_DIR" "$ucopy/labs" &&
						cp -a "$SOLUTIONS_DIR" "$ucopy/solutions" && git -C "$ucopy" init -q
				} || grader_error "cannot copy the course into $ucopy"
				msg=$(git -C "$ucopy" apply "-p$p" --include="$f" "$d" 2>&1) ||
					status=APPLY_FAILED detail="$src does not apply to $f:
$(printf '%s\n' "$msg" | head -8)"
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
		fi
	done

	# W4: what the submission changed is what was applied
	local files=""
	if [ -z "$status" ] || [ "$status" = APPLY_FAILED ]; then
		files=$(git -C "$wt" diff --name-only "$start_tag" HEAD 2>/dev/null)
	fi
	fact files "$files"$'\n'"$(printf '%s' "$ufiles" | sort -u)"
	fact ufiles "$(printf '%s' "$ufiles" | sort -u)"
	fact ignored "$(printf '%s' "$ignored" | sort -u)"
	fact untracked "$untracked"
	fact kind "$kind"

	local labs="" k log="$out/serial.log" ktap="$out/serial.ktap" rc said
	for ((k = 1; k <= 10#$lab; k++)); do lab_dir "$k" >/dev/null && labs="$labs $(printf '%02d' "$k")"; done
	labs=${labs# }
	fact labs "$labs"

	# The kernel is named by what it is built from, the tree: two
	# submissions with the same tree (a class's do-nothing copies, one
	# series sent as a folder and as an mbox) get the same kernel, built
	# once and kept in $G/kernels, keyed by the tree, the configuration
	# and the build script. The boot and the checks are every
	# submission's own.
	local tree label kkey kc kimg="" kver=""
	tree=$(git -C "$wt" rev-parse 'HEAD^{tree}')
	label=grade-lab$lab-${tree:0:12}
	kkey=$( { echo "$tree $lab"; cat "$TOP/kernel-steps/config.fragment" "$TOP/scripts/build-kernel.sh"; } |
		sha1sum | cut -c1-24)
	kc=$G/kernels/$kkey
	if [ -z "$status" ] && [ -s "$kc/vmlinux" ] && [ -s "$kc/kernel" ]; then
		kimg=$kc/vmlinux kver=$(cat "$kc/kernel")
		touch "$kc"
		echo "the kernel of tree $tree, built for an earlier submission: $kc" >"$out/build.out"
	elif [ -z "$status" ]; then
		if ! KERNEL_DIR=$wt OBJ_DIR=$obj LOG_DIR=$out BUILD_VERSION=$label \
			"$TOP/scripts/build-kernel.sh" >"$out/build.out" 2>&1; then
			status=BUILD_FAILED
			detail=$(grep -E -m3 -A3 'error:' "$out/build.out" | head -12)
			[ -n "$detail" ] || detail=$(tail -8 "$out/build.out")
		else
			# the kernel's identity from the host's own build, never
			# from the guest
			if [ -f "$obj/include/config/kernel.release" ] &&
				grep -qF "\"#$label " "$obj/include/generated/utsversion.h" 2>/dev/null; then
				kver="$(cat "$obj/include/config/kernel.release") $(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$obj/include/generated/utsversion.h")"
			fi
			# kept under a name of its own, then renamed: another lane
			# may be keeping the same tree's kernel at the same time
			local kn=""
			kimg=$kc/vmlinux
			if ! { mkdir -p "$G/kernels" && kn=$(mktemp -d "$G/kernels/.new.XXXXXX") &&
				cp "$obj/vmlinux" "$kn/vmlinux" && printf '%s\n' "$kver" >"$kn/kernel"; }; then
				grader_error "cannot keep the kernel in $kc"
			fi
			rm -rf -- "$kc"
			mv -T -- "$kn" "$kc" 2>/dev/null || [ -s "$kc/vmlinux" ] ||
				grader_error "cannot keep the kernel in $kc"
			rm -rf -- "$kn"
			# keep the 24 kernels used last (names are hex: no quoting trouble)
			# shellcheck disable=SC2012
			ls -1t "$G/kernels" | tail -n +25 | while read -r k; do rm -rf -- "${G:?}/kernels/$k"; done
		fi
	fi
	# a user-space lab: the student's program, built into a guest of its own
	local initrd=$GUEST_DIR/initramfs.cpio append=""
	if [ -z "$status" ] && [ -n "$userspace" ]; then
		append=$(lab_conf "$lab" STUDENT_APPEND)
		if [ -d "$ucopy/labs" ]; then
			if ! LABS_DIR=$ucopy/labs GUEST_DIR=$L/guest-user \
				"$TOP/scripts/build-guest.sh" >"$out/guest.out" 2>&1; then
				status=BUILD_FAILED
				detail=$(grep -E -m3 -A3 'error:' "$out/guest.out" | head -12)
			fi
			initrd=$L/guest-user/initramfs.cpio
		fi
	fi
	if [ -z "$status" ]; then
		rc=0
		QEMU_APPEND="${QEMU_APPEND:-} $append" INITRD=$initrd KERNEL_IMAGE=$kimg \
			KERNEL_DIR=$wt OBJ_DIR=$obj "$TOP/scripts/run-qemu.sh" --labs "$labs" --log "$log" \
			--timeout "$boot_timeout" --check-timeout "$check_timeout" || rc=$?
		case $rc in
		0) status=COMPLETE ;;
		3) status=TIMEOUT detail="the guest did not finish within ${boot_timeout}s" ;;
		4) status=PANIC detail=$(grep -m1 'Kernel panic' "$log") ;;
		6) status=FLOOD detail="the console printed more than its cap; output cut" ;;
		*) status=REBOOT detail="the guest reset (a reboot, a triple fault) before the checks ended" ;;
		esac
		# the kernel in trouble: the same list as make check (kernel-trouble.re)
		said=$("$TOP/scripts/ktap.sh" trouble "$log" | grep -v '^Kernel panic' | head -6 || true)
		if [ -n "$said" ]; then
			[ "$status" = COMPLETE ] && status=OOPS
			detail="$detail${detail:+
}$said"
		fi
		fact ktap "$ktap"
		fact console "$(grep -E 'Out of memory|oom-kill|oom_reaper' "$log" | head -3)"
	fi
	rm -rf -- "$tmpd"

	fact kernel "$kver"
	fact base "$KERNEL ($(base_line))"
	fact status "$status"
	fact detail "$detail"
	py finish "$facts" "$out" || grader_error "the result files of $name could not be written"
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
	for ((ln = 0; ln < lanes; ln++)); do
		exec 9>"$G/lane-$ln.lock"
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
"$TOP/scripts/apply-steps.sh" || exit 1
mkdir -p "$G" "$OUT"
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
	if [ ! -f "$G/obj/.userns-labs-tree" ] && [ -f "$OBJ_DIR/.userns-labs-tree" ]; then
		copy_obj "$OBJ_DIR" "$G/obj" || rm -rf -- "$G/obj"
	fi
	for ((i = 0; i < n; i++)); do
		L=$(lane_dir "$i")
		mkdir -p "$L"
		wt=$L/linux reset_worktree "$tag"
		if [ "$i" -gt 0 ] && [ ! -f "$L/obj/.userns-labs-tree" ] && [ -f "$G/obj/.userns-labs-tree" ]; then
			copy_obj "$G/obj" "$L/obj" || rm -rf -- "$L/obj"
		fi
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
		stamp="$harness lab$lab $(find "$s" -type f -print0 2>/dev/null | sort -z |
			xargs -0 -r sha1sum -- 2>/dev/null | sha1sum | cut -c1-12)"
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
	column -s, -t <"$OUT/summary.csv" 2>/dev/null || cat "$OUT/summary.csv"
	exit "$grader_rc"
fi

sub=${1-}
[ -n "$sub" ] || die "usage: make grade SUB=<patch|mbox|dir of patches|bundle|repo[#branch]> LAB=N"
# W9: "repo#branch" only when no file of that whole name exists
SUB_REF=""
if [ ! -e "$sub" ] && [[ $sub == *'#'* ]] && [ -e "${sub%%#*}" ]; then
	SUB_REF=${sub#*#} sub=${sub%%#*}
fi
lab=${2:-}
if [ -z "$lab" ]; then
	b=$SUB_REF
	[ -z "$b" ] && [ -d "$sub" ] && b=$(git -C "$sub" symbolic-ref --short -q HEAD 2>/dev/null || true)
	case $b in *lab-[0-9][0-9]) lab=${b##*lab-} ;; esac
	[ -n "$lab" ] || die "say which lab this is: make grade SUB=$sub LAB=N"
fi
valid_lab "$lab"
name=$(basename -- "$sub")
[ -d "$sub" ] || [ -z "${name%.patch}" ] || name=${name%.patch}
id=$(py safe-id "$name")
GRADE_ID=""
grade_one "$sub" "$lab" "$name${SUB_REF:+#$SUB_REF}" "$id${SUB_REF:+-$(py safe-id "$SUB_REF")}"
echo "results: $OUT/$GRADE_ID/ (report.txt, results.json, results.tap, results.csv, results.xml)"
