//===- InPlace.h - which kernel outputs may overwrite a dying input -*- C++ -*-===//
//
// In-place reuse lets a kernel write an output into the GM bytes of one of
// its inputs when that input dies at the kernel, so the two share one slot
// of the activation arena (like TFLite's in-place ops and XLA's buffer
// assignment "may alias" pairs). This file decides, from facts the compiler
// knows about each kernel launch, which pairs are legal, and offers them to
// the planner through PlanBuffer::inPlaceOf. It knows nothing of MLIR: the
// report (backend/plan) and the .om writer (backend/om) describe their
// launches with the structs below and get the same answer.
//
// A pair (output o, input i) of one launch at task t is legal only if all of:
//  1. the kernel's lowering reads every element of an input that has the
//     output's shape before it writes the output element at the same
//     position, and no other block or tile writes that position first (the
//     elementwise Vector template: each block owns a contiguous share, each
//     tile copies its inputs in before it copies the same range out);
//  2. o and i are arena buffers: graph inputs and outputs (the caller's
//     memory), weights and constants never take part;
//  3. i has exactly o's shape and storage element type: a broadcast input
//     is read at other positions than the ones being written;
//  4. every input of the launch that lives in i's buffer (the same tensor
//     twice, or a view of it) has o's shape and type too, so no read of
//     those bytes is a broadcast;
//  5. i's buffer dies at t (no later task reads it), o's buffer is born at
//     t, and the two buffers have the same size.
// The planner then grants at most one reuser per input (see MemoryPlan.h).
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_INPLACE_H
#define VINCI_BACKEND_INPLACE_H

#include "vinci/backend/MemoryPlan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vinci {
namespace backend {

/// One GM tensor that a kernel launch reads or writes.
struct LaunchTensor {
  /// Id of the arena buffer holding it (a view shares its source's buffer);
  /// nullopt for graph inputs and outputs, weights and constants.
  std::optional<uint64_t> arenaBuffer;
  std::vector<int64_t> shape;
  /// The element type as stored in GM (any stable spelling, e.g. "f16").
  std::string storageType;
};

/// One kernel launch (one task of the task order).
struct KernelLaunch {
  int64_t task = 0;
  /// Condition 1 above: true only for kernels lowered by a template that
  /// reads each element of a same-shaped input before writing the output
  /// element at that position (the elementwise Vector template).
  bool readsEachElementBeforeWritingIt = false;
  std::vector<LaunchTensor> inputs, outputs;
};

/// Why output `output` of `launch` may not overwrite input `input`, or ""
/// when it may. `buffers` are the arena buffers with final live ranges.
std::string inPlaceRefusal(const KernelLaunch &launch, size_t output, size_t input,
                           const std::vector<PlanBuffer> &buffers);

/// Sets `inPlaceOf` of every output buffer that has a legal input (the
/// first legal one, in input order) and clears it on all others. Returns
/// the number of candidates offered.
size_t offerInPlaceCandidates(const std::vector<KernelLaunch> &launches,
                              std::vector<PlanBuffer> &buffers);

} // namespace backend
} // namespace vinci

#endif // VINCI_BACKEND_INPLACE_H
