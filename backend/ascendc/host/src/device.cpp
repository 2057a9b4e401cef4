// The modelled device: the core's buffers and TPipe, the flags, GetBlockIdx,
// the launch (blocks one after another, GM races between blocks reported)
// and AscendCL's device, stream and memory calls.
#include "device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "acl/acl.h"

namespace vinci::ascendc_host {
namespace {

// The 310P's AI Core buffers (CANN's Ascend310P3 figures, docs/isa.md); Ascend
// C's TPipe hands out 248 KiB of the UB, the rest is the API's own.
constexpr uint64_t kUbBytes = 256 * 1024, kUbTPipeBytes = 248 * 1024;
constexpr uint64_t kL1Bytes = 1024 * 1024, kL0abBytes = 64 * 1024, kL0cBytes = 256 * 1024;
// Buffers start each block, and device memory starts, holding this byte: a
// device's memory holds whatever ran before, never zeros. 0xFF reads as a
// NaN in f16 and f32 and as -1 in the integer types.
constexpr uint8_t kPoison = 0xFF;
constexpr int kEventIds = 8;
constexpr int kNumEvents = int(AscendC::HardEvent::MAX);

const char *const kEventNames[kNumEvents] = {
    "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3",
    "M_V", "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1",
    "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S", "M_S",
    "S_M", "MTE1_S", "S_MTE1"};

struct Allocation {
  uint64_t requested = 0;
  uint64_t reserved = 0;  // what the allocation really spans (rounded, + 32)
  uint64_t id = 0;
  std::unique_ptr<uint8_t[]> bytes;
};

struct GmWrite {
  uint64_t lo, hi;  // absolute addresses
  int64_t block;
};

struct Stream {
  std::string error;  // the first fault since the last synchronisation
};

struct Device {
  bool initialised = false;
  bool deviceSet = false;
  std::map<uintptr_t, Allocation> allocations;
  uint64_t nextAllocationId = 0;
  std::set<Stream *> streams;
  Stream defaultStream;

  // The core and the running launch.
  std::vector<uint8_t> local[kLocalSpaces];
  uint64_t cursor[kLocalSpaces] = {};
  int flags[kNumEvents][kEventIds] = {};
  int64_t block = 0, blocks = 0;
  bool inLaunch = false;
  std::vector<GmWrite> writes;
};

Device &device() {
  static Device d;
  return d;
}

thread_local std::string lastError;

aclError fail(aclError code, const std::string &message) {
  lastError = message;
  return code;
}

std::string num(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
  return buf;
}

/// The allocation holding [address, address + bytes), or null.
const Allocation *findAllocation(uintptr_t address, uint64_t bytes, uintptr_t *base) {
  auto &allocations = device().allocations;
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin()) return nullptr;
  --it;
  if (address - it->first + bytes > it->second.reserved) return nullptr;
  *base = it->first;
  return &it->second;
}

void resetCore(int64_t block, int64_t blocks) {
  Device &d = device();
  const uint64_t sizes[kLocalSpaces] = {kUbBytes, kL1Bytes, kL0abBytes, kL0abBytes, kL0cBytes};
  for (unsigned s = 0; s < kLocalSpaces; ++s) {
    d.local[s].assign(sizes[s], kPoison);
    d.cursor[s] = 0;
  }
  std::memset(d.flags, 0, sizeof d.flags);
  d.block = block;
  d.blocks = blocks;
}

/// The flags a block left set: on a device they would satisfy a later
/// kernel's wait.
void checkFlagsDrained() {
  Device &d = device();
  for (int e = 0; e < kNumEvents; ++e)
    for (int id = 0; id < kEventIds; ++id)
      if (d.flags[e][id] > 0)
        fault("the block ends with " + std::to_string(d.flags[e][id]) + " SetFlag<HardEvent::" +
              kEventNames[e] + ">(" + std::to_string(id) +
              ") never waited for: a later kernel's WaitFlag would pass early");
}

/// Two blocks of one launch writing the same GM byte race on a device, where
/// the blocks run at once.
void checkRaces(const std::string &kernel) {
  Device &d = device();
  std::vector<GmWrite> &w = d.writes;
  std::sort(w.begin(), w.end(), [](const GmWrite &a, const GmWrite &b) {
    return a.lo != b.lo ? a.lo < b.lo : a.block < b.block;
  });
  // The furthest end so far, and the furthest end of any other block.
  GmWrite best{0, 0, -1}, other{0, 0, -1};
  for (const GmWrite &cur : w) {
    const GmWrite &rival = best.block != cur.block ? best : other;
    if (rival.block >= 0 && cur.lo < rival.hi) {
      uintptr_t base = 0;
      const Allocation *a = findAllocation(cur.lo, 1, &base);
      uint64_t lo = cur.lo - base, hi = std::min(cur.hi, rival.hi) - base;
      fault("kernel " + kernel + ": blocks " + std::to_string(rival.block) + " and " +
            std::to_string(cur.block) + " both write bytes [" + num(lo) + ", " + num(hi) +
            ") of device allocation #" + std::to_string(a ? a->id : 0) +
            ": on a device the blocks run at once and race");
    }
    if (cur.hi > best.hi) {
      if (best.block != cur.block) other = best;
      best = cur;
    } else if (cur.block != best.block && cur.hi > other.hi) {
      other = cur;
    }
  }
}

}  // namespace

[[noreturn]] void fault(const std::string &message) { throw Fault(message); }

uint64_t spaceBytes(Space space) {
  switch (space) {
    case Space::UB: return kUbBytes;
    case Space::L1: return kL1Bytes;
    case Space::L0A: case Space::L0B: return kL0abBytes;
    case Space::L0C: return kL0cBytes;
    case Space::GM: break;
  }
  return 0;
}

const char *spaceName(Space space) {
  static const char *const names[] = {"UB", "L1", "L0A", "L0B", "L0C", "GM"};
  return names[unsigned(space)];
}

Space spaceOf(AscendC::TPosition position) {
  using P = AscendC::TPosition;
  switch (position) {
    case P::A1: case P::B1: case P::C1: return Space::L1;
    case P::A2: return Space::L0A;
    case P::B2: return Space::L0B;
    case P::CO1: return Space::L0C;
    case P::CO2: case P::VECIN: case P::VECOUT: case P::VECCALC: return Space::UB;
    default: return Space::GM;
  }
}

const char *positionName(int position) {
  static const char *const names[] = {"GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1",
                                      "CO2", "VECIN", "VECOUT", "VECCALC"};
  return position >= 0 && position < int(AscendC::TPosition::MAX) ? names[position] : "?";
}

unsigned eltBytes(Elt elt) {
  switch (elt) {
    case Elt::F16: case Elt::S16: case Elt::U16: return 2;
    case Elt::F32: case Elt::S32: case Elt::U32: return 4;
    case Elt::S8: case Elt::U8: return 1;
  }
  return 1;
}

const char *eltName(Elt elt) {
  static const char *const names[] = {"half", "float", "int32_t", "int16_t", "uint16_t",
                                      "int8_t", "uint8_t", "uint32_t"};
  return names[unsigned(elt)];
}

bool isVectorPosition(int position) {
  auto p = AscendC::TPosition(position);
  return p == AscendC::TPosition::VECIN || p == AscendC::TPosition::VECOUT ||
         p == AscendC::TPosition::VECCALC || p == AscendC::TPosition::CO2;
}

uint64_t spaceOffset(const Span &span) {
  Space space = spaceOf(AscendC::TPosition(span.position));
  return uint64_t(span.ptr - device().local[unsigned(space)].data());
}

void checkRange(const Span &span, uint64_t bytes, bool write, const char *call) {
  if (span.position != int(AscendC::TPosition::GM)) {
    if (!device().inLaunch) fault(std::string(call) + ": a local tensor used outside a kernel");
    if (bytes > span.avail)
      fault(std::string(call) + ": " + (write ? "writes " : "reads ") + num(bytes) + " bytes of " +
            positionName(span.position) + " at offset " + num(spaceOffset(span)) +
            ", past the end of its TBuf (" + num(span.avail) + " bytes left)");
    return;
  }
  uintptr_t base = 0;
  uintptr_t address = reinterpret_cast<uintptr_t>(span.ptr);
  const Allocation *a = findAllocation(address, bytes, &base);
  if (!a)
    fault(std::string(call) + ": " + (write ? "writes" : "reads") + " GM [" + num(address) + ", +" +
          num(bytes) + ") outside every device allocation (aclrtMalloc)");
  if (write && bytes) device().writes.push_back(GmWrite{address, address + bytes, device().block});
}

void checkLocal(const Span &span, uint64_t bytes, const char *call) {
  checkRange(span, bytes, false, call);
}

void checkGm(const void *ptr, uint64_t bytes, bool write, const char *call) {
  Span span;
  span.position = int(AscendC::TPosition::GM);
  span.ptr = static_cast<uint8_t *>(const_cast<void *>(ptr));
  checkRange(span, bytes, write, call);
}

uint8_t *initBuffer(AscendC::TPosition position, uint32_t bytes, uint64_t &available) {
  Device &d = device();
  if (!d.inLaunch) fault("TPipe::InitBuffer outside a kernel");
  Space space = spaceOf(position);
  if (space == Space::GM) fault(std::string("TPipe::InitBuffer: position ") +
                                positionName(int(position)) + " has no local buffer here");
  const uint64_t align = space == Space::L0A || space == Space::L0B ? 512 : 64;
  uint64_t &cursor = d.cursor[unsigned(space)];
  uint64_t start = (cursor + align - 1) / align * align;
  uint64_t limit = space == Space::UB ? kUbTPipeBytes : spaceBytes(space);
  if (bytes == 0 || start + bytes > limit)
    fault("TPipe::InitBuffer: " + std::to_string(bytes) + " bytes of " +
          positionName(int(position)) + " at offset " + std::to_string(start) + " exceed the " +
          std::to_string(limit) + " bytes Ascend C has in " + spaceName(space));
  cursor = start + bytes;
  available = bytes;
  return d.local[unsigned(space)].data() + start;
}

void setFlag(AscendC::HardEvent event, int32_t id) {
  int e = int(event);
  if (e < 0 || e >= kNumEvents || id < 0 || id >= kEventIds)
    fault("SetFlag: no event " + std::to_string(e) + " id " + std::to_string(id));
  ++device().flags[e][id];
}

void waitFlag(AscendC::HardEvent event, int32_t id) {
  int e = int(event);
  if (e < 0 || e >= kNumEvents || id < 0 || id >= kEventIds)
    fault("WaitFlag: no event " + std::to_string(e) + " id " + std::to_string(id));
  int &count = device().flags[e][id];
  if (count == 0)
    fault(std::string("WaitFlag<HardEvent::") + kEventNames[e] + ">(" + std::to_string(id) +
          ") with no SetFlag before it: on a device the pipes would deadlock");
  --count;
}

void pipeBarrier(pipe_t pipe) {
  if (pipe < PIPE_S || pipe > PIPE_ALL) fault("PipeBarrier: no pipe " + std::to_string(int(pipe)));
}

int64_t blockIdx() { return device().block; }
[[noreturn]] void trap() { fault("trap(): the kernel stopped itself"); }
int64_t blockNum() { return device().blocks; }

void launch(const char *kernel, uint32_t blockDim, void *stream, void (*body)(void *),
            void *context) {
  Device &d = device();
  Stream *s = stream ? static_cast<Stream *>(stream) : &d.defaultStream;
  if (stream && !d.streams.count(s)) {
    lastError = std::string("launch of ") + kernel + ": not a stream of aclrtCreateStream";
    d.defaultStream.error = lastError;
    return;
  }
  if (!s->error.empty()) return;  // a stream stops at its first fault
  if (!d.deviceSet) {
    s->error = std::string("launch of ") + kernel + " before aclrtSetDevice";
    return;
  }
  if (blockDim == 0 || blockDim > 65535) {
    s->error = std::string("launch of ") + kernel + " with blockDim " + std::to_string(blockDim) +
               " (1..65535)";
    return;
  }
  d.writes.clear();
  d.inLaunch = true;
  int64_t block = 0;
  try {
    for (; block < int64_t(blockDim); ++block) {
      resetCore(block, blockDim);
      body(context);
      checkFlagsDrained();
    }
    checkRaces(kernel);
  } catch (const Fault &f) {
    s->error = std::string(kernel) + (block < int64_t(blockDim)
                                          ? " block " + std::to_string(block) + ": "
                                          : std::string(": ")) +
               f.what();
  }
  d.inLaunch = false;
}

}  // namespace vinci::ascendc_host

// ---- AscendCL ---------------------------------------------------------------

using namespace vinci::ascendc_host;

extern "C" {

aclError aclInit(const char *) {
  if (device().initialised) return fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialised");
  device().initialised = true;
  lastError.clear();
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  if (!device().initialised) return fail(ACL_ERROR_UNINITIALIZE, "aclFinalize before aclInit");
  device().initialised = false;
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (!device().initialised) return fail(ACL_ERROR_UNINITIALIZE, "aclrtSetDevice before aclInit");
  if (deviceId != 0)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtSetDevice: device " + std::to_string(deviceId) +
                                             " does not exist (the host implementation has device 0)");
  device().deviceSet = true;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (deviceId != 0 || !device().deviceSet)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtResetDevice: device " + std::to_string(deviceId) +
                                             " is not set");
  device().deviceSet = false;
  return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) {
  if (!stream) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is NULL");
  if (!device().deviceSet) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream before aclrtSetDevice");
  auto *s = new vinci::ascendc_host::Stream();
  device().streams.insert(s);
  *stream = s;
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  auto *s = static_cast<vinci::ascendc_host::Stream *>(stream);
  if (!device().streams.erase(s))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: not a stream of aclrtCreateStream");
  delete s;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  auto *s = stream ? static_cast<vinci::ascendc_host::Stream *>(stream) : &device().defaultStream;
  if (stream && !device().streams.count(s))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream: not a stream of aclrtCreateStream");
  if (s->error.empty()) return ACL_SUCCESS;
  std::string message = std::move(s->error);
  s->error.clear();
  return fail(ACL_ERROR_RT_AICORE_EXCEPTION, message);
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy) {
  if (!devPtr || size == 0)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: NULL pointer or size 0");
  if (!device().deviceSet) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc before aclrtSetDevice");
  vinci::ascendc_host::Allocation a;
  a.requested = size;
  a.reserved = (uint64_t(size) + 31) / 32 * 32 + 32;
  a.id = device().nextAllocationId++;
  // 64-byte aligned, as device memory is (at least) 32-byte aligned.
  a.bytes.reset(new (std::nothrow) uint8_t[a.reserved + 64]);
  if (!a.bytes) return fail(ACL_ERROR_BAD_ALLOC, "aclrtMalloc: out of memory for " + std::to_string(size) + " bytes");
  uintptr_t base = (reinterpret_cast<uintptr_t>(a.bytes.get()) + 63) / 64 * 64;
  std::memset(reinterpret_cast<void *>(base), vinci::ascendc_host::kPoison, a.reserved);
  device().allocations.emplace(base, std::move(a));
  *devPtr = reinterpret_cast<void *>(base);
  return ACL_SUCCESS;
}

aclError aclrtFree(void *devPtr) {
  if (!device().allocations.erase(reinterpret_cast<uintptr_t>(devPtr)))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: not a pointer of aclrtMalloc");
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind) {
  if (!dst || !src) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: NULL pointer");
  if (count > destMax)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: " + std::to_string(count) +
                                             " bytes into a " + std::to_string(destMax) + "-byte buffer");
  uintptr_t base = 0;
  bool toDevice = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  bool fromDevice = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  if (toDevice && !vinci::ascendc_host::findAllocation(reinterpret_cast<uintptr_t>(dst), count, &base))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: the destination is not device memory of that size");
  if (fromDevice && !vinci::ascendc_host::findAllocation(reinterpret_cast<uintptr_t>(src), count, &base))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemcpy: the source is not device memory of that size");
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
  uintptr_t base = 0;
  if (!devPtr || count > maxCount ||
      !vinci::ascendc_host::findAllocation(reinterpret_cast<uintptr_t>(devPtr), count, &base))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: not device memory of that size");
  std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

const char *aclGetRecentErrMsg(void) { return lastError.c_str(); }

}  // extern "C"
