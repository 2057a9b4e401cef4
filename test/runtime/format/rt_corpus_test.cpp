// A corpus of corrupted containers, each loaded through the C API: every
// one must be rejected with an error code and a one-line message, or (for
// edits behind refreshed checksums that happen to stay consistent) load and
// run without touching memory it does not own. Run under ASan and UBSan by
// the rt_sanitized_* tests.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "rt_models.h"
#include "test_util.h"
#include "vinci/runtime.h"

namespace vinci {
namespace {

using format::SectionKind;
using test::AlignedBytes;

struct Outcome {
  vinci_status status;
  std::string message;
};

// Loads the bytes; if they load, also runs the model once (with non-fatal
// hazards: a mutated program may lose its sync) to prove that what the
// loader accepted is safe to execute.
Outcome loadAndMaybeRun(const std::vector<uint8_t>& bytes, bool run = true) {
  AlignedBytes storage(bytes);
  vinci_model* model = nullptr;
  Outcome outcome{vinci_model_load_from_memory(storage.data(), storage.size(), &model), ""};
  if (outcome.status != VINCI_OK) {
    outcome.message = vinci_last_error_message();
    EXPECT_EQ(model, nullptr);
    return outcome;
  }
  if (!run) {
    vinci_model_release(model);
    return outcome;
  }
  vinci_context_options options;
  vinci_context_options_init(&options);
  options.threads = 1;  // thousands of tiny runs: no thread start-up per run
  vinci_context* context = nullptr;
  if (vinci_context_create(model, &options, &context) == VINCI_OK) {
    // A model with gears runs its last gear (the largest, as written).
    uint32_t gears = 0;
    vinci_model_get_gear_count(model, &gears);
    if (gears > 0) vinci_context_set_gear(context, gears - 1);
    std::vector<std::vector<uint8_t>> in(vinci_model_num_inputs(model)), out(vinci_model_num_outputs(model));
    std::vector<vinci_const_buffer> inputs;
    std::vector<vinci_buffer> outputs;
    for (uint32_t i = 0; i < in.size(); ++i) {
      vinci_tensor_desc desc;
      if (gears > 0)
        vinci_model_get_gear_input_desc(model, gears - 1, i, &desc);
      else
        vinci_model_get_input_desc(model, i, &desc);
      in[i].assign(desc.size, 0x3c);
      inputs.push_back({in[i].data(), desc.size});
    }
    for (uint32_t i = 0; i < out.size(); ++i) {
      vinci_tensor_desc desc;
      vinci_model_get_output_desc(model, i, &desc);
      out[i].assign(desc.size, 0);
      outputs.push_back({out[i].data(), desc.size});
    }
    // Any status is acceptable here; what matters is that it returns.
    vinci_context_run(context, inputs.data(), static_cast<uint32_t>(inputs.size()), outputs.data(),
                      static_cast<uint32_t>(outputs.size()));
    vinci_context_destroy(context);
  }
  vinci_model_release(model);
  return outcome;
}

void expectCleanRejection(const Outcome& outcome, const std::string& what) {
  EXPECT_NE(outcome.status, VINCI_OK) << what;
  EXPECT_FALSE(outcome.message.empty()) << what;
  EXPECT_EQ(outcome.message.find('\n'), std::string::npos) << what << ": " << outcome.message;
}

TEST(RtCorpus, EveryTruncationIsRejected) {
  const std::vector<uint8_t> good = test::addModelBytes();
  ASSERT_FALSE(good.empty());
  std::map<vinci_status, int> codes;
  for (size_t length = 0; length < good.size(); ++length) {
    std::vector<uint8_t> truncated(good.begin(), good.begin() + length);
    if (truncated.empty()) truncated.push_back(0);  // load_from_memory wants bytes
    const Outcome outcome = loadAndMaybeRun(truncated);
    expectCleanRejection(outcome, "truncated to " + std::to_string(length));
    ++codes[outcome.status];
  }
  // Past the header, truncation is reported as such.
  EXPECT_GT(codes[VINCI_ERROR_TRUNCATED], 0);
}

TEST(RtCorpus, EveryBitFlipInHeaderAndSectionTableIsRejected) {
  const std::vector<uint8_t> good = test::addModelBytes();
  const size_t table_end = format::kHeaderSize + test::readLe32(good, 40) * format::kSectionEntrySize;
  for (size_t byte = 0; byte < table_end; ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bytes = good;
      bytes[byte] ^= static_cast<uint8_t>(1u << bit);
      expectCleanRejection(loadAndMaybeRun(bytes),
                           "flip byte " + std::to_string(byte) + " bit " + std::to_string(bit));
    }
}

// The same flips with the checksums repaired: now the structural checks
// behind the checksums must catch them.
TEST(RtCorpus, HeaderAndTableEditsBehindValidChecksums) {
  const std::vector<uint8_t> good = test::addModelBytes();
  const size_t table_end = format::kHeaderSize + test::readLe32(good, 40) * format::kSectionEntrySize;
  for (size_t byte = 0; byte < table_end; ++byte) {
    const size_t field = (byte - format::kHeaderSize) % format::kSectionEntrySize;
    const bool in_table = byte >= format::kHeaderSize;
    // Checksum fields: refreshChecksums() rewrites them, so skip them.
    if ((byte >= 56 && byte < 64) || (in_table && field >= 24)) continue;
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bytes = good;
      bytes[byte] ^= static_cast<uint8_t>(1u << bit);
      test::refreshChecksums(bytes);
      const Outcome outcome = loadAndMaybeRun(bytes);
      if (outcome.status == VINCI_OK) {
        // A newer minor version stays readable, and a section may grow into
        // the zero padding before the next one; nothing else may pass.
        const bool minor = byte == 10 || byte == 11;
        const bool size_field = in_table && field >= 16 && field < 24;
        EXPECT_TRUE(minor || size_field) << "accepted an edit of byte " << byte << " bit " << bit;
      } else {
        expectCleanRejection(outcome, "edit byte " + std::to_string(byte));
      }
    }
  }
}

// Every metadata byte of a model with a gear table, and every kernel byte,
// edited behind valid checksums: `kinds` names the sections to edit.
std::map<vinci_status, int> editEveryByte(const std::vector<uint8_t>& good,
                                          std::initializer_list<SectionKind> kinds) {
  std::map<vinci_status, int> codes;
  int loaded = 0;
  for (SectionKind kind : kinds) {
    const size_t entry = test::sectionEntryOffset(good, kind);
    EXPECT_NE(entry, 0u);
    const uint64_t offset = test::readLe64(good, entry + 8);
    const uint64_t size = test::readLe64(good, entry + 16);
    for (uint64_t i = 0; i < size; ++i)
      for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
        std::vector<uint8_t> bytes = good;
        bytes[offset + i] ^= mask;
        test::refreshChecksums(bytes);
        // Every simulator run costs fresh on-chip buffers (about 2 MiB per
        // block), so run one accepted variant in 16; all of them load.
        const Outcome outcome = loadAndMaybeRun(bytes, loaded % 16 == 0);
        loaded += outcome.status == VINCI_OK;
        ++codes[outcome.status];
        if (outcome.status != VINCI_OK)
          expectCleanRejection(outcome, std::string(format::sectionKindName(kind)) + " byte " +
                                            std::to_string(i));
      }
  }
  return codes;
}

TEST(RtCorpus, GearTableEditsBehindValidChecksums) {
  std::map<vinci_status, int> codes =
      editEveryByte(test::gearAddModelBytes(), {SectionKind::metadata});
  EXPECT_GT(codes[VINCI_ERROR_BAD_METADATA], 0);
  EXPECT_GT(codes[VINCI_ERROR_INVALID_MODEL], 0);
}

TEST(RtCorpus, MetadataAndKernelEditsBehindValidChecksums) {
  std::map<vinci_status, int> codes =
      editEveryByte(test::addModelBytes(), {SectionKind::metadata, SectionKind::kernels});
  // Both the FlatBuffers verifier and the semantic checks fire, and the
  // simulator's decoder rejects broken programs.
  EXPECT_GT(codes[VINCI_ERROR_BAD_METADATA], 0);
  EXPECT_GT(codes[VINCI_ERROR_INVALID_MODEL], 0);
  EXPECT_GT(codes[VINCI_ERROR_BAD_PROGRAM], 0);
}

TEST(RtCorpus, SectionChecksumsCatchPayloadFlips) {
  const std::vector<uint8_t> good = test::addModelBytes();
  for (SectionKind kind : {SectionKind::metadata, SectionKind::weights, SectionKind::kernels}) {
    const size_t entry = test::sectionEntryOffset(good, kind);
    const uint64_t offset = test::readLe64(good, entry + 8);
    const uint64_t size = test::readLe64(good, entry + 16);
    for (uint64_t i = 0; i < size; i += 7) {
      std::vector<uint8_t> bytes = good;
      bytes[offset + i] ^= 0x10;
      const Outcome outcome = loadAndMaybeRun(bytes);
      EXPECT_EQ(outcome.status, VINCI_ERROR_CHECKSUM) << format::sectionKindName(kind) << " " << i;
    }
  }
}

// Random multi-byte damage, with and without checksum repair (fixed seed).
TEST(RtCorpus, RandomDamage) {
  const std::vector<uint8_t> good = test::addModelBytes();
  std::mt19937 random(20240611);
  int accepted = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> bytes = good;
    const int edits = 1 + static_cast<int>(random() % 8);
    for (int e = 0; e < edits; ++e) {
      const size_t at = random() % bytes.size();
      switch (random() % 3) {
        case 0: bytes[at] = static_cast<uint8_t>(random()); break;
        case 1: bytes[at] ^= static_cast<uint8_t>(1u << (random() % 8)); break;
        default: {  // a large little-endian value: offsets, sizes, counts
          const uint32_t value = 0xffffff00u | static_cast<uint32_t>(random() & 0xff);
          if (at + 4 <= bytes.size()) test::writeLe32(bytes, at, value);
        }
      }
    }
    if (round % 2 == 0) test::refreshChecksums(bytes);
    const Outcome outcome = loadAndMaybeRun(bytes);
    if (outcome.status == VINCI_OK) ++accepted;
    else expectCleanRejection(outcome, "round " + std::to_string(round));
  }
  EXPECT_LT(accepted, 3000 / 2);
}

}  // namespace
}  // namespace vinci
