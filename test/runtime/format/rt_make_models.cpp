// Writes the hand-built models and their input/expected-output files into a
// directory, for the tool tests (tools_test.sh) and the fuzzer's seeds.
//   rt_make_models DIR
#include <cstdio>
#include <string>
#include <vector>

#include "om_sample.h"
#include "rt_models.h"
#include "vinci/tensor_file.h"
#include "vinci/format/writer.h"

namespace {

using vinci::tensorio::HostTensor;

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  vinci::format::Status status = vinci::format::writeFileAtomically(path, bytes.data(), bytes.size());
  if (!status.ok()) std::fprintf(stderr, "rt_make_models: %s\n", status.message.c_str());
  return status.ok();
}

HostTensor halfTensor(const std::vector<uint16_t>& values, std::vector<int64_t> shape) {
  HostTensor tensor;
  tensor.dtype = VINCI_DTYPE_F16;
  tensor.shape = std::move(shape);
  tensor.data.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    tensor.data[2 * i] = static_cast<uint8_t>(values[i]);
    tensor.data[2 * i + 1] = static_cast<uint8_t>(values[i] >> 8);
  }
  return tensor;
}

void putVarint(std::vector<uint8_t>& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<uint8_t>(value));
}

// An ONNX TensorProto (FLOAT16 = 10): dims unpacked, then the values either
// as raw_data (field 9) or as packed int32_data (field 5), as ONNX allows.
std::vector<uint8_t> tensorProto(const std::string& name, const std::vector<uint16_t>& values,
                                 const std::vector<int64_t>& dims, bool raw) {
  std::vector<uint8_t> out;
  for (int64_t dim : dims) {
    putVarint(out, (1 << 3) | 0);
    putVarint(out, static_cast<uint64_t>(dim));
  }
  putVarint(out, (2 << 3) | 0);
  putVarint(out, 10);
  putVarint(out, (8 << 3) | 2);
  putVarint(out, name.size());
  out.insert(out.end(), name.begin(), name.end());
  std::vector<uint8_t> payload;
  if (raw) {
    for (uint16_t v : values) {
      payload.push_back(static_cast<uint8_t>(v));
      payload.push_back(static_cast<uint8_t>(v >> 8));
    }
    putVarint(out, (9 << 3) | 2);
  } else {
    for (uint16_t v : values) putVarint(payload, v);
    putVarint(out, (5 << 3) | 2);
  }
  putVarint(out, payload.size());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: rt_make_models DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const vinci::test::AddModelData data = vinci::test::addModelData();
  const std::vector<int64_t> shape = {vinci::test::kAddRows, vinci::test::kAddCols};
  bool ok = true;
  ok &= writeFile(dir + "/add.om", vinci::test::addModelBytes(false));
  ok &= writeFile(dir + "/add_missing_wait.om", vinci::test::addModelBytes(true));
  // Batch gears 1 and 2 over the same chain (a fuzzer seed with a gear table).
  ok &= writeFile(dir + "/add_gears.om", vinci::test::gearAddModelBytes());
  // Rich metadata with placeholder programs: fails at program decoding,
  // after every metadata check (a fuzzer seed, not a runnable model).
  ok &= writeFile(dir + "/sample_placeholder_programs.om", vinci::test::sampleBytes());
  ok &= writeFile(dir + "/x.npy", vinci::tensorio::encodeNpy(halfTensor(data.x, shape)));
  ok &= writeFile(dir + "/y.npy", vinci::tensorio::encodeNpy(halfTensor(data.y, shape)));
  ok &= writeFile(dir + "/x.pb", tensorProto("x", data.x, shape, /*raw=*/true));
  ok &= writeFile(dir + "/y.pb", tensorProto("y", data.y, shape, /*raw=*/false));
  ok &= writeFile(dir + "/expected_z.npy", vinci::tensorio::encodeNpy(halfTensor(data.z, shape)));
  ok &= writeFile(dir + "/expected_t.npy", vinci::tensorio::encodeNpy(halfTensor(data.t, shape)));
  // The first row of x and y: the inputs of the batch-1 gear.
  const size_t row = vinci::test::kAddCols;
  const std::vector<int64_t> one_row = {1, shape[1]};
  ok &= writeFile(dir + "/x_row.npy", vinci::tensorio::encodeNpy(halfTensor(
                                          std::vector<uint16_t>(data.x.begin(), data.x.begin() + row), one_row)));
  ok &= writeFile(dir + "/y_row.npy", vinci::tensorio::encodeNpy(halfTensor(
                                          std::vector<uint16_t>(data.y.begin(), data.y.begin() + row), one_row)));
  ok &= writeFile(dir + "/expected_z_row.npy",
                  vinci::tensorio::encodeNpy(halfTensor(
                      std::vector<uint16_t>(data.z.begin(), data.z.begin() + row), one_row)));
  ok &= writeFile(dir + "/x_transposed.npy",
                  vinci::tensorio::encodeNpy(halfTensor(data.x, {shape[1], shape[0]})));
  HostTensor as_float = halfTensor(data.x, {shape[0], shape[1] / 2});
  as_float.dtype = VINCI_DTYPE_F32;  // same bytes, wrong dtype
  ok &= writeFile(dir + "/x_float32.npy", vinci::tensorio::encodeNpy(as_float));
  return ok ? 0 : 1;
}
