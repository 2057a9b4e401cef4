//===- vinci-opt: mlir-opt with Vinci's dialects and passes ---------------===//
#include "dv/DvOps.h"
#include "dv/DvTestPasses.h"
#include "backend/Passes.h"
#include "passes/Passes.h"
#include "passes/graph/Passes.h"
#include "vg/VgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<vinci::vg::VGDialect, vinci::dv::DVDialect, mlir::func::FuncDialect>();
  // Upstream passes the pipelines use (canonicalize, cse, ...).
  mlir::registerTransformsPasses();
  vinci::registerVinciPasses();
  vinci::backend::registerVinciBackendPasses();
  vinci::graph::registerVinciGraphPasses();
  vinci::dv::registerTestPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Vinci optimizer driver\n", registry));
}
