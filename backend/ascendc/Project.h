//===- Project.h - what an Ascend C export holds ------------------*- C++ -*-===//
//
// Internal to backend/ascendc: the device-memory plan of an exported model
// (ExportAscendC.cpp reads it off the graph function) and the writers of the
// project's host-side files (HostProgram.cpp).
//
// Device memory: every tensor has its own aclrtMalloc allocation (which
// AscendCL pads to 32 bytes plus 32), so that a DataCopy's last block, which
// may run past a tensor's end, lands in that tensor's padding; weights share
// one allocation, each 512-byte aligned.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_ASCENDC_PROJECT_H
#define VINCI_BACKEND_ASCENDC_PROJECT_H

#include "KernelSource.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vinci::backend::ascendc {

/// A device allocation of the host program.
struct DeviceTensor {
  enum class Kind { Input, Output, Intermediate };
  Kind kind = Kind::Intermediate;
  std::string var;   // its variable in main.cpp
  std::string what;  // for messages: "input 0 'x'", "k3_add result 0"
  uint64_t bytes = 0;
};

/// A graph input or output as the caller passes it.
struct IoTensor {
  std::string name;
  std::string dtype;  // numpy's name: float32, float16, int64, int32, int8, uint8, bool, ...
  std::vector<int64_t> shape;
  uint64_t hostBytes = 0;
  /// The caller's int64 that the device computes in int32
  /// (vinci-narrow-int64): the host program converts.
  bool narrowedInt64 = false;
  int tensor = -1;  // the DeviceTensor holding it
};

/// Where a kernel argument points: a device tensor (or the weights, -1) at
/// a byte offset.
struct ArgPlacement {
  int tensor = -1;
  uint64_t offset = 0;
};

struct Task {
  unsigned kernel = 0;  // index into ProjectPlan::kernels
  std::vector<ArgPlacement> args;
};

struct ProjectPlan {
  std::string model;       // the model's name (the --model file's stem)
  std::string identifier;  // the same as a C/CMake identifier
  std::string socVersion;
  std::vector<KernelSource> kernels;
  std::vector<Task> tasks;
  std::vector<DeviceTensor> tensors;
  std::vector<IoTensor> inputs, outputs;
  std::vector<uint8_t> weights;
  struct Weight {
    std::string name;
    uint64_t offset = 0, bytes = 0;
    bool nz = false;
  };
  std::vector<Weight> weightList;
};

std::string hostProgram(const ProjectPlan &plan);
std::string cmakeLists(const ProjectPlan &plan);
std::string readme(const ProjectPlan &plan);
std::string ioManifest(const ProjectPlan &plan);

} // namespace vinci::backend::ascendc

#endif // VINCI_BACKEND_ASCENDC_PROJECT_H
