#!/bin/sh
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined) and runs each for
# <seconds> (default 60) from a seed corpus: synthetic files from make_seeds, plus small
# ffmpeg-made MP4s when ffmpeg is installed, plus the inputs that once crashed
# (native/fuzz/regressions). The growing corpus is kept in build/fuzz/corpus.
# Last line: `N passed, N failed` (one per target: ran its time without a crash/leak/timeout).
# Usage: native/fuzz/run.sh [seconds] [target...]   (targets: mp4_demux_fuzz stream_protocol_fuzz)
# Needs: clang (Debian: apt-get install -y clang libclang-rt-14-dev).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-"mp4_demux_fuzz stream_protocol_fuzz"}
out="$root/build/fuzz"
cxx=${CXX_FUZZ:-clang++}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$out/obj" "$out/seeds/mp4_demux_fuzz" "$out/seeds/stream_protocol_fuzz"

common="-std=c++17 -g -O1 -fno-omit-frame-pointer -I$root/native/include -I$root/native/test"
san="-fsanitize=address,undefined -fno-sanitize-recover=all"

# zmcore with fuzzer instrumentation; rebuilt when any native source or header is newer.
stamp="$out/obj/.stamp"
if [ ! -f "$stamp" ] || [ -n "$(find "$root/native/src/core" "$root/native/include" -newer "$stamp" -print -quit)" ]; then
  echo "# building zmcore for fuzzing ($cxx)"
  rm -f "$out"/obj/*.o "$out"/obj/libzmcore.a
  # jpeg.cc is left out: it is a thin layer over libjpeg-turbo (built separately, see
  # native/deps/), which no target reaches, and its header need not be installed here.
  ls "$root"/native/src/core/*.cc | grep -v '/jpeg\.cc$' | xargs -P "$jobs" -I{} sh -c \
    "$cxx $common $san -fsanitize=fuzzer-no-link -c {} -o $out/obj/\$(basename {} .cc).o"
  # An archive: each target links only the objects it needs.
  ar rcs "$out/obj/libzmcore.a" "$out"/obj/*.o
  touch "$stamp"
fi
for t in $targets; do
  src="$root/native/fuzz/$t.cc"
  if [ ! -f "$out/$t" ] || [ "$src" -nt "$out/$t" ] || [ "$stamp" -nt "$out/$t" ]; then
    echo "# linking $t"
    $cxx $common $san -fsanitize=fuzzer "$src" "$out/obj/libzmcore.a" -o "$out/$t" -lpthread
  fi
done

# Seeds.
$cxx $common "$root/native/fuzz/make_seeds.cc" "$out"/obj/stream_protocol.o -o "$out/make_seeds" $san 2>/dev/null ||
  $cxx $common "$root/native/fuzz/make_seeds.cc" "$root/native/src/core/stream_protocol.cc" -o "$out/make_seeds"
"$out/make_seeds" "$out/seeds/mp4_demux_fuzz" "$out/seeds/stream_protocol_fuzz"
if command -v ffmpeg >/dev/null 2>&1; then
  src="$out/seeds/src.mp4"
  ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=10 -f lavfi -i sine=sample_rate=8000 -t 1 \
    -c:v libx264 -g 5 -bf 2 -c:a aac -b:a 16k "$src"
  ffmpeg -v error -y -i "$src" -c copy -movflags +faststart "$out/seeds/mp4_demux_fuzz/ff-faststart.mp4"
  ffmpeg -v error -y -i "$src" -c copy -movflags frag_keyframe+empty_moov+default_base_moof "$out/seeds/mp4_demux_fuzz/ff-fragmented.mp4"
  ffmpeg -v error -y -i "$src" -c copy "$out/seeds/mp4_demux_fuzz/ff-progressive.mov"
  rm -f "$src"
fi

status=0
passed=0
failed=0
for t in $targets; do
  corpus="$out/corpus/$t"
  mkdir -p "$corpus" "$out/artifacts"
  case $t in
    mp4_demux_fuzz) maxlen=65536 ;;
    *) maxlen=16384 ;;
  esac
  # Inputs that once crashed (native/fuzz/regressions/<target>-*) are replayed first.
  regress="$out/regressions/$t"
  rm -rf "$regress" && mkdir -p "$regress"
  cp "$root"/native/fuzz/regressions/"$t"-* "$regress"/ 2>/dev/null || true
  echo "# $t for ${seconds}s"
  start=$(date +%s)
  if "$out/$t" -max_total_time="$seconds" -max_len=$maxlen -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$out/artifacts/$t-" "$corpus" "$out/seeds/$t" "$regress" >"$out/$t.log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$t.log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]*' "$out/$t.log" | tail -1 || true)
  echo "# $t: $result after $(( $(date +%s) - start ))s, $runs runs, $cov, corpus $(ls "$corpus" | wc -l) (log: $out/$t.log)"
  if [ $result = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); tail -40 "$out/$t.log"; fi
done
# One count per target, in the form CI (.ci/run) adds up.
echo "$passed passed, $failed failed"
exit $status
