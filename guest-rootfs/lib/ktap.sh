# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# KTAP helpers for the lab checks (sourced by /labs/NN-*/check). The output
# is KTAP version 1 (Documentation/dev-tools/ktap.rst); /init indents it as
# a subtest of the run.
#
#   ktap_plan N                         the number of test points
#   expect NAME PATTERN CMD [ARG...]    ok if CMD's output matches PATTERN
#                                       (a shell glob, matched line by line)
#   expect_xfail NAME REASON PATTERN CMD [ARG...]
#                                       a point known to fail here: ok with
#                                       XFAIL when it does, not ok when it
#                                       unexpectedly passes (XPASS)
#   ktap_skip NAME REASON               a point that cannot run here
#   ktap_needs NAME PATH REASON         skip NAME unless PATH exists;
#                                       returns 1 when it skipped
#   ktap_base                           the course's kernel base this
#                                       kernel was built from (6.1, 6.12),
#                                       from the command line (labs.base=)
#   ktap_kill_user UID                  end every process of user UID
#                                       (what a program the check ran as
#                                       UID left behind); 1 if one outlived it
#   ktap_done                           exit status: 0 if none failed
#   if_wrong TEXT                       what a failure of the next point
#                                       means, in the student's terms: a
#                                       failed point prints "# wrong: TEXT"
#
# Scores (read on the host by scripts/gradelib.py, never from the guest): a
# '#@' line just above an expect declares that point, as xv6's
# @test(points) does, and expect's NAME is always a literal "string":
#
#   #@ points 2       the point weighs 2 (1 when nothing is said)
#   #@ guard          the point passes before any change (at lab-NN-start):
#                     it earns nothing, and when it fails the lab scores 0
#
# Each point runs under its own time limit, KTAP_POINT_TIMEOUT seconds (set
# by /init from lab.env, which build-guest.sh makes from lab.conf; 20 by
# default): a point that hangs is reported as "not ok N NAME # TIMEOUT"
# and the points after it still run.
#
# Before a point runs, a "# running: NAME" line names it, so a kernel that
# dies in the middle of a check still says which point it was running.
# A failed point prints the command's output as KTAP diagnostics, so the
# student sees the errno the kernel gave; an output already shown for an
# earlier point of the check is not shown again (many points read one demo).

ktap_n=0
ktap_failed=0
_ktap_wrong=""
_ktap_shown=0
ktap_point_timeout=${KTAP_POINT_TIMEOUT:-20}

ktap_plan() {
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_ok() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1${2:+ # $2}"
}

ktap_not_ok() {
	ktap_n=$((ktap_n + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_n $1${2:+ # $2}"
}

# ktap_diag TEXT: each line of TEXT as a '# ' comment
ktap_diag() {
	printf '%s\n' "$1" | sed 's/^/# /'
}

ktap_skip() {
	ktap_ok "$1" "SKIP $2"
}

ktap_base() {
	sed -n 's/.*labs\.base=\([^ ]*\).*/\1/p' /proc/cmdline
}

ktap_needs() {
	[ -e "$2" ] && return 0
	ktap_skip "$1" "$3"
	return 1
}

# The points' time limit: one watchdog for the whole check, started at the
# first point. expect writes "PID SEQ" of the running point to $_ktap_ctl;
# when the same point is still running after ktap_point_timeout seconds, the
# watchdog kills it. It looks once a second and ends with the check. (A
# watchdog per point costs two processes a point, some 30 ms each here.)
#
# The control file and the point's output are the check's own: they live in
# a private folder, KTAP_DIR (root's, 0700, made anew by mktemp -d, so no
# one can have made it first), which /init makes once per boot; a check run
# by hand makes one. Never a path in a world-writable folder such as /tmp,
# where a process of the unprivileged user could put a FIFO or a file of
# its own first and so write the output the point reads.
_ktap_own_dir=""
if [ -z "${KTAP_DIR:-}" ] || [ ! -d "$KTAP_DIR" ] || [ -L "$KTAP_DIR" ]; then
	KTAP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ktap.XXXXXXXX") || {
		echo "ktap.sh: cannot make a private folder for the check's files" >&2
		exit 1
	}
	_ktap_own_dir=$KTAP_DIR
fi
_ktap_ctl=$KTAP_DIR/point-$$
_ktap_wd=""
_ktap_watchdog() {
	_last="" _secs=0
	while kill -0 "$1" 2>/dev/null; do
		sleep 1
		_cur=""
		read -r _cur <"$_ktap_ctl" 2>/dev/null
		if [ "$_cur" != "$_last" ]; then
			_last=$_cur _secs=0
			continue
		fi
		_secs=$((_secs + 1))
		case $_cur in '' | -*) continue ;; esac
		if [ "$_secs" -ge "$ktap_point_timeout" ]; then
			: >"$_ktap_ctl.to"
			kill -TERM "${_cur%% *}" 2>/dev/null && sleep 1 && kill -KILL "${_cur%% *}" 2>/dev/null
			_secs=-1000
		fi
	done
	rm -f "$_ktap_ctl" "$_ktap_ctl.to" "$_ktap_ctl.out"
	[ -z "$_ktap_own_dir" ] || rmdir "$_ktap_own_dir" 2>/dev/null
}

# _ktap_run CMD...: run CMD (a program or a shell function) under the point's
# time limit; sets _out (its output), _rc and _timed_out.
_ktap_run() {
	if [ -z "$_ktap_wd" ]; then
		_ktap_watchdog $$ >/dev/null 2>&1 </dev/null &
		_ktap_wd=$!
	fi
	rm -f "$_ktap_ctl.to"
	("$@") >"$_ktap_ctl.out" 2>&1 </dev/null &
	_pid=$!
	echo "$_pid $ktap_n" >"$_ktap_ctl"
	wait "$_pid"
	_rc=$?
	echo "- $ktap_n" >"$_ktap_ctl"
	_timed_out=0
	[ -e "$_ktap_ctl.to" ] && _timed_out=1
	# the output, read with the shell's own read: no process to start
	_out="" _first=1
	while IFS= read -r _line || [ -n "$_line" ]; do
		if [ "$_first" -eq 1 ]; then _out=$_line _first=0; else _out="$_out
$_line"; fi
	done <"$_ktap_ctl.out"
}

# _ktap_match PATTERN: is a line of $_out matched by PATTERN? (sets _hit)
_ktap_match() {
	_hit=0
	_old_ifs=$IFS
	IFS='
'
	for _line in $_out; do
		# shellcheck disable=SC2254
		case $_line in $1) _hit=1 ;; esac
	done
	IFS=$_old_ifs
}

_ktap_got() {
	if [ "$_timed_out" -eq 1 ]; then
		ktap_diag "got (no answer in ${ktap_point_timeout}s, killed):"
	elif [ "$_rc" -gt 128 ] && [ "$_rc" -lt 160 ]; then
		ktap_diag "got (killed by signal SIG$(kill -l $((_rc - 128)) 2>/dev/null || echo $((_rc - 128)))):"
	else
		ktap_diag "got (exit $_rc):"
	fi
	# each distinct output once per check: _ktap_out_K and _ktap_pt_K
	_i=1 _prev=""
	while [ "$_i" -le "$_ktap_shown" ]; do
		eval "_prev=\$_ktap_out_$_i"
		if [ "$_prev" = "$_out" ]; then
			eval "ktap_diag \"(the same output as point \$_ktap_pt_$_i, above)\""
			return
		fi
		_i=$((_i + 1))
	done
	_ktap_shown=$((_ktap_shown + 1))
	eval "_ktap_out_$_ktap_shown=\$_out _ktap_pt_$_ktap_shown=\$ktap_n"
	ktap_diag "$_out"
}

# _ktap_user_left UID: is a process of user UID (real uid) still alive?
# (a zombie is not: it can do nothing more). The shell's own read.
_ktap_user_left() {
	for _s in /proc/[0-9]*/status; do
		_st="" _uid=""
		while read -r _k _v _; do
			case $_k in
			State:) _st=$_v ;;
			Uid:) _uid=$_v && break ;;
			esac
		done 2>/dev/null <"$_s"
		[ "$_uid" = "$1" ] && [ "$_st" != Z ] && return 0
	done
	return 1
}

# ktap_kill_user UID: SIGKILL to every process of user UID, sent by UID
# itself to all it may signal (kill -1), until none is alive: a process the
# student's program left behind can do nothing after it. (The kill holds no
# descriptor of the check's output, which a process of UID could take from
# /proc/PID/fd before it dies.)
ktap_kill_user() {
	_kills=0
	while [ "$_kills" -lt 5 ]; do
		runas "$1:$1" kill -KILL -1 </dev/null >/dev/null 2>&1
		_ktap_user_left "$1" || return 0
		sleep 0.1
		_kills=$((_kills + 1))
	done
	return 1
}

if_wrong() {
	_ktap_wrong=$1
}

# _ktap_fail_diag PATTERN: why the point failed, and what it printed
_ktap_fail_diag() {
	[ -z "$_ktap_wrong" ] || ktap_diag "wrong: $_ktap_wrong"
	ktap_diag "expected a line matching: $1"
	_ktap_got
}

expect() {
	_name=$1 _pat=$2
	shift 2
	echo "# running: $_name"
	_ktap_run "$@"
	_ktap_match "$_pat"
	if [ "$_hit" -eq 1 ]; then
		ktap_ok "$_name"
	elif [ "$_timed_out" -eq 1 ]; then
		ktap_not_ok "$_name" "TIMEOUT after ${ktap_point_timeout}s"
		_ktap_fail_diag "$_pat"
	else
		ktap_not_ok "$_name"
		_ktap_fail_diag "$_pat"
	fi
	_ktap_wrong=""
}

expect_xfail() {
	_name=$1 _why=$2 _pat=$3
	shift 3
	echo "# running: $_name"
	_ktap_run "$@"
	_ktap_match "$_pat"
	if [ "$_hit" -eq 1 ]; then
		ktap_not_ok "$_name" "XPASS expected to fail: $_why"
	else
		ktap_ok "$_name" "XFAIL $_why"
	fi
	_ktap_wrong=""
}

ktap_done() {
	[ -z "$_ktap_wd" ] || kill "$_ktap_wd" 2>/dev/null
	# a folder the check made for itself (a check run by hand): removed
	[ -z "$_ktap_own_dir" ] || rm -rf "$_ktap_own_dir"
	[ "$ktap_failed" -eq 0 ]
}
