// Read-only private file mapping: weights are used in place from the map.
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "vinci/format/container.h"

namespace vinci {
namespace format {

using detail::cat;

MappedFile::~MappedFile() { reset(); }

MappedFile::MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void MappedFile::reset() {
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

Status MappedFile::open(const std::string& path, MappedFile& out) {
  out.reset();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return makeError(Errc::io, cat(path, ": cannot open: ", std::strerror(errno)));
  struct stat info;
  if (fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return makeError(Errc::io, cat(path, ": cannot stat: ", std::strerror(error)));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return makeError(Errc::io, cat(path, ": not a regular file"));
  }
  if (info.st_size == 0) {
    ::close(fd);
    return makeError(Errc::truncated, cat(path, ": file is empty"));
  }
  const size_t size = static_cast<size_t>(info.st_size);
  void* mapping = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int error = errno;
  ::close(fd);  // the mapping keeps the file alive
  if (mapping == MAP_FAILED)
    return makeError(Errc::io, cat(path, ": cannot mmap ", size, " bytes: ", std::strerror(error)));
  out.data_ = static_cast<uint8_t*>(mapping);
  out.size_ = size;
  return Status::success();
}

}  // namespace format
}  // namespace vinci
