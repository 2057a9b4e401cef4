// Gears through the C API: a hand-built model with batch gears 1 and 2
// (rt_models.h, gearAddModelBytes): describing the gears, choosing one,
// running each against the host-computed rows, wrong gears as one-line
// errors that list the gears, contexts of different gears at once, and
// gear tables edited behind valid checksums refused on load.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "loaded_model.h"
#include "rt_models.h"
#include "test_util.h"
#include "vinci/format/om_generated.h"
#include "vinci/runtime.h"
#include "vinci/runtime.hpp"

namespace vinci {
namespace {

using test::AlignedBytes;
using test::LoadedModel;

constexpr uint64_t kRowBytes = uint64_t{test::kAddCols} * 2;


// Inputs and outputs of the first `rows` rows; outputs poisoned.
struct RowBuffers {
  explicit RowBuffers(uint32_t rows) : rows(rows) {
    const size_t count = size_t{rows} * test::kAddCols;
    x.assign(data.x.begin(), data.x.begin() + count);
    y.assign(data.y.begin(), data.y.begin() + count);
    z.assign(size_t{test::kAddRows} * test::kAddCols, 0xffff);  // room for the largest gear
    t.assign(z.size(), 0xffff);
  }
  vinci_status run(vinci_context* context) {
    const vinci_const_buffer inputs[2] = {{x.data(), rows * kRowBytes}, {y.data(), rows * kRowBytes}};
    const vinci_buffer outputs[2] = {{z.data(), z.size() * 2}, {t.data(), t.size() * 2}};
    return vinci_context_run(context, inputs, 2, outputs, 2);
  }
  bool matches() const {
    const size_t count = size_t{rows} * test::kAddCols;
    return std::equal(z.begin(), z.begin() + count, data.z.begin()) &&
           std::equal(t.begin(), t.begin() + count, data.t.begin());
  }
  test::AddModelData data = test::addModelData();
  uint32_t rows;
  std::vector<uint16_t> x, y, z, t;
};

vinci_context* newContext(vinci_model* model) {
  vinci_context_options options;
  vinci_context_options_init(&options);
  options.hazards_fatal = 1;
  vinci_context* context = nullptr;
  EXPECT_EQ(vinci_context_create(model, &options, &context), VINCI_OK) << vinci_last_error_message();
  return context;
}

std::string lastError() { return vinci_last_error_message(); }

TEST(RtGears, DescribesTheGears) {
  LoadedModel loaded(test::gearAddModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK) << lastError();
  vinci_gear_kind kind;
  ASSERT_EQ(vinci_model_get_gear_kind(loaded.model, &kind), VINCI_OK);
  EXPECT_EQ(kind, VINCI_GEAR_BATCH_SIZE);
  uint32_t count = 0;
  ASSERT_EQ(vinci_model_get_gear_count(loaded.model, &count), VINCI_OK);
  EXPECT_EQ(count, 2u);
  for (uint32_t g = 0; g < count; ++g) {
    vinci_gear gear;
    ASSERT_EQ(vinci_model_get_gear(loaded.model, g, &gear), VINCI_OK);
    ASSERT_EQ(gear.num_values, 1u);
    EXPECT_EQ(gear.values[0], g + 1);
    vinci_tensor_desc desc;
    ASSERT_EQ(vinci_model_get_gear_input_desc(loaded.model, g, 1, &desc), VINCI_OK);
    EXPECT_STREQ(desc.name, "y");
    EXPECT_EQ(desc.dims[0], g + 1);
    EXPECT_EQ(desc.size, (g + 1) * kRowBytes);
  }
  // The model's own descriptors: -1 where gears differ, the largest size;
  // the work size is the largest gear's arena.
  vinci_tensor_desc desc;
  ASSERT_EQ(vinci_model_get_output_desc(loaded.model, 0, &desc), VINCI_OK);
  EXPECT_EQ(desc.dims[0], -1);
  EXPECT_EQ(desc.dims[1], test::kAddCols);
  EXPECT_EQ(desc.size, 2 * kRowBytes);
  uint64_t work = 0;
  ASSERT_EQ(vinci_model_query_size(loaded.model, &work, nullptr), VINCI_OK);
  EXPECT_EQ(work, 4 * kRowBytes);

  EXPECT_EQ(vinci_model_get_gear(loaded.model, 2, nullptr), VINCI_ERROR_INVALID_ARGUMENT);
  vinci_gear gear;
  EXPECT_EQ(vinci_model_get_gear(loaded.model, 2, &gear), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("out of range"), std::string::npos) << lastError();

  // A static model has none.
  LoadedModel fixed(test::addModelBytes());
  ASSERT_EQ(vinci_model_get_gear_count(fixed.model, &count), VINCI_OK);
  EXPECT_EQ(count, 0u);
  ASSERT_EQ(vinci_model_get_gear_kind(fixed.model, &kind), VINCI_OK);
  EXPECT_EQ(kind, VINCI_GEAR_NONE);
}

TEST(RtGears, RunsEveryGear) {
  LoadedModel loaded(test::gearAddModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK) << lastError();
  vinci_context* context = newContext(loaded.model);
  for (uint32_t rows : {2u, 1u, 2u}) {
    ASSERT_EQ(vinci_context_set_dynamic_batch_size(context, rows), VINCI_OK) << lastError();
    uint32_t gear = 9;
    ASSERT_EQ(vinci_context_get_gear(context, &gear), VINCI_OK);
    EXPECT_EQ(gear, rows - 1);
    RowBuffers buffers(rows);
    ASSERT_EQ(buffers.run(context), VINCI_OK) << lastError();
    EXPECT_TRUE(buffers.matches()) << "gear " << rows;
    vinci_tensor_desc current;
    ASSERT_EQ(vinci_context_get_cur_output_desc(context, 0, &current), VINCI_OK);
    EXPECT_EQ(current.dims[0], rows);
    EXPECT_EQ(current.size, rows * kRowBytes);
    vinci_profile profile;
    ASSERT_EQ(vinci_context_get_profile(context, &profile), VINCI_OK);
    EXPECT_EQ(profile.num_tasks, 2u);
    vinci_task_profile task;
    ASSERT_EQ(vinci_context_get_task_profile(context, 1, &task), VINCI_OK);
    EXPECT_STREQ(task.kernel_name, rows == 1 ? "add_b1" : "add");
    EXPECT_EQ(task.block_dim, rows);
  }
  vinci_context_destroy(context);
}

TEST(RtGears, WrongGearsAreErrorsThatListTheGears) {
  LoadedModel loaded(test::gearAddModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK) << lastError();
  vinci_context* context = newContext(loaded.model);
  RowBuffers buffers(1);
  // A context starts with no gear.
  EXPECT_EQ(buffers.run(context), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("gears 1;2"), std::string::npos) << lastError();
  uint32_t gear;
  EXPECT_EQ(vinci_context_get_gear(context, &gear), VINCI_ERROR_INVALID_ARGUMENT);

  EXPECT_EQ(vinci_context_set_dynamic_batch_size(context, 3), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("3 is not a gear"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("1;2"), std::string::npos) << lastError();
  EXPECT_EQ(vinci_context_set_dynamic_hw_size(context, 1, 1), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("dynamic batch sizes"), std::string::npos) << lastError();
  const int64_t dims[1] = {1};
  EXPECT_EQ(vinci_context_set_input_dynamic_dims(context, dims, 1), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vinci_context_set_gear(context, 2), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError().find('\n'), std::string::npos);

  // The gear's sizes, not the largest ones: a gear-2 buffer at gear 1 is wrong.
  ASSERT_EQ(vinci_context_set_gear(context, 0), VINCI_OK);
  RowBuffers two(2);
  EXPECT_EQ(two.run(context), VINCI_ERROR_SIZE_MISMATCH);
  EXPECT_NE(lastError().find("at gear 1"), std::string::npos) << lastError();
  vinci_context_destroy(context);

  // A static model has no gear to set.
  LoadedModel fixed(test::addModelBytes());
  vinci_context* static_context = newContext(fixed.model);
  EXPECT_EQ(vinci_context_set_gear(static_context, 0), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("static shapes"), std::string::npos) << lastError();
  vinci_context_destroy(static_context);
}

TEST(RtGears, MatchesInputShapesToAGear) {
  const AlignedBytes bytes(test::gearAddModelBytes());
  const vinci::Model model = vinci::Model::fromMemory(bytes.data(), bytes.size());
  const int64_t cols = test::kAddCols;
  EXPECT_EQ(model.matchGear({{1, cols}, {1, cols}}), 0u);
  EXPECT_EQ(model.matchGear({{2, cols}, {2, cols}}), 1u);
  for (const auto& shapes : std::vector<std::vector<std::vector<int64_t>>>{
           {{3, cols}, {3, cols}}, {{1, cols}, {2, cols}}, {{1, cols, 1}, {1, cols}}}) {
    try {
      model.matchGear(shapes);
      ADD_FAILURE() << "matched shapes that are no gear";
    } catch (const vinci::Error& error) {
      EXPECT_EQ(error.status(), VINCI_ERROR_NOT_FOUND);
      EXPECT_NE(std::string(error.what()).find("match no gear (its dynamic batch sizes: 1;2)"),
                std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(model.gear(1), std::vector<int64_t>{2});
  EXPECT_EQ(model.gearOutput(0, 1).dims[0], 1);
}

TEST(RtGears, ContextsOfDifferentGearsRunAtOnce) {
  LoadedModel loaded(test::gearAddModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK) << lastError();
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      vinci_context* context = newContext(loaded.model);
      const uint32_t rows = 1 + i % 2;
      bool good = vinci_context_set_dynamic_batch_size(context, rows) == VINCI_OK;
      for (int run = 0; run < 3 && good; ++run) {
        RowBuffers buffers(rows);
        good = buffers.run(context) == VINCI_OK && buffers.matches();
      }
      ok[i] = good;
      vinci_context_destroy(context);
    });
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(ok[i]) << "thread " << i;
}

// Edits of the gear table behind valid checksums, each a one-line refusal.
vinci_status loadWithEdit(const std::function<void(std::vector<uint8_t>&, om::Model&)>& edit,
                          std::string& message,
                          std::vector<uint8_t> bytes = test::gearAddModelBytes()) {
  const size_t entry = test::sectionEntryOffset(bytes, format::SectionKind::metadata);
  edit(bytes, *om::GetMutableModel(bytes.data() + test::readLe64(bytes, entry + 8)));
  test::refreshChecksums(bytes);
  LoadedModel loaded(bytes);
  message = loaded.status == VINCI_OK ? "" : lastError();
  return loaded.status;
}

TEST(RtGears, CorruptedGearTablesAreRefused) {
  using Edit = std::function<void(std::vector<uint8_t>&, om::Model&)>;
  auto gear = [](om::Model& m, int g) { return m.mutable_gears()->GetMutableObject(g); };
  const std::vector<std::pair<Edit, std::string>> edits = {
      {[&](auto&, om::Model& m) { gear(m, 1)->mutable_values()->Mutate(0, 1); }, "same values as gear 0"},
      {[&](auto&, om::Model& m) { gear(m, 0)->mutable_values()->Mutate(0, -1); }, "value -1"},
      {[&](auto&, om::Model& m) {
         om::GearIo* x = gear(m, 0)->mutable_inputs()->GetMutableObject(0);
         x->mutable_shape()->Mutate(0, 2);
         x->mutate_size(2 * kRowBytes);
       },
       "is 2, but gear value 0 is 1"},
      {[&](auto&, om::Model& m) { gear(m, 0)->mutable_inputs()->GetMutableObject(1)->mutable_shape()->Mutate(1, 7); },
       "does not fit the model's [-1, 1024]"},
      {[&](auto&, om::Model& m) { gear(m, 0)->mutable_outputs()->GetMutableObject(0)->mutate_size(2 * kRowBytes); },
       "does not match its ND shape"},
      {[&](auto&, om::Model& m) { gear(m, 0)->mutable_inputs()->GetMutableObject(1)->mutate_arena_offset(3 * kRowBytes); },
       "exceeds the gear's arena"},
      {[&](auto&, om::Model& m) {
         gear(m, 0)->mutable_tasks()->GetMutableObject(0)->mutable_args()->GetMutableObject(2)->mutate_offset(kRowBytes * 2);
       },
       "exceeds its space"},
      {[&](auto&, om::Model& m) {
         gear(m, 0)->mutable_tasks()->GetMutableObject(1)->mutable_args()->GetMutableObject(2)->mutate_size(2 * kRowBytes);
       },
       "exceeds its space (2048 bytes)"},
      {[&](auto&, om::Model& m) { gear(m, 1)->mutate_arena_size(8 * kRowBytes); }, "exceeds the model's"},
      {[&](auto&, om::Model& m) { gear(m, 1)->mutable_memory_plan()->GetMutableObject(0)->mutate_last_task(2); },
       "live range"},
      {[&](auto&, om::Model& m) { m.mutable_gear_dims()->GetMutableObject(1)->mutate_axis(1); },
       "not a dynamic (-1) dim"},
      {[&](auto&, om::Model& m) { m.mutable_gear_dims()->GetMutableObject(1)->mutate_value(1); },
       "out of range"},
      {[&](auto&, om::Model& m) { m.mutable_gear_dims()->GetMutableObject(1)->mutate_input(0); },
       "sets the same input dim"},
      {[&](auto&, om::Model& m) { m.mutate_gear_kind(om::GearKind::None); }, "gear kind is 0"},
      {[&](auto&, om::Model& m) { m.mutate_gear_kind(om::GearKind::ImageSize); }, "image_size gear has 2"},
      {[&](auto&, om::Model& m) { m.mutate_arena_size(m.arena_size() + 64); }, "not the largest gear's"},
      {[&](auto&, om::Model& m) { m.mutable_inputs()->GetMutableObject(0)->mutable_tensor()->mutate_size(1); },
       "exceeds the model's 1"},
      {[&](auto&, om::Model& m) { m.mutable_inputs()->GetMutableObject(0)->mutable_tensor()->mutable_shape()->Mutate(1, -1); },
       "gear dims for 3 dynamic"},
      {[&](auto&, om::Model& m) { m.mutable_inputs()->GetMutableObject(1)->mutate_arena_offset(64); },
       "top-level arena offset must be 0"},
      // Without the header flag the gear table is not the model's to run.
      {[&](std::vector<uint8_t>& bytes, om::Model&) { test::writeLe32(bytes, 12, 0); },
       "input 0 'x': dimension 0 is negative (-1)"},
      {[&](std::vector<uint8_t>& bytes, om::Model&) { test::writeLe32(bytes, 12, 3); },
       "features this runtime does not know"},
  };
  for (const auto& [edit, expected] : edits) {
    std::string message;
    const vinci_status status = loadWithEdit(edit, message);
    EXPECT_NE(status, VINCI_OK) << "accepted an edit expected to fail with '" << expected << "'";
    EXPECT_NE(message.find(expected), std::string::npos) << "'" << expected << "' not in: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // A static model (no header flag) that claims a gear kind.
  std::string message;
  EXPECT_EQ(loadWithEdit([](auto&, om::Model& m) { m.mutate_gear_kind(om::GearKind::Dims); },
                         message, test::addModelBytes()),
            VINCI_ERROR_INVALID_MODEL);
  EXPECT_NE(message.find("header flags do not say it has gears"), std::string::npos) << message;
}

// An older file: format 1.0 (no gear fields) still loads and runs.
TEST(RtGears, FormatOneZeroStillLoads) {
  std::vector<uint8_t> bytes = test::addModelBytes();
  ASSERT_EQ(test::readLe32(bytes, 8) >> 16, format::kVersionMinor);
  bytes[10] = 0;  // minor version 0: the gear fields are absent in 1.0 files
  bytes[11] = 0;
  test::refreshChecksums(bytes);
  LoadedModel loaded(bytes);
  ASSERT_EQ(loaded.status, VINCI_OK) << lastError();
  vinci_model_info info;
  ASSERT_EQ(vinci_model_get_info(loaded.model, &info), VINCI_OK);
  EXPECT_EQ(info.format_version_minor, 0u);
  vinci_context* context = newContext(loaded.model);
  RowBuffers buffers(test::kAddRows);
  EXPECT_EQ(buffers.run(context), VINCI_OK) << lastError();
  EXPECT_TRUE(buffers.matches());
  vinci_context_destroy(context);
}

}  // namespace
}  // namespace vinci
