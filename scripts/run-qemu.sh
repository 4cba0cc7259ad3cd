#!/usr/bin/env bash
# Boot the kernel with the guest initramfs in QEMU (TCG unless USERNS_KVM=1).
#
#   run-qemu.sh --labs "01 02" [--log FILE] [--timeout S]   run checks, KTAP in FILE
#   run-qemu.sh --shell                                     interactive shell
#   run-qemu.sh --demo --labs "01" [--log FILE]             run labs/NN/demo.sh
#   run-qemu.sh --script /path/in/guest [--log FILE]        run one guest script
#
# In check mode the exit status says how the boot ended: 0 the guest finished
# its checks, 3 TIMEOUT (hang), 4 PANIC, 5 REBOOT (the guest reset or stopped
# before the end), 6 console FLOOD (output capped, or a timeout with a huge
# log). Results are read with ktap.sh.
set -eu
. "$(dirname "$0")/lib.sh"

labs="" mode=check log=$LOG_DIR/boot.log timeout=${BOOT_TIMEOUT:-120}
kernel=${KERNEL_IMAGE:-$OBJ_DIR/arch/x86/boot/bzImage}
initrd=${INITRD:-$GUEST_DIR/initramfs.cpio}
check_timeout=${CHECK_TIMEOUT:-60}
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
append="console=ttyS0 loglevel=4 panic=-1 rdinit=/init labs.mode=$mode"
append="$append labs.timeout=$check_timeout labs.run=$(echo "$labs" | tr ' ' ',') ${QEMU_APPEND:-}"
qemu=(qemu-system-x86_64 "${accel[@]}" -m "${GUEST_MEM:-256}" -smp 1
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-no-reboot -nic none)

if [ "$mode" = shell ]; then
	info "booting an interactive guest: 'exit' (or Ctrl-A X) leaves it"
	exec "${qemu[@]}" -nographic
fi
qemu+=(-display none -monitor none -serial stdio)

mkdir -p "$(dirname "$log")"
set +e
timeout -k 5 "$timeout" "${qemu[@]}" </dev/null 2>&1 | head -c "$cap" | tr -d '\r' >"$log"
rcs=("${PIPESTATUS[@]}")
set -e
qrc=${rcs[0]}
if grep -q '^# userns-labs: end of checks' "$log"; then
	exit 0
elif grep -q 'Kernel panic' "$log"; then
	exit 4
fi
size=$(wc -c <"$log")
if [ "$size" -ge "$cap" ]; then
	exit 6
elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	[ "$size" -ge "$flood" ] && exit 6
	exit 3
else
	exit 5
fi
