#!/bin/sh
# The machine set-up for a development checkout: installs the Debian packages that building the
# addon, `npm run demo` and `npm test` need, one group per line with the reason. `npm install` runs
# it first (package.json "preinstall"); `.ci/run` runs it with --ci, which adds the tools of the
# CI-only steps (fuzzing, the arm64 prebuild, the release checks).
#
# As root with apt-get it installs what is missing. Otherwise it stops at once and prints the exact
# command to run. Nothing to do (everything present) prints nothing.
#
# Usage: scripts/setup.sh [--ci] [--check] [--list]
#   --check  only report what is missing (exit 1 if anything is)
#   --list   print every package this script may install, one a line, and exit
#   --mirror print the URI of apt's entry for this release's main suite (for debootstrap), and exit
#
# Adding a package: add a `want` line to the group it belongs to below (or a new group with a
# `group` line saying why). `want PACKAGE PROBE`: PROBE is a command name or an absolute path
# that exists once the package is installed; without a probe the package's dpkg status is used.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

ci=0
check=0
list=0
mirror=0
for arg in "$@"; do
  case "$arg" in
    --ci) ci=1 ;;
    --check) check=1 ;;
    --list) list=1 ;;
    --mirror) mirror=1 ;;
    *) echo "setup: unknown option $arg (usage: scripts/setup.sh [--ci] [--check] [--list] [--mirror])" >&2; exit 2 ;;
  esac
done

# ZMGATE_APT_DIR: another apt configuration directory (for checking the deb-src derivation).
apt=${ZMGATE_APT_DIR:-/etc/apt}
if [ "$mirror" = 1 ]; then
  # The same entry write_debsrc below copies: its first URI.
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  uri=$(cat "$apt"/sources.list.d/*.sources 2>/dev/null | awk -v cn="$codename" '
    function flush() { if (!done && types ~ /(^|[ \t])deb([ \t]|$)/ && (" " suites " ") ~ (" " cn " ") && uris != "") { print uris; done = 1 }
      types = uris = suites = "" }
    /^[ \t]*#/ { next } /^[ \t]*$/ { flush(); next }
    $1 == "Types:" { types = $0 } $1 == "URIs:" { uris = $2 } $1 == "Suites:" { suites = $0 }
    END { flush() }')
  [ -n "$uri" ] || uri=$(cat "$apt"/sources.list "$apt"/sources.list.d/*.list 2>/dev/null |
    awk -v cn="$codename" '$1 == "deb" { s = 2; if ($2 ~ /^\[/) { while (s <= NF && $s !~ /\]$/) s++; s++ } if ($(s + 1) == cn) { print $s; exit } }')
  [ -n "$uri" ] || { echo "setup: found no apt entry for suite $codename" >&2; exit 1; }
  echo "$uri"
  exit 0
fi

# An installed copy of the package (the release tarball) has prebuilt addons and no sources to
# build: it needs nothing from apt.
if [ "$list" = 0 ] && [ ! -f "$root/CMakeLists.txt" ]; then exit 0; fi
# ZMGATE_SKIP_SETUP=1: the caller has provided everything another way.
if [ "${ZMGATE_SKIP_SETUP:-0}" = 1 ] && [ "$list" = 0 ]; then exit 0; fi

need=""        # packages to install
reasons=""     # one line per group that has something missing
group_name=""
group_missing=""

flush_group() {
  if [ -n "$group_missing" ]; then
    reasons="$reasons#   $group_name:$group_missing
"
  fi
  group_missing=""
}
group() { flush_group; group_name=$1; }
present() { # $1 = package, $2 = probe (optional)
  case "${2:-}" in
    "") dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' ;;
    /*) [ -e "$2" ] ;;
    *) command -v "$2" >/dev/null 2>&1 || [ -x "/usr/sbin/$2" ] ;;
  esac
}
want() {
  if [ "$list" = 1 ]; then echo "$1"; return; fi
  present "$1" "${2:-}" && return
  need="$need $1"
  group_missing="$group_missing $1"
}

# ---- what `npm install`, `npm run demo` and `npm test` need ----
group "the addon's build (cmake-js, libjpeg-turbo compiled from Debian's source with its SIMD code)"
want g++ g++
want cmake cmake
want ninja-build ninja
want nasm nasm
want dpkg-dev dpkg-source
group "the C++ tests of the addon (GoogleTest)"
want libgtest-dev /usr/include/gtest/gtest.h
group "the demo and the tests start a throwaway MariaDB"
want mariadb-server mariadbd
group "recordings, stills and simulated cameras (ffmpeg/ffprobe)"
want ffmpeg ffmpeg
group "the browser tests (headless Chromium)"
want chromium chromium
group "tests that drop privileges (setpriv)"
want util-linux setpriv
group "tests against ZoneMinder's own daemons (zmc); installed with no service started"
want zoneminder /usr/bin/zmc
group "tests against ZoneMinder's own web UI and API (its PHP tree under apache2 with mod_php, as the package's apache.conf serves it)"
want apache2 /usr/sbin/apache2
want libapache2-mod-php
group "the journal test of takeover mode (a stand-in journal socket)"
want socat socat
group "the ACME tests: Debian's pebble test CA and its mock DNS, on loopback"
want pebble pebble
group "the multi-server push tests (socket.io's Redis adapter; the test starts its own redis-server on loopback)"
want redis-server redis-server
group "the multi-server network-namespace test (ip netns, veth; HTTP from inside a namespace with curl)"
want iproute2 ip
want curl curl
group "the metrics test: Debian's Prometheus scrapes /metrics (started by the test on loopback; no service started)"
want prometheus prometheus
group "the linters the tests run (clang-format for the addon's C++)"
want clang-format clang-format

# ---- CI only: fuzzing, the arm64 prebuild, the release artifacts ----
if [ "$ci" = 1 ] || [ "$list" = 1 ]; then
  group "libFuzzer targets (clang with its fuzzer and sanitizer runtimes)"
  want clang clang++
  want libclang-rt-14-dev
  group "the linux-arm64 prebuild (cross toolchain) and its tests under emulation"
  want g++-aarch64-linux-gnu aarch64-linux-gnu-g++
  want binutils-aarch64-linux-gnu aarch64-linux-gnu-strip
  want libc6-dev-arm64-cross /usr/aarch64-linux-gnu/include/stdio.h
  want qemu-user qemu-aarch64
  want file file
  group "schema fuzzing (schemathesis from PyPI, in a venv of its own)"
  want python3-venv
  group "the Debian packages: building, lintian, the unit check, the fresh-root check"
  want fakeroot fakeroot
  want lintian lintian
  want systemd systemd-analyze
  want debootstrap debootstrap
fi
flush_group
[ "$list" = 1 ] && exit 0

# libjpeg-turbo's source comes from `apt-get source`, which needs a deb-src entry. It is derived
# from the machine's own apt sources: the entry for this release's main suite, as source.
has_debsrc() {
  grep -qsE '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' "$apt"/sources.list "$apt"/sources.list.d/*.list \
    "$apt"/sources.list.d/*.sources
}
debsrc_file="$apt/sources.list.d/zmgate-src.sources"
need_src=0
if ! has_debsrc && [ -z "${ZM_LIBJPEG_TURBO_SOURCE:-}" ]; then need_src=1; fi

if [ -z "$need" ] && [ "$need_src" = 0 ]; then exit 0; fi

if [ "$check" = 1 ]; then
  echo "# setup: missing:${need:- (none)}"
  [ "$need_src" = 1 ] && echo "# setup: no deb-src entry in apt's sources (libjpeg-turbo's source package)"
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: these Debian packages are missing and this machine has no apt-get:$need" >&2
  printf '%s' "$reasons" >&2
  echo "setup: install their equivalents, then run the command again (ZMGATE_SKIP_SETUP=1 skips this check)" >&2
  exit 1
fi

if [ "$(id -u)" != 0 ]; then
  {
    echo "setup: missing Debian packages, one group a line:"
    printf '%s' "$reasons"
    [ "$need_src" = 1 ] && echo "#   apt has no deb-src entry (libjpeg-turbo is built from Debian's source package)"
    echo "setup: run this as root, then the command again:"
    flag=""; [ "$ci" = 1 ] && flag=" --ci"
    echo "  sudo sh $root/scripts/setup.sh$flag"
    [ -n "$need" ] && echo "  (it runs: apt-get install -y --no-install-recommends$need)"
  } >&2
  exit 1
fi

# Writes the deb-src twin of the apt entry for this release's main suite (its URIs, suite,
# components and key), in the format the machine uses.
write_debsrc() {
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || { echo "setup: /etc/os-release names no VERSION_CODENAME" >&2; return 1; }
  for f in "$apt"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822: print the first stanza with Types deb whose Suites list the bare codename.
    out=$(awk -v cn="$codename" '
      function flush() {
        if (types ~ /(^|[ \t])deb([ \t]|$)/ && (" " suites " ") ~ (" " cn " ") && !done) {
          print "Types: deb-src"; print "URIs: " uris; print "Suites: " cn; print "Components: " comps
          if (signed != "") print "Signed-By: " signed
          done = 1
        }
        types = uris = suites = comps = signed = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      { key = $1; sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val) }
      key == "Types" { types = val } key == "URIs" { uris = val } key == "Suites" { suites = val }
      key == "Components" { comps = val } key == "Signed-By" { signed = val }
      END { flush() }' "$f")
    if [ -n "$out" ]; then printf '%s\n' "$out" >"$debsrc_file"; written=$debsrc_file; return 0; fi
  done
  # One-line format: `deb [options] URI SUITE COMPONENTS...` with SUITE the bare codename.
  line=$(cat "$apt"/sources.list "$apt"/sources.list.d/*.list 2>/dev/null |
    awk -v cn="$codename" '$1 == "deb" { s = 2; if ($2 ~ /^\[/) { while (s <= NF && $s !~ /\]$/) s++; s++ }
      if ($(s + 1) == cn) { sub(/^deb/, "deb-src"); print; exit } }')
  if [ -n "$line" ]; then
    written="$apt/sources.list.d/zmgate-src.list"
    printf '%s\n' "$line" >"$written"
    return 0
  fi
  echo "setup: found no apt entry for suite $codename to derive a deb-src entry from" >&2
  return 1
}

export DEBIAN_FRONTEND=noninteractive
echo "# setup: installing Debian packages, one group a line:"
printf '%s' "$reasons"
if [ "$need_src" = 1 ]; then
  write_debsrc
  echo "#   a deb-src entry ($written, derived from this machine's apt sources): libjpeg-turbo's source package"
fi
apt_get() { apt-get -o DPkg::Lock::Timeout=600 -y -qq --no-install-recommends "$@"; }
apt-get -o DPkg::Lock::Timeout=600 update -qq

# No service may start while packages install (zoneminder, mariadb-server and their dependencies
# would otherwise start daemons on a build machine): a temporary policy-rc.d refuses every start,
# unless the machine already has its own policy.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# temporary, from zmgate scripts/setup.sh: no service starts during set-up\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  own_policy=1
  trap 'rm -f "$policy"' EXIT INT TERM
fi
# shellcheck disable=SC2086 # one word per package
apt_get install $need >/dev/null || {
  echo "setup: apt-get install failed; run it yourself to see why:" >&2
  echo "  apt-get install -y --no-install-recommends$need" >&2
  exit 1
}
[ "$own_policy" = 1 ] && rm -f "$policy"
echo "# setup: done"
