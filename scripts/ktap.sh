#!/usr/bin/env bash
# Read the KTAP a guest printed on its serial console.
#
#   ktap.sh results LOG [LABS]   one line per lab: "NN STATUS PASSED PLANNED"
#                                STATUS: PASS FAIL TIMEOUT MISSING
#   ktap.sh report LOG [LABS]    the same for people, with the diagnostics
#                                of every failed test point
#
# LABS ("01 02 ...") are the labs that were asked for: one with no result
# line is MISSING (the guest crashed or hung before it). Kernel messages
# may be interleaved with the KTAP lines; they are skipped.
set -eu

parse() { # LOG -> machine lines
	awk '
	function flush() {
		if (cur == "") return
		planned[cur] = plan; passed[cur] = pass; failed[cur] = fail
		cur = ""
	}
	{ sub(/\r$/, "") }
	/^    # Subtest: lab-[0-9][0-9]/ {
		flush(); cur = substr($3, 5, 2); plan = 0; pass = 0; fail = 0; next
	}
	cur != "" && /^    1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
	cur != "" && /^    ok [0-9]+ / { pass++; print "T", cur, "ok", $0; next }
	cur != "" && /^    not ok [0-9]+ / { fail++; print "T", cur, "not_ok", $0; next }
	cur != "" && /^    # / { print "D", cur, $0; next }
	/^(not )?ok [0-9]+ lab-[0-9][0-9]/ {
		n = ($1 == "not") ? substr($4, 5, 2) : substr($3, 5, 2)
		if (cur == n) flush()
		top[n] = ($1 == "not") ? (index($0, "# TIMEOUT") ? "TIMEOUT" : "FAIL") : "PASS"
		seen[n] = 1
		next
	}
	/(Kernel panic|BUG:|Oops|general protection fault|WARNING:|Call Trace:)/ {
		if (kmsg < 40) print "K", $0
		kmsg++
	}
	END {
		flush()
		for (n in seen) {
			st = top[n]
			if (st == "PASS" && (failed[n] > 0 || passed[n] < planned[n] || planned[n] == 0))
				st = "FAIL"
			printf "L %s %s %d %d\n", n, st, passed[n], planned[n]
		}
	}' "$1"
}

results() { # LOG [LABS]
	local log=$1 want=${2:-} lines n
	lines=$(parse "$log" | awk '$1 == "L" { print $2, $3, $4, $5 }' | sort)
	[ -n "$lines" ] && printf '%s\n' "$lines"
	for n in $want; do
		printf '%s\n' "$lines" | grep -q "^$n " || echo "$n MISSING 0 0"
	done
}

report() { # LOG [LABS]
	local log=$1 want=${2:-} parsed
	parsed=$(parse "$log")
	results "$log" "$want" | sort | while read -r n st pass plan; do
		case $st in
		PASS) printf '  lab %s: PASS (%s/%s)\n' "$n" "$pass" "$plan" ;;
		*) printf '  lab %s: %s (%s/%s)\n' "$n" "$st" "$pass" "$plan" ;;
		esac
		[ "$st" = PASS ] && continue
		printf '%s\n' "$parsed" | awk -v n="$n" '
			$1 == "T" && $2 == n { show = ($3 == "not_ok"); if (show) { sub(/^T [0-9]+ not_ok +/, ""); print "      " $0 } next }
			$1 == "D" && $2 == n && show { sub(/^D [0-9]+ +/, ""); print "          " $0 }'
	done
	printf '%s\n' "$parsed" | awk '$1 == "K" { sub(/^K /, ""); if (!n++) print "  kernel said:"; print "      " $0 }'
}

cmd=${1:-}
shift || true
case $cmd in
results) results "$@" ;;
report) report "$@" ;;
parse) parse "$@" ;;
*) echo "usage: ktap.sh results|report|parse LOG [LABS]" >&2; exit 2 ;;
esac
