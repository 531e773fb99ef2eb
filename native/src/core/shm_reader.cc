#include "zm/shm_reader.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "zm/error.h"

namespace zm::shm {

namespace {

std::string UserName(uid_t uid) {
  std::vector<char> buf(4096);
  passwd pw{};
  passwd* out = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &out) == 0 && out) return out->pw_name;
  return std::to_string(uid);
}

std::string GroupName(gid_t gid) {
  std::vector<char> buf(4096);
  group gr{};
  group* out = nullptr;
  if (getgrgid_r(gid, &gr, buf.data(), buf.size(), &out) == 0 && out) return out->gr_name;
  return std::to_string(gid);
}

[[noreturn]] void ThrowOpenError(const std::string& path, int err, const char* action) {
  if (err == ENOENT || err == ENOTDIR) {
    throw Error("ERR_ZM_SHM_MISSING",
                "no shared memory file " + path +
                    ": zmc is not running for this monitor (or ZM_PATH_MAP points elsewhere)");
  }
  if (err == EACCES || err == EPERM)
    throw Error("ERR_ZM_SHM_PERMISSION", PermissionHint(path, action));
  throw Error("ERR_ZM_SHM_IO", std::string("cannot open ") + path + ": " + std::strerror(err));
}

// Closes an fd on every path out of a scope.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string PermissionHint(const std::string& path, const char* action) {
  std::string msg = std::string("permission denied to ") + action + " " + path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    msg += std::string(" (mode ") + mode + ", owner " + UserName(st.st_uid) + ", group " +
           GroupName(st.st_gid) + ")";
  }
  msg += "; zmgate runs as " + UserName(::geteuid()) +
         ". zmc creates the file for its own user (Debian: www-data, mode 0660 or what its umask "
         "leaves):"
         " run zmgate as www-data, or add zmgate's user to the file's group (www-data; some "
         "installs use video)"
         " and restart zmgate. Triggers need write access, images and state only read access.";
  return msg;
}

std::shared_ptr<Mapping> Mapping::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ThrowOpenError(path, errno, "read");
  FdGuard guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error("ERR_ZM_SHM_IO", "fstat " + path + ": " + std::strerror(errno));
  if (st.st_size == 0) throw Error("ERR_ZM_SHM_INVALID", path + " is empty: zmc is starting");
  void* p = ::mmap(nullptr, std::size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw Error("ERR_ZM_SHM_IO", "mmap " + path + ": " + std::strerror(errno));
  std::shared_ptr<Mapping> m(new Mapping());
  m->fd_ = fd;
  guard.fd = -1;  // owned by the mapping now
  m->base_ = static_cast<const std::uint8_t*>(p);
  m->size_ = std::size_t(st.st_size);
  m->dev_ = st.st_dev;
  m->ino_ = st.st_ino;
  return m;
}

Mapping::~Mapping() {
  if (base_) ::munmap(const_cast<std::uint8_t*>(base_), size_);
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t Mapping::CurrentFileSize() const {
  struct stat st {};
  return ::fstat(fd_, &st) == 0 ? std::uint64_t(st.st_size) : 0;
}

std::optional<ImageCopy> CopyNewestImage(ByteView map, const Layout& layout, const Geometry& g,
                                         const CopyOptions& options) {
  const std::uint8_t* base = map.data;
  const std::uint8_t* index_word = base + Offset(layout.id, Field::kLastWriteIndex);
  const std::int32_t n = std::int32_t(g.image_count);
  const std::int32_t safe_distance =
      std::max(1, n - 1);  // writer reaches our slot after n-1 commits
  const std::uint32_t align = g.scheme == SlotScheme::kAvFrame ? 32 : 1;

  ImageCopy out;
  std::size_t capacity = 0;
  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    const std::int32_t i = LoadAcquireI32(index_word);
    if (i < 0 || i >= n) return std::nullopt;  // nothing written yet
    const std::uint8_t* ts = base + g.timestamps + std::uint64_t(kTimevalSize) * i;
    const std::int64_t sec = LoadI64(ts), usec = LoadI64(ts + 8);

    std::int32_t av_format = 0;
    std::optional<PixelFormat> format;
    if (g.scheme == SlotScheme::kAvFrame) {
      av_format = LoadI32(base + g.formats + 4ull * i);
      if (av_format == -1) return std::nullopt;  // AV_PIX_FMT_NONE: slot not written yet
      format = FromAvPixelFormat(av_format);
      if (!format) {
        throw Error("ERR_ZM_SHM_FORMAT", "slot " + std::to_string(i) + " holds AVPixelFormat " +
                                             std::to_string(av_format) +
                                             ", which zmgate cannot read");
      }
    } else {
      const std::uint32_t order = LoadU8(base + Offset(layout.id, Field::kFormat));
      format = FromSubpixelOrder(order, g.colours);
      if (!format) {
        throw Error("ERR_ZM_SHM_FORMAT", "SharedData.format " + std::to_string(order) + " with " +
                                             std::to_string(g.colours) +
                                             " colours is not a format zmgate can read");
      }
    }
    const PlaneLayout planes = ComputePlaneLayout(*format, g.width, g.height, align);
    if (planes.size > g.slot_size) {
      throw Error("ERR_ZM_SHM_FORMAT", std::string("a ") + std::to_string(g.width) + "×" +
                                           std::to_string(g.height) + " " +
                                           PixelFormatName(*format) + " image needs " +
                                           std::to_string(planes.size) + " bytes but slots are " +
                                           std::to_string(g.slot_size));
    }
    if (capacity < planes.size) {
      out.data.reset(new std::uint8_t[planes.size]);  // no zero-fill: every byte is copied over
      capacity = planes.size;
    }
    std::memcpy(out.data.get(), base + g.images + g.slot_size * std::uint64_t(i), planes.size);
    if (options.after_copy) options.after_copy(attempt);

    std::atomic_thread_fence(std::memory_order_acquire);  // the copy happens before the re-check
    const std::int32_t i2 = LoadAcquireI32(index_word);
    const bool same_stamp = LoadI64(ts) == sec && LoadI64(ts + 8) == usec;
    const bool same_format =
        g.scheme != SlotScheme::kAvFrame || LoadI32(base + g.formats + 4ull * i) == av_format;
    const bool in_range = i2 >= 0 && i2 < n;
    const std::int32_t moved = in_range ? (i2 - i + n) % n : n;
    if (same_stamp && same_format && moved < safe_distance) {
      out.format = *format;
      out.width = g.width;
      out.height = g.height;
      out.planes = planes;
      out.timestamp_us = sec * 1000000 + usec;
      out.index = i;
      out.attempts = attempt;
      return out;
    }
  }
  throw Error("ERR_ZM_SHM_BUSY", "the newest image kept changing while it was copied (" +
                                     std::to_string(options.max_attempts) + " attempts)");
}

ShmReader::ShmReader(std::string path, GeometryHint hint) : path_(std::move(path)), hint_(hint) {}

bool ShmReader::Current() const {
  if (!mapping_ || !layout_) return false;
  const ByteView b = mapping_->bytes();
  if (LoadU8(b.data + Offset(layout_->id, Field::kValid)) == 0) return false;
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return false;  // unlinked: zmc exited
  // Another inode: zmc restarted. Same inode, other size: re-created in place after a crash;
  // touching pages past the new end would raise SIGBUS, so re-map.
  return st.st_ino == mapping_->ino() && st.st_dev == mapping_->dev() &&
         std::uint64_t(st.st_size) == b.size;
}

void ShmReader::Open() {
  mapping_.reset();  // the old pages go as soon as no image copy holds them
  layout_.reset();
  geometry_.reset();
  geometry_error_.clear();
  auto m = Mapping::Open(path_);
  const Layout l = DetectLayout(m->bytes());
  mapping_ = std::move(m);
  layout_ = l;
  ++stats_.opens;
}

void ShmReader::Refresh() {
  if (closed_) throw Error("ERR_ZM_SHM_CLOSED", "the shared memory reader is closed");
  if (Current()) return;
  Open();
  if (LoadU8(mapping_->bytes().data + Offset(layout_->id, Field::kValid)) == 0) {
    throw Error("ERR_ZM_SHM_INVALID",
                path_ + " is not valid (valid = 0): zmc is starting or stopping");
  }
  // Geometry depends on imagesize, which zmc has written by the time valid is 1.
  try {
    geometry_ = ResolveGeometry(
        *layout_, mapping_->bytes().size,
        ReadU32Le(mapping_->bytes().data + Offset(layout_->id, Field::kImageSize)), hint_);
  } catch (const Error& e) {
    geometry_error_ = e.what();
  }
}

SharedState ShmReader::ReadState() {
  Refresh();
  return shm::ReadState(mapping_->bytes(), *layout_);
}

ShmReader::ImageSource ShmReader::Source() {
  Refresh();
  if (!geometry_) throw Error("ERR_ZM_SHM_GEOMETRY", geometry_error_);
  return {mapping_, *layout_, *geometry_};
}

void ShmReader::Trigger(const TriggerRequest& request) {
  Refresh();
  const int fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) ThrowOpenError(path_, errno, "write the trigger to");
  FdGuard guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error("ERR_ZM_SHM_IO", "fstat " + path_ + ": " + std::strerror(errno));
  if (st.st_ino != mapping_->ino() || st.st_dev != mapping_->dev()) {
    throw Error("ERR_ZM_SHM_INVALID",
                path_ + " was replaced (zmc restarted) while writing the trigger; retry");
  }
  // Only SharedData + TriggerData are mapped writable, and only for these few stores.
  const std::size_t length = layout_->shared_size + kTriggerDataSize;
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    throw Error("ERR_ZM_SHM_IO", "mmap " + path_ + " for writing: " + std::strerror(errno));
  auto* rw = static_cast<std::uint8_t*>(p);
  try {
    DetectLayout({rw, length});  // the same layout as the read mapping, checked on these very pages
    ApplyTrigger(rw, PlanTrigger(*layout_, request));
  } catch (...) {
    ::munmap(p, length);
    throw;
  }
  ::munmap(p, length);
}

void ShmReader::Close() {
  closed_ = true;
  mapping_.reset();
  layout_.reset();
  geometry_.reset();
}

}  // namespace zm::shm
