# shellcheck shell=sh
# KTAP helpers for the lab checks (sourced by /labs/NN-*/check).
#
#   ktap_plan N                         the number of test points
#   expect NAME PATTERN CMD [ARG...]    ok if CMD's output matches PATTERN
#                                       (a shell glob, matched line by line)
#   ktap_done                           exit status: 0 if all were ok
#
# A failed point prints the command's output as KTAP diagnostics, so the
# student sees the errno the kernel gave.

ktap_n=0
ktap_failed=0

ktap_plan() {
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_ok() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1"
}

ktap_not_ok() {
	ktap_n=$((ktap_n + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_n $1"
}

# ktap_diag TEXT: each line of TEXT as a '# ' comment
ktap_diag() {
	printf '%s\n' "$1" | sed 's/^/# /'
}

expect() {
	_name=$1 _pat=$2
	shift 2
	_out=$("$@" 2>&1)
	_rc=$?
	_hit=0
	_old_ifs=$IFS
	IFS='
'
	for _line in $_out; do
		# shellcheck disable=SC2254
		case $_line in $_pat) _hit=1 ;; esac
	done
	IFS=$_old_ifs
	if [ "$_hit" -eq 1 ]; then
		ktap_ok "$_name"
	else
		ktap_not_ok "$_name"
		ktap_diag "expected a line matching: $_pat"
		if [ "$_rc" -gt 128 ] && [ "$_rc" -lt 160 ]; then
			ktap_diag "got (killed by signal SIG$(kill -l $((_rc - 128)) 2>/dev/null || echo $((_rc - 128)))):"
		else
			ktap_diag "got (exit $_rc):"
		fi
		ktap_diag "$_out"
	fi
}

ktap_done() {
	[ "$ktap_failed" -eq 0 ]
}
