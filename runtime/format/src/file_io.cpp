// Atomic file writes (temporary file + fsync + rename), shared by the
// writer, the runtime's trace output and the tools. Its own file so that
// the runtime library does not pull in the writer.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes.h"
#include "vinci/format/writer.h"

namespace vinci {
namespace format {

using detail::cat;

Status writeFileAtomically(const std::string& path, const void* bytes, size_t size) {
  std::string temp_path = path + ".tmp.XXXXXX";
  const int fd = mkstemp(temp_path.data());
  if (fd < 0)
    return makeError(Errc::io, cat(path, ": cannot create a temporary file beside it: ",
                                   std::strerror(errno)));
  auto fail = [&](const char* what) {
    const int error = errno;
    ::close(fd);
    ::unlink(temp_path.c_str());
    return makeError(Errc::io, cat(path, ": ", what, ": ", std::strerror(error)));
  };
  const uint8_t* cursor = static_cast<const uint8_t*>(bytes);
  size_t left = size;
  while (left > 0) {
    const ssize_t written = ::write(fd, cursor, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return fail("write failed");
    }
    cursor += written;
    left -= static_cast<size_t>(written);
  }
  if (fchmod(fd, 0644) != 0) return fail("chmod failed");
  if (fsync(fd) != 0) return fail("fsync failed");
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp_path.c_str());
    return makeError(Errc::io, cat(path, ": close failed: ", std::strerror(error)));
  }
  if (std::rename(temp_path.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp_path.c_str());
    return makeError(Errc::io, cat(path, ": rename failed: ", std::strerror(error)));
  }
  return Status::success();
}

}  // namespace format
}  // namespace vinci
