#include "zm/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "zm/error.h"

namespace zm {

FileSource::FileSource(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    const int e = errno;
    const std::string what = path + ": " + std::strerror(e);
    if (e == ENOENT || e == ENOTDIR) throw Error("ERR_ZM_MP4_NOT_FOUND", what);
    if (e == EACCES || e == EPERM) throw Error("ERR_ZM_MP4_PERMISSION", what);
    throw Error("ERR_ZM_MP4_IO", what);
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw Error("ERR_ZM_MP4_NOT_A_FILE", path + ": not a regular file");
  }
  size_ = std::uint64_t(st.st_size);
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSource::Read(std::uint64_t offset, std::uint8_t* dst, std::size_t n) const {
  if (offset > size_ || n > size_ - offset)
    throw Error("ERR_ZM_MP4_IO", "read past the end of the file");
  while (n > 0) {
    const ssize_t got = ::pread(fd_, dst, n, off_t(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error("ERR_ZM_MP4_IO", std::string("read failed: ") + std::strerror(errno));
    }
    if (got == 0) throw Error("ERR_ZM_MP4_IO", "the file shrank while it was being read");
    dst += got, offset += std::uint64_t(got), n -= std::size_t(got);
  }
}

void MemorySource::Read(std::uint64_t offset, std::uint8_t* dst, std::size_t n) const {
  if (offset > data_.size() || n > data_.size() - offset)
    throw Error("ERR_ZM_MP4_IO", "read past the end");
  if (n > 0) std::memcpy(dst, data_.data() + offset, n);
}

}  // namespace zm
