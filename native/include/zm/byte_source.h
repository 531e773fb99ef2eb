// Random access to the bytes of a (possibly large, possibly growing) file: the MP4 demuxer reads
// only the index boxes and then individual samples by offset, never the whole file. FileSource
// uses pread() (thread-safe: several workers may read one file at once); MemorySource serves
// tests and fuzzers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "zm/bytes.h"

namespace zm {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The size when the source was opened: bytes appended later (an event still recording) are
  // not seen, so an index built once stays consistent.
  virtual std::uint64_t size() const = 0;
  // Reads exactly n bytes at offset. Throws zm::Error ERR_ZM_MP4_IO on an I/O error or when the
  // range is not inside size().
  virtual void Read(std::uint64_t offset, std::uint8_t* dst, std::size_t n) const = 0;

  Bytes Read(std::uint64_t offset, std::size_t n) const {
    Bytes out(n);
    if (n > 0) Read(offset, out.data(), n);
    return out;
  }
};

class FileSource final : public ByteSource {
 public:
  // Throws ERR_ZM_MP4_NOT_FOUND (ENOENT/ENOTDIR), ERR_ZM_MP4_PERMISSION (EACCES/EPERM),
  // ERR_ZM_MP4_NOT_A_FILE (a directory, a device …) or ERR_ZM_MP4_IO.
  explicit FileSource(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::uint64_t size() const override { return size_; }
  void Read(std::uint64_t offset, std::uint8_t* dst, std::size_t n) const override;
  using ByteSource::Read;

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(Bytes data) : data_(std::move(data)) {}
  std::uint64_t size() const override { return data_.size(); }
  void Read(std::uint64_t offset, std::uint8_t* dst, std::size_t n) const override;
  using ByteSource::Read;

 private:
  Bytes data_;
};

}  // namespace zm
