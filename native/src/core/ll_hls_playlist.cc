#include "zm/ll_hls_playlist.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace zm {

namespace {

// Seconds with 5 decimals (10 µs): EXTINF/DURATION/PART-TARGET.
std::string Seconds(std::int64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.5f", double(us) / 1e6);
  return buf;
}

std::string IsoTime(std::int64_t wall_us) {
  const std::time_t secs = std::time_t(wall_us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                int((wall_us % 1000000) / 1000));
  return buf;
}

}  // namespace

std::string RenderLlHlsMediaPlaylist(const LlHlsWindow& w, const RenderOptions& o) {
  const std::deque<HlsSegment>& segments = w.segments;
  if (segments.empty() || w.part_target_us == 0) return {};
  const std::string& q = o.query;
  const bool ll = o.low_latency;
  // The open segment is listed only with parts in a low-latency playlist: otherwise its
  // DISCONTINUITY/MAP/PROGRAM-DATE-TIME would stand after the last URI with nothing to apply to.
  const HlsSegment& tail = segments.back();
  const std::size_t listed =
      !tail.complete && (!ll || tail.parts.empty()) ? segments.size() - 1 : segments.size();
  if (listed == 0) return {};
  bool independent = true;
  for (std::size_t i = 0; i < listed; ++i) independent = independent && segments[i].independent;
  std::string out;
  out.reserve(256 + segments.size() * (64 + 96 * 6));
  out += "#EXTM3U\n#EXT-X-VERSION:6\n";
  out += "#EXT-X-TARGETDURATION:" + std::to_string(w.target_duration_s) + "\n";
  if (ll) {
    // PART-HOLD-BACK: the RFC's minimum, 3 × PART-TARGET.
    if (!w.ended)
      out += "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=" +
             Seconds(3 * w.part_target_us) + "\n";
    out += "#EXT-X-PART-INF:PART-TARGET=" + Seconds(w.part_target_us) + "\n";
  }
  const std::uint64_t first_msn = listed > 0 ? segments.front().msn : segments.back().msn;
  out += "#EXT-X-MEDIA-SEQUENCE:" + std::to_string(first_msn) + "\n";
  if (w.discontinuity_sequence > 0)
    out += "#EXT-X-DISCONTINUITY-SEQUENCE:" + std::to_string(w.discontinuity_sequence) + "\n";
  // Only while every listed segment starts with a keyframe (a long GOP's forced cuts do not).
  if (independent) out += "#EXT-X-INDEPENDENT-SEGMENTS\n";

  // Parts are listed for the segments that start within three target durations of the end.
  std::int64_t total = 0;
  for (const auto& s : segments) total += s.duration_us;
  const std::int64_t parts_from = total - 3 * std::int64_t(w.target_duration_s) * 1000000;

  std::int64_t at = 0;
  for (std::size_t i = 0; i < listed; ++i) {
    const HlsSegment& s = segments[i];
    if (s.discontinuity) out += "#EXT-X-DISCONTINUITY\n";
    if (i == 0 || s.discontinuity || s.init_id != segments[i - 1].init_id) {
      out += "#EXT-X-MAP:URI=\"init-" + std::to_string(s.init_id) + ".mp4" + q + "\"\n";
    }
    if (w.program_date_time && !s.parts.empty())
      out += "#EXT-X-PROGRAM-DATE-TIME:" + IsoTime(s.wall_us) + "\n";
    if (ll && (at + s.duration_us > parts_from || !s.complete)) {
      const std::string prefix = "part-" + std::to_string(s.msn) + ".";
      for (std::size_t k = 0; k < s.parts.size(); ++k) {
        out += "#EXT-X-PART:DURATION=" + Seconds(s.parts[k].duration_us) + ",URI=\"" + prefix +
               std::to_string(k) + ".m4s" + q + "\"";
        out += s.parts[k].independent ? ",INDEPENDENT=YES\n" : "\n";
      }
    }
    if (s.complete)
      out += "#EXTINF:" + Seconds(s.duration_us) + ",\nseg-" + std::to_string(s.msn) + ".m4s" + q +
             "\n";
    at += s.duration_us;
  }
  if (w.ended) {
    out += "#EXT-X-ENDLIST\n";
  } else if (ll) {
    const HlsSegment& last = segments.back();
    const std::uint64_t msn = last.complete ? last.msn + 1 : last.msn;
    const std::size_t part = last.complete ? 0 : last.parts.size();
    out += "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part-" + std::to_string(msn) + "." +
           std::to_string(part) + ".m4s" + q + "\"\n";
  }
  return out;
}

std::string RenderLlHlsMasterPlaylist(const std::deque<HlsSegment>& segments, const LlHlsVariant& v,
                                      const MasterOptions& o) {
  // Peak and average bitrate over the complete segments; the open parts until there are any.
  double peak = 0, bits = 0, seconds = 0, frames = 0, frame_seconds = 0;
  for (const auto& s : segments) {
    std::size_t size = s.complete ? s.bytes.size : 0;
    if (!s.complete) {
      for (const auto& p : s.parts) size += p.bytes.size;
    }
    if (s.duration_us <= 0) continue;
    const double d = double(s.duration_us) / 1e6;
    if (s.complete) peak = std::max(peak, size * 8 / d);
    bits += double(size) * 8, seconds += d;
    if (s.complete) frames += s.video_samples, frame_seconds += d;
  }
  if (seconds > 0 && peak == 0) peak = bits / seconds;
  const double average = seconds > 0 ? bits / seconds : 0;
  // No EXT-X-INDEPENDENT-SEGMENTS here: a GOP longer than TARGETDURATION makes segments that do
  // not start with a keyframe, and this would promise it for the stream's whole life.
  std::string out = "#EXTM3U\n#EXT-X-VERSION:6\n";
  out += "#EXT-X-STREAM-INF:BANDWIDTH=" +
         std::to_string(std::max<std::uint64_t>(1, std::uint64_t(std::ceil(peak))));
  if (average > 0) out += ",AVERAGE-BANDWIDTH=" + std::to_string(std::uint64_t(std::ceil(average)));
  out += ",CODECS=\"" + v.codecs + "\"";
  if (v.width > 0 && v.height > 0)
    out += ",RESOLUTION=" + std::to_string(v.width) + "x" + std::to_string(v.height);
  double fps = frame_seconds > 0 ? frames / frame_seconds : 0;
  if (fps == 0 && v.frame_us > 0) fps = 1e6 / double(v.frame_us);
  if (fps > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", fps);
    out += std::string(",FRAME-RATE=") + buf;
  }
  out += "\n" + o.media_uri + o.query + "\n";
  return out;
}

}  // namespace zm
