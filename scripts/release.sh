#!/bin/sh
# Builds the release artifacts into release/ (`npm run release`):
#   zmgate-<version>.tgz            npm package: built JavaScript + prebuilt addons for linux-x64 and
#                                   linux-arm64; `npm install -g` it, no compiler needed
#   zmgate_<version>_amd64.deb      Debian packages with a bundled Node runtime (packaging/deb/)
#   zmgate_<version>_arm64.deb
# and prints their sizes. Needs what `scripts/setup.sh --ci` installs (the arm64 cross toolchain,
# fakeroot). ZMGATE_RELEASE_DIR: another output directory. ZMGATE_RELEASE_REUSE=1 keeps existing
# prebuilds (prebuilds/linux-*/zmgate.node) instead of building them again.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${ZMGATE_RELEASE_DIR:-$root/release}
version=$(node -p 'require("./package.json").version')
mkdir -p "$out" build
log="$root/build/release.log"
: >"$log"
step() { echo "# release: $*"; }
die() { echo "release: $*" >&2; exit 1; }

step "TypeScript (dist/)"
npm run --silent build:ts >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "npm run build:ts failed (log: build/release.log)"; }

if [ "${ZMGATE_RELEASE_REUSE:-0}" != 1 ] || [ ! -f prebuilds/linux-x64/zmgate.node ]; then
  step "prebuilds/linux-x64/zmgate.node"
  # Built in build/release-x64, so the developer's build/Release is left alone.
  mkdir -p build/release-x64
  node_modules/.bin/prebuildify --napi --strip --name zmgate --node-gyp "$root/scripts/cmake-js-shim.sh" \
    --cwd "$root/build/release-x64" --out "$root" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "the linux-x64 prebuild failed (log: build/release.log)"; }
fi
if [ "${ZMGATE_RELEASE_REUSE:-0}" != 1 ] || [ ! -f prebuilds/linux-arm64/zmgate.node ]; then
  step "prebuilds/linux-arm64/zmgate.node (cross-compiled)"
  scripts/prebuild-arm64.sh >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "the linux-arm64 prebuild failed (log: build/release.log)"; }
fi

step "npm package"
stage="$root/build/release-npm"
node scripts/release-stage.mjs "$stage"
rm -f "$out/zmgate-$version.tgz"
(cd "$stage" && npm pack --silent --pack-destination "$out" >/dev/null)
[ -f "$out/zmgate-$version.tgz" ] || die "npm pack made no $out/zmgate-$version.tgz"

for arch in amd64 arm64; do
  step "zmgate_${version}_$arch.deb"
  sh packaging/deb/build-deb.sh "$out/zmgate-$version.tgz" "$arch" "$out"
done

step "artifacts"
for f in "$out/zmgate-$version.tgz" "$out/zmgate_${version}_amd64.deb" "$out/zmgate_${version}_arm64.deb"; do
  [ -f "$f" ] && printf '%8s  %s\n' "$(du -h "$f" | cut -f1)" "$f"
done
