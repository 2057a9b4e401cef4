// Tests of in-place legality (backend/memplan/InPlace.h): the legal case of
// an elementwise kernel over a dying same-shaped input, and the near-misses
// that must not alias. Each refusal also checks the planner then keeps the
// two buffers apart.
#include "vinci/backend/InPlace.h"

#include <gtest/gtest.h>

using namespace vinci::backend;

namespace {

const std::vector<int64_t> kRows = {128, 768};

PlanBuffer arenaBuffer(uint64_t id, uint64_t size, int64_t first, int64_t last) {
  PlanBuffer b;
  b.id = id;
  b.name = "b" + std::to_string(id);
  b.size = size;
  b.firstTask = first;
  b.lastTask = last;
  return b;
}

LaunchTensor inArena(uint64_t id, std::vector<int64_t> shape = kRows,
                     std::string type = "f16") {
  return {id, std::move(shape), std::move(type)};
}

LaunchTensor outsideArena(std::vector<int64_t> shape = kRows) {
  return {std::nullopt, std::move(shape), "f16"};
}

/// Task 0 writes buffer 0 ([128, 768] f16); task 1, an elementwise kernel,
/// reads it (and `extraInputs`) and writes buffer 1; buffer 1 lives to 2.
struct Fixture {
  std::vector<PlanBuffer> buffers = {arenaBuffer(0, 128 * 768 * 2, 0, 1),
                                     arenaBuffer(1, 128 * 768 * 2, 1, 2)};
  KernelLaunch launch;
  Fixture() {
    launch.task = 1;
    launch.readsEachElementBeforeWritingIt = true;
    launch.inputs = {inArena(0)};
    launch.outputs = {inArena(1)};
  }
  std::string refusal() const { return inPlaceRefusal(launch, 0, 0, buffers); }
  /// Offers the candidates and plans; returns whether buffer 1 reuses 0.
  bool planShares() {
    offerInPlaceCandidates({launch}, buffers);
    MemoryPlan plan;
    std::string error;
    PlanOptions options;
    options.verify = true;
    EXPECT_TRUE(planMemory(buffers, plan, error, options)) << error;
    return plan.buffers[1].reusesStorageOf.has_value() &&
           plan.buffers[0].offset == plan.buffers[1].offset;
  }
};

TEST(InPlace, ElementwiseOverDyingInputShares) {
  Fixture f;
  EXPECT_EQ(f.refusal(), "");
  EXPECT_TRUE(f.planShares());
  EXPECT_EQ(f.buffers[1].inPlaceOf, std::optional<uint64_t>(0));
}

TEST(InPlace, NotForKernelsThatMayWriteBeforeReading) {
  // A matmul or softmax template reads whole rows or panels before writing
  // others: not offered, even with a matching shape.
  Fixture f;
  f.launch.readsEachElementBeforeWritingIt = false;
  EXPECT_NE(f.refusal().find("may write a position before it reads it"), std::string::npos);
  EXPECT_FALSE(f.planShares());
}

TEST(InPlace, NotOverABroadcastInput) {
  // A bias [768] over [128, 768]: position p of the output reads element
  // p % 768 of the input, which other positions still need.
  Fixture f;
  f.buffers[0].size = 768 * 2;
  f.launch.inputs = {inArena(0, {768})};
  EXPECT_NE(f.refusal().find("is broadcast to [128x768]"), std::string::npos) << f.refusal();
  EXPECT_FALSE(f.planShares());
}

TEST(InPlace, NotOverAnInputWithALaterUser) {
  // Task 2 still reads buffer 0 (a residual): it must survive task 1.
  Fixture f;
  f.buffers[0].lastTask = 2;
  EXPECT_NE(f.refusal().find("read later, until task 2"), std::string::npos);
  EXPECT_FALSE(f.planShares());
}

TEST(InPlace, NotOverAGraphInputWeightOrIntoAGraphOutput) {
  Fixture graphInput;
  graphInput.launch.inputs = {outsideArena()};
  EXPECT_NE(graphInput.refusal().find("not in the arena (a graph input"), std::string::npos);
  EXPECT_FALSE(graphInput.planShares());

  Fixture graphOutput;
  graphOutput.launch.outputs = {outsideArena()};
  EXPECT_NE(graphOutput.refusal().find("not in the arena (a graph output)"), std::string::npos);
  EXPECT_EQ(offerInPlaceCandidates({graphOutput.launch}, graphOutput.buffers), 0u);
}

TEST(InPlace, NotAcrossStorageTypes) {
  // A cast f16 -> f32 (or i32 -> f16 of equal byte size): element p of the
  // output does not cover the bytes of element p of the input, so a block
  // would overwrite input that another block has not read yet.
  Fixture f;
  f.launch.outputs = {inArena(1, kRows, "i16")};
  EXPECT_NE(f.refusal().find("stored as f16, the output as i16"), std::string::npos);
  EXPECT_FALSE(f.planShares());
}

TEST(InPlace, NotWhenTheSameBytesAreAlsoReadBroadcast) {
  // add(x, view-of-x broadcast): the full-shape read is fine, the broadcast
  // read of the same buffer is not.
  Fixture f;
  f.launch.inputs = {inArena(0), inArena(0, {1, 768})};
  EXPECT_NE(f.refusal().find("also read as [1x768]"), std::string::npos) << f.refusal();
  EXPECT_FALSE(f.planShares());
}

TEST(InPlace, NotWhenTheBuffersDifferInSize) {
  // The input is a view of a larger buffer (not a plain reshape).
  Fixture f;
  f.buffers[0].size *= 2;
  EXPECT_NE(f.refusal().find("differ in size"), std::string::npos);
  EXPECT_FALSE(f.planShares());
}

TEST(InPlace, TheSameInputTwiceIsStillLegal) {
  // mul(x, x): both reads are at the written position.
  Fixture f;
  f.launch.inputs = {inArena(0), inArena(0)};
  EXPECT_EQ(f.refusal(), "");
  EXPECT_TRUE(f.planShares());
}

TEST(InPlace, FirstLegalInputWinsAndEachInputOnce) {
  // Two dying same-shaped inputs and two outputs: output 0 takes input 0
  // (the first legal), output 1 takes input 1; nothing is offered twice.
  std::vector<PlanBuffer> buffers = {arenaBuffer(0, 64, 0, 1), arenaBuffer(1, 64, 0, 1),
                                     arenaBuffer(2, 64, 1, 2), arenaBuffer(3, 64, 1, 2)};
  KernelLaunch launch;
  launch.task = 1;
  launch.readsEachElementBeforeWritingIt = true;
  launch.inputs = {inArena(0, {32}), inArena(1, {32})};
  launch.outputs = {inArena(2, {32}), inArena(3, {32})};
  EXPECT_EQ(offerInPlaceCandidates({launch}, buffers), 2u);
  EXPECT_EQ(buffers[2].inPlaceOf, std::optional<uint64_t>(0));
  EXPECT_EQ(buffers[3].inPlaceOf, std::optional<uint64_t>(1));

  launch.inputs = {inArena(0, {32})};
  buffers[1].lastTask = 2; // input 1 no longer read here
  EXPECT_EQ(offerInPlaceCandidates({launch}, buffers), 1u);
  EXPECT_EQ(buffers[2].inPlaceOf, std::optional<uint64_t>(0));
  EXPECT_EQ(buffers[3].inPlaceOf, std::nullopt);
}

TEST(InPlace, BoundCountsTheSharedSlotOnce) {
  // x (task 0..1) -> relu in place (1..2): the bound is one slot at task 1,
  // not two, and the arena meets it.
  Fixture f;
  ASSERT_TRUE(f.planShares());
  MemoryPlan plan;
  std::string error;
  ASSERT_TRUE(planMemory(f.buffers, plan, error));
  EXPECT_EQ(plan.arenaLowerBoundBytes, 128u * 768 * 2);
  EXPECT_EQ(plan.noReuseLowerBoundBytes, 2u * 128 * 768 * 2);
  EXPECT_EQ(plan.arenaBytes, plan.arenaLowerBoundBytes);
}

} // namespace
