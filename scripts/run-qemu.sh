#!/usr/bin/env bash
# Boot the kernel with the guest initramfs in QEMU (TCG unless USERNS_KVM=1).
#
#   run-qemu.sh --labs "01 02" [--log X.log] [--timeout S]  run checks
#   run-qemu.sh --shell                                     interactive shell
#   run-qemu.sh --demo --labs "01" [--log X.log]            run labs/NN/demo.sh
#   run-qemu.sh --script /path/in/guest [--log X.log]       run one guest script
#
# Two channels: the kernel's log (the console, ttyS0) goes to X.log, and what
# the guest's /init prints (the checks' KTAP, a demo's or a script's output,
# and the end-of-checks line) goes to X.ktap, from a second serial port that
# the kernel never prints to. Results are read from X.ktap only (ktap.sh), so
# a kernel's console messages cannot pose as the guest's results.
#
# The boot's time limit is --timeout, else BOOT_TIMEOUT, else the sum of the
# labs' TIMEOUT (lab.conf) and a minute for the boot itself.
#
# The exit status says how the boot ended: 0 the guest finished its checks,
# 3 TIMEOUT (hang), 4 PANIC, 5 REBOOT (the guest reset or stopped before the
# end), 6 console FLOOD (output capped, or a timeout with a huge log).
set -eu
. "$(dirname "$0")/lib.sh"

labs="" mode=check log=$LOG_DIR/boot.log timeout=${BOOT_TIMEOUT:-}
kernel=${KERNEL_IMAGE:-$OBJ_DIR/vmlinux}
initrd=${INITRD:-$GUEST_DIR/initramfs.cpio}
check_timeout=${CHECK_TIMEOUT:-}
cap=${CONSOLE_CAP:-1000000}
# The emulated serial port carries some 15 KB/s: a guest still printing when
# its time is up, with this much output, was flooding the console.
flood=${FLOOD_BYTES:-256000}
while [ $# -gt 0 ]; do
	case $1 in
	--labs) labs=$2; shift ;;
	--log) log=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--check-timeout) check_timeout=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--shell) mode=shell ;;
	--demo) mode=demo ;;
	--script) mode=script; QEMU_APPEND="${QEMU_APPEND:-} labs.script=$2"; shift ;;
	*) die "run-qemu.sh: unknown argument '$1'" ;;
	esac
	shift
done

[ -f "$kernel" ] || die "no kernel image at $kernel: build it first (make build)"
[ -f "$initrd" ] || die "no initramfs at $initrd: pack it first (make guest)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found: install qemu-system-x86 (make deps)"

accel=(-accel tcg)
[ -n "${USERNS_KVM:-}" ] && accel=(-accel kvm -cpu host)
if [ -z "$timeout" ]; then
	timeout=60
	for n in $labs; do timeout=$((timeout + $(lab_conf "$n" TIMEOUT 60 2>/dev/null || echo 60))); done
	[ -n "$labs" ] || timeout=120
fi
# no_timer_check: on a loaded host an emulated CPU can be too slow for the
# boot's IO-APIC timer test, which then panics ("IO-APIC + timer doesn't
# work"); the test proves nothing about the labs.
append="console=ttyS0 loglevel=4 panic=-1 no_timer_check rdinit=/init labs.mode=$mode labs.base=$KERNEL"
[ -z "$check_timeout" ] || append="$append labs.timeout=$check_timeout"
append="$append labs.run=$(echo "$labs" | tr ' ' ',') ${QEMU_APPEND:-}"
qemu=(qemu-system-x86_64 "${accel[@]}" -m "${GUEST_MEM:-256}" -smp 1
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-no-reboot -nic none)
# GDB_PORT: QEMU's gdb stub listens on that port of 127.0.0.1 (make gdb);
# GDB_WAIT=1: the CPU waits for gdb's first 'continue'
if [ -n "${GDB_PORT:-}" ]; then
	case $GDB_PORT in *[!0-9]* | '') die "GDB_PORT must be a port number" ;; esac
	qemu+=(-gdb "tcp:127.0.0.1:$GDB_PORT")
	[ -z "${GDB_WAIT:-}" ] || qemu+=(-S)
fi

if [ "$mode" = shell ]; then
	info "booting an interactive guest: 'exit' (or Ctrl-A X) leaves it"
	exec "${qemu[@]}" -nographic
fi
ktap=${log%.log}.ktap
[ "$ktap" != "$log" ] || ktap=$log.ktap
mkdir -p "$(dirname "$log")"
rm -f "$ktap"
# QEMU parses its option strings: give it a path of our own making only.
raw=$(mktemp -d "${TMPDIR:-/tmp}/userns-labs-ktap.XXXXXX")/ktap
trap 'rm -rf "$(dirname "$raw")"' EXIT
qemu+=(-display none -monitor none -serial stdio -serial "file:$raw")

set +e
timeout -k 5 "$timeout" "${qemu[@]}" </dev/null 2>&1 | head -c "$cap" | tr -d '\r' >"$log"
rcs=("${PIPESTATUS[@]}")
set -e
qrc=${rcs[0]}
head -c "$cap" "$raw" 2>/dev/null | tr -d '\r' >"$ktap" || : >"$ktap"
if grep -q '^# userns-labs: end of checks$' "$ktap"; then
	exit 0
elif grep -q 'Kernel panic' "$log"; then
	exit 4
fi
size=$(($(wc -c <"$log") + $(wc -c <"$ktap")))
if [ "$size" -ge "$cap" ]; then
	exit 6
elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	[ "$size" -ge "$flood" ] && exit 6
	exit 3
else
	exit 5
fi
