#!/bin/sh
# Regenerates assets/sim/camera-640x360.h264, the clip the simulated camera (src/sim/) loops.
# Run once by hand; the result is committed. 10 s of testsrc2 at 25 fps with the clip time and
# frame number drawn on it, H.264 Main (no B-frames: the socket carries pts only, and decode order =
# presentation order keeps the simulator trivial), a keyframe every 25 frames (1 s GOP) with SPS/PPS
# repeated before each, and an access-unit delimiter before every frame (so frames split cleanly).
set -eu
out="$(dirname "$0")/../assets/sim/camera-640x360.h264"
font=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf
ffmpeg -v error -y -f lavfi -i "testsrc2=size=640x360:rate=25:duration=10" \
  -vf "drawtext=fontfile=${font}:text='zmgate sim  %{pts\\:hms}  frame %{n}':x=16:y=16:fontsize=24:fontcolor=white:box=1:boxcolor=black@0.6" \
  -c:v libx264 -profile:v main -preset medium -crf 36 -bf 0 -g 25 -keyint_min 25 -sc_threshold 0 -pix_fmt yuv420p \
  -x264-params "aud=1:repeat-headers=1" -bsf:v h264_mp4toannexb -f h264 "$out"
ls -l "$out"
