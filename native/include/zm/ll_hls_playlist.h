// The m3u8 text of LlHlsPackager's playlists, rendered from its window (RFC 8216bis): the media
// playlist with parts, preload hint and server control (or a plain RFC 8216 one), and a master
// playlist with its one variant. Naming: init-<n>.mp4, seg-<msn>.m4s, part-<msn>.<i>.m4s.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "zm/ll_hls_packager.h"

namespace zm {

// What the media playlist is rendered from.
struct LlHlsWindow {
  const std::deque<HlsSegment>& segments;  // the last one may be open
  std::int64_t part_target_us = 0;         // the advertised PART-TARGET; 0 before the first parts
  std::uint32_t target_duration_s = 0;
  std::uint64_t discontinuity_sequence = 0;  // discontinuities evicted from the window
  bool ended = false;                        // EXT-X-ENDLIST, no preload hint
  bool program_date_time = false;
};

// The current variant, for the master playlist.
struct LlHlsVariant {
  std::string codecs;  // RFC 6381 list of the current init segment
  std::uint32_t width = 0, height = 0;
  std::int64_t frame_us = 0;  // FRAME-RATE until a segment is complete
};

// Empty until there is something to list.
std::string RenderLlHlsMediaPlaylist(const LlHlsWindow& window, const RenderOptions& options);
// Bandwidths from the window's segments (the open segment's parts until one is complete).
std::string RenderLlHlsMasterPlaylist(const std::deque<HlsSegment>& segments,
                                      const LlHlsVariant& variant, const MasterOptions& options);

}  // namespace zm
