#!/bin/sh
# Builds and runs the C++ unit tests (GoogleTest, under AddressSanitizer + UBSan) in their own
# build directory, so the addon in build/Release is untouched. Usage: native/test/run.sh [ctest args]
# Needs: cmake, ninja or make, g++, libgtest-dev.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/build/native-test"
cd "$root"
cmake_js=$(command -v cmake-js || echo "$root/node_modules/.bin/cmake-js")
"$cmake_js" compile --debug --out "$out" --CDZM_NATIVE_TESTS=ON --CDZM_SANITIZE=ON --log-level warn
exec ctest --test-dir "$out" --output-on-failure "$@"
