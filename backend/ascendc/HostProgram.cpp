//===- HostProgram.cpp - the host side of an Ascend C export --------------===//
//
// main.cpp (the AscendCL program that runs the tasks), CMakeLists.txt (CANN's
// toolchain, or Vinci's host implementation), README.md and io.json.
//
//===----------------------------------------------------------------------===//
#include "Project.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace vinci::backend::ascendc {
namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// A C string literal of `text`.
std::string quoted(const std::string &text) {
  std::string q = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      q += '\\';
    if (c == '\n') {
      q += "\\n";
      continue;
    }
    q += c;
  }
  return q + "\"";
}

/// The C++ expression of a kernel argument.
std::string argExpr(const ProjectPlan &plan, const ArgPlacement &arg) {
  std::string base = arg.tensor < 0 ? "weights" : plan.tensors[arg.tensor].var;
  if (arg.offset == 0)
    return base;
  return base + " + " + std::to_string(arg.offset);
}

} // namespace

std::string hostProgram(const ProjectPlan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Allocations: the weights and every tensor that has bytes.
  size_t allocations = 1;
  for (const DeviceTensor &t : plan.tensors)
    allocations += t.bytes != 0;
  os << "// main.cpp: the AscendCL host program of model " << plan.model
     << ", written by vinci-compile\n"
     << "// --emit=ascendc (do not edit). Usage: " << plan.identifier
     << "_main WEIGHTS DATA_DIR: reads the weights\n"
     << "// (weights.bin) and DATA_DIR/input_<i>.bin (raw little-endian, the dtypes and shapes\n"
     << "// of io.json), runs the " << plan.tasks.size()
     << " task(s) in order on a stream of device 0 and writes\n"
     << "// DATA_DIR/output_<i>.bin.\n"
     << "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n\n"
     << "#include \"acl/acl.h\"\n\n";
  os << "// The kernels' launches (kernels/*.cpp).\n";
  for (const KernelSource &kernel : plan.kernels)
    os << launchDeclaration(kernel) << ";\n";
  os << R"(
namespace {

const char *const kProgram = ")" << plan.identifier << R"(_main";
const int kAllocations = )" << allocations << R"(;

bool check(aclError status, const char *what) {
  if (status == ACL_SUCCESS) return true;
  std::fprintf(stderr, "%s: error: %s failed (AscendCL error %d): %s\n", kProgram, what,
               int(status), aclGetRecentErrMsg());
  return false;
}

/// Host bytes, freed on every return path.
struct HostBuffer {
  uint8_t *data = nullptr;
  size_t size = 0;
  HostBuffer() = default;
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  ~HostBuffer() { std::free(data); }
  bool resize(size_t bytes) {
    std::free(data);
    size = bytes;
    data = static_cast<uint8_t *>(std::calloc(bytes ? bytes : 1, 1));
    if (!data) std::fprintf(stderr, "%s: error: out of host memory for %zu bytes\n", kProgram, bytes);
    return data != nullptr;
  }
};

/// AscendCL, a stream on device 0 and the device memory, released on every
/// return path.
class Device {
 public:
  ~Device() {
    for (int i = count_ - 1; i >= 0; --i) (void)aclrtFree(memory_[i]);
    if (stream) (void)aclrtDestroyStream(stream);
    if (deviceSet_) (void)aclrtResetDevice(0);
    if (initialised_) (void)aclFinalize();
  }
  bool start() {
    initialised_ = check(aclInit(nullptr), "aclInit");
    deviceSet_ = initialised_ && check(aclrtSetDevice(0), "aclrtSetDevice");
    return deviceSet_ && check(aclrtCreateStream(&stream), "aclrtCreateStream");
  }
  /// `bytes` of zeroed device memory (nullptr for an empty tensor), or
  /// false. The runtime's work memory starts zeroed; so does this. Each
  /// allocation has kSlack bytes more: a DataCopy moves whole 32-byte
  /// blocks, up to a 64-byte fractal row from where a tensor's last row
  /// starts.
  bool alloc(size_t bytes, const char *what, uint8_t *&out) {
    static const size_t kSlack = 64;
    out = nullptr;
    if (bytes == 0) return true;
    void *ptr = nullptr;
    if (count_ == kAllocations ||
        !check(aclrtMalloc(&ptr, bytes + kSlack, ACL_MEM_MALLOC_HUGE_FIRST), what))
      return false;
    memory_[count_++] = ptr;
    out = static_cast<uint8_t *>(ptr);
    return check(aclrtMemset(ptr, bytes + kSlack, 0, bytes + kSlack), "aclrtMemset");
  }
  bool upload(uint8_t *dst, const HostBuffer &src) {
    return src.size == 0 ||
           check(aclrtMemcpy(dst, src.size, src.data, src.size, ACL_MEMCPY_HOST_TO_DEVICE),
                 "aclrtMemcpy to the device");
  }
  bool download(HostBuffer &dst, const uint8_t *src, size_t bytes) {
    return dst.resize(bytes) &&
           (bytes == 0 || check(aclrtMemcpy(dst.data, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_HOST),
                                "aclrtMemcpy to the host"));
  }
  aclrtStream stream = nullptr;

 private:
  bool initialised_ = false, deviceSet_ = false;
  void *memory_[kAllocations] = {};
  int count_ = 0;
};

/// DATA_DIR/<stem>_<index>.bin
const char *dataPath(const char *dir, const char *stem, int index) {
  static char path[4096];
  std::snprintf(path, sizeof path, "%s/%s_%d.bin", dir, stem, index);
  return path;
}

bool readFile(const char *path, size_t bytes, HostBuffer &data) {
  if (!data.resize(bytes)) return false;
  std::FILE *f = std::fopen(path, "rb");
  if (!f) {
    std::fprintf(stderr, "%s: error: cannot open '%s'\n", kProgram, path);
    return false;
  }
  size_t got = bytes ? std::fread(data.data, 1, bytes, f) : 0;
  bool exact = got == bytes && std::fgetc(f) == EOF;
  std::fclose(f);
  if (!exact)
    std::fprintf(stderr, "%s: error: '%s' does not hold exactly %zu bytes\n", kProgram, path, bytes);
  return exact;
}

bool writeFile(const char *path, const HostBuffer &data) {
  std::FILE *f = std::fopen(path, "wb");
  bool ok = f && (data.size == 0 || std::fwrite(data.data, 1, data.size, f) == data.size);
  if (f && std::fclose(f) != 0) ok = false;
  if (!ok) std::fprintf(stderr, "%s: error: cannot write '%s'\n", kProgram, path);
  return ok;
}

/// int64 from the caller to the int32 the device computes in; a value
/// outside int32 is an error, as in Vinci's runtime.
bool narrowInt64(HostBuffer &data, const char *what) {
  size_t n = data.size / 8;
  for (size_t i = 0; i < n; ++i) {
    int64_t v;
    std::memcpy(&v, data.data + 8 * i, 8);
    if (v < INT32_MIN || v > INT32_MAX) {
      std::fprintf(stderr, "%s: error: %s: element %zu = %lld is outside int32, which the device "
                   "computes it in\n", kProgram, what, i, static_cast<long long>(v));
      return false;
    }
    int32_t narrow = int32_t(v);
    std::memcpy(data.data + 4 * i, &narrow, 4);
  }
  data.size = n * 4;
  return true;
}

bool widenInt32(HostBuffer &data) {
  HostBuffer wide;
  if (!wide.resize(data.size * 2)) return false;
  for (size_t i = 0; i < data.size / 4; ++i) {
    int32_t n;
    std::memcpy(&n, data.data + 4 * i, 4);
    int64_t v = n;
    std::memcpy(wide.data + 8 * i, &v, 8);
  }
  uint8_t *narrow = data.data;
  data.data = wide.data;
  data.size = wide.size;
  wide.data = narrow;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s WEIGHTS DATA_DIR\n", kProgram);
    return 2;
  }
  const char *dataDir = argv[2];
  Device device;
  if (!device.start()) return 1;
  HostBuffer host;
)";
  os << "\n  // Weights, in device layout, in one allocation.\n  uint8_t *weights = nullptr;\n";
  os << "  if (!device.alloc(" << plan.weights.size() << ", \"the weights\", weights) || !readFile(argv[1], "
     << plan.weights.size() << ", host) ||\n      !device.upload(weights, host))\n    return 1;\n";
  auto declare = [&](const DeviceTensor &t) {
    os << "  uint8_t *" << t.var << " = nullptr;\n";
    os << "  if (!device.alloc(" << t.bytes << ", " << quoted(t.what) << ", " << t.var
       << ")) return 1;\n";
  };
  os << "\n  // Graph inputs.\n";
  for (auto [index, io] : llvm::enumerate(plan.inputs)) {
    const DeviceTensor &t = plan.tensors[io.tensor];
    declare(t);
    os << "  if (!readFile(dataPath(dataDir, \"input\", " << index << "), " << io.hostBytes
       << ", host)";
    if (io.narrowedInt64)
      os << " || !narrowInt64(host, " << quoted(t.what) << ")";
    os << " ||\n      !device.upload(" << t.var << ", host))\n    return 1;\n";
  }
  os << "\n  // Intermediate tensors and graph outputs.\n";
  for (const DeviceTensor &t : plan.tensors)
    if (t.kind != DeviceTensor::Kind::Input)
      declare(t);
  os << "\n  // The tasks, in order.\n";
  for (const Task &task : plan.tasks) {
    const KernelSource &kernel = plan.kernels[task.kernel];
    os << "  launch_" << kernel.name << "(" << kernel.blockDim << ", device.stream";
    for (const ArgPlacement &arg : task.args)
      os << ", " << argExpr(plan, arg);
    os << ");\n";
  }
  os << "  if (!check(aclrtSynchronizeStream(device.stream), \"running the tasks\")) return 1;\n";
  os << "\n  // Graph outputs back.\n";
  for (auto [index, io] : llvm::enumerate(plan.outputs)) {
    const DeviceTensor &t = plan.tensors[io.tensor];
    os << "  if (!device.download(host, " << t.var << ", " << t.bytes << ")";
    if (io.narrowedInt64)
      os << " || !widenInt32(host)";
    os << " ||\n      !writeFile(dataPath(dataDir, \"output\", " << index << "), host))\n    return 1;\n";
  }
  os << "  std::printf(\"%s: ran " << plan.tasks.size() << " task(s); wrote " << plan.outputs.size()
     << " output(s) to %s\\n\", kProgram, dataDir);\n  return 0;\n}\n";
  return text;
}

std::string cmakeLists(const ProjectPlan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const std::string &id = plan.identifier;
  os << "# The exported model " << plan.model << " (vinci-compile --emit=ascendc; do not edit).\n"
     << "# With CANN: cmake -B build -DASCEND_CANN_PACKAGE_PATH=<toolkit> && cmake --build build\n"
     << "# compiles the kernels for SOC_VERSION (" << plan.socVersion
     << ": AI Core dav-m200) with CANN's\n"
     << "# ascendc_library and links the host program against AscendCL. With\n"
     << "# -DVINCI_ASCENDC_HOST_ROOT=<vinci>/backend/ascendc/host and\n"
     << "# -DVINCI_ASCENDC_HOST_LIBRARY=<libvinci_ascendc_host.a> it builds everything with the\n"
     << "# host C++ compiler against Vinci's host implementation instead (no CANN, no device).\n"
     << "cmake_minimum_required(VERSION 3.16)\nproject(" << id << "_ascendc LANGUAGES CXX)\n\n"
     << "set(CMAKE_CXX_STANDARD 17)\n"
     << "set(SOC_VERSION \"" << plan.socVersion
     << "\" CACHE STRING \"the Ascend SoC the kernels are compiled for\")\n"
     << "set(ASCEND_CANN_PACKAGE_PATH \"/usr/local/Ascend/ascend-toolkit/latest\" CACHE PATH\n"
     << "    \"the CANN toolkit\")\n"
     << "set(VINCI_ASCENDC_HOST_ROOT \"\" CACHE PATH \"Vinci's host implementation (no CANN)\")\n"
     << "set(VINCI_ASCENDC_HOST_LIBRARY \"\" CACHE FILEPATH \"its library\")\n\n"
     << "set(KERNELS\n";
  for (const KernelSource &kernel : plan.kernels)
    os << "  kernels/" << kernel.fileName << "\n";
  os << ")\n\n"
     << "if(VINCI_ASCENDC_HOST_ROOT)\n"
     << "  add_executable(" << id << "_main main.cpp ${KERNELS})\n"
     << "  target_compile_definitions(" << id << "_main PRIVATE VINCI_ASCENDC_HOST)\n"
     << "  target_include_directories(" << id << "_main PRIVATE ${VINCI_ASCENDC_HOST_ROOT}/include)\n"
     << "  target_link_libraries(" << id << "_main PRIVATE ${VINCI_ASCENDC_HOST_LIBRARY})\n"
     << "  return()\nendif()\n\n"
     << "if(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)\n"
     << "  set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)\n"
     << "elseif(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)\n"
     << "  set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)\n"
     << "else()\n"
     << "  message(FATAL_ERROR \"no CANN toolkit at ASCEND_CANN_PACKAGE_PATH=${ASCEND_CANN_PACKAGE_PATH}\"\n"
     << "                      \" (set it, or build against Vinci's host implementation)\")\n"
     << "endif()\n"
     << "include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)\n\n"
     << "ascendc_library(" << id << "_kernels STATIC ${KERNELS})\n"
     << "add_executable(" << id << "_main main.cpp)\n"
     << "target_include_directories(" << id << "_main PRIVATE ${ASCEND_CANN_PACKAGE_PATH}/include)\n"
     << "target_link_directories(" << id << "_main PRIVATE ${ASCEND_CANN_PACKAGE_PATH}/lib64)\n"
     << "target_link_libraries(" << id << "_main PRIVATE " << id << "_kernels ascendcl)\n";
  return text;
}

std::string readme(const ProjectPlan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const std::string &id = plan.identifier;
  os << "# " << plan.model << " as Ascend C\n\n"
     << "Written by `vinci-compile --emit=ascendc` for " << plan.socVersion
     << " (do not edit): " << plan.kernels.size() << " kernel(s) in `kernels/`, one Ascend C source "
     << "each with the tiling, buffers, loops and flags of its dv kernel; `main.cpp`, the AscendCL "
     << "host program that runs the " << plan.tasks.size()
     << " task(s) in order; `weights.bin` (" << plan.weights.size()
     << " bytes, device layout); `io.json`. Vinci's docs/ascendc.md maps each instruction and says "
     << "what has been verified without a device and what has not.\n\n"
     << "## Build and run on an Ascend 310P (CANN)\n\n```sh\n"
     << "source /usr/local/Ascend/ascend-toolkit/set_env.sh\n"
     << "cmake -B build -DSOC_VERSION=" << plan.socVersion
     << " -DASCEND_CANN_PACKAGE_PATH=$ASCEND_HOME_PATH\n"
     << "cmake --build build\n"
     << "./build/" << id << "_main weights.bin DATA_DIR\n```\n\n"
     << "## Build and run without CANN (Vinci's host implementation)\n\n```sh\n"
     << "cmake -B build-host -DVINCI_ASCENDC_HOST_ROOT=<vinci>/backend/ascendc/host \\\n"
     << "      -DVINCI_ASCENDC_HOST_LIBRARY=<vinci>/build/lib/libvinci_ascendc_host.a\n"
     << "cmake --build build-host\n"
     << "./build-host/" << id << "_main weights.bin DATA_DIR\n```\n\n"
     << "`DATA_DIR` holds `input_<i>.bin` (raw little-endian, each in its dtype); the program "
     << "writes `output_<i>.bin` there.\n\n## Inputs\n\n| file | name | dtype | shape |\n|---|---|---|---|\n";
  for (auto [i, io] : llvm::enumerate(plan.inputs))
    os << "| input_" << i << ".bin | " << io.name << " | " << io.dtype << " | "
       << shapeText(io.shape) << " |\n";
  os << "\n## Outputs\n\n| file | name | dtype | shape |\n|---|---|---|---|\n";
  for (auto [i, io] : llvm::enumerate(plan.outputs))
    os << "| output_" << i << ".bin | " << io.name << " | " << io.dtype << " | "
       << shapeText(io.shape) << " |\n";
  os << "\n## Kernels\n\n| kernel | blocks |\n|---|---|\n";
  for (const KernelSource &kernel : plan.kernels)
    os << "| " << kernel.name << " | " << kernel.blockDim << " |\n";
  return text;
}

std::string ioManifest(const ProjectPlan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, 2);
  auto ioList = [&](const char *key, const std::vector<IoTensor> &list, const char *prefix) {
    json.attributeArray(key, [&] {
      for (auto [i, io] : llvm::enumerate(list))
        json.object([&] {
          json.attribute("file", std::string(prefix) + std::to_string(i) + ".bin");
          json.attribute("name", io.name);
          json.attribute("dtype", io.dtype);
          json.attributeArray("shape", [&] {
            for (int64_t d : io.shape)
              json.value(d);
          });
          json.attribute("bytes", int64_t(io.hostBytes));
        });
    });
  };
  json.object([&] {
    json.attribute("producer", "vinci-compile --emit=ascendc");
    json.attribute("model", plan.model);
    json.attribute("soc_version", plan.socVersion);
    ioList("inputs", plan.inputs, "input_");
    ioList("outputs", plan.outputs, "output_");
    json.attributeObject("weights", [&] {
      json.attribute("file", "weights.bin");
      json.attribute("bytes", int64_t(plan.weights.size()));
      json.attributeArray("tensors", [&] {
        for (const ProjectPlan::Weight &w : plan.weightList)
          json.object([&] {
            json.attribute("name", w.name);
            json.attribute("offset", int64_t(w.offset));
            json.attribute("bytes", int64_t(w.bytes));
            json.attribute("format", w.nz ? "FRACTAL_NZ" : "ND");
          });
      });
    });
    json.attributeArray("kernels", [&] {
      for (const KernelSource &kernel : plan.kernels)
        json.object([&] {
          json.attribute("name", kernel.name);
          json.attribute("file", "kernels/" + kernel.fileName);
          json.attribute("block_dim", int64_t(kernel.blockDim));
        });
    });
    json.attribute("tasks", int64_t(plan.tasks.size()));
  });
  os << "\n";
  return text;
}

} // namespace vinci::backend::ascendc
