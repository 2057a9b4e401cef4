// Host tensors as files, for vinci-run and vinci-compile's --calibration:
// .npy files (NumPy format 1.0-3.0, C order, little-endian) and ONNX
// TensorProto .pb files (read with a minimal protobuf wire-format reader:
// the readers need seven fields, not libprotobuf).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vinci/runtime.h"

namespace vinci::tensorio {

struct HostTensor {
  vinci_dtype dtype = VINCI_DTYPE_UNKNOWN;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // C order, little-endian
};

uint32_t dtypeBytes(vinci_dtype dtype);

// Each returns false and sets `error` (one line, naming the file) on failure.
bool readNpy(const std::string& path, HostTensor& out, std::string& error);
bool readTensorProto(const std::string& path, HostTensor& out, std::string& error);
// Picks the reader by extension: .npy, else .pb.
bool readTensorFile(const std::string& path, HostTensor& out, std::string& error);

// The .npy bytes for a tensor (format 1.0). bfloat16 has no NumPy dtype: it
// is written as '<u2' (the raw bit patterns).
std::vector<uint8_t> encodeNpy(const HostTensor& tensor);

}  // namespace vinci::tensorio
