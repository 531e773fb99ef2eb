#!/bin/sh
# Checks the release artifacts of `npm run release` (in release/, or $1):
#   tarball  installs with `npm install -g` into an empty prefix with no build tools on PATH (only
#            node, npm and sh), then `zmgate --version` and `zmgate --openapi` run from it, and the
#            service starts from it against a throwaway MariaDB
#   .deb     lintian (amd64 and arm64); unpacked with `dpkg --root` into an empty root: the files,
#            conffiles and launchers are there, `systemd-analyze verify` passes on the unit, and the
#            service starts from the unpacked files against a throwaway MariaDB (amd64)
# Prints each artifact's size. Last line: `N passed, N failed`.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-$root/release}
version=$(node -p 'require("./package.json").version')
tgz="$out/zmgate-$version.tgz"
work=$(mktemp -d "${TMPDIR:-/tmp}/zmgate-release-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
no() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { # $1 = label, rest = command
  label=$1
  shift
  if "$@" >"$work/out" 2>&1; then ok "$label"; else no "$label"; sed 's/^/     /' "$work/out" | tail -n 30; fi
}

echo "# sizes"
for f in "$tgz" "$out/zmgate_${version}_amd64.deb" "$out/zmgate_${version}_arm64.deb"; do
  if [ -f "$f" ]; then printf '#   %8s  %s\n' "$(du -h "$f" | cut -f1)" "$(basename "$f")"; else no "missing $f"; fi
done

# ---- the npm tarball, with no compiler ----
tools="$work/tools"
mkdir -p "$tools"
ln -s "$(command -v node)" "$tools/node"
ln -s "$(command -v npm)" "$tools/npm"
ln -s "$(command -v sh)" "$tools/sh"
nobuild() { env PATH="$tools" "$@"; }
check "no build tools on the restricted PATH" nobuild sh -c 'for t in cc gcc g++ c++ make cmake ninja python3; do command -v $t && exit 1; done; exit 0'
prefix="$work/prefix"
check "npm install -g $(basename "$tgz") into an empty prefix" nobuild npm install -g --prefix "$prefix" --no-audit --no-fund "$tgz"
check "zmgate --version from the prefix" sh -c "PATH='$tools' '$prefix/bin/zmgate' --version | tee /dev/stderr | grep -q '$version'"
check "zmgate --openapi from the prefix is an OpenAPI 3.1 document" sh -c "PATH='$tools' '$prefix/bin/zmgate' --openapi | node -e 'const d=JSON.parse(require(\"fs\").readFileSync(0)); if (!/^3\\.1/.test(d.openapi)) process.exit(1)'"
check "the addon loads from the tarball's prebuild" sh -c "cd '$prefix/lib/node_modules/zmgate' && PATH='$tools' node -p \"require('node-gyp-build').resolve('.')\" | grep -q 'prebuilds/linux-x64/zmgate.node'"
check "the service from the tarball starts against a throwaway MariaDB" \
  node scripts/release-check-service.mjs "$(command -v node)" "$prefix/lib/node_modules/zmgate"

# ---- the Debian packages ----
for arch in amd64 arm64; do
  deb="$out/zmgate_${version}_$arch.deb"
  [ -f "$deb" ] || continue
  if command -v lintian >/dev/null 2>&1; then
    check "lintian zmgate_${version}_$arch.deb (errors and warnings)" sh -c "lintian --fail-on error,warning --no-tag-display-limit '$deb' | tee /dev/stderr"
  else
    no "lintian is missing (scripts/setup.sh --ci installs it)"
  fi
done
deb="$out/zmgate_${version}_amd64.deb"
if [ -f "$deb" ]; then
  r="$work/root"
  mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates"
  : >"$r/var/lib/dpkg/status"
  # --unpack: the files as dpkg places them; the maintainer scripts (adduser) are exercised by the
  # fresh-root step (scripts/fresh-root.sh), not on this machine.
  check "dpkg --root: unpacks into an empty root" dpkg --root="$r" --log=/dev/null --force-depends --force-not-root --unpack "$deb"
  # --unpack leaves conffiles as *.dpkg-new until configure; put them in place as configure does.
  find "$r/etc" -name '*.dpkg-new' | while read -r f; do mv "$f" "${f%.dpkg-new}"; done
  check "installed files: launchers, unit, conffiles, runtime" sh -c "
    for f in usr/bin/zmgate usr/bin/zmgate-db lib/systemd/system/zmgate.service etc/zmgate/prod.toml etc/default/zmgate \
      usr/lib/zmgate/node/bin/node usr/lib/zmgate/prebuilds/linux-x64/zmgate.node; do [ -e '$r'/\$f ] || { echo missing \$f; exit 1; }; done
    [ ! -e '$r/usr/lib/zmgate/prebuilds/linux-arm64' ] || { echo 'the amd64 package holds the arm64 addon'; exit 1; }
    grep -q '^/etc/zmgate/prod.toml$' '$r/var/lib/dpkg/info/zmgate.conffiles'
    ! grep -v '^#' '$r/etc/zmgate/prod.toml' | grep -q '[^[:space:]]' || { echo 'prod.toml has an uncommented line'; exit 1; }"
  check "the bundled Node runs and is new enough" sh -c "'$r/usr/lib/zmgate/node/bin/node' -e 'const [a,b]=process.versions.node.split(\".\").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'"
  if command -v systemd-analyze >/dev/null 2>&1; then
    # The unit as installed, its ExecStart pointed into the unpacked root (verify checks that the
    # command exists); the rest of the system's units are this machine's.
    mkdir -p "$work/unit"
    sed "s|^ExecStart=/|ExecStart=$r/|" "$r/lib/systemd/system/zmgate.service" >"$work/unit/zmgate.service"
    check "systemd-analyze verify zmgate.service" systemd-analyze verify --man=no "$work/unit/zmgate.service"
  else
    no "systemd-analyze is missing (scripts/setup.sh --ci installs systemd)"
  fi
  check "zmgate --version and the service from the unpacked .deb (its own Node) against a throwaway MariaDB" sh -c "
    '$r/usr/lib/zmgate/node/bin/node' '$r/usr/lib/zmgate/bin/zmgate.js' --version &&
    node scripts/release-check-service.mjs '$r/usr/lib/zmgate/node/bin/node' '$r/usr/lib/zmgate' '$r/etc/zmgate/prod.toml'"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
