#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run a command on a submission's content in a sandbox: bubblewrap, as an
# unprivileged user of its own, with no network, the host read-only, and a
# folder of its own (a size-limited tmpfs) as the only place it can write.
#
#   sandbox.sh [OPTION]... -- CMD [ARG]...
#     --ro SRC NAME        the host's SRC, read-only, at /tmp/sbx/NAME
#     --copy SRC NAME      a copy of the host's SRC at /tmp/sbx/NAME, the
#                          sandbox's own (writable)
#     --dir NAME           an empty folder /tmp/sbx/NAME, writable
#     --out NAME DEST MAX  after CMD: /tmp/sbx/NAME, when it is a regular
#                          file (never a link) of at most MAX bytes, copied
#                          to the host's DEST; DEST is removed otherwise
#     --hide DIR           the host's DIR is an empty folder in the sandbox
#     --setenv VAR VALUE   in CMD's environment (which is otherwise only
#                          PATH, HOME=/tmp, LANG)
#     --timeout S          CMD is killed after S seconds (exit 124)
#     --size SIZE          the sandbox's own folders hold at most SIZE
#                          (tmpfs size=, default 4g)
# CMD's output is this script's. Its exit status is CMD's (124 on timeout),
# or 71 when the sandbox could not be made (the reason on stderr).
#
# Why two steps. bubblewrap run by an unprivileged user resolves every path
# it mounts as that user, so a course checked out under /root (test-fresh,
# many teachers) could not be mounted; run as root, it cannot drop to
# another uid (its user namespace maps the sandbox's user to uid 0
# outside). So, as root: a private mount namespace (util-linux's unshare)
# where root mounts a tmpfs and binds into it what the sandbox may see,
# hides the folders it must not see (results, other submissions), then
# drops to the sandbox user (setpriv: no groups, no capabilities, no new
# privileges) and runs bubblewrap on that. When the mount namespace ends,
# so do its tmpfs and every file the command wrote; the sandbox's process
# tree dies with bubblewrap (--die-with-parent, its own PID namespace).
# Not root: the same in a user namespace of one's own (unshare -r), and the
# sandbox runs as oneself.
#
# The sandbox's user: userns-grader (USERNS_SANDBOX_USER), a system user
# with no home and no shell, made here when it is missing.
#
# USERNS_SANDBOX_MODE=uid (as root only): for a machine that is itself a
# throwaway container of one submission, where neither mount nor user
# namespaces can be made (Docker's defaults, Gradescope): the same user,
# the same process and file-size limits and the same folders, with file
# permissions instead of namespaces. /tmp/sbx is a real folder of the
# sandbox's user (no tmpfs: --size does not apply); --ro is a copy, of hard
# links where every file is root's and writable by root alone (the
# grader's worktree), else of the files; --hide is checked, never made:
# the caller makes those folders unreadable to others beforehand (mode
# 0700), and the sandbox refuses to run when its user can list, read or
# enter one. Its user is a user of its own, $USERNS_SANDBOX_USER-uid: it
# runs only when no process of that user runs, every process of that user
# is killed when CMD ends, and the sandbox fails (71) unless none is left. Weaker than the
# namespaces: the network, the other processes and every world-readable
# file (/home, /run, /var/tmp too) stay visible; said in grade.sh's report.
set -u
SBX=/tmp/sbx
SB_USER=${USERNS_SANDBOX_USER:-userns-grader}

sb_die() {
	printf 'sandbox: %s\n' "$*" >&2
	exit 71
}

# parse_opts OPTIONS... -- CMD...: the options (above) into ros, copies,
# dirs, outs, hides, setenvs (NAME VALUE pairs), timeout and size; CMD
# into cmd
parse_opts() {
	ros=() copies=() dirs=() outs=() hides=() setenvs=() timeout=0 size=4g cmd=()
	while [ $# -gt 0 ]; do
		case $1 in
		--ro) ros+=("$2" "$3"); shift 3 ;;
		--copy) copies+=("$2" "$3"); shift 3 ;;
		--dir) dirs+=("$2"); shift 2 ;;
		--out) outs+=("$2" "$3" "$4"); shift 4 ;;
		--hide) hides+=("$2"); shift 2 ;;
		--setenv) setenvs+=("$2" "$3"); shift 3 ;;
		--timeout) timeout=$2; shift 2 ;;
		--size) size=$2; shift 2 ;;
		--) shift; break ;;
		*) sb_die "unknown option '$1'" ;;
		esac
	done
	[ $# -gt 0 ] || sb_die "no command"
	case $timeout in *[!0-9]* | '') sb_die "--timeout needs seconds" ;; esac
	cmd=("$@")
}

if [ "${1:-}" != --inner ] && [ "${USERNS_SANDBOX_MODE:-}" = uid ]; then
	# a user of this mode's own: its cleanup kills every process of its
	# user, which must never be another sandbox's (a namespaced one runs as
	# $SB_USER)
	SB_USER=$SB_USER-uid
	[ "$(id -u)" -eq 0 ] || sb_die "USERNS_SANDBOX_MODE=uid needs root (it runs CMD as $SB_USER)"
	command -v setpriv >/dev/null || sb_die "setpriv (util-linux) is needed"
	if ! getent passwd "$SB_USER" >/dev/null; then
		useradd --system --user-group --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$SB_USER" >/dev/null 2>&1 ||
			getent passwd "$SB_USER" >/dev/null || sb_die "cannot make the sandbox's user $SB_USER (useradd)"
	fi
	parse_opts "$@"
	envs=()
	for ((i = 0; i < ${#setenvs[@]}; i += 2)); do envs+=("${setenvs[i]}=${setenvs[i + 1]}"); done
	as_sb=(setpriv --reuid="$SB_USER" --regid="$SB_USER" --clear-groups --no-new-privs
		--inh-caps=-all --bounding-set=-all --)
	# what must stay hidden is: the caller made it so (mode 0700)
	for d in "${hides[@]}"; do
		[ -e "$d" ] || continue
		# shellcheck disable=SC2016 # the inner shell's own $1
		if "${as_sb[@]}" sh -c 'ls -- "$1" >/dev/null 2>&1 || [ -r "$1" ] || [ -x "$1" ]' - "$d" </dev/null 2>/dev/null; then
			sb_die "USERNS_SANDBOX_MODE=uid: $SB_USER can read or enter $d, which it must not see (chmod 0700 it, or a folder above it)"
		fi
	done
	sb_name() { case $1 in '' | /* | *..* | *[!A-Za-z0-9._/-]*) sb_die "not a sandbox name: '$1'" ;; esac; }
	# every process of the sandbox's user, by its real uid (/proc: no procps)
	sb_uid=$(id -u "$SB_USER")
	sb_procs() {
		local f
		for f in /proc/[0-9]*/status; do
			# (a zombie is dead already: its parent has yet to reap it)
			awk -v u="$sb_uid" '$1 == "State:" && $2 == "Z" { z = 1 } $1 == "Uid:" && $2 == u { found = 1 }
				END { exit !(found && !z) }' "$f" 2>/dev/null &&
				echo "${f%/status}"
		done
	}
	# (the shell's own kill: no kill program need be installed); none
	# may be left, or nothing of this sandbox is trusted
	kill_all() {
		local i
		for i in 1 2 3 4 5 6 7 8 9 10; do
			"${as_sb[@]}" sh -c 'kill -9 -1' </dev/null >/dev/null 2>&1
			[ -n "$(sb_procs)" ] || return 0
			sleep 0.2
		done
		sb_die "processes of $SB_USER are still running ($(sb_procs | head -3 | tr '\n' ' ')): nothing of the sandbox is used"
	}
	# one at a time: a process of its user now is another run's
	[ -z "$(sb_procs)" ] || sb_die "another sandbox runs as $SB_USER ($(sb_procs | head -3 | tr '\n' ' ')): one at a time"
	rm -rf -- "$SBX" || sb_die "cannot clear $SBX"
	mkdir -m 0755 -- "$SBX" || sb_die "cannot make $SBX"
	for ((i = 0; i < ${#copies[@]}; i += 2)); do
		sb_name "${copies[i + 1]}"
		{ mkdir -p "$(dirname "$SBX/${copies[i + 1]}")" && cp -a -- "${copies[i]}" "$SBX/${copies[i + 1]}"; } ||
			sb_die "cannot copy ${copies[i]} into the sandbox"
	done
	for d in "${dirs[@]}" .home .tmp; do
		sb_name "$d"
		mkdir -p "$SBX/$d" || sb_die "cannot make $d"
	done
	chown -R -h "$SB_USER:" "$SBX" || sb_die "cannot give the sandbox its folders"
	for ((i = 0; i < ${#ros[@]}; i += 2)); do
		sb_name "${ros[i + 1]}"
		mkdir -p "$(dirname "$SBX/${ros[i + 1]}")"
		# hard links only when every file is root's and only root may
		# write it (a link is the file itself: nothing of the source is
		# changed here), else a copy made root's and read-only
		if [ -z "$(find "${ros[i]}" \( ! -user 0 -o -perm /022 \) ! -type l -print -quit 2>/dev/null)" ] &&
			cp -al -- "${ros[i]}" "$SBX/${ros[i + 1]}" 2>/dev/null; then
			:
		else
			rm -rf -- "${SBX:?}/${ros[i + 1]}"
			{ cp -a -- "${ros[i]}" "$SBX/${ros[i + 1]}" && chown -R -h 0:0 "$SBX/${ros[i + 1]}" &&
				chmod -R go-w "$SBX/${ros[i + 1]}"; } || sb_die "cannot show ${ros[i]} to the sandbox"
		fi
	done
	for fd in "/proc/$$/fd/"*; do
		fd=${fd##*/}
		case $fd in '' | *[!0-9]*) continue ;; esac
		[ "$fd" -le 2 ] || eval "exec $fd>&-" 2>/dev/null
	done
	run=(env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME="$SBX/.home" LANG=C.UTF-8
		TMPDIR="$SBX/.tmp" "${envs[@]}")
	limits=(prlimit --nproc=2048 --fsize=$((2 * 1024 * 1024 * 1024)) --core=0 --)
	rc=0
	if [ "$timeout" -gt 0 ]; then
		(cd "$SBX" && "${as_sb[@]}" "${limits[@]}" timeout -k 5 "$timeout" setsid "${run[@]}" "${cmd[@]}" </dev/null) || rc=$?
	else
		(cd "$SBX" && "${as_sb[@]}" "${limits[@]}" setsid "${run[@]}" "${cmd[@]}" </dev/null) || rc=$?
	fi
	# nothing of the sandbox's outlives CMD (a daemon it left)
	kill_all
	sleep 0.2
	kill_all
	for ((i = 0; i < ${#outs[@]}; i += 3)); do
		n=${outs[i]} dest=${outs[i + 1]} max=${outs[i + 2]}
		sb_name "$n"
		rm -f -- "$dest"
		f=$SBX/$n
		if [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %s -- "$f")" -le "$max" ] &&
			[ "$(realpath -e -- "$f")" = "$SBX/$n" ]; then
			dd if="$f" iflag=nofollow of="$dest" bs=1M status=none 2>/dev/null
		fi
	done
	rm -rf -- "$SBX"
	exit "$rc"
fi

if [ "${1:-}" != --inner ]; then
	self=$(realpath -- "$0")
	command -v bwrap >/dev/null || sb_die "bubblewrap (bwrap) is not installed: make deps (Debian's bubblewrap)"
	{ command -v unshare && command -v setpriv; } >/dev/null ||
		sb_die "unshare and setpriv (util-linux) are needed"
	if [ "$(id -u)" -eq 0 ]; then
		if ! getent passwd "$SB_USER" >/dev/null; then
			useradd --system --user-group --no-create-home --home-dir /nonexistent \
				--shell /usr/sbin/nologin "$SB_USER" >/dev/null 2>&1 ||
				getent passwd "$SB_USER" >/dev/null ||
				sb_die "cannot make the sandbox's user $SB_USER (useradd)"
		fi
		stage=$(mktemp -d "${TMPDIR:-/tmp}/userns-labs-sandbox.XXXXXX") || sb_die "no folder for the sandbox"
		rc=0
		unshare --mount --propagation private -- "$self" --inner "$stage" root "$@" || rc=$?
	else
		stage=$(mktemp -d "${TMPDIR:-/tmp}/userns-labs-sandbox.XXXXXX") || sb_die "no folder for the sandbox"
		rc=0
		unshare --user --map-root-user --mount --propagation private -- \
			"$self" --inner "$stage" self "$@" || rc=$?
	fi
	rmdir -- "$stage" 2>/dev/null
	exit "$rc"
fi

# --inner STAGE WHO OPTIONS... -- CMD...: in the private mount namespace
stage=$2 who=$3
shift 3
parse_opts "$@"
envs=()
for ((i = 0; i < ${#setenvs[@]}; i += 2)); do envs+=(--setenv "${setenvs[i]}" "${setenvs[i + 1]}"); done

# NAME: one path below /tmp/sbx, made of plain names
sb_name() {
	case $1 in '' | /* | *..* | *[!A-Za-z0-9._/-]*) sb_die "not a sandbox name: '$1'" ;; esac
}

mount -t tmpfs -o "mode=0755,size=$size" userns-labs-sandbox "$stage" || sb_die "cannot mount the sandbox's tmpfs"
for ((i = 0; i < ${#copies[@]}; i += 2)); do
	sb_name "${copies[i + 1]}"
	{ mkdir -p "$(dirname "$stage/${copies[i + 1]}")" &&
		cp -a -- "${copies[i]}" "$stage/${copies[i + 1]}"; } || sb_die "cannot copy ${copies[i]} into the sandbox (too large for its ${size} tmpfs?)"
done
for d in "${dirs[@]}"; do
	sb_name "$d"
	mkdir -p "$stage/$d" || sb_die "cannot make $d"
done
run_as=()
if [ "$who" = root ]; then
	# the sandbox's own folders are its user's; the read-only binds stay root's
	find "$stage" -xdev -exec chown -h "$SB_USER:" {} + || sb_die "cannot give the sandbox its folders"
	run_as=(setpriv --reuid="$SB_USER" --regid="$SB_USER" --clear-groups --no-new-privs
		--inh-caps=-all --bounding-set=-all --)
fi
for ((i = 0; i < ${#ros[@]}; i += 2)); do
	sb_name "${ros[i + 1]}"
	{ mkdir -p "$stage/${ros[i + 1]}" &&
		mount --bind "${ros[i]}" "$stage/${ros[i + 1]}" &&
		mount -o remount,bind,ro "$stage/${ros[i + 1]}"; } || sb_die "cannot show ${ros[i]} to the sandbox"
done
# what the sandbox must not see: another submission, the results, the
# kernels kept, homes (bubblewrap's view of / includes these empty folders)
hidden=()
for d in "${hides[@]}" /home /root /run /var/tmp; do
	[ -d "$d" ] || continue
	# never a folder that holds the sandbox's own (bubblewrap's /tmp is
	# its own anyway)
	case $stage/ in "${d%/}"/*) continue ;; esac
	mount -t tmpfs -o mode=0755,size=4k userns-labs-hidden "$d" || sb_die "cannot hide $d"
	hidden+=("$d")
done

# Limits: /tmp and /dev/shm are small tmpfs of its own, processes (of the
# sandbox's user, all lanes together) and file sizes are capped.
bw=(bwrap --ro-bind / / --size 536870912 --tmpfs /tmp --bind "$stage" "$SBX" --dev /dev
	--size 67108864 --tmpfs /dev/shm --proc /proc
	--unshare-all --die-with-parent --new-session --clearenv
	--setenv PATH /usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin --setenv HOME /tmp
	--setenv LANG C.UTF-8 --setenv TMPDIR /tmp "${envs[@]}" --chdir "$SBX" --)
limits=(prlimit --nproc=2048 --fsize=$((2 * 1024 * 1024 * 1024)) --core=0 --)
# no file of the caller's reaches the sandbox: every descriptor but 0, 1
# and 2 is closed (a lock of the grader's, a log it writes)
for fd in "/proc/$$/fd/"*; do
	fd=${fd##*/}
	case $fd in '' | *[!0-9]*) continue ;; esac
	[ "$fd" -le 2 ] || eval "exec $fd>&-" 2>/dev/null
done
# a sandbox that cannot be made is the machine's fault (no user namespaces,
# a chroot), never the command's: said, and exit 71
if ! why=$("${run_as[@]}" "${bw[@]}" true 2>&1 </dev/null); then
	sb_die "bubblewrap cannot make the sandbox here: $(printf '%s\n' "$why" | head -2 | tr '\n' ' ')"
fi
rc=0
if [ "$timeout" -gt 0 ]; then
	"${run_as[@]}" "${limits[@]}" timeout -k 5 "$timeout" "${bw[@]}" "${cmd[@]}" </dev/null || rc=$?
else
	"${run_as[@]}" "${limits[@]}" "${bw[@]}" "${cmd[@]}" </dev/null || rc=$?
fi

# the host's folders again (the results go there), last hidden first
for ((i = ${#hidden[@]} - 1; i >= 0; i--)); do umount -- "${hidden[i]}" 2>/dev/null; done

# The results, copied out by this (trusted) side once every process of the
# sandbox is gone: regular files only, never through a link, capped.
for ((i = 0; i < ${#outs[@]}; i += 3)); do
	n=${outs[i]} dest=${outs[i + 1]} max=${outs[i + 2]}
	sb_name "$n"
	rm -f -- "$dest"
	f=$stage/$n
	if [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %s -- "$f")" -le "$max" ]; then
		# and no link on the way to it either
		[ "$(realpath -e -- "$f")" = "$(realpath -e -- "$stage")/$n" ] &&
			dd if="$f" iflag=nofollow of="$dest" bs=1M status=none 2>/dev/null
	fi
done
umount -l "$stage" 2>/dev/null
exit "$rc"
