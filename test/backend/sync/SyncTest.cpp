// vinci-insert-sync against the simulator's hazard detector: each kernel of
// the pass's lit test, written without any flag, is run through the pass,
// encoded and executed with hazards fatal (it must stay silent), and the
// same kernel without the pass must be caught (the cases are not vacuous).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "dv/DvOps.h"
#include "backend/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "vinci/backend/Encode.h"
#include "vinci/sim/executor.h"
#include "vinci/sim/isa.h"
#include "vinci/soc.h"

namespace {

namespace sim = vinci::sim;
namespace dv = vinci::dv;

// The lit file's cases, split at `// -----`, with the kernel's name.
std::vector<std::pair<std::string, std::string>> cases() {
  std::ifstream in(VINCI_SYNC_CASES);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t next = text.find("// -----", pos);
    std::string chunk = text.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    size_t at = chunk.find("\ndv.kernel @");
    if (at != std::string::npos) {
      size_t b = at + 12, e = chunk.find('(', b);
      out.emplace_back(chunk.substr(b, e - b), chunk);
    }
    if (next == std::string::npos) break;
    pos = next + 8;
  }
  return out;
}

// Runs the kernel of `text` (after vinci-insert-sync when `sync`); returns
// the simulator's error ("" when it ran clean).
std::string runCase(const std::string &text, bool sync) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<dv::DVDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module) return "does not parse";
  if (sync) {
    mlir::PassManager pm(&ctx);
    pm.addPass(vinci::backend::createInsertSync());
    if (mlir::failed(pm.run(*module))) return "pass failed";
  }
  auto kernels = module->getOps<dv::KernelOp>();
  if (kernels.empty()) return "no kernel";
  dv::KernelOp kernel = *kernels.begin();
  vinci::backend::EncodedKernel k;
  std::string error;
  if (!vinci::backend::encodeKernel(kernel, k, error)) return "encode: " + error;
  const vinci::soc::SocSpec &soc = *vinci::soc::findSoc("Ascend310P3");
  sim::Program program;
  if (!sim::decodeProgram(k.program.data(), k.program.size(), soc, k.num_args, program, error))
    return "decode: " + error;
  // Every argument writable, so the detector tracks GM too.
  std::vector<std::vector<uint8_t>> storage;
  std::vector<sim::GmRegion> args;
  for (mlir::Type t : kernel.getArgumentTypes())
    storage.emplace_back(dv::getBufferBytes(t), 0);
  for (auto &s : storage) args.push_back({s.data(), s.size(), true});
  sim::RunOptions opt;
  opt.threads = 1;
  opt.detect_hazards = true;
  opt.hazards_fatal = true;
  sim::KernelProfile profile;
  if (!sim::runKernel(program, k.block_dim, args, soc, opt, profile, error)) return error;
  if (!profile.hazards.empty()) return profile.hazards.front();
  return "";
}

TEST(InsertSync, LitKernelsRunHazardFree) {
  auto all = cases();
  ASSERT_GE(all.size(), 8u);
  for (auto &[name, text] : all) {
    SCOPED_TRACE(name);
    EXPECT_EQ(runCase(text, /*sync=*/true), "");
  }
}

TEST(InsertSync, WithoutThePassTheDetectorFires) {
  for (auto &[name, text] : cases()) {
    SCOPED_TRACE(name);
    std::string error = runCase(text, /*sync=*/false);
    if (name == "near_misses")
      EXPECT_EQ(error, "");
    else
      EXPECT_NE(error.find("hazard"), std::string::npos) << error;
  }
}

}  // namespace
