// Helpers shared by the unit tests: hex vectors, and an ISO-BMFF box walker to check what the
// writers produce (sizes add up, children nest inside their parents).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "zm/bytes.h"

namespace zm::test {

inline Bytes Hex(const std::string& hex) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(std::uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

inline Bytes AnnexB(const std::vector<Bytes>& nals) {
  Bytes out;
  for (const auto& n : nals) {
    out.insert(out.end(), {0, 0, 0, 1});
    out.insert(out.end(), n.begin(), n.end());
  }
  return out;
}

struct BoxNode {
  std::string type;
  std::size_t offset = 0, size = 0;  // whole box
  std::vector<BoxNode> children;
};

inline bool IsContainer(const std::string& t) {
  for (const char* c : {"moov", "trak", "mdia", "minf", "stbl", "dinf", "mvex", "moof", "traf"}) {
    if (t == c) return true;
  }
  return false;
}

// Throws if a box overruns its parent or the sizes do not add up exactly.
inline std::vector<BoxNode> WalkBoxes(ByteView data, std::size_t begin, std::size_t end) {
  std::vector<BoxNode> out;
  std::size_t pos = begin;
  while (pos < end) {
    if (end - pos < 8) throw std::runtime_error("truncated box header");
    BoxNode n;
    n.offset = pos;
    n.size = ReadU32Be(data.data + pos);
    n.type.assign(reinterpret_cast<const char*>(data.data + pos + 4), 4);
    if (n.size < 8 || pos + n.size > end)
      throw std::runtime_error("box " + n.type + " overruns its parent");
    if (IsContainer(n.type)) n.children = WalkBoxes(data, pos + 8, pos + n.size);
    out.push_back(std::move(n));
    pos += out.back().size;
  }
  return out;
}

inline const BoxNode* Find(const std::vector<BoxNode>& nodes, const std::string& path) {
  const std::size_t slash = path.find('/');
  const std::string head = path.substr(0, slash);
  for (const auto& n : nodes) {
    if (n.type != head) continue;
    if (slash == std::string::npos) return &n;
    return Find(n.children, path.substr(slash + 1));
  }
  return nullptr;
}

}  // namespace zm::test
