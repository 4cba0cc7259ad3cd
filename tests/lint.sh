#!/usr/bin/env bash
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
	t_fail "shellcheck is not installed (make deps: apt-get install shellcheck)"
fi

cp=$KERNEL_DIR/scripts/checkpatch.pl
if [ ! -f "$cp" ]; then
	printf '# checkpatch skipped: no kernel tree yet (make tree)\n'
else
	cpargs=(--no-tree --quiet --no-signoff --ignore "FILE_PATH_CHANGES,COMMIT_LOG_LONG_LINE,EMAIL_SUBJECT")
	for p in kernel-steps/*.patch solutions/*.patch; do
		extra=()
		# A solution gives back Debian's code byte for byte, upstream's
		# own style nits included.
		case $p in solutions/*) extra=(--ignore LINE_SPACING) ;; esac
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
t_summary lint
