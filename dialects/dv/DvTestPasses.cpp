//===- DvTestPasses.cpp - test-only passes over dv -----------------------===//
#include "dv/DvTestPasses.h"
#include "dv/DvOps.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
struct TestDvPipesPass : PassWrapper<TestDvPipesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDvPipesPass)
  StringRef getArgument() const final { return "test-dv-pipes"; }
  StringRef getDescription() const final {
    return "Remark the pipe of every dv instruction (tests PipeOpInterface)";
  }
  void runOnOperation() override {
    getOperation()->walk([](vinci::dv::PipeOpInterface op) {
      // Structural ops are Scalar-unit bookkeeping; remark instructions only.
      if (isa<vinci::dv::KernelOp, vinci::dv::ReturnOp, vinci::dv::LoopOp, vinci::dv::YieldOp,
              vinci::dv::BlockIdxOp, vinci::dv::AllocOp, vinci::dv::ViewOp>(op))
        return;
      op->emitRemark() << "pipe " << vinci::dv::stringifyPipe(op.getPipe());
    });
  }
};
} // namespace

void vinci::dv::registerTestPasses() { PassRegistration<TestDvPipesPass>(); }
