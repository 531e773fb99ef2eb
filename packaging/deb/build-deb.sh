#!/bin/sh
# Builds zmgate_<version>_<arch>.deb from the release tarball with dpkg-deb:
#   /usr/lib/zmgate            the npm package with its production dependencies for <arch>
#                              (package-lock.json, `npm ci --omit=dev`), the addon for <arch> only
#   /usr/lib/zmgate/node       a Node runtime (npm package node-linux-<x64|arm64>, major
#                              $ZMGATE_NODE_MAJOR, default 22): Debian 12's nodejs is 18, older than
#                              the engines range (>= 20.19), so the service brings its own
#   /usr/bin/zmgate, zmgate-db, ...   launchers running that Node
#   /lib/systemd/system/zmgate.service, /etc/zmgate/prod.toml (every key commented; a conffile),
#   /etc/default/zmgate (APP_* for the unit; a conffile), maintainer scripts (this directory)
#
# Usage: packaging/deb/build-deb.sh TARBALL amd64|arm64 OUTDIR
set -eu
tarball=$(realpath "${1:?usage: build-deb.sh TARBALL amd64|arm64 OUTDIR}")
arch=${2:?usage: build-deb.sh TARBALL amd64|arm64 OUTDIR}
outdir=$(realpath "${3:?usage: build-deb.sh TARBALL amd64|arm64 OUTDIR}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
die() { echo "build-deb: $*" >&2; exit 1; }
case "$arch" in
  amd64) nodearch=x64 ;;
  arm64) nodearch=arm64 ;;
  *) die "unknown architecture $arch (amd64 or arm64)" ;;
esac
node_major=${ZMGATE_NODE_MAJOR:-22}
version=$(tar xzOf "$tarball" package/package.json | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0)).version)')
# Debian orders 3.0.0~alpha.1 before 3.0.0 (npm's 3.0.0-alpha.1).
debversion=$(echo "$version" | sed 's/-/~/')
maintainer=${ZMGATE_MAINTAINER:-zmgate maintainers <zmgate@example.org>}

work="$root/build/deb-$arch"
rm -rf "$work"
pkg="$work/root"
lib="$pkg/usr/lib/zmgate"
mkdir -p "$lib" "$pkg/usr/bin" "$pkg/DEBIAN" "$pkg/lib/systemd/system" "$pkg/etc/zmgate" "$pkg/etc/default" \
  "$pkg/usr/share/doc/zmgate" "$pkg/usr/share/lintian/overrides"

# The package and its production dependencies, as locked, for the target architecture (its
# platform-specific optional packages, e.g. node-datachannel's). No install scripts run.
tar xzf "$tarball" -C "$lib" --strip-components=1 --no-same-owner
# Cached per architecture and lockfile (build/deb-cache), as the install takes minutes.
lockhash=$(cat "$root/package-lock.json" "$lib/package.json" | sha256sum | cut -c1-16)
cached="$root/build/deb-cache/$arch-$lockhash"
if [ -d "$cached/node_modules" ]; then
  cp -a "$cached/node_modules" "$lib/"
else
  cp "$root/package-lock.json" "$lib/"
  (cd "$lib" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --os=linux --cpu="$nodearch" --libc=glibc >"$work/npm.log" 2>&1) ||
    { tail -n 30 "$work/npm.log" >&2; die "npm ci failed (log: $work/npm.log)"; }
  rm -f "$lib/package-lock.json" "$lib/node_modules/.package-lock.json"
  node "$here/prune.mjs" "$lib"
  rm -rf "$root/build/deb-cache/$arch-"*
  mkdir -p "$cached"
  cp -a "$lib/node_modules" "$cached/"
fi
for other in "$lib"/prebuilds/*; do
  [ "$(basename "$other")" = "linux-$nodearch" ] || rm -rf "$other"
done
# Build and test leftovers of dependencies that are of no use at run time.
find "$lib/node_modules" \( -name '.gitignore' -o -name '.gitattributes' -o -name '.gitmodules' -o -name '*.md' -o -name '*.markdown' -o -name '*.map' -o -name '*.ts' ! -name '*.d.ts' \
  -o -name '.npmignore' -o -name '.eslintrc*' -o -name '.travis.yml' -o -name 'Makefile' \) -type f -delete
find "$lib/node_modules" -depth -type d \( -name test -o -name tests -o -name __tests__ -o -name example -o -name examples \) \
  -exec rm -rf {} +

# The Node runtime: only its binary and licence.
cache="$root/build/node-runtime"
mkdir -p "$cache"
nodetgz=$(ls "$cache"/node-linux-"$nodearch"-"$node_major".*.tgz 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$nodetgz" ]; then
  (cd "$cache" && npm pack --silent "node-linux-$nodearch@$node_major" >/dev/null 2>"$work/node.log") ||
    { cat "$work/node.log" >&2; die "npm pack node-linux-$nodearch@$node_major failed"; }
  nodetgz=$(ls "$cache"/node-linux-"$nodearch"-"$node_major".*.tgz | sort -V | tail -n 1)
fi
mkdir -p "$lib/node/bin"
tar xzf "$nodetgz" -C "$work" --no-same-owner package/bin/node package/LICENSE
mv "$work/package/bin/node" "$lib/node/bin/node"
node_version=$(basename "$nodetgz" .tgz | sed "s/^node-linux-$nodearch-//")

# Debug symbols are of no use in the package (the addons, node-datachannel's, the runtime).
case "$arch" in amd64) strip=strip ;; arm64) strip=aarch64-linux-gnu-strip ;; esac
command -v "$strip" >/dev/null 2>&1 || die "$strip is missing: scripts/setup.sh --ci installs it"
find "$lib" -type f \( -name '*.node' -o -path "$lib/node/bin/node" \) -exec "$strip" --strip-unneeded {} +

# The package's own scripts run with the bundled Node, not whatever `node` is on the PATH.
sed -i '1s|^#!/usr/bin/env node$|#!/usr/lib/zmgate/node/bin/node|' "$lib"/bin/*.js

# Launchers: every bin of the package, run by the bundled Node.
for name in $(node -e 'const b=JSON.parse(require("fs").readFileSync(process.argv[1])).bin; console.log(Object.keys(b).join(" "))' "$lib/package.json"); do
  file=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).bin[process.argv[2]])' "$lib/package.json" "$name")
  if [ "$name" = zmgate ]; then
    # The service: the memory settings of package.json's zmgateRuntime (what `npm start` uses).
    flags=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1])).zmgateRuntime.nodeFlags.join(" "))' "$lib/package.json")
    arenas=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1])).zmgateRuntime.env.MALLOC_ARENA_MAX)' "$lib/package.json")
    printf '#!/bin/sh\nMALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-%s}\nexport MALLOC_ARENA_MAX\nexec /usr/lib/zmgate/node/bin/node %s /usr/lib/zmgate/%s "$@"\n' "$arenas" "$flags" "$file" >"$pkg/usr/bin/$name"
  else
    printf '#!/bin/sh\nexec /usr/lib/zmgate/node/bin/node /usr/lib/zmgate/%s "$@"\n' "$file" >"$pkg/usr/bin/$name"
  fi
  chmod 755 "$pkg/usr/bin/$name"
done

cp "$here/zmgate.service" "$pkg/lib/systemd/system/"
cp "$here/default" "$pkg/etc/default/zmgate"
# The operator file: base.toml with every setting commented out (the documentation stays).
{
  echo "# zmgate's operator configuration (APP_PROFILE=prod reads it after config/prod.toml)."
  echo "# Every setting is shown with its packaged default, commented out: uncomment and change"
  echo "# what differs here. APP_* variables in /etc/default/zmgate override this file."
  echo
  sed -e 's/^\([^#[:space:]]\)/#\1/' "$lib/config/base.toml"
} >"$pkg/etc/zmgate/prod.toml"
printf '/etc/default/zmgate\n/etc/zmgate/prod.toml\n' >"$pkg/DEBIAN/conffiles"
for script in postinst prerm postrm; do install -m 755 "$here/$script" "$pkg/DEBIAN/$script"; done

cp "$here/copyright" "$pkg/usr/share/doc/zmgate/copyright"
{
  printf 'zmgate (%s) unstable; urgency=medium\n\n  * Release %s (Node %s bundled).\n\n -- %s  %s\n' \
    "$debversion" "$version" "$node_version" "$maintainer" "$(date -R -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}")"
} | gzip -9n >"$pkg/usr/share/doc/zmgate/changelog.gz"
sed "/^[^#]/s/^/zmgate: /" "$here/lintian-overrides" >"$pkg/usr/share/lintian/overrides/zmgate"

# Modes: directories 755, files 644, executables (scripts with #!, ELF files) 755.
find "$pkg" -type d -exec chmod 755 {} +
find "$pkg" -type f ! -path "$pkg/DEBIAN/*" -exec chmod 644 {} +
chmod 755 "$pkg"/usr/bin/* "$lib/node/bin/node" "$lib"/bin/*.js
find "$lib" -type f -name '*.node' -exec chmod 644 {} +

size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: zmgate
Version: $debversion
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: adduser, libc6 (>= 2.28), libgcc-s1, libstdc++6 (>= 10)
Recommends: ffmpeg
Suggests: zoneminder, mariadb-server
Section: video
Priority: optional
Description: v3 REST API, live video and recorded playback for ZoneMinder
 zmgate runs beside ZoneMinder 1.36 to 1.39 on the same database, events
 directory, shared memory and sockets: a REST API with an OpenAPI document,
 live video (LL-HLS, WebRTC, MJPEG) and recorded playback.
 .
 The package brings its own Node.js runtime ($node_version) under /usr/lib/zmgate.
CONTROL

mkdir -p "$outdir"
deb="$outdir/zmgate_${version}_$arch.deb"
# ZMGATE_DEB_FAST=1: quick gzip (for checks on a busy machine); otherwise xz, the smallest.
if [ "${ZMGATE_DEB_FAST:-0}" = 1 ]; then compress="-Zgzip -z1"; else compress="-Zxz"; fi
# shellcheck disable=SC2086 # two words on purpose
dpkg-deb --root-owner-group $compress --build "$pkg" "$deb" >/dev/null
echo "build-deb: $deb ($(du -h "$deb" | cut -f1), Node $node_version)"
