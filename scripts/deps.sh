#!/usr/bin/env bash
# Make sure the Debian packages the course needs are installed. As root they
# are installed; otherwise the exact apt-get line is printed and we stop.
#   deps.sh          what a student needs
#   deps.sh --test   also what 'make test' needs (shellcheck, pandoc, chromium, ...)
set -eu
. "$(dirname "$0")/lib.sh"

pkgs="linux-source-6.1 gcc libc6-dev make flex bison bc libelf-dev libssl-dev
cpio ccache xz-utils git qemu-system-x86 busybox-static"
# checkpatch.pl wants perl's standard modules, not only perl-base
[ "${1:-}" = --test ] && pkgs="$pkgs shellcheck pandoc chromium python3 perl"

missing=""
for p in $pkgs; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	die "missing Debian packages:$missing
Install them with:
    sudo apt-get install --no-install-recommends$missing"
fi
info "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || warn "apt-get update failed; trying the install anyway"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >"${TMPDIR:-/tmp}/userns-labs-apt.log" 2>&1 || {
	tail -20 "${TMPDIR:-/tmp}/userns-labs-apt.log" >&2
	die "apt-get install failed (log: ${TMPDIR:-/tmp}/userns-labs-apt.log)"
}
