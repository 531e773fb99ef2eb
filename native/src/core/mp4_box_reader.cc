#include "zm/mp4_box_reader.h"

#include "zm/error.h"

namespace zm::mp4 {

std::string FourccName(std::uint32_t v) {
  std::string s(4, ' ');
  for (int i = 0; i < 4; ++i) {
    const char c = char((v >> (24 - 8 * i)) & 0xff);
    s[std::size_t(i)] = (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return s;
}

void Broken(const std::string& what) { throw Error("ERR_ZM_MP4_FORMAT", what); }

std::vector<Child> Children(ByteView body) {
  std::vector<Child> out;
  std::size_t pos = 0;
  while (body.size - pos >= 8) {
    std::uint64_t size = ReadU32Be(&body[pos]);
    const std::uint32_t type = ReadU32Be(&body[pos + 4]);
    std::size_t header = 8;
    if (size == 1) {
      if (body.size - pos < 16) Broken("truncated largesize box header");
      size = (std::uint64_t(ReadU32Be(&body[pos + 8])) << 32) | ReadU32Be(&body[pos + 12]);
      header = 16;
    } else if (size == 0) {
      size = body.size - pos;
    }
    if (size < header || size > body.size - pos)
      Broken("box " + FourccName(type) + " overruns its parent");
    out.push_back({type, body.sub(pos + header, std::size_t(size) - header)});
    pos += std::size_t(size);
  }
  return out;
}

std::optional<ByteView> FindChild(ByteView body, std::uint32_t type) {
  for (const Child& c : Children(body)) {
    if (c.type == type) return c.body;
  }
  return std::nullopt;
}

}  // namespace zm::mp4
