#!/usr/bin/env bash
# Grade a submission with the repository's own checks, inside QEMU only.
#
#   grade.sh SUB [LAB]       one submission
#   grade.sh --all DIR LAB   every sub-directory of DIR (resumable), plus summary.csv
#
# SUB is a patch or mbox file, a directory of patches, a git bundle, or a git
# repository ("path/to/repo" or "path/to/repo#branch"): a repository or bundle
# is judged as a whole tree against lab-NN-start. Files outside the kernel
# (labs/, guest-rootfs/, ...) are reported and ignored. Results go to
# $GRADE_OUT/NAME/: report.txt, results.json, results.tap, results.csv.
set -u
. "$(dirname "$0")/lib.sh"

G=${GRADE_DIR:-$BUILD/grade}
OUT=${GRADE_OUT:-$G/results}
boot_timeout=${GRADE_BOOT_TIMEOUT:-120}
check_timeout=${GRADE_CHECK_TIMEOUT:-60}

json_str() { # escape for JSON
	printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' | tr -d '\000-\010\013-\037' |
		awk 'BEGIN { ORS = "" } NR > 1 { print "\\n" } { print }'
}
csv_str() { printf '"%s"' "$(printf '%s' "$1" | tr '\n' ' ' | sed 's/"/""/g')"; }

# safe_id NAME: what a submission's results folder, git ref and kernel label
# are called. NAME (a file or folder name: anything a student can type) never
# reaches a path, a ref or a shell; it is kept, as it is, in the reports.
safe_id() {
	local s
	s=$(printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9._-' '_' |
		sed -e 's/\.\.*/./g' -e 's/^[._-]*//' -e 's/\.lock$/_lock/' -e 's/\.$/_/' | cut -c1-48)
	if [ -z "$s" ] || [ "$s" != "$1" ]; then
		s="${s:-submission}-$(printf '%s' "$1" | sha1sum | cut -c1-8)"
	fi
	printf '%s\n' "$s"
}

# The top-level names of the kernel tree: a submitted path elsewhere is not kernel.
kernel_top() { kgit ls-tree --name-only distro; }

grade_one() { # SUB LAB [NAME]
	local sub=$1 lab name ref kind status="" detail="" files="" ignored="" wt obj start_tag
	lab=$(printf '%02d' "$((10#$2))")
	name=${3:-$(basename -- "${sub%%#*}")}
	[ -n "${3:-}" ] || [ -z "${name%.patch}" ] || name=${name%.patch}
	local id
	id=$(safe_id "$name")
	GRADE_ID=$id
	# the one folder this submission owns: never anything above it
	local out=$OUT/$id
	case $id in '' | . | .. | */*) die "grader error: no safe results folder for '$name'" ;; esac
	rm -rf -- "$out"
	mkdir -p "$out"
	start_tag=lab-$lab-start
	lab_dir "$lab" >/dev/null || die "there is no lab $lab"
	kgit rev-parse -q --verify "refs/tags/$start_tag" >/dev/null || die "no tag $start_tag: run 'make tree'"

	wt=$G/linux obj=$G/obj
	if [ ! -e "$wt/.git" ]; then
		kgit worktree prune
		kgit worktree add -q --detach "$wt" "$start_tag" || die "cannot make the grading worktree $wt"
	fi
	git -C "$wt" am --abort >/dev/null 2>&1
	git -C "$wt" checkout -q -f --detach "$start_tag" && git -C "$wt" clean -q -fdx

	local excl=() kt userspace ufiles="" ucopy=$G/course
	userspace=$(lab_conf "$lab" USERSPACE)
	rm -rf "$ucopy"
	kt=$(kernel_top)

	ref=""
	case $sub in *'#'*) ref=${sub#*#} sub=${sub%%#*} ;; esac
	if [ ! -e "$sub" ]; then
		kind=missing status=NO_SUBMISSION detail="$sub does not exist"
	elif [ -d "$sub" ] && { [ -e "$sub/.git" ] || [ "$(git -C "$sub" rev-parse --is-bare-repository 2>/dev/null)" = true ]; }; then
		kind=repo
	elif [ -f "$sub" ] && head -c 16 "$sub" | grep -qE '^# v[23] git bundle'; then
		kind=bundle
	elif [ -d "$sub" ]; then
		kind=patchdir
	elif [ ! -s "$sub" ]; then
		kind=file status=EMPTY detail="the submission is an empty file"
	elif LC_ALL=C grep -q -P '\x00' "$sub" 2>/dev/null || ! LC_ALL=C grep -qE '^(diff --git |--- |\+\+\+ )' "$sub"; then
		kind=file status=NOT_A_PATCH detail="the file is not a patch (binary, or no diff in it)"
	else
		kind="file"
	fi

	local patches=() tmpd
	tmpd=$(mktemp -d)
	if [ -z "$status" ]; then
		case $kind in
		repo | bundle)
			if [ "$kind" = repo ] && [ -n "$(git -C "$sub" status --porcelain 2>/dev/null | grep -v '^??' | head -1)" ]; then
				status=DIRTY detail="the repository $sub has uncommitted changes: commit them first (git -C $sub commit -am 'submission'); nothing was changed"
			elif ! kgit fetch -q -- "$sub" "+${ref:-HEAD}:refs/grade/$id" 2>"$tmpd/fetch"; then
				status=NOT_A_PATCH detail="cannot read ${ref:-HEAD} from $sub: $(head -2 "$tmpd/fetch")"
			else
				kgit diff --binary "$start_tag" "refs/grade/$id" >"$tmpd/tree.diff"
				patches=("$tmpd/tree.diff")
			fi
			;;
		patchdir)
			while IFS= read -r p; do patches+=("$p"); done < <(find "$sub" -maxdepth 1 -type f \( -name '*.patch' -o -name '*.diff' -o -name '*.mbox' -o -name '*.eml' \) | LC_ALL=C sort)
			[ "${#patches[@]}" -gt 0 ] || { status=EMPTY detail="no *.patch, *.diff or *.mbox file in $sub"; }
			;;
		file) patches=("$sub") ;;
		esac
	fi

	# apply, with CRLF line ends made plain and non-kernel paths left out
	local p q n=0 msg
	for p in "${patches[@]}"; do
		[ -n "$status" ] && break
		n=$((n + 1))
		q=$tmpd/p$n
		sed 's/\r$//' "$p" >"$q"
		while read -r f; do
			[ -n "$f" ] || continue
			files="$files $f"
			case " $userspace " in
			*" $f "*) ufiles="$ufiles $f" ;;
			*) printf '%s\n' "$kt" | grep -qxF "${f%%/*}" || ignored="$ignored $f" ;;
			esac
		done < <(git -C "$wt" apply --numstat "$q" 2>/dev/null | cut -f3-)
		excl=()
		for f in $ignored $ufiles; do excl+=("--exclude=$f"); done
		# a user-space lab's own files go to a copy of the course's labs/
		for f in $ufiles; do
			[ -d "$ucopy/.git" ] || {
				rm -rf "$ucopy" && mkdir -p "$ucopy" && cp -a "$LABS_DIR" "$ucopy/labs" &&
					cp -a "$SOLUTIONS_DIR" "$ucopy/solutions" &&
					git -C "$ucopy" init -q
			}
			msg=$(git -C "$ucopy" apply --include="$f" "$q" 2>&1) ||
				status=APPLY_FAILED detail="$(basename "$p") does not apply to $f:
$(printf '%s\n' "$msg" | head -8)"
		done
		if LC_ALL=C grep -q '^From \|^Subject: ' "$q"; then
			msg=$(git -C "$wt" am -q -3 "${excl[@]}" "$q" 2>&1) || {
				git -C "$wt" am --abort >/dev/null 2>&1
				status=APPLY_FAILED detail="$(basename "$p") does not apply onto $start_tag:
$(printf '%s\n' "$msg" | grep -v '^hint:' | head -8)"
			}
		else
			msg=$(git -C "$wt" apply -3 --index "${excl[@]}" "$q" 2>&1) &&
				git -C "$wt" -c user.name=grader -c user.email=grader@localhost commit -q -m "submission: $(basename "$p")" --allow-empty ||
				status=APPLY_FAILED detail="$(basename "$p") does not apply onto $start_tag:
$(printf '%s\n' "$msg" | head -8)"
		fi
	done
	# shellcheck disable=SC2086 # word lists
	files=$(printf '%s\n' $files | sort -u | xargs)
	# shellcheck disable=SC2086
	ignored=$(printf '%s\n' $ignored | sort -u | xargs)
	# shellcheck disable=SC2086
	ufiles=$(printf '%s\n' $ufiles | sort -u | xargs)

	# the lab's declared scope
	local scope outside=""
	scope=$(lab_conf "$lab" FILES)
	for f in $files; do
		case " $ignored " in *" $f "*) continue ;; esac
		case " $scope " in *" $f "*) ;; *) outside="$outside $f" ;; esac
	done

	local labs="" k subhash log="$out/serial.log" ktap="$out/serial.ktap" rc said
	for ((k = 1; k <= 10#$lab; k++)); do lab_dir "$k" >/dev/null && labs="$labs $(printf '%02d' "$k")"; done
	labs=${labs# }
	subhash=$(git -C "$wt" diff "$start_tag" HEAD | sha1sum | cut -c1-10)
	local label="grade-$id-lab$lab-$subhash"

	if [ -z "$status" ]; then
		if ! KERNEL_DIR=$wt OBJ_DIR=$obj LOG_DIR=$out BUILD_LABEL=$label \
			"$TOP/scripts/build-kernel.sh" >"$out/build.out" 2>&1; then
			status=BUILD_FAILED
			detail=$(grep -E -m3 -A3 'error:' "$out/build.out" | head -12)
			[ -n "$detail" ] || detail=$(tail -8 "$out/build.out")
		fi
	fi
	# a user-space lab: the student's program, built into a guest of its own
	local initrd=$GUEST_DIR/initramfs.cpio append=""
	if [ -z "$status" ] && [ -n "$userspace" ]; then
		append=$(lab_conf "$lab" STUDENT_APPEND)
		if [ -n "$ufiles" ]; then
			if ! LABS_DIR=$ucopy/labs GUEST_DIR=$G/guest-user \
				"$TOP/scripts/build-guest.sh" >"$out/guest.out" 2>&1; then
				status=BUILD_FAILED
				detail=$(grep -E -m3 -A3 'error:' "$out/guest.out" | head -12)
			fi
			initrd=$G/guest-user/initramfs.cpio
		fi
	fi
	if [ -z "$status" ]; then
		rc=0
		QEMU_APPEND="${QEMU_APPEND:-} $append" INITRD=$initrd \
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
	fi
	rm -rf "$tmpd"

	# scores: a lab's POINTS spread over its test points; missing = 0
	local res score=0 max=0 st pass plan pts got lines="" jlabs="" csvlabs=""
	res=""
	[ -f "$ktap" ] && res=$("$TOP/scripts/ktap.sh" results "$ktap" "$labs")
	for k in $labs; do
		pts=$(lab_conf "$k" POINTS 10)
		read -r st pass plan < <(printf '%s\n' "$res" | awk -v k="$k" '$1 == k { print $2, $3, $4 }')
		[ -n "${st:-}" ] || { st=NOT_RUN pass=0 plan=0; }
		if [ "${plan:-0}" -gt 0 ]; then
			got=$(awk -v p="$pts" -v a="$pass" -v b="$plan" 'BEGIN { printf "%.2f", p * a / b }')
		else
			got=0.00
		fi
		score=$(awk -v a="$score" -v b="$got" 'BEGIN { printf "%.2f", a + b }')
		max=$((max + pts))
		lines="$lines$(printf '  lab %s  %-8s %3s/%-3s  %6s / %s' "$k" "$st" "$pass" "$plan" "$got" "$pts")
"
		jlabs="$jlabs${jlabs:+, }{\"lab\": \"$k\", \"status\": \"$st\", \"passed\": $pass, \"planned\": $plan, \"points\": $got, \"max\": $pts}"
		csvlabs="$csvlabs,$got"
	done
	local verdict=$status
	if [ "$status" = COMPLETE ]; then
		verdict=PASS
		printf '%s\n' "$res" | awk '$2 != "PASS"' | grep -q . && verdict=FAIL
	fi
	# the kernel's identity from the host's own build, never from the guest
	local kver=""
	if [ -f "$obj/include/config/kernel.release" ] && [ -f "$obj/include/generated/utsversion.h" ] &&
		grep -qF "#$label@" "$obj/include/generated/utsversion.h"; then
		kver="$(cat "$obj/include/config/kernel.release") $(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$obj/include/generated/utsversion.h")"
	fi

	{
		printf 'submission: %s (%s)\nlab:        %s\nresult:     %s\nscore:      %s / %s\n' "$sub${ref:+#$ref}" "$kind" "$lab" "$verdict" "$score" "$max"
		[ -n "$kver" ] && printf 'kernel:     %s\n' "$kver"
		printf 'files:      %s\n' "${files:-(none)}"
		[ -n "$ufiles" ] && printf 'user-space files built into the guest: %s\n' "$ufiles"
		[ -n "$ignored" ] && printf 'IGNORED (not kernel files; the repository'"'"'s own checks were used): %s\n' "$ignored"
		[ -n "$outside" ] && printf 'outside the lab'"'"'s scope (%s):%s\n' "$scope" "$outside"
		[ -n "$detail" ] && printf '%s\n' "$detail" | sed 's/^/  | /'
		printf '%s' "$lines"
		[ -f "$ktap" ] && [ "$verdict" != PASS ] && "$TOP/scripts/ktap.sh" report "$ktap" "$labs" | grep -v '^  lab ' | head -40
	} >"$out/report.txt"
	printf '{"submission": "%s", "name": "%s", "kind": "%s", "lab": "%s", "result": "%s", "score": %s, "max": %s, "kernel": "%s", "files": "%s", "ignored": "%s", "outside_scope": "%s", "detail": "%s", "labs": [%s]}\n' \
		"$(json_str "$sub")" "$(json_str "$name")" "$kind" "$lab" "$verdict" "$score" "$max" "$(json_str "$kver")" \
		"$(json_str "${files% }")" "$(json_str "${ignored% }")" "$(json_str "${outside# }")" "$(json_str "$detail")" "$jlabs" >"$out/results.json"
	{
		echo "TAP version 13"
		echo "# $name lab $lab: $verdict $score/$max ($kver)"
		if [ -f "$ktap" ] && grep -q '^KTAP version 1' "$ktap"; then
			sed -n '/^KTAP version 1/,/^# userns-labs: end of checks/p' "$ktap" | sed '1d'
		else
			echo "1..1"
			echo "not ok 1 $name # $verdict"
		fi
	} >"$out/results.tap"
	printf '%s,%s,%s,%s,%s,%s%s\n' "$(csv_str "$name")" "$lab" "$verdict" "$score" "$max" "$(csv_str "$kver")" "$csvlabs" >"$out/results.csv"
	cat "$out/report.txt"
}

csv_header() { # LAB
	local k h="name,lab,result,score,max,kernel"
	for ((k = 1; k <= 10#$1; k++)); do lab_dir "$k" >/dev/null && h="$h,lab$(printf '%02d' "$k")"; done
	echo "$h"
}

need_kernel_tree
"$TOP/scripts/apply-steps.sh" || exit 1
mkdir -p "$G" "$OUT"
export GUEST_DIR=$G/guest
"$TOP/scripts/build-guest.sh" >/dev/null 2>&1 || die "the guest initramfs does not build"

# LAB=N: a number, and nothing else reaches the shell's arithmetic
valid_lab() {
	case $1 in
	'' | *[!0-9]*) die "LAB must be a lab number (1 to 16), not '$1'" ;;
	esac
	lab_dir "$1" >/dev/null || die "there is no lab $1 (see labs/README.md)"
}

if [ "${1:-}" = --all ]; then
	dir=${2:-} lab=${3:-}
	[ -d "$dir" ] || die "usage: make grade-all DIR=<directory of submissions> LAB=N"
	[ -n "$lab" ] || die "say which lab the class handed in: make grade-all DIR=$dir LAB=N"
	valid_lab "$lab"
	harness=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
	lab=$(printf '%02d' "$((10#$lab))")
	entry_name() { # an entry's name: alice.patch is alice, unless alice/ is there too
		local n
		n=$(basename -- "$1")
		[ -e "$dir/${n%.patch}" ] && [ "${n%.patch}" != "$n" ] && { printf '%s\n' "$n"; return; }
		printf '%s\n' "${n%.patch}"
	}
	for s in "$dir"/*; do
		[ -e "$s" ] || continue
		n=$(entry_name "$s")
		id=$(safe_id "$n")
		# the stamp: this harness, this lab, these files
		stamp="$harness lab$lab $(find "$s" -type f -exec sha1sum {} + 2>/dev/null | sort | sha1sum | cut -c1-12)"
		if [ -f "$OUT/$id/results.csv" ] && [ "$(cat "$OUT/$id/.stamp" 2>/dev/null)" = "$stamp" ]; then
			info "$n: already graded (remove $OUT/$id to grade again)"
			continue
		fi
		info "grading $n"
		grade_one "$s" "$lab" "$n" >/dev/null
		echo "$stamp" >"$OUT/$id/.stamp"
		sed -n 's/^result: *//p' "$OUT/$id/report.txt" | sed "s/^/    $n: /"
	done
	{
		csv_header "$lab"
		for s in "$dir"/*; do
			[ -e "$s" ] || continue
			cat "$OUT/$(safe_id "$(entry_name "$s")")/results.csv" 2>/dev/null
		done
	} >"$OUT/summary.csv"
	info "summary: $OUT/summary.csv"
	column -s, -t <"$OUT/summary.csv" 2>/dev/null || cat "$OUT/summary.csv"
	exit 0
fi

sub=${1-}
[ -n "$sub" ] || die "usage: make grade SUB=<patch|mbox|dir of patches|bundle|repo[#branch]> LAB=N"
lab=${2:-}
if [ -z "$lab" ]; then
	b=${sub#*#}
	[ "$b" = "$sub" ] && [ -d "$sub" ] && b=$(git -C "$sub" symbolic-ref --short -q HEAD 2>/dev/null || true)
	case $b in *lab-[0-9][0-9]) lab=${b##*lab-} ;; esac
	[ -n "$lab" ] || die "say which lab this is: make grade SUB=$sub LAB=N"
fi
valid_lab "$lab"
GRADE_ID=""
grade_one "$sub" "$lab"
echo "results: $OUT/$GRADE_ID/ (report.txt, results.json, results.tap, results.csv)"
