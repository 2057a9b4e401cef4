// The modelled device behind the host implementation (internal): one AI Core
// of the 310P whose blocks run one after another, the GM allocations, the
// streams, and the fault that stops a launch.
#ifndef VINCI_ASCENDC_HOST_SRC_DEVICE_H
#define VINCI_ASCENDC_HOST_SRC_DEVICE_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_operator.h"

namespace vinci::ascendc_host {

/// A kernel fault: thrown by an API call, caught by launch(), reported by
/// aclrtSynchronizeStream. Never crosses the AscendCL C API.
struct Fault : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fault(const std::string &message);

/// The physical buffers of the core (the 310P's sizes; docs/isa.md).
enum class Space : uint8_t { UB, L1, L0A, L0B, L0C, GM };
constexpr unsigned kLocalSpaces = 5;
uint64_t spaceBytes(Space space);
const char *spaceName(Space space);
Space spaceOf(AscendC::TPosition position);
const char *positionName(int position);
/// Bytes of one element.
unsigned eltBytes(Elt elt);
const char *eltName(Elt elt);

/// Byte offset of a local span's pointer from the start of its space.
uint64_t spaceOffset(const Span &span);
/// Requires a local span (not GM) at `position` in one of `allowed`.
bool isVectorPosition(int position);

/// Checks `bytes` from `span` against its TBuf (local) or its device
/// allocation (GM); a GM write is recorded for the launch's race check.
void checkRange(const Span &span, uint64_t bytes, bool write, const char *call);

}  // namespace vinci::ascendc_host

#endif  // VINCI_ASCENDC_HOST_SRC_DEVICE_H
