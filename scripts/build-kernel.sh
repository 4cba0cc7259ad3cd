#!/usr/bin/env bash
# Configure (tinyconfig + kernel-steps/config.fragment) and build the kernel
# out of tree with ccache. The compiler's first errors are shown on failure.
set -eu
. "$(dirname "$0")/lib.sh"

need_kernel_tree
mkdir -p "$OBJ_DIR" "$LOG_DIR"
FRAG=$TOP/kernel-steps/config.fragment
log=$LOG_DIR/build-$(basename "$OBJ_DIR").log

export ARCH=x86_64
export KBUILD_BUILD_USER=userns-labs KBUILD_BUILD_HOST=qemu
export KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-2012-12-10}"
# The version string says which tree this kernel was built from, so a report
# can be traced to its kernel: the tag or branch, the commit and, when the
# work tree has changes, a hash of them.
describe=$(kgit describe --tags --always 2>/dev/null || echo unknown)
branch=$(kgit symbolic-ref --short -q HEAD || true)
dirt=$(kgit diff HEAD 2>/dev/null | sha1sum | cut -c1-8)
[ "$(kgit diff HEAD 2>/dev/null | wc -c)" -gt 0 ] || dirt=clean
KBUILD_BUILD_VERSION="${BUILD_LABEL:-${branch:-$describe}}@$(kgit rev-parse --short=10 HEAD):$dirt"
# BUILD_VERSION: the whole string, as given (the grader names a kernel by
# its tree, so that the same tree builds the same kernel)
KBUILD_BUILD_VERSION=${BUILD_VERSION:-$KBUILD_BUILD_VERSION}
export KBUILD_BUILD_VERSION

MAKE=(make -C "$KERNEL_DIR" O="$OBJ_DIR" -j"$JOBS" LOCALVERSION=-userns-labs)
if command -v ccache >/dev/null 2>&1 && [ -z "${NO_CCACHE:-}" ]; then
	export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=1
	MAKE+=(CC="ccache gcc")
fi

stamp=$OBJ_DIR/.userns-labs-config
want=$(cat "$FRAG" | sha1sum | cut -c1-40)
if [ ! -f "$OBJ_DIR/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	info "configuring: tinyconfig + $(basename "$FRAG")"
	{
		"${MAKE[@]}" tinyconfig &&
			"$KERNEL_DIR"/scripts/kconfig/merge_config.sh -m -O "$OBJ_DIR" \
				"$OBJ_DIR/.config" "$FRAG" &&
			"${MAKE[@]}" olddefconfig
	} >"$log" 2>&1 || die "configuration failed, see $log"
	missing=""
	while IFS= read -r line; do
		case $line in CONFIG_*=y) grep -qx "$line" "$OBJ_DIR/.config" || missing="$missing ${line%=y}" ;; esac
	done <"$FRAG"
	[ -z "$missing" ] || warn "not set in .config after merging:$missing"
	echo "$want" >"$stamp"
fi

info "building the kernel ($describe, log: ${log#"$TOP"/})"
start=$(date +%s)
if ! "${MAKE[@]}" bzImage >"$log" 2>&1; then
	printf '%serror:%s the kernel does not compile. The first errors:\n' "$C_RED" "$C_OFF" >&2
	grep -E -A4 '(error|Error):|undefined reference|^make.*\*\*\*' "$log" | head -40 | sed 's/^/    /' >&2 ||
		tail -20 "$log" | sed 's/^/    /' >&2
	printf 'Full log: %s\n' "$log" >&2
	exit 2
fi
grep -E 'warning:' "$log" | head -10 | sed 's/^/    /' >&2 || true
info "kernel built in $(($(date +%s) - start)) s: ${OBJ_DIR#"$TOP"/}/arch/x86/boot/bzImage"
