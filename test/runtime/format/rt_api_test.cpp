// The C API end to end: load a hand-built model, describe it, run it on the
// simulator, check the numbers, the profile, the errors and threading.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "loaded_model.h"
#include "rt_models.h"
#include "vinci/soc.h"
#include "test_util.h"
#include "vinci/runtime.h"
#include "vinci/runtime.hpp"

namespace vinci {
namespace {

using test::AlignedBytes;
using test::LoadedModel;

constexpr uint64_t kTensorBytes = uint64_t{test::kAddRows} * test::kAddCols * 2;


struct Buffers {
  test::AddModelData data = test::addModelData();
  std::vector<uint16_t> z = std::vector<uint16_t>(data.z.size(), 0xffff);
  std::vector<uint16_t> t = std::vector<uint16_t>(data.t.size(), 0xffff);
  std::vector<vinci_const_buffer> inputs() const {
    return {{data.x.data(), kTensorBytes}, {data.y.data(), kTensorBytes}};
  }
  std::vector<vinci_buffer> outputs() { return {{z.data(), kTensorBytes}, {t.data(), kTensorBytes}}; }
};

vinci_status runOnce(vinci_context* context, Buffers& buffers) {
  const auto inputs = buffers.inputs();
  const auto outputs = buffers.outputs();
  return vinci_context_run(context, inputs.data(), 2, outputs.data(), 2);
}

TEST(RtApi, DescribesTheModel) {
  LoadedModel loaded(test::addModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK) << vinci_last_error_message();
  vinci_model* model = loaded.model;

  uint64_t work = 0, weights = 0;
  ASSERT_EQ(vinci_model_query_size(model, &work, &weights), VINCI_OK);
  EXPECT_EQ(work, 2 * kTensorBytes);
  EXPECT_EQ(weights, kTensorBytes);
  vinci_model_info info;
  ASSERT_EQ(vinci_model_get_info(model, &info), VINCI_OK);
  EXPECT_STREQ(info.name, "add_chain");
  EXPECT_STREQ(info.soc, "Ascend310P3");
  EXPECT_STREQ(info.precision, "force_fp16");
  EXPECT_EQ(info.num_kernels, 1u);
  EXPECT_EQ(info.num_tasks, 2u);
  EXPECT_GT(info.clock_hz, 1e9);

  ASSERT_EQ(vinci_model_num_inputs(model), 2u);
  ASSERT_EQ(vinci_model_num_outputs(model), 2u);
  vinci_tensor_desc desc;
  ASSERT_EQ(vinci_model_get_input_desc(model, 1, &desc), VINCI_OK);
  EXPECT_STREQ(desc.name, "y");
  EXPECT_EQ(desc.dtype, VINCI_DTYPE_F16);
  EXPECT_EQ(desc.format, VINCI_FORMAT_ND);
  ASSERT_EQ(desc.rank, 2u);
  EXPECT_EQ(desc.dims[0], test::kAddRows);
  EXPECT_EQ(desc.dims[1], test::kAddCols);
  EXPECT_EQ(desc.size, kTensorBytes);
  ASSERT_EQ(vinci_model_get_output_desc(model, 1, &desc), VINCI_OK);
  EXPECT_STREQ(desc.name, "t");

  uint32_t index = 99;
  EXPECT_EQ(vinci_model_find_input(model, "y", &index), VINCI_OK);
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(vinci_model_find_output(model, "z", &index), VINCI_OK);
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(vinci_model_find_output(model, "nope", &index), VINCI_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(vinci_last_error_message()).find("nope"), std::string::npos);
  EXPECT_EQ(vinci_model_get_input_desc(model, 2, &desc), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vinci_model_get_input_desc(nullptr, 0, &desc), VINCI_ERROR_INVALID_ARGUMENT);

  uint64_t count = 0;
  ASSERT_EQ(vinci_model_kernel_instruction_count(model, 0, &count), VINCI_OK);
  EXPECT_EQ(count, 8u);  // 2 copies in, flag pair, add, flag pair, copy out
}

TEST(RtApi, TimingOverridesChangeTheFiguresNotTheResults) {
  LoadedModel loaded(test::addModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK) << vinci_last_error_message();
  auto simulate = [&](const char* overrides, Buffers& buffers, vinci_profile& profile) {
    vinci_context_options options;
    vinci_context_options_init(&options);
    options.timing_overrides = overrides;
    vinci_context* context = nullptr;
    const vinci_status status = vinci_context_create(loaded.model, &options, &context);
    if (status != VINCI_OK) return status;
    EXPECT_EQ(runOnce(context, buffers), VINCI_OK);
    EXPECT_EQ(vinci_context_get_profile(context, &profile), VINCI_OK);
    vinci_context_destroy(context);
    return VINCI_OK;
  };
  Buffers plain, changed;
  vinci_profile a, b;
  ASSERT_EQ(simulate(nullptr, plain, a), VINCI_OK);
  ASSERT_EQ(simulate("task_launch_cycles=0", changed, b), VINCI_OK);
  EXPECT_EQ(changed.z, plain.z);
  // Two tasks, each without its launch.
  const uint64_t launch = uint64_t(vinci::soc::defaultSoc().timing.task_launch_cycles.value);
  EXPECT_EQ(b.cycles + 2 * launch, a.cycles);
  vinci_profile unused;
  EXPECT_EQ(simulate("no_such_cost=1", changed, unused), VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(vinci_last_error_message()).find("no_such_cost"), std::string::npos);
  EXPECT_EQ(simulate("task_launch_cycles=fast", changed, unused), VINCI_ERROR_INVALID_ARGUMENT);
}

TEST(RtApi, RunsAndComputesTheRightNumbers) {
  LoadedModel loaded(test::addModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK) << vinci_last_error_message();
  vinci_context_options options;
  vinci_context_options_init(&options);
  options.hazards_fatal = 1;
  vinci_context* context = nullptr;
  ASSERT_EQ(vinci_context_create(loaded.model, &options, &context), VINCI_OK);
  Buffers buffers;
  ASSERT_EQ(runOnce(context, buffers), VINCI_OK) << vinci_last_error_message();
  EXPECT_EQ(buffers.z, buffers.data.z);
  EXPECT_EQ(buffers.t, buffers.data.t);

  vinci_profile profile;
  ASSERT_EQ(vinci_context_get_profile(context, &profile), VINCI_OK);
  EXPECT_EQ(profile.num_tasks, 2u);
  EXPECT_GT(profile.cycles, 0u);
  EXPECT_NEAR(profile.simulated_us, profile.cycles / profile.clock_hz * 1e6, 1e-9);
  // Each task reads two tensors from GM and writes one.
  EXPECT_EQ(profile.gm_bytes_read, 4 * kTensorBytes);
  EXPECT_EQ(profile.gm_bytes_written, 2 * kTensorBytes);
  EXPECT_GT(profile.pipe_busy_cycles[VINCI_PIPE_MTE2], 0u);
  EXPECT_GT(profile.pipe_busy_cycles[VINCI_PIPE_V], 0u);
  EXPECT_EQ(profile.pipe_busy_cycles[VINCI_PIPE_M], 0u);
  EXPECT_EQ(profile.hazard_count, 0u);
  vinci_task_profile task;
  ASSERT_EQ(vinci_context_get_task_profile(context, 1, &task), VINCI_OK);
  EXPECT_STREQ(task.kernel_name, "add");
  EXPECT_EQ(task.block_dim, test::kAddRows);
  EXPECT_GT(task.cycles, 0u);
  EXPECT_LE(task.cycles, profile.cycles);
  EXPECT_EQ(vinci_context_get_task_profile(context, 2, &task), VINCI_ERROR_INVALID_ARGUMENT);
  // The error bars bracket the nominal figure, and the run's figures are the
  // sums of its tasks'.
  EXPECT_LT(profile.cycles_low, profile.cycles);
  EXPECT_LE(profile.cycles_ideal_l2, profile.cycles);
  EXPECT_GT(profile.cycles_high, profile.cycles);
  EXPECT_NEAR(profile.simulated_us_low, profile.cycles_low / profile.clock_hz * 1e6, 1e-9);
  EXPECT_NEAR(profile.simulated_us_high, profile.cycles_high / profile.clock_hz * 1e6, 1e-9);
  vinci_task_profile first;
  ASSERT_EQ(vinci_context_get_task_profile(context, 0, &first), VINCI_OK);
  EXPECT_EQ(first.cycles_low + task.cycles_low, profile.cycles_low);
  EXPECT_EQ(first.cycles_high + task.cycles_high, profile.cycles_high);
  EXPECT_EQ(first.cycles_ideal_l2 + task.cycles_ideal_l2, profile.cycles_ideal_l2);

  // A second run gives the same results and the same simulated time.
  Buffers again;
  ASSERT_EQ(runOnce(context, again), VINCI_OK);
  EXPECT_EQ(again.z, buffers.data.z);
  vinci_profile second;
  ASSERT_EQ(vinci_context_get_profile(context, &second), VINCI_OK);
  EXPECT_EQ(second.cycles, profile.cycles);
  vinci_context_destroy(context);
}

TEST(RtApi, LoadsFromFileAndRunsWithCallerWorkMemory) {
  const std::string path = ::testing::TempDir() + "/rt_add.om";
  ASSERT_TRUE(test::addModelWriter().writeToFile(path).ok());
  vinci_model* model = nullptr;
  ASSERT_EQ(vinci_model_load_from_file(path.c_str(), &model), VINCI_OK) << vinci_last_error_message();
  uint64_t work = 0;
  ASSERT_EQ(vinci_model_query_size(model, &work, nullptr), VINCI_OK);
  AlignedBytes arena(std::vector<uint8_t>(work, 0));
  vinci_context_options options;
  vinci_context_options_init(&options);
  options.work_memory = const_cast<uint8_t*>(arena.data());
  options.work_memory_size = work - 1;
  vinci_context* context = nullptr;
  EXPECT_EQ(vinci_context_create(model, &options, &context), VINCI_ERROR_SIZE_MISMATCH);
  options.work_memory_size = work;
  ASSERT_EQ(vinci_context_create(model, &options, &context), VINCI_OK);
  // The context keeps the model alive after the caller's release.
  vinci_model_release(model);
  Buffers buffers;
  ASSERT_EQ(runOnce(context, buffers), VINCI_OK) << vinci_last_error_message();
  EXPECT_EQ(buffers.z, buffers.data.z);
  // The arena-placed output t lives at arena offset 0.
  EXPECT_EQ(std::memcmp(arena.data(), buffers.data.t.data(), kTensorBytes), 0);
  vinci_context_destroy(context);
  std::remove(path.c_str());
}

TEST(RtApi, RejectsBadRunArguments) {
  LoadedModel loaded(test::addModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK);
  vinci_context* context = nullptr;
  ASSERT_EQ(vinci_context_create(loaded.model, nullptr, &context), VINCI_OK);
  Buffers buffers;
  auto inputs = buffers.inputs();
  auto outputs = buffers.outputs();
  EXPECT_EQ(vinci_context_run(context, inputs.data(), 1, outputs.data(), 2),
            VINCI_ERROR_INVALID_ARGUMENT);
  inputs[1].size -= 2;
  EXPECT_EQ(vinci_context_run(context, inputs.data(), 2, outputs.data(), 2),
            VINCI_ERROR_SIZE_MISMATCH);
  EXPECT_NE(std::string(vinci_last_error_message()).find("input 1 'y'"), std::string::npos)
      << vinci_last_error_message();
  inputs = buffers.inputs();
  outputs[0].size = 16;
  EXPECT_EQ(vinci_context_run(context, inputs.data(), 2, outputs.data(), 2),
            VINCI_ERROR_SIZE_MISMATCH);
  outputs = buffers.outputs();
  outputs[1].data = nullptr;
  EXPECT_EQ(vinci_context_run(context, inputs.data(), 2, outputs.data(), 2),
            VINCI_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vinci_context_run(nullptr, inputs.data(), 2, outputs.data(), 2),
            VINCI_ERROR_INVALID_ARGUMENT);
  vinci_profile profile;
  EXPECT_EQ(vinci_context_get_profile(context, &profile), VINCI_ERROR_INVALID_ARGUMENT);
  vinci_context_destroy(context);
}

TEST(RtApi, LoadErrorsAreCodesWithOneLineMessages) {
  vinci_model* model = nullptr;
  EXPECT_EQ(vinci_model_load_from_file("/nonexistent/m.om", &model), VINCI_ERROR_IO);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(std::string(vinci_last_error_message()).find("/nonexistent/m.om"), std::string::npos);
  EXPECT_EQ(vinci_model_load_from_file(nullptr, &model), VINCI_ERROR_INVALID_ARGUMENT);

  // An unknown SoC: valid container, but no such SoC in the table.
  std::vector<uint8_t> bytes;
  {
    format::OmWriter other("Ascend999");
    other.setArenaSize(0);
    other.addKernel({"k", test::addKernelProgram(false), 1, 3, om::KernelKind::Vector, {}});
    ASSERT_TRUE(other.writeToVector(bytes).ok());
    LoadedModel loaded(bytes);
    EXPECT_EQ(loaded.status, VINCI_ERROR_UNKNOWN_SOC);
    EXPECT_NE(std::string(vinci_last_error_message()).find("Ascend999"), std::string::npos);
  }
  // A kernel program that is not a program: rejected at load, not at run.
  {
    format::OmWriter bad("Ascend310P3");
    bad.addKernel({"garbage", std::vector<uint8_t>(300, 0x5a), 1, 0, om::KernelKind::Vector, {}});
    ASSERT_TRUE(bad.writeToVector(bytes).ok());
    LoadedModel loaded(bytes);
    EXPECT_EQ(loaded.status, VINCI_ERROR_BAD_PROGRAM);
    EXPECT_NE(std::string(vinci_last_error_message()).find("kernel 0 'garbage'"), std::string::npos);
  }
  // A program addressing GM argument 2 in a kernel declared with 2 arguments.
  {
    format::OmWriter bad("Ascend310P3");
    bad.addKernel({"add", test::addKernelProgram(false), 1, 2, om::KernelKind::Vector, {}});
    ASSERT_TRUE(bad.writeToVector(bytes).ok());
    LoadedModel loaded(bytes);
    EXPECT_EQ(loaded.status, VINCI_ERROR_BAD_PROGRAM);
  }
  const std::string message = vinci_last_error_message();
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_STREQ(vinci_status_name(VINCI_ERROR_CHECKSUM), "checksum mismatch");
}

TEST(RtApi, MissingWaitFlagIsAHazard) {
  LoadedModel loaded(test::addModelBytes(/*drop_wait_flag=*/true));
  ASSERT_EQ(loaded.status, VINCI_OK) << vinci_last_error_message();
  vinci_context_options options;
  vinci_context_options_init(&options);
  options.hazards_fatal = 1;
  vinci_context* context = nullptr;
  ASSERT_EQ(vinci_context_create(loaded.model, &options, &context), VINCI_OK);
  Buffers buffers;
  EXPECT_EQ(runOnce(context, buffers), VINCI_ERROR_HAZARD);
  EXPECT_NE(std::string(vinci_last_error_message()).find("task 0"), std::string::npos)
      << vinci_last_error_message();
  vinci_context_destroy(context);

  options.hazards_fatal = 0;
  ASSERT_EQ(vinci_context_create(loaded.model, &options, &context), VINCI_OK);
  ASSERT_EQ(runOnce(context, buffers), VINCI_OK) << vinci_last_error_message();
  vinci_profile profile;
  ASSERT_EQ(vinci_context_get_profile(context, &profile), VINCI_OK);
  EXPECT_GT(profile.hazard_count, 0u);
  ASSERT_NE(vinci_context_hazard_message(context, 0), nullptr);
  EXPECT_EQ(vinci_context_hazard_message(context, profile.hazard_count), nullptr);
  vinci_context_destroy(context);
}

TEST(RtApi, WritesAChromeTrace) {
  LoadedModel loaded(test::addModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK);
  const std::string path = ::testing::TempDir() + "/rt_trace.json";
  std::remove(path.c_str());
  vinci_context_options options;
  vinci_context_options_init(&options);
  options.trace_path = path.c_str();
  vinci_context* context = nullptr;
  ASSERT_EQ(vinci_context_create(loaded.model, &options, &context), VINCI_OK);
  Buffers buffers;
  ASSERT_EQ(runOnce(context, buffers), VINCI_OK) << vinci_last_error_message();
  vinci_context_destroy(context);
  std::ifstream file(path);
  const std::string json((std::istreambuf_iterator<char>(file)), {});
  EXPECT_NE(json.find("traceEvents"), std::string::npos);
  EXPECT_NE(json.find("add"), std::string::npos);
  std::remove(path.c_str());
}

// One model shared by four threads, each with its own context: all results
// equal the single-threaded ones, whatever the simulator's thread count.
TEST(RtApi, SharedModelAcrossThreads) {
  LoadedModel loaded(test::addModelBytes());
  ASSERT_EQ(loaded.status, VINCI_OK);
  constexpr int kThreads = 4;
  std::vector<Buffers> results(kThreads);
  std::vector<vinci_status> statuses(kThreads, VINCI_ERROR_INTERNAL);
  std::vector<uint64_t> cycles(kThreads, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      vinci_context_options options;
      vinci_context_options_init(&options);
      options.threads = i % 2 == 0 ? 1 : 8;
      options.hazards_fatal = 1;
      vinci_context* context = nullptr;
      statuses[i] = vinci_context_create(loaded.model, &options, &context);
      for (int run = 0; run < 3 && statuses[i] == VINCI_OK; ++run)
        statuses[i] = runOnce(context, results[i]);
      vinci_profile profile;
      if (statuses[i] == VINCI_OK) statuses[i] = vinci_context_get_profile(context, &profile);
      cycles[i] = profile.cycles;
      vinci_context_destroy(context);
    });
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_EQ(statuses[i], VINCI_OK) << "thread " << i;
    EXPECT_EQ(results[i].z, results[0].data.z) << "thread " << i;
    EXPECT_EQ(results[i].t, results[0].data.t) << "thread " << i;
    EXPECT_EQ(cycles[i], cycles[0]) << "thread " << i;
  }
}

TEST(RtApi, MatmulOnTheCubeWithAWeight) {
  const std::vector<uint8_t> bytes = test::matmulModelBytes();
  ASSERT_FALSE(bytes.empty());
  LoadedModel loaded(bytes);
  ASSERT_EQ(loaded.status, VINCI_OK) << vinci_last_error_message();
  const test::MatmulModelData data = test::matmulModelData();
  std::vector<uint16_t> c(data.c.size(), 0xffff);
  const uint64_t size = c.size() * 2;
  vinci_context_options options;
  vinci_context_options_init(&options);
  options.hazards_fatal = 1;
  vinci_context* context = nullptr;
  ASSERT_EQ(vinci_context_create(loaded.model, &options, &context), VINCI_OK);
  const vinci_const_buffer inputs[1] = {{data.a.data(), size}};
  const vinci_buffer outputs[1] = {{c.data(), size}};
  ASSERT_EQ(vinci_context_run(context, inputs, 1, outputs, 1), VINCI_OK) << vinci_last_error_message();
  EXPECT_EQ(c, data.c);
  vinci_profile profile;
  ASSERT_EQ(vinci_context_get_profile(context, &profile), VINCI_OK);
  EXPECT_GT(profile.pipe_busy_cycles[VINCI_PIPE_M], 0u);
  EXPECT_GT(profile.cube_fractal_ops, 0u);
  EXPECT_GE(profile.gm_bytes_read, 2 * size);  // A, and B from the weights
  EXPECT_GE(profile.gm_bytes_written, size);
  vinci_context_destroy(context);
}

TEST(RtApi, CppWrapper) {
  const std::vector<uint8_t> bytes = test::addModelBytes();
  AlignedBytes storage(bytes);
  Model model = Model::fromMemory(storage.data(), storage.size());
  EXPECT_EQ(model.numInputs(), 2u);
  EXPECT_STREQ(model.output(0).name, "z");
  Context context(model);
  Buffers buffers;
  context.run(buffers.inputs(), buffers.outputs());
  EXPECT_EQ(buffers.z, buffers.data.z);
  EXPECT_GT(context.profile().cycles, 0u);
  try {
    context.run({}, {});
    ADD_FAILURE() << "run with no buffers must throw";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), VINCI_ERROR_INVALID_ARGUMENT);
  }
  EXPECT_THROW(Model::fromFile("/nonexistent.om"), Error);
}

}  // namespace
}  // namespace vinci
