//===- TaskGraph.h - the task list of a partitioned model -------*- C++ -*-===//
//
// After vinci-partition-kernels the graph function is a list of kernel calls
// in execution order. This reads that list into tasks (one per kernel, with
// a roofline cost estimate from the SoC table) and GM buffers (one per
// kernel result, with its live range over the tasks), and plans the
// activation arena with backend/memplan, offering in-place reuse where
// backend/memplan/InPlace.h finds it legal (elementwise kernels over a
// dying same-shaped input).
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_PLAN_TASKGRAPH_H
#define VINCI_BACKEND_PLAN_TASKGRAPH_H

#include "vinci/backend/MemoryPlan.h"
#include "vinci/soc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace vinci::backend {

struct TaskInfo {
  std::string kernel;                    // the outlined kernel function
  std::string kind;                      // "cube" or "vector"
  std::vector<std::string> sourceNodes;  // the model nodes it covers
  double flops = 0;                      // arithmetic work (multiply-add = 2)
  uint64_t gmBytes = 0;                  // bytes read and written in GM
  uint64_t estimatedCycles = 0;          // roofline: max(compute, GM traffic)
  /// Activations the kernel converts between ND and NC1HWC0 on chip: the
  /// arguments its template takes in either layout (nc1hwc0Classes) that
  /// vinci-assign-layouts left ND.
  int64_t layoutConversions = 0;
};

struct TaskGraph {
  std::vector<TaskInfo> tasks;
  std::vector<PlanBuffer> buffers;  // activations between kernels
  MemoryPlan plan;
  uint64_t weightsBytes = 0;        // weights in their storage types
  int64_t nc1hwc0Tensors = 0;       // kernel results stored NC1HWC0
  int64_t layoutConversions = 0;    // the tasks' layoutConversions summed
};

/// Reads the partitioned graph function `graph` (calls to kernel functions
/// of `module`), estimates each task and plans the arena. Every tensor is
/// counted in its storage type, the one the lowering gives it
/// (storageElementType: the module's precision mode and
/// --keep_dtype decide it). Graph inputs and
/// outputs are the caller's buffers and are not in the arena. Returns false
/// with a one-line message if the graph is not partitioned or planning fails.
bool buildTaskGraph(mlir::ModuleOp module, mlir::func::FuncOp graph, const soc::SocSpec &soc,
                    TaskGraph &result, std::string &error);

} // namespace vinci::backend

#endif // VINCI_BACKEND_PLAN_TASKGRAPH_H
