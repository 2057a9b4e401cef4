// The .om container: writer/reader round trip, determinism, and targeted
// corruptions that must each give their own error code.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "om_sample.h"
#include "test_util.h"
#include "vinci/format/container.h"
#include "vinci/format/om_generated.h"
#include "vinci/format/writer.h"

namespace vinci {
namespace {

using format::Container;
using format::Errc;
using format::SectionKind;
using test::AlignedBytes;
using test::readLe32;
using test::readLe64;
using test::refreshChecksums;
using test::sectionEntryOffset;
using test::writeLe32;
using test::writeLe64;

Errc openCode(const std::vector<uint8_t>& bytes) {
  Container container;
  AlignedBytes aligned(bytes);
  format::Status status = Container::open(aligned.data(), aligned.size(), "<test>", container);
  if (!status.ok()) {
    EXPECT_FALSE(status.message.empty());
    EXPECT_EQ(status.message.find('\n'), std::string::npos) << "message must be one line";
  }
  return status.code;
}

// Applies `edit` to the sample's metadata (through the FlatBuffers mutable
// API), refreshes the checksums and returns the loader's verdict.
Errc openWithMetadataEdit(const std::function<void(om::Model&)>& edit) {
  std::vector<uint8_t> bytes = test::sampleBytes();
  const size_t entry = sectionEntryOffset(bytes, SectionKind::metadata);
  const uint64_t offset = readLe64(bytes, entry + 8);
  edit(*om::GetMutableModel(bytes.data() + offset));
  refreshChecksums(bytes);
  return openCode(bytes);
}

TEST(OmContainer, RoundTripKeepsEveryField) {
  const std::vector<uint8_t> bytes = test::sampleBytes();
  ASSERT_FALSE(bytes.empty());
  AlignedBytes aligned(bytes);
  Container container;
  format::Status status = Container::open(aligned.data(), aligned.size(), "<test>", container);
  ASSERT_TRUE(status.ok()) << status.message;

  EXPECT_EQ(container.versionMajor(), format::kVersionMajor);
  EXPECT_EQ(container.soc(), "Ascend310P3");
  EXPECT_EQ(container.fileSize(), bytes.size());
  EXPECT_EQ(container.sections().size(), 4u);
  const om::Model& model = container.model();
  EXPECT_EQ(model.name()->str(), "sample");
  EXPECT_EQ(model.producer()->str(), "om_tests");
  EXPECT_EQ(model.precision(), om::PrecisionMode::AllowMixPrecision);
  EXPECT_EQ(model.arena_size(), 4096u);
  ASSERT_EQ(model.inputs()->size(), 2u);
  EXPECT_EQ(model.inputs()->Get(0)->tensor()->size(), 256u);  // dense size filled in
  EXPECT_EQ(model.inputs()->Get(1)->placement(), om::IoPlacement::Arena);
  EXPECT_EQ(model.inputs()->Get(1)->arena_offset(), 1024u);
  EXPECT_EQ(model.inputs()->Get(1)->tensor()->format(), om::Format::NCHW);
  ASSERT_EQ(model.outputs()->size(), 1u);
  ASSERT_EQ(model.weights()->size(), 2u);
  EXPECT_EQ(model.weights()->Get(1)->offset() % format::kWeightAlignment, 0u);
  format::ByteRange w1 = container.weightBytes(1);
  ASSERT_EQ(w1.size, 512u);
  EXPECT_EQ(w1.data[3], static_cast<uint8_t>(21));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w1.data) % format::kWeightAlignment, 0u);
  ASSERT_EQ(model.kernels()->size(), 2u);
  EXPECT_EQ(model.kernels()->Get(1)->block_dim(), 8u);
  EXPECT_EQ(model.kernels()->Get(1)->kind(), om::KernelKind::Cube);
  EXPECT_EQ(model.kernels()->Get(1)->source_nodes()->Get(1)->str(), "Relu_2");
  format::ByteRange program = container.kernelProgram(1);
  ASSERT_EQ(program.size, 72u);
  EXPECT_EQ(program.data[0], 0xcd);
  ASSERT_EQ(model.tasks()->size(), 2u);
  EXPECT_EQ(model.tasks()->Get(1)->args()->Get(2)->space(), om::Space::Output);
  ASSERT_EQ(model.memory_plan()->size(), 2u);
  EXPECT_EQ(model.memory_plan()->Get(0)->last_task(), 1u);
  EXPECT_EQ(model.debug_names()->size(), 2u);
  EXPECT_EQ(container.section(SectionKind::debug).size, 5u);
}

TEST(OmContainer, WriterIsDeterministic) {
  const std::vector<uint8_t> first = test::sampleBytes();
  const std::vector<uint8_t> second = test::sampleBytes();
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first, second);

  const std::string dir = ::testing::TempDir();
  const std::string path_a = dir + "/om_det_a.om";
  const std::string path_b = dir + "/om_det_b.om";
  ASSERT_TRUE(test::sampleWriter().writeToFile(path_a).ok());
  ASSERT_TRUE(test::sampleWriter().writeToFile(path_b).ok());
  std::ifstream a(path_a, std::ios::binary), b(path_b, std::ios::binary);
  std::vector<uint8_t> file_a((std::istreambuf_iterator<char>(a)), {});
  std::vector<uint8_t> file_b((std::istreambuf_iterator<char>(b)), {});
  EXPECT_EQ(file_a, first);
  EXPECT_EQ(file_b, first);
  std::remove(path_a.c_str());
  std::remove(path_b.c_str());
}

TEST(OmContainer, MappedFileLoads) {
  const std::string path = ::testing::TempDir() + "/om_mapped.om";
  ASSERT_TRUE(test::sampleWriter().writeToFile(path).ok());
  format::MappedFile file;
  ASSERT_TRUE(format::MappedFile::open(path, file).ok());
  Container container;
  format::Status status = Container::open(file.data(), file.size(), path, container);
  EXPECT_TRUE(status.ok()) << status.message;
  std::remove(path.c_str());

  format::MappedFile missing;
  status = format::MappedFile::open(path, missing);
  EXPECT_EQ(status.code, Errc::io);
  EXPECT_NE(status.message.find(path), std::string::npos);
}

TEST(OmContainer, WriterRejectsInconsistentModelAndLeavesNoFile) {
  format::OmWriter writer = test::sampleWriter();
  writer.addTask(7, {});  // no kernel 7
  std::vector<uint8_t> bytes;
  format::Status status = writer.writeToVector(bytes);
  EXPECT_EQ(status.code, Errc::invalid_model);
  EXPECT_TRUE(bytes.empty());
  EXPECT_NE(status.message.find("task 2"), std::string::npos) << status.message;

  const std::string path = ::testing::TempDir() + "/om_bad.om";
  std::remove(path.c_str());
  EXPECT_EQ(writer.writeToFile(path).code, Errc::invalid_model);
  EXPECT_FALSE(std::ifstream(path).good());

  format::OmWriter long_soc("a-soc-name-that-is-far-too-long");
  EXPECT_EQ(long_soc.writeToVector(bytes).code, Errc::invalid_argument);
}

// int64 I/O the kernels see as int32 (IoDesc.device_dtype): only int64 ->
// int32, only in the arena, and the arena range is checked at device size.
TEST(OmContainer, DeviceDtypeConversionsAreChecked) {
  auto withInput = [](om::DType dtype, om::DType device, om::IoPlacement placement,
                      uint64_t offset) {
    format::OmWriter writer = test::sampleWriter();
    format::IoInfo ids{{"ids", dtype, om::Format::ND, {1, 128}, 0}, placement, offset};
    ids.device_dtype = device;
    writer.addInput(ids);
    std::vector<uint8_t> bytes;
    return writer.writeToVector(bytes).code;
  };
  // 128 int64 (1024 bytes) are 512 bytes of int32 in the 4096-byte arena.
  EXPECT_EQ(withInput(om::DType::I64, om::DType::I32, om::IoPlacement::Arena, 3584), Errc::ok);
  EXPECT_EQ(withInput(om::DType::I64, om::DType::I32, om::IoPlacement::Arena, 3585 + 64),
            Errc::invalid_model);
  EXPECT_EQ(withInput(om::DType::I64, om::DType::F16, om::IoPlacement::Arena, 0),
            Errc::invalid_model);
  EXPECT_EQ(withInput(om::DType::F32, om::DType::I32, om::IoPlacement::Arena, 0),
            Errc::invalid_model);
  EXPECT_EQ(withInput(om::DType::I64, om::DType::I32, om::IoPlacement::Separate, 0),
            Errc::invalid_model);
  // Unknown (and the tensor's own dtype) mean no conversion.
  EXPECT_EQ(withInput(om::DType::I64, om::DType::Unknown, om::IoPlacement::Separate, 0), Errc::ok);
  EXPECT_EQ(withInput(om::DType::I64, om::DType::I64, om::IoPlacement::Separate, 0), Errc::ok);
}

TEST(OmContainer, AtomicWriteFailsCleanlyInMissingDirectory) {
  const std::string path = ::testing::TempDir() + "/no/such/dir/model.om";
  format::Status status = test::sampleWriter().writeToFile(path);
  EXPECT_EQ(status.code, Errc::io);
}

TEST(OmContainer, RejectsUnalignedBuffer) {
  std::vector<uint8_t> bytes = test::sampleBytes();
  AlignedBytes aligned(std::vector<uint8_t>(bytes.size() + 1));
  Container container;
  // data() + 1 is never 64-byte aligned.
  std::memcpy(const_cast<uint8_t*>(aligned.data()) + 1, bytes.data(), bytes.size());
  EXPECT_EQ(Container::open(aligned.data() + 1, bytes.size(), "<test>", container).code,
            Errc::invalid_argument);
}

TEST(OmContainer, HeaderCorruptionsHaveTheirOwnCodes) {
  const std::vector<uint8_t> good = test::sampleBytes();
  ASSERT_EQ(openCode(good), Errc::ok);

  std::vector<uint8_t> bytes = good;
  bytes[0] = 'X';
  EXPECT_EQ(openCode(bytes), Errc::bad_magic);

  bytes = good;
  bytes[8] = 2;  // major version 2
  EXPECT_EQ(openCode(bytes), Errc::unsupported_version);

  bytes = good;
  bytes[10] = 9;  // minor version, not refreshed: header checksum
  EXPECT_EQ(openCode(bytes), Errc::checksum);
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::ok) << "a newer minor version stays readable";

  bytes = good;
  writeLe32(bytes, 12, 2);  // unknown flag
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::unsupported_version);

  bytes = good;
  writeLe32(bytes, 12, format::kFlagGears);  // gears, but the metadata has no gear table
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::invalid_model);

  bytes = good;
  writeLe32(bytes, 40, 1000);  // huge section count
  EXPECT_EQ(openCode(bytes), Errc::bad_section_table);

  bytes = good;
  bytes.resize(bytes.size() - 1);
  EXPECT_EQ(openCode(bytes), Errc::truncated);

  bytes = good;
  bytes.push_back(0);
  EXPECT_EQ(openCode(bytes), Errc::section_bounds);

  bytes = good;
  std::memset(bytes.data() + 16, 'A', format::kSocNameCapacity);  // no NUL
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::bad_section_table);
}

TEST(OmContainer, SectionTableCorruptionsHaveTheirOwnCodes) {
  const std::vector<uint8_t> good = test::sampleBytes();
  const size_t kernels = sectionEntryOffset(good, SectionKind::kernels);
  const size_t weights = sectionEntryOffset(good, SectionKind::weights);
  const size_t metadata = sectionEntryOffset(good, SectionKind::metadata);

  std::vector<uint8_t> bytes = good;
  bytes[readLe64(bytes, kernels + 8)] ^= 1;  // kernel byte, checksum not refreshed
  EXPECT_EQ(openCode(bytes), Errc::checksum);

  bytes = good;
  writeLe64(bytes, kernels + 8, (bytes.size() / 64 + 4) * 64);  // offset past the end
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::section_bounds);

  bytes = good;
  writeLe64(bytes, kernels + 16, ~uint64_t{0} - 8);  // offset + size overflows
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::section_bounds);

  bytes = good;
  writeLe64(bytes, weights + 8, readLe64(bytes, metadata + 8));  // weights over metadata
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::section_overlap);

  bytes = good;
  writeLe64(bytes, metadata + 8, 0);  // over the header
  writeLe32(bytes, metadata + 4, 1);
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::section_overlap);

  bytes = good;
  writeLe64(bytes, weights + 8, readLe64(bytes, weights + 8) + 16);
  writeLe32(bytes, weights + 4, 16);  // weights must stay 64-aligned
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::misaligned);

  bytes = good;
  writeLe32(bytes, weights + 4, 3);  // not a power of two
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::bad_section_table);

  bytes = good;
  writeLe32(bytes, weights, static_cast<uint32_t>(SectionKind::kernels));  // duplicate kind
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::bad_section_table);

  bytes = good;
  writeLe32(bytes, kernels, 99);  // unknown kind: skipped, but then kernels is missing
  refreshChecksums(bytes);
  EXPECT_EQ(openCode(bytes), Errc::bad_section_table);
}

TEST(OmContainer, MetadataCorruptionsAreRejected) {
  EXPECT_EQ(openWithMetadataEdit([](om::Model&) {}), Errc::ok);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_weights()->GetMutableObject(1)->mutate_offset(512 + 16);
            }),
            Errc::misaligned);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_weights()->GetMutableObject(1)->mutate_offset(1u << 20);
            }),
            Errc::section_bounds);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_kernels()->GetMutableObject(0)->mutate_program_size(1u << 30);
            }),
            Errc::section_bounds);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_kernels()->GetMutableObject(0)->mutate_program_offset(~uint64_t{0});
            }),
            Errc::section_bounds);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_kernels()->GetMutableObject(1)->mutate_block_dim(0);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_kernels()->GetMutableObject(1)->mutate_num_args(2);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_tasks()->GetMutableObject(0)->mutate_kernel(5);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_tasks()->GetMutableObject(0)->mutable_args()->GetMutableObject(2)->mutate_offset(
                  4000);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_tasks()->GetMutableObject(0)->mutable_args()->GetMutableObject(0)->mutate_index(
                  3);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_tasks()->GetMutableObject(0)->mutable_args()->GetMutableObject(0)->mutate_space(
                  static_cast<om::Space>(9));
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) { m.mutate_arena_size(100); }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) { m.mutate_arena_size(~uint64_t{0}); }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_inputs()->GetMutableObject(0)->mutable_tensor()->mutate_dtype(
                  static_cast<om::DType>(200));
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_inputs()->GetMutableObject(0)->mutable_tensor()->mutable_shape()->Mutate(0, -2);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_inputs()->GetMutableObject(0)->mutable_tensor()->mutable_shape()->Mutate(
                  0, int64_t{1} << 62);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_inputs()->GetMutableObject(1)->mutate_arena_offset(4000);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_memory_plan()->GetMutableObject(0)->mutate_last_task(2);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_memory_plan()->GetMutableObject(0)->mutate_first_task(3);
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              m.mutable_soc()->data()[0] ^= 0x20;  // "ascend310P3" differs from the header
            }),
            Errc::invalid_model);
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              auto* name = m.mutable_inputs()->GetMutableObject(1)->mutable_tensor()->mutable_name();
              name->data()[0] = 'x';  // duplicate input name "x"
            }),
            Errc::invalid_model);
  // A vector length far past the section: the FlatBuffers verifier's job.
  EXPECT_EQ(openWithMetadataEdit([](om::Model& m) {
              // The uoffset before a vector's first element is its length.
              uint8_t* length = const_cast<uint8_t*>(m.mutable_tasks()->Data()) - 4;
              const uint32_t huge = 0x7fffffff;
              std::memcpy(length, &huge, 4);
            }),
            Errc::bad_metadata);
}

}  // namespace
}  // namespace vinci
