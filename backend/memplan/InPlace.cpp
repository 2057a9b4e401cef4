//===- InPlace.cpp - which kernel outputs may overwrite a dying input -----===//
//
// The legality rule of in-place reuse; see InPlace.h for the five
// conditions and why each is needed.
//
//===----------------------------------------------------------------------===//
#include "vinci/backend/InPlace.h"

#include <map>
#include <set>

namespace vinci {
namespace backend {
namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text + "]";
}

const PlanBuffer *findBuffer(const std::vector<PlanBuffer> &buffers, uint64_t id) {
  for (const PlanBuffer &buffer : buffers)
    if (buffer.id == id)
      return &buffer;
  return nullptr;
}

bool sameLayout(const LaunchTensor &a, const LaunchTensor &b) {
  return a.shape == b.shape && a.storageType == b.storageType;
}

} // namespace

std::string inPlaceRefusal(const KernelLaunch &launch, size_t output, size_t input,
                           const std::vector<PlanBuffer> &buffers) {
  if (output >= launch.outputs.size() || input >= launch.inputs.size())
    return "no such output or input";
  const LaunchTensor &out = launch.outputs[output];
  const LaunchTensor &in = launch.inputs[input];
  if (!launch.readsEachElementBeforeWritingIt)
    return "the kernel's lowering may write a position before it reads it";
  if (!out.arenaBuffer)
    return "the output is not in the arena (a graph output)";
  if (!in.arenaBuffer)
    return "the input is not in the arena (a graph input, weight or constant)";
  if (in.shape != out.shape)
    return "the input " + shapeText(in.shape) + " is broadcast to " + shapeText(out.shape);
  if (in.storageType != out.storageType)
    return "the input is stored as " + in.storageType + ", the output as " + out.storageType;
  for (const LaunchTensor &other : launch.inputs)
    if (other.arenaBuffer == in.arenaBuffer && !sameLayout(other, out))
      return "the input's bytes are also read as " + shapeText(other.shape) + " " +
             other.storageType;
  const PlanBuffer *inBuffer = findBuffer(buffers, *in.arenaBuffer);
  const PlanBuffer *outBuffer = findBuffer(buffers, *out.arenaBuffer);
  if (!inBuffer || !outBuffer)
    return "names a buffer that is not planned";
  if (inBuffer->id == outBuffer->id)
    return "the input and the output are one buffer";
  if (inBuffer->lastTask != launch.task)
    return "the input is read later, until task " + std::to_string(inBuffer->lastTask);
  if (outBuffer->firstTask != launch.task)
    return "the output is live before this task";
  if (inBuffer->size != outBuffer->size)
    return "the buffers differ in size (" + std::to_string(inBuffer->size) + " B and " +
           std::to_string(outBuffer->size) + " B)";
  return {};
}

size_t offerInPlaceCandidates(const std::vector<KernelLaunch> &launches,
                              std::vector<PlanBuffer> &buffers) {
  std::map<uint64_t, std::optional<uint64_t>> offers; // output buffer -> input buffer
  for (const KernelLaunch &launch : launches) {
    std::set<uint64_t> offeredInputs; // one reuser per input buffer
    for (size_t o = 0; o < launch.outputs.size(); ++o) {
      if (!launch.outputs[o].arenaBuffer)
        continue;
      std::optional<uint64_t> chosen;
      for (size_t i = 0; i < launch.inputs.size() && !chosen; ++i)
        if (inPlaceRefusal(launch, o, i, buffers).empty() &&
            !offeredInputs.count(*launch.inputs[i].arenaBuffer))
          chosen = launch.inputs[i].arenaBuffer;
      if (chosen)
        offeredInputs.insert(*chosen);
      offers[*launch.outputs[o].arenaBuffer] = chosen;
    }
  }
  size_t offered = 0;
  for (PlanBuffer &buffer : buffers) {
    auto found = offers.find(buffer.id);
    buffer.inPlaceOf = found == offers.end() ? std::nullopt : found->second;
    offered += buffer.inPlaceOf.has_value();
  }
  return offered;
}

} // namespace backend
} // namespace vinci
