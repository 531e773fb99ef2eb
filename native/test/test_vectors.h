// Parameter sets captured from streams encoded by FFmpeg 5.1 (libx264 164 / libx265 3.5) from
// testsrc, with what ffprobe reports for them.
#pragma once

namespace zm::test {

// 1920x1080 High, level 4.0 (x264: VUI with timing and bitstream_restriction).
constexpr const char* kH264HighSps = "67640028acd940780227e5c044000003000400000300f03c60c658";
constexpr const char* kH264HighPps = "68ebe3cb22c0";
// 640x360 Constrained Baseline, level 3.0: coded 640x368, cropped by 8 rows.
constexpr const char* kH264BaselineSps = "6742c01ed900a02ff970110000030001000003003c0f162e48";
constexpr const char* kH264BaselinePps = "68cb83cb20";
// 1280x720 High 4:2:2, level 3.1.
constexpr const char* kH264High422Sps = "677a001fbcd9405005bb0110000003001000000303c0f1831960";
// 640x360 Main, level 2.1 (63).
constexpr const char* kH265MainVps = "40010c01ffff01600000030090000003000003003f959809";
constexpr const char* kH265MainSps =
    "42010101600000030090000003000003003fa00502016965959a4932bc05a020000003002000000303c1";
constexpr const char* kH265MainPps = "4401c172b46240";
// 1278x718 Main, level 3.1 (93): coded 1280x720 with a conformance window.
constexpr const char* kH265CropSps =
    "42010101600000030090000003000003005da00280802d1d565959a4932bc05a020000030002000003003c10";
// 1920x1080 Main 10, level 4 (120).
constexpr const char* kH265Main10Sps =
    "420101022000000300900000030000030078a003c08010e4d96566924caf016808000003000800000300f040";

}  // namespace zm::test
