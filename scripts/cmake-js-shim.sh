#!/bin/sh
# prebuildify speaks only node-gyp; `npm run prebuild` passes this script as its node-gyp.
# It receives node-gyp's command line, e.g.
#   rebuild --target=24.0.0 --devdir=/tmp/prebuildify/node --arch=x64 --release
# and runs the real build, cmake-js (CMakeLists.txt is the one source of truth), in its place.
# --target/--devdir are dropped: a Node-API build needs no per-version Node headers (cmake-js
# uses node-api-headers), and cmake-js's own --target means a CMake target.
set -eu

debug=
arch=
for arg in "$@"; do
  case "$arg" in
    --debug) debug=--debug ;;
    --arch=*) arch="${arg#--arch=}" ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
# prebuildify puts node_modules/.bin on PATH; fall back to the package's own copy.
cmake_js=$(command -v cmake-js || echo "$root/node_modules/.bin/cmake-js")

# rebuild = clean + configure + build into ./build/Release (or ./build/Debug) of the directory
# prebuildify runs us in (its --cwd), where it then picks up zmgate.node and moves it to
# prebuilds/<platform>-<arch>/. That is the package root for `npm run prebuild`; a cross build
# (scripts/prebuild-arm64.sh) runs in build/cross-arm64, so the host's build/ is left alone.
# --arch reaches CMakeLists.txt as NODE_ARCH, which selects the cross toolchain.
exec "$cmake_js" rebuild -d "$root" -O "$PWD/build" ${debug} ${arch:+--arch "$arch"}
