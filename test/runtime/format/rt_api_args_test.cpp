// The C API's contract on bad arguments, function by function: every NULL
// pointer and every out-of-range index a caller can pass gives the status the
// header names (never a crash), a one-line message that says what was wrong,
// and leaves the caller's out-parameters as documented. The functions that
// cannot fail (release, destroy, options_init, the name lookups, the counts)
// take NULL and out-of-range values quietly.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rt_models.h"
#include "test_util.h"
#include "vinci/runtime.h"

namespace vinci {
namespace {

using test::AlignedBytes;

constexpr uint64_t kTensorBytes = uint64_t{test::kAddRows} * test::kAddCols * 2;

// The add model (inputs x, y; outputs z, t; one kernel, two tasks) loaded,
// with a context that has run once, so that profile calls have data.
class RtApiArgs : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(vinci_model_load_from_memory(storage_.data(), storage_.size(), &model_), VINCI_OK)
        << vinci_last_error_message();
    ASSERT_EQ(vinci_context_create(model_, nullptr, &context_), VINCI_OK);
    inputs_ = {{data_.x.data(), kTensorBytes}, {data_.y.data(), kTensorBytes}};
    outputs_ = {{z_.data(), kTensorBytes}, {t_.data(), kTensorBytes}};
    ASSERT_EQ(vinci_context_run(context_, inputs_.data(), 2, outputs_.data(), 2), VINCI_OK)
        << vinci_last_error_message();
  }
  void TearDown() override {
    vinci_context_destroy(context_);
    vinci_model_release(model_);
  }

  AlignedBytes storage_{test::addModelBytes()};
  test::AddModelData data_ = test::addModelData();
  std::vector<uint16_t> z_ = std::vector<uint16_t>(data_.z.size());
  std::vector<uint16_t> t_ = std::vector<uint16_t>(data_.t.size());
  std::vector<vinci_const_buffer> inputs_;
  std::vector<vinci_buffer> outputs_;
  vinci_model* model_ = nullptr;
  vinci_context* context_ = nullptr;
};

// One bad call: what it passes, the status it must return, and a piece of
// the message that says which argument was wrong.
struct BadCall {
  const char* what;
  std::function<vinci_status()> call;
  vinci_status status;
  const char* message;
};

void expectAll(const std::vector<BadCall>& calls) {
  for (const BadCall& bad : calls) {
    const vinci_status status = bad.call();
    const std::string message = vinci_last_error_message();
    EXPECT_EQ(status, bad.status) << bad.what << ": " << message;
    EXPECT_NE(message.find(bad.message), std::string::npos)
        << bad.what << ": the message '" << message << "' lacks '" << bad.message << "'";
    EXPECT_EQ(message.find('\n'), std::string::npos) << bad.what << ": " << message;
  }
}

TEST_F(RtApiArgs, LoadingRejectsNullPointers) {
  vinci_model* model = model_;  // must be reset to NULL only once the arguments are valid
  expectAll({
      {"load_from_file(NULL path)", [&] { return vinci_model_load_from_file(nullptr, &model); },
       VINCI_ERROR_INVALID_ARGUMENT, "path and model must not be NULL"},
      {"load_from_file(NULL model)",
       [&] { return vinci_model_load_from_file("/nonexistent.om", nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "path and model must not be NULL"},
      {"load_from_memory(NULL data)",
       [&] { return vinci_model_load_from_memory(nullptr, storage_.size(), &model); },
       VINCI_ERROR_INVALID_ARGUMENT, "data and model must not be NULL"},
      {"load_from_memory(NULL model)",
       [&] { return vinci_model_load_from_memory(storage_.data(), storage_.size(), nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "data and model must not be NULL"},
  });
  EXPECT_EQ(model, model_);
  expectAll({
      {"load_from_memory(size 0)", [&] { return vinci_model_load_from_memory(storage_.data(), 0, &model); },
       VINCI_ERROR_TRUNCATED, "empty"},
      {"load_from_memory(unaligned)",
       [&] { return vinci_model_load_from_memory(storage_.data() + 1, storage_.size() - 1, &model); },
       VINCI_ERROR_INVALID_ARGUMENT, "64-byte aligned"},
  });
  EXPECT_EQ(model, nullptr);  // a valid call that fails leaves no model behind
  vinci_model_release(nullptr);
}

TEST_F(RtApiArgs, ModelQueriesRejectNullPointersAndBadIndices) {
  vinci_model_info info;
  vinci_tensor_desc desc;
  uint32_t index = 99;
  uint64_t count = 0;
  expectAll({
      {"query_size(NULL model)", [&] { return vinci_model_query_size(nullptr, &count, &count); },
       VINCI_ERROR_INVALID_ARGUMENT, "model must not be NULL"},
      {"get_info(NULL model)", [&] { return vinci_model_get_info(nullptr, &info); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_info(NULL info)", [&] { return vinci_model_get_info(model_, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_input_desc(NULL model)", [&] { return vinci_model_get_input_desc(nullptr, 0, &desc); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_input_desc(NULL desc)", [&] { return vinci_model_get_input_desc(model_, 0, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_input_desc(2)", [&] { return vinci_model_get_input_desc(model_, 2, &desc); },
       VINCI_ERROR_INVALID_ARGUMENT, "input index 2 is out of range (the model has 2)"},
      {"get_input_desc(UINT32_MAX)",
       [&] { return vinci_model_get_input_desc(model_, UINT32_MAX, &desc); },
       VINCI_ERROR_INVALID_ARGUMENT, "input index 4294967295 is out of range"},
      {"get_output_desc(NULL desc)", [&] { return vinci_model_get_output_desc(model_, 0, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_output_desc(2)", [&] { return vinci_model_get_output_desc(model_, 2, &desc); },
       VINCI_ERROR_INVALID_ARGUMENT, "output index 2 is out of range (the model has 2)"},
      {"find_input(NULL model)", [&] { return vinci_model_find_input(nullptr, "x", &index); },
       VINCI_ERROR_INVALID_ARGUMENT, "model, name and index must not be NULL"},
      {"find_input(NULL name)", [&] { return vinci_model_find_input(model_, nullptr, &index); },
       VINCI_ERROR_INVALID_ARGUMENT, "model, name and index must not be NULL"},
      {"find_input(NULL index)", [&] { return vinci_model_find_input(model_, "x", nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "model, name and index must not be NULL"},
      {"find_output(an input's name)", [&] { return vinci_model_find_output(model_, "x", &index); },
       VINCI_ERROR_NOT_FOUND, "'x'"},
      {"find_input(\"\")", [&] { return vinci_model_find_input(model_, "", &index); },
       VINCI_ERROR_NOT_FOUND, "''"},
      {"kernel_instruction_count(NULL model)",
       [&] { return vinci_model_kernel_instruction_count(nullptr, 0, &count); },
       VINCI_ERROR_INVALID_ARGUMENT, "model and count must not be NULL"},
      {"kernel_instruction_count(NULL count)",
       [&] { return vinci_model_kernel_instruction_count(model_, 0, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "model and count must not be NULL"},
      {"kernel_instruction_count(1)",
       [&] { return vinci_model_kernel_instruction_count(model_, 1, &count); },
       VINCI_ERROR_INVALID_ARGUMENT, "kernel index 1 is out of range"},
  });
  EXPECT_EQ(index, 99u);  // a failed lookup writes no index
  EXPECT_EQ(count, 0u);
  // The two sizes are each optional.
  EXPECT_EQ(vinci_model_query_size(model_, nullptr, nullptr), VINCI_OK);
  EXPECT_EQ(vinci_model_num_inputs(nullptr), 0u);
  EXPECT_EQ(vinci_model_num_outputs(nullptr), 0u);
}

TEST_F(RtApiArgs, ContextCreationRejectsNullPointersAndBadWorkMemory) {
  vinci_context* context = context_;
  uint64_t work = 0;
  ASSERT_EQ(vinci_model_query_size(model_, &work, nullptr), VINCI_OK);
  AlignedBytes arena(std::vector<uint8_t>(work + 64, 0));
  vinci_context_options options;
  vinci_context_options_init(&options);
  expectAll({
      {"context_create(NULL model)", [&] { return vinci_context_create(nullptr, nullptr, &context); },
       VINCI_ERROR_INVALID_ARGUMENT, "model and context must not be NULL"},
      {"context_create(NULL context)", [&] { return vinci_context_create(model_, nullptr, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "model and context must not be NULL"},
  });
  EXPECT_EQ(context, context_);
  options.work_memory = const_cast<uint8_t*>(arena.data()) + 8;
  options.work_memory_size = work;
  expectAll({{"context_create(unaligned work memory)",
              [&] { return vinci_context_create(model_, &options, &context); },
              VINCI_ERROR_INVALID_ARGUMENT, "64-byte aligned"}});
  EXPECT_EQ(context, nullptr);  // a failed create hands out no context
  options.work_memory = const_cast<uint8_t*>(arena.data());
  options.work_memory_size = work - 1;
  expectAll({{"context_create(work memory 1 byte short)",
              [&] { return vinci_context_create(model_, &options, &context); },
              VINCI_ERROR_SIZE_MISMATCH, "smaller than the model's"}});
  EXPECT_EQ(context, nullptr);
  vinci_context_options_init(nullptr);
  vinci_context_destroy(nullptr);
}

TEST_F(RtApiArgs, RunRejectsNullPointersAndBadCounts) {
  std::vector<vinci_const_buffer> null_input = inputs_;
  null_input[1].data = nullptr;
  std::vector<vinci_buffer> null_output = outputs_;
  null_output[0].data = nullptr;
  expectAll({
      {"run(NULL context)", [&] { return vinci_context_run(nullptr, inputs_.data(), 2, outputs_.data(), 2); },
       VINCI_ERROR_INVALID_ARGUMENT, "context must not be NULL"},
      {"run(NULL inputs)", [&] { return vinci_context_run(context_, nullptr, 2, outputs_.data(), 2); },
       VINCI_ERROR_INVALID_ARGUMENT, "buffer arrays must not be NULL"},
      {"run(NULL outputs)", [&] { return vinci_context_run(context_, inputs_.data(), 2, nullptr, 2); },
       VINCI_ERROR_INVALID_ARGUMENT, "buffer arrays must not be NULL"},
      {"run(3 inputs)", [&] { return vinci_context_run(context_, inputs_.data(), 3, outputs_.data(), 2); },
       VINCI_ERROR_INVALID_ARGUMENT, "the model takes 2 inputs and 2 outputs; got 3 and 2"},
      {"run(0 outputs)", [&] { return vinci_context_run(context_, inputs_.data(), 2, nullptr, 0); },
       VINCI_ERROR_INVALID_ARGUMENT, "got 2 and 0"},
      {"run(input 1 data NULL)",
       [&] { return vinci_context_run(context_, null_input.data(), 2, outputs_.data(), 2); },
       VINCI_ERROR_INVALID_ARGUMENT, "input 1: data is NULL"},
      {"run(output 0 data NULL)",
       [&] { return vinci_context_run(context_, inputs_.data(), 2, null_output.data(), 2); },
       VINCI_ERROR_INVALID_ARGUMENT, "output 0: data is NULL"},
  });
}

TEST_F(RtApiArgs, ProfileQueriesRejectNullPointersAndBadIndices) {
  vinci_profile profile;
  vinci_task_profile task;
  vinci_context* fresh = nullptr;
  ASSERT_EQ(vinci_context_create(model_, nullptr, &fresh), VINCI_OK);
  expectAll({
      {"get_profile(NULL context)", [&] { return vinci_context_get_profile(nullptr, &profile); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_profile(NULL profile)", [&] { return vinci_context_get_profile(context_, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_profile(before a run)", [&] { return vinci_context_get_profile(fresh, &profile); },
       VINCI_ERROR_INVALID_ARGUMENT, "no successful run yet"},
      {"get_task_profile(NULL context)",
       [&] { return vinci_context_get_task_profile(nullptr, 0, &task); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_task_profile(NULL profile)",
       [&] { return vinci_context_get_task_profile(context_, 0, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_task_profile(2)", [&] { return vinci_context_get_task_profile(context_, 2, &task); },
       VINCI_ERROR_INVALID_ARGUMENT, "task 2 is out of range (2 tasks)"},
      {"get_task_profile(UINT32_MAX)",
       [&] { return vinci_context_get_task_profile(context_, UINT32_MAX, &task); },
       VINCI_ERROR_INVALID_ARGUMENT, "task 4294967295 is out of range"},
      {"get_task_profile(before a run)", [&] { return vinci_context_get_task_profile(fresh, 0, &task); },
       VINCI_ERROR_INVALID_ARGUMENT, "no successful run yet"},
  });
  vinci_context_destroy(fresh);
  // Hazard messages: NULL for a NULL context and past the last hazard.
  EXPECT_EQ(vinci_context_hazard_message(nullptr, 0), nullptr);
  EXPECT_EQ(vinci_context_hazard_message(context_, 0), nullptr);
  EXPECT_EQ(vinci_context_hazard_message(context_, UINT32_MAX), nullptr);
}

// The gear calls on a static model: NULL pointers, and asking a model
// without gears for one (the gear model's own faults are rt_gears_test's).
TEST_F(RtApiArgs, GearCallsRejectNullPointersAndStaticModels) {
  vinci_gear_kind kind;
  uint32_t count = 0, gear = 0;
  vinci_gear values;
  vinci_tensor_desc desc;
  const int64_t dims[1] = {2};
  vinci_shape shapes[2] = {{2, {2, 1024}}, {2, {2, 1024}}};
  vinci_context* fresh = nullptr;
  ASSERT_EQ(vinci_context_create(model_, nullptr, &fresh), VINCI_OK);
  expectAll({
      {"get_gear_kind(NULL model)", [&] { return vinci_model_get_gear_kind(nullptr, &kind); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_gear_kind(NULL kind)", [&] { return vinci_model_get_gear_kind(model_, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_gear_count(NULL model)", [&] { return vinci_model_get_gear_count(nullptr, &count); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_gear_count(NULL count)", [&] { return vinci_model_get_gear_count(model_, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_gear(NULL model)", [&] { return vinci_model_get_gear(nullptr, 0, &values); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_gear(NULL gear)", [&] { return vinci_model_get_gear(model_, 0, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_gear(static)", [&] { return vinci_model_get_gear(model_, 0, &values); },
       VINCI_ERROR_INVALID_ARGUMENT, "static shapes, no gears"},
      {"get_gear_input_desc(NULL desc)",
       [&] { return vinci_model_get_gear_input_desc(model_, 0, 0, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_gear_output_desc(static)",
       [&] { return vinci_model_get_gear_output_desc(model_, 0, 0, &desc); },
       VINCI_ERROR_INVALID_ARGUMENT, "static shapes, no gears"},
      {"match_gear(NULL shapes)", [&] { return vinci_model_match_gear(model_, nullptr, 2, &gear); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"match_gear(NULL gear)", [&] { return vinci_model_match_gear(model_, shapes, 2, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"match_gear(1 shape)", [&] { return vinci_model_match_gear(model_, shapes, 1, &gear); },
       VINCI_ERROR_INVALID_ARGUMENT, "the model takes 2 inputs; 1 shapes given"},
      {"set_dynamic_batch_size(NULL)", [&] { return vinci_context_set_dynamic_batch_size(nullptr, 1); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"set_dynamic_hw_size(static)", [&] { return vinci_context_set_dynamic_hw_size(context_, 8, 8); },
       VINCI_ERROR_INVALID_ARGUMENT, "static shapes, no gears to choose from"},
      {"set_input_dynamic_dims(NULL dims)",
       [&] { return vinci_context_set_input_dynamic_dims(context_, nullptr, 1); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"set_input_dynamic_dims(static)",
       [&] { return vinci_context_set_input_dynamic_dims(context_, dims, 1); },
       VINCI_ERROR_INVALID_ARGUMENT, "static shapes, no gears to choose from"},
      {"set_gear(NULL)", [&] { return vinci_context_set_gear(nullptr, 0); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"set_gear(static)", [&] { return vinci_context_set_gear(context_, 0); },
       VINCI_ERROR_INVALID_ARGUMENT, "static shapes, no gears to choose from"},
      {"get_gear(NULL context)", [&] { return vinci_context_get_gear(nullptr, &gear); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_gear(static context)", [&] { return vinci_context_get_gear(context_, &gear); },
       VINCI_ERROR_INVALID_ARGUMENT, "static shapes, no gears"},
      {"get_cur_output_desc(NULL desc)",
       [&] { return vinci_context_get_cur_output_desc(context_, 0, nullptr); },
       VINCI_ERROR_INVALID_ARGUMENT, "must not be NULL"},
      {"get_cur_output_desc(2)", [&] { return vinci_context_get_cur_output_desc(context_, 2, &desc); },
       VINCI_ERROR_INVALID_ARGUMENT, "output index 2 is out of range (the model has 2)"},
      {"get_cur_output_desc(before a run)",
       [&] { return vinci_context_get_cur_output_desc(fresh, 0, &desc); },
       VINCI_ERROR_INVALID_ARGUMENT, "no successful run yet"},
  });
  vinci_context_destroy(fresh);
  // The near-misses: a static model has no gears, matches its own shapes as
  // gear 0, and reports its outputs after a run.
  EXPECT_EQ(vinci_model_get_gear_kind(model_, &kind), VINCI_OK);
  EXPECT_EQ(kind, VINCI_GEAR_NONE);
  EXPECT_EQ(vinci_model_get_gear_count(model_, &count), VINCI_OK);
  EXPECT_EQ(count, 0u);
  gear = 99;
  EXPECT_EQ(vinci_model_match_gear(model_, shapes, 2, &gear), VINCI_OK) << vinci_last_error_message();
  EXPECT_EQ(gear, 0u);
  ASSERT_EQ(vinci_context_get_cur_output_desc(context_, 1, &desc), VINCI_OK);
  EXPECT_EQ(desc.rank, 2u);
  EXPECT_EQ(desc.dims[1], test::kAddCols);
}

// The near-miss: the same calls with valid arguments succeed, so the
// failures above come from the bad argument, not from a broken fixture.
TEST_F(RtApiArgs, TheSameCallsWithValidArgumentsSucceed) {
  vinci_model_info info;
  vinci_tensor_desc desc;
  vinci_profile profile;
  vinci_task_profile task;
  uint32_t index = 99;
  uint64_t count = 0;
  EXPECT_EQ(vinci_model_get_info(model_, &info), VINCI_OK);
  EXPECT_EQ(vinci_model_get_input_desc(model_, 1, &desc), VINCI_OK);
  EXPECT_EQ(vinci_model_get_output_desc(model_, 1, &desc), VINCI_OK);
  EXPECT_EQ(vinci_model_find_output(model_, "t", &index), VINCI_OK);
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(vinci_model_kernel_instruction_count(model_, 0, &count), VINCI_OK);
  EXPECT_GT(count, 0u);
  EXPECT_EQ(vinci_context_run(context_, inputs_.data(), 2, outputs_.data(), 2), VINCI_OK);
  EXPECT_EQ(vinci_context_get_profile(context_, &profile), VINCI_OK);
  EXPECT_EQ(vinci_context_get_task_profile(context_, 1, &task), VINCI_OK);
}

TEST(RtApiNames, OutOfRangeEnumsHaveAName) {
  EXPECT_STREQ(vinci_status_name(static_cast<vinci_status>(-1)), "unknown status");
  EXPECT_STREQ(vinci_status_name(static_cast<vinci_status>(VINCI_ERROR_INTERNAL + 1)),
               "unknown status");
  for (int s = VINCI_OK; s <= VINCI_ERROR_INTERNAL; ++s)
    EXPECT_STRNE(vinci_status_name(static_cast<vinci_status>(s)), "unknown status") << s;
  EXPECT_STREQ(vinci_dtype_name(static_cast<vinci_dtype>(200)), "unknown");
  EXPECT_STREQ(vinci_dtype_name(VINCI_DTYPE_F16), "float16");
  EXPECT_STREQ(vinci_format_name(static_cast<vinci_format>(200)), "unknown");
  EXPECT_STREQ(vinci_format_name(VINCI_FORMAT_FRACTAL_NZ), "FRACTAL_NZ");
}

}  // namespace
}  // namespace vinci
