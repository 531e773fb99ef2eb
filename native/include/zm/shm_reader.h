// Attaches to zm.mmap.<id>: a read-only mapping of the whole file, re-opened by path when zmc
// restarts (valid drops to 0, or the path names another inode), the newest image copied out under
// the retry rule, and triggers written through a short-lived read-write mapping of TriggerData.
// Not thread-safe: one JS thread drives a ShmReader; image copies run on worker threads against
// a shared_ptr<const Mapping>, which keeps the pages mapped until the copy ends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "zm/image.h"
#include "zm/shm_layout.h"

namespace zm::shm {

// One mmap(PROT_READ, MAP_SHARED) of a zm.mmap file.
class Mapping {
 public:
  // Throws ERR_ZM_SHM_MISSING (no such file), ERR_ZM_SHM_PERMISSION (with a www-data/video group
  // hint), ERR_ZM_SHM_IO (anything else).
  static std::shared_ptr<Mapping> Open(const std::string& path);
  ~Mapping();
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

  ByteView bytes() const { return {base_, size_}; }
  dev_t dev() const { return dev_; }
  ino_t ino() const { return ino_; }
  // The file's current size (fstat); differs from size() when zmc re-created it in place.
  std::uint64_t CurrentFileSize() const;

 private:
  Mapping() = default;
  int fd_ = -1;
  const std::uint8_t* base_ = nullptr;
  std::size_t size_ = 0;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

// The message for EACCES/EPERM on `path`: mode, owner and group, and what to do about it.
std::string PermissionHint(const std::string& path, const char* action);

// A copied image: the planes exactly as the slot holds them (see `planes` for strides).
struct ImageCopy {
  PixelFormat format = PixelFormat::kRgb24;
  std::uint32_t width = 0, height = 0;
  PlaneLayout planes;
  std::unique_ptr<std::uint8_t[]> data;  // planes.size bytes
  std::int64_t timestamp_us = 0;         // the slot's timeval
  std::int32_t index = 0;                // ring slot
  int attempts = 0;                      // copies made (1 = no retry)
};

struct CopyOptions {
  int max_attempts = 5;
  // Tests only: runs after each copy, before the re-check (simulates zmc writing meanwhile).
  std::function<void(int attempt)> after_copy;
};

// The newest capture image, or nullopt when none has been written yet (last_write_index ≥ n, or
// the slot's AVPixelFormat is still AV_PIX_FMT_NONE). Retry rule
// (docs/zoneminder/shared-memory.md): read the index and the slot's timestamp, copy, re-read both;
// accept when the timestamp is unchanged and the writer has not come round to this slot again (it
// writes index+1 next; it reaches our slot after n-1 commits). Throws ERR_ZM_SHM_BUSY after
// max_attempts, ERR_ZM_SHM_FORMAT for a slot format the encoder does not know.
std::optional<ImageCopy> CopyNewestImage(ByteView map, const Layout& layout,
                                         const Geometry& geometry, const CopyOptions& options = {});

struct ReaderStats {
  std::uint64_t opens = 0;  // 1 after the first successful open; +1 per re-open
};

class ShmReader {
 public:
  ShmReader(std::string path, GeometryHint hint);

  // Makes sure the mapping is current: (re-)opens when there is none, when valid dropped to 0,
  // when the path now names another inode (zmc restarted) or the file changed size. Throws
  // ERR_ZM_SHM_MISSING/PERMISSION/LAYOUT/IO, and ERR_ZM_SHM_INVALID while valid is 0.
  void Refresh();

  SharedState ReadState();  // Refresh() + decode

  // What an image copy needs; geometry errors (ERR_ZM_SHM_GEOMETRY) are thrown here, not at open.
  struct ImageSource {
    std::shared_ptr<const Mapping> mapping;
    Layout layout;
    Geometry geometry;
  };
  ImageSource Source();

  // Force (ON), suppress (OFF) or cancel an alarm. Opens the file O_RDWR just for this write
  // (ERR_ZM_SHM_PERMISSION when only read access was granted).
  void Trigger(const TriggerRequest& request);

  void Close();  // drops the mapping; later calls throw ERR_ZM_SHM_CLOSED
  bool closed() const { return closed_; }

  const std::string& path() const { return path_; }
  const std::optional<Layout>& layout() const { return layout_; }
  // The geometry of the current mapping, or the reason there is none.
  const std::optional<Geometry>& geometry() const { return geometry_; }
  const std::string& geometry_error() const { return geometry_error_; }
  const ReaderStats& stats() const { return stats_; }

 private:
  bool Current() const;
  void Open();

  std::string path_;
  GeometryHint hint_;
  std::shared_ptr<Mapping> mapping_;
  std::optional<Layout> layout_;
  std::optional<Geometry> geometry_;
  std::string geometry_error_;
  ReaderStats stats_;
  bool closed_ = false;
};

}  // namespace zm::shm
