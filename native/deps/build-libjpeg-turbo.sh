#!/bin/sh
# Builds libturbojpeg.a (libjpeg-turbo's TurboJPEG API + libjpeg + SIMD) as position-independent
# code into PREFIX, from Debian's source package. Called by native/cmake/libjpeg-turbo.cmake when
# PREFIX has no library yet; the result is cached outside build/ (see that file).
#
# Why not Debian's binary libturbojpeg.a: it is compiled as PIE, and turbojpeg.c.o uses
# local-exec TLS (R_X86_64_TPOFF32), which the linker refuses in a shared object like zmgate.node.
#
# Source: $ZM_LIBJPEG_TURBO_SOURCE (an unpacked libjpeg-turbo source tree) if set, else
# `apt-get source libjpeg-turbo`, which needs a deb-src entry and dpkg-dev (dpkg-source applies
# Debian's patches). Needs cmake, a C compiler, and nasm for the SIMD code (required: without it
# encoding is several times slower).
#
# Cross-compiling (linux-arm64): the second argument is the CMake toolchain file the addon uses
# (native/cmake/aarch64-linux-gnu.cmake); libjpeg-turbo then uses its NEON SIMD code (no nasm).
#
# Usage: build-libjpeg-turbo.sh PREFIX [TOOLCHAIN_FILE]
set -eu
prefix=${1:?usage: build-libjpeg-turbo.sh PREFIX [TOOLCHAIN_FILE]}
toolchain=${2:-}

die() {
  echo "build-libjpeg-turbo: $*" >&2
  exit 1
}

if [ -z "$toolchain" ]; then
  case $(uname -m) in
    x86_64 | i?86) command -v nasm >/dev/null 2>&1 || die "nasm is missing (libjpeg-turbo's SIMD code): run scripts/setup.sh as root, or apt-get install -y nasm" ;;
  esac
fi
command -v cmake >/dev/null 2>&1 || die "cmake is missing: run scripts/setup.sh as root, or apt-get install -y cmake"

work=$(mktemp -d "${TMPDIR:-/tmp}/zm-libjpeg-turbo.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -n "${ZM_LIBJPEG_TURBO_SOURCE:-}" ]; then
  src=$ZM_LIBJPEG_TURBO_SOURCE
  [ -f "$src/turbojpeg.h" ] || die "ZM_LIBJPEG_TURBO_SOURCE=$src is not a libjpeg-turbo source tree (no turbojpeg.h)"
else
  command -v dpkg-source >/dev/null 2>&1 || die "dpkg-source is missing: run scripts/setup.sh as root, or apt-get install -y dpkg-dev"
  if ! (cd "$work" && apt-get source -qq libjpeg-turbo >"$work/apt-source.log" 2>&1); then
    cat "$work/apt-source.log" >&2
    die "apt-get source libjpeg-turbo failed. Add a deb-src entry derived from apt's own sources (as root):
  sh $(cd "$(dirname "$0")/../.." && pwd)/scripts/setup.sh
or point ZM_LIBJPEG_TURBO_SOURCE at an unpacked libjpeg-turbo source tree."
  fi
  src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'libjpeg-turbo-*' | head -n 1)
  [ -n "$src" ] || die "apt-get source produced no libjpeg-turbo-* directory"
fi
echo "build-libjpeg-turbo: building $(basename "$src") (static, PIC, SIMD${toolchain:+, toolchain $(basename "$toolchain")}) into $prefix"

generator=
command -v ninja >/dev/null 2>&1 && generator="-G Ninja"
# shellcheck disable=SC2086 # $generator is empty or two words on purpose
cmake -S "$src" -B "$work/build" $generator -DCMAKE_BUILD_TYPE=Release \
  -DENABLE_SHARED=OFF -DENABLE_STATIC=ON -DWITH_TURBOJPEG=ON -DWITH_JPEG8=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DREQUIRE_SIMD=ON ${toolchain:+"-DCMAKE_TOOLCHAIN_FILE=$toolchain"} \
  -DCMAKE_C_FLAGS="-fvisibility=hidden" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; die "configure failed"; }
cmake --build "$work/build" --target turbojpeg-static >"$work/build.log" 2>&1 ||
  { tail -n 50 "$work/build.log" >&2; die "build failed"; }

# Assemble next to PREFIX, then rename: concurrent builds (two worktrees, a parallel test)
# never see a half-written cache; the loser of the race just discards its copy.
stage="$prefix.tmp.$$"
mkdir -p "$stage/lib" "$stage/include"
cp "$work/build/libturbojpeg.a" "$stage/lib/"
cp "$src/turbojpeg.h" "$stage/include/"
basename "$src" >"$stage/SOURCE"
mkdir -p "$(dirname "$prefix")"
if mv -T "$stage" "$prefix" 2>/dev/null; then
  echo "build-libjpeg-turbo: done"
else
  rm -rf "$stage"
  [ -f "$prefix/lib/libturbojpeg.a" ] || die "could not move the build into $prefix"
fi
