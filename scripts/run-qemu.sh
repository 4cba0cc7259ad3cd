#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
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
# the kernel does not print to on its own. Results are read from X.ktap only
# (ktap.sh), so a kernel's console messages cannot pose as the guest's results.
#
# Each boot has a secret of its own, drawn here and handed to /init only: a
# small cpio archive holding /.userns-labs-nonce, packed after the initramfs
# into a copy made for this boot (the kernel unpacks the archives one after
# the other; the secret is never on the kernel's command line, which every
# process of the guest may read). /init reads it, removes the file, and
# writes "# userns-labs: init SECRET" on the channel before it runs anything,
# then "# userns-labs: end of checks SECRET" when it is done. X.ktap holds
# only what came between the two (with those lines written back without the
# secret); whatever else was on the channel (lines a kernel wrote before
# /init started, or after it ended) goes to X.channel, for people, and is
# never read as a result. A kernel can still write anything while /init
# runs (it can read the secret): see the README, "The results channel".
#
# The boot's time limit is --timeout, else BOOT_TIMEOUT, else the sum of the
# labs' TIMEOUT (lab.conf) and a minute for the boot itself.
#
# The exit status says how the boot ended, by the names (and numbers) of
# scripts/qemu-outcomes.sh: QEMU_OK (0) the guest finished its checks,
# QEMU_TIMEOUT (3, a hang), QEMU_PANIC (4), QEMU_REBOOT (5: the guest reset
# or stopped before the end), QEMU_FLOOD (6: the console output capped, or a
# timeout with a huge log), QEMU_UNAUTHENTICATED (7: the results channel
# carried no result of this boot's /init: an end line without this boot's
# secret, or lines on the channel and no block of /init's; such a run is
# never taken as finished). A panic is a line of the kernel's log that
# scripts/kernel-trouble.re's [panic] section matches.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu-outcomes.sh"

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
	labconf_load
	for n in $labs; do timeout=$((timeout + $(lab_conf "$n" TIMEOUT 60 2>/dev/null || echo 60))); done
	[ -n "$labs" ] || timeout=120
fi
# no_timer_check: on a loaded host an emulated CPU can be too slow for the
# boot's IO-APIC timer test, which then panics ("IO-APIC + timer doesn't
# work"); the test proves nothing about the labs.
append=$(guest_cmdline "$mode")
[ -z "$check_timeout" ] || append="$append labs.timeout=$check_timeout"
append="$append labs.run=$(echo "$labs" | tr ' ' ',') ${QEMU_APPEND:-}"
# -vga none: no graphics card, so no VGA BIOS for the firmware to run in
# the emulated CPU before the kernel starts (some 0.2 s a boot here); the
# guest's console is the serial port.
# -bios qboot.rom: QEMU's minimal firmware (Debian's qemu-system-data),
# which hands the CPU to the kernel sooner than SeaBIOS (QEMU's start,
# the firmware and QEMU's exit: 0.32 s against 0.45 s, medians of six
# boots each here); SeaBIOS where it is missing. (replay.sh records and
# replays with SeaBIOS, as its recordings were made.)
# (by its full path: a bare name is looked for in the working folder first)
firmware=()
[ ! -f /usr/share/qemu/qboot.rom ] || firmware=(-bios /usr/share/qemu/qboot.rom)
qemu=(qemu-system-x86_64 "${accel[@]}" -m "${GUEST_MEM:-256}" -smp 1 "${firmware[@]}"
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-no-reboot -nic none -vga none)
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
channel=${ktap%.ktap}.channel
mkdir -p "$(dirname "$log")"
rm -f "$ktap" "$channel"
# QEMU parses its option strings: give it a path of our own making only.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/userns-labs-ktap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
raw=$tmp/ktap
# This boot's secret, for /init alone: the initramfs, then an archive of one
# file (mode 0400, root's), in a copy of this boot's own.
nonce=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
[ "${#nonce}" -eq 32 ] || die "run-qemu.sh: could not draw a secret for this boot"
mkdir "$tmp/nonce"
printf '%s\n' "$nonce" >"$tmp/nonce/.userns-labs-nonce"
chmod 400 "$tmp/nonce/.userns-labs-nonce"
cp "$initrd" "$tmp/initrd"
(cd "$tmp/nonce" && echo .userns-labs-nonce | cpio --quiet -o -H newc -R 0:0) >>"$tmp/initrd" ||
	die "run-qemu.sh: could not pack this boot's secret (cpio)"
for i in "${!qemu[@]}"; do
	[ "${qemu[$i]}" != -initrd ] || qemu[i + 1]=$tmp/initrd
done
qemu+=(-display none -monitor none -serial stdio -serial "file:$raw")

# Ctrl-C (or SIGTERM to the process group) ends the boot at once: QEMU,
# in this process group (timeout --foreground: timeout's own group would
# keep it from a terminal's Ctrl-C), stops; the readers of its output
# ignore the signal, so the kernel log keeps every line QEMU wrote; then
# this script ends by the signal, with no result read from a boot that
# did not finish.
# shellcheck disable=SC2317 # run by lib.sh's trap (_interrupted)
interrupt_cleanup() {
	printf '\n[userns-labs: the boot was stopped by a signal (Ctrl-C) here; no result was read]\n' >>"$log"
	rm -f "$ktap"
	rm -rf "$tmp"
}
on_interrupt "the boot in QEMU; no result was read (the kernel log so far: $log)"
set +e
timeout --foreground -k 5 "$timeout" "${qemu[@]}" </dev/null 2>&1 |
	(trap '' INT TERM && head -c "$cap" | tr -d '\r') >"$log"
rcs=("${PIPESTATUS[@]}")
set -e
qrc=${rcs[0]}
head -c "$cap" "$raw" 2>/dev/null | tr -d '\r' >"$tmp/channel" || : >"$tmp/channel"
# X.ktap: the lines of this boot's /init, from its start line to its end
# line (both carry the secret; written back without it); the channel's
# other lines to X.channel. auth: "done" (start and end seen), "open"
# (start seen, no end: the guest stopped), or "none"; foreign: how many
# lines were not the block's; forged: 1 when an end line on the channel was
# not this boot's /init's (scripts/ktap.py, split_channel).
auth=none foreign=0 forged=0
read -r auth foreign forged < <(python3 "$(dirname "$0")/ktap.py" channel \
	"$tmp/channel" "$nonce" "$ktap" "$tmp/rest" || echo none 0 0)
[ -f "$ktap" ] || : >"$ktap"
if [ "$foreign" -gt 0 ]; then
	mv "$tmp/rest" "$channel"
	info "run-qemu.sh: the results channel held $foreign line(s) that this boot's /init did not write: ignored (see $channel)" >&2
fi
if [ "$auth" = "done" ] && [ "$forged" -eq 0 ]; then
	exit "$QEMU_OK"
elif python3 "$(dirname "$0")/ktap.py" grep panic "$log" >/dev/null; then
	exit "$QEMU_PANIC"
elif [ "$forged" -eq 1 ] || { [ "$auth" = none ] && [ "$foreign" -gt 0 ]; }; then
	exit "$QEMU_UNAUTHENTICATED"
fi
size=$(($(wc -c <"$log") + $(wc -c <"$tmp/channel")))
if [ "$size" -ge "$cap" ]; then
	exit "$QEMU_FLOOD"
elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	[ "$size" -ge "$flood" ] && exit "$QEMU_FLOOD"
	exit "$QEMU_TIMEOUT"
else
	exit "$QEMU_REBOOT"
fi
