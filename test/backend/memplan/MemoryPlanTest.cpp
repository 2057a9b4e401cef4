// Tests of the GM memory planner (backend/memplan): hand-computed plans,
// in-place reuse, alignment, determinism, invalid inputs, and property tests
// over random problems that print the distribution of arena / lower bound.
#include "vinci/backend/MemoryPlan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace vinci::backend;

namespace {

PlanBuffer buf(uint64_t id, uint64_t size, int64_t first, int64_t last,
               uint64_t alignment = 64,
               std::optional<uint64_t> inPlaceOf = std::nullopt) {
  PlanBuffer b;
  b.id = id;
  b.name = "t" + std::to_string(id);
  b.size = size;
  b.alignment = alignment;
  b.firstTask = first;
  b.lastTask = last;
  b.inPlaceOf = inPlaceOf;
  return b;
}

MemoryPlan planOk(const std::vector<PlanBuffer> &bs,
                  const PlanOptions &opts = {}) {
  MemoryPlan plan;
  std::string error;
  PlanOptions o = opts;
  o.verify = true;
  EXPECT_TRUE(planMemory(bs, plan, error, o)) << error;
  std::string verr;
  EXPECT_TRUE(verifyPlan(bs, plan, verr)) << verr;
  return plan;
}

std::string planError(const std::vector<PlanBuffer> &bs) {
  MemoryPlan plan;
  std::string error;
  EXPECT_FALSE(planMemory(bs, plan, error));
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  return error;
}

std::vector<uint64_t> offsets(const MemoryPlan &p) {
  std::vector<uint64_t> r;
  for (const PlacedBuffer &b : p.buffers)
    r.push_back(b.offset);
  return r;
}

// ---------------------------------------------------------------------------
// Hand-computed plans.

TEST(MemoryPlan, Empty) {
  MemoryPlan p = planOk({});
  EXPECT_EQ(p.arenaBytes, 0u);
  EXPECT_EQ(p.arenaLowerBoundBytes, 0u);
}

TEST(MemoryPlan, Chain) {
  // A -> B -> C, each live from its producer to its consumer.
  // Greedy: B (largest) at 0; A and C overlap B only, so both go at 256.
  auto p = planOk({buf(0, 128, 0, 1), buf(1, 256, 1, 2), buf(2, 128, 2, 3)});
  EXPECT_EQ(offsets(p), (std::vector<uint64_t>{256, 0, 256}));
  EXPECT_EQ(p.arenaBytes, 384u);
  EXPECT_EQ(p.arenaLowerBoundBytes, 384u);
  EXPECT_EQ(p.numInPlace, 0u);
}

TEST(MemoryPlan, LongChainReusesTwoSlots) {
  // Ten equal buffers in a chain need two slots, alternating.
  std::vector<PlanBuffer> bs;
  for (int i = 0; i < 10; ++i)
    bs.push_back(buf(i, 1024, i, i + 1));
  auto p = planOk(bs);
  EXPECT_EQ(p.arenaBytes, 2048u);
  EXPECT_EQ(p.arenaLowerBoundBytes, 2048u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(p.buffers[i].offset, i % 2 ? 1024u : 0u) << i;
}

TEST(MemoryPlan, Diamond) {
  // A feeds B and C; D = B + C.
  //   A [0,2] 128, B [1,3] 64, C [2,3] 64, D [3,4] 128.
  // Order: A, D (128), B, C (64). A and D do not overlap: both at 0.
  // B overlaps A and D: 128. C overlaps A, B, D: 192.
  auto p = planOk({buf(0, 128, 0, 2), buf(1, 64, 1, 3), buf(2, 64, 2, 3),
                   buf(3, 128, 3, 4)});
  EXPECT_EQ(offsets(p), (std::vector<uint64_t>{0, 128, 192, 0}));
  EXPECT_EQ(p.arenaBytes, 256u);
  EXPECT_EQ(p.arenaLowerBoundBytes, 256u); // tasks 2 and 3: 256 live
}

TEST(MemoryPlan, PaperExample) {
  // The eight tensor usage records of the example network in Pisarchyk & Lee
  // (first op, last op, size). Live totals per op: 32 60 64 80 88 124 74 114
  // 50, so the bound is 124. Greedy by size (alignment 1), by hand:
  //   t5 64 -> 0; t7 40 (overlaps t5) -> 64; t2 36 (overlaps t5) -> 64;
  //   t0 32 (overlaps none) -> 0; t1 28 (t0@0+32, t2@64): gap [32,64) -> 32;
  //   t3 16 (t5, t1, t2) -> 100; t6 10 (t5, t7) -> 104;
  //   t4 8 (t5, t1, t2, t3) -> 116.  Arena 124 = the bound.
  std::vector<PlanBuffer> bs = {buf(0, 32, 0, 1, 1), buf(1, 28, 1, 4, 1),
                                buf(2, 36, 2, 5, 1), buf(3, 16, 3, 5, 1),
                                buf(4, 8, 4, 5, 1),  buf(5, 64, 5, 7, 1),
                                buf(6, 10, 6, 8, 1), buf(7, 40, 7, 8, 1)};
  auto p = planOk(bs);
  EXPECT_EQ(offsets(p),
            (std::vector<uint64_t>{0, 32, 64, 100, 116, 0, 104, 64}));
  EXPECT_EQ(p.arenaBytes, 124u);
  EXPECT_EQ(p.arenaLowerBoundBytes, 124u);
}

TEST(MemoryPlan, BestFitPicksSmallestGap) {
  // Long-lived buffers with two short-lived fillers between them leave gaps
  // of 128 and 64 bytes once the fillers die; a 64-byte buffer live later
  // takes the smaller (best-fit) gap, not the first.
  //   P0 [0,10] 512 -> 0
  //   P1 [0,10] 256 -> 512   (no gap fits: end)
  //   F1 [0,1]  128 -> 768   (ends early: makes a 128 B gap at 768)
  //   P2 [0,10] 128 -> 896
  //   F2 [0,1]   64 -> 1024  (64 B gap at 1024)
  //   P3 [0,10]  64 -> 1088
  // Q [5,6] 64: gaps [768,896) (128 B) and [1024,1088) (64 B): best fit 1024.
  PlanOptions bestFitOnly;
  bestFitOnly.tryAllHeuristics = false;
  auto p = planOk({buf(0, 512, 0, 10), buf(1, 256, 0, 10), buf(2, 128, 0, 1),
                   buf(3, 128, 0, 10), buf(4, 64, 0, 1), buf(5, 64, 0, 10),
                   buf(6, 64, 5, 6)},
                  bestFitOnly);
  EXPECT_EQ(p.buffers[2].offset, 768u);
  EXPECT_EQ(p.buffers[3].offset, 896u);
  EXPECT_EQ(p.buffers[4].offset, 1024u);
  EXPECT_EQ(p.buffers[5].offset, 1088u);
  EXPECT_EQ(p.buffers[6].offset, 1024u);
  EXPECT_EQ(p.arenaBytes, 1152u);
}

// ---------------------------------------------------------------------------
// The portfolio: each heuristic beyond greedy by size with best fit is kept
// because some problem needs it. Each case below was found by a search over
// small random problems; the expected offsets are the plan that reaches the
// bound, checked by hand against the live sets.

struct PortfolioCase {
  MemoryPlan all, primaryOnly;
};

PortfolioCase planBothWays(const std::vector<PlanBuffer> &bs) {
  PlanOptions primary;
  primary.tryAllHeuristics = false;
  return {planOk(bs), planOk(bs, primary)};
}

TEST(MemoryPlan, FirstFitReachesTheBoundWhereBestFitDoesNot) {
  // Live at task 2: t0 t2 t3 t4 = 192 + 256 + 128 + 128 = 704 B (the bound).
  // Best fit puts t1 [5,6] into t3's 128 B hole at 448, which later blocks
  // t5; first fit takes the lowest hole (0, free once t2 dies at 3).
  auto c = planBothWays({buf(0, 192, 2, 5), buf(1, 128, 5, 6),
                         buf(2, 256, 0, 3), buf(3, 128, 2, 2),
                         buf(4, 128, 2, 5), buf(5, 64, 3, 5)});
  EXPECT_EQ(c.all.arenaLowerBoundBytes, 704u);
  EXPECT_EQ(c.all.arenaBytes, 704u);
  EXPECT_EQ(c.primaryOnly.arenaBytes, 768u);
  EXPECT_EQ(c.all.order, PlacementOrder::SizeThenFirstTask);
  EXPECT_EQ(c.all.gap, GapChoice::FirstFit);
  EXPECT_EQ(offsets(c.all),
            (std::vector<uint64_t>{256, 0, 0, 448, 576, 448}));
}

TEST(MemoryPlan, LatestLastTaskFirstReachesTheBound) {
  // Live at task 0: t0..t3 = 192 + 192 + 64 + 128 = 576 B (the bound). The
  // 192 B buffers by first task put t0 (dies at 0) at the bottom, and t4
  // [3,4] cannot reuse it beside t5; latest last task first places t1 (dies
  // at 2) at 0, t0 above it, and t4 reuses t1's slot.
  auto c = planBothWays({buf(0, 192, 0, 0), buf(1, 192, 0, 2),
                         buf(2, 64, 0, 2), buf(3, 128, 0, 2),
                         buf(4, 192, 3, 4), buf(5, 128, 1, 4)});
  EXPECT_EQ(c.all.arenaLowerBoundBytes, 576u);
  EXPECT_EQ(c.all.arenaBytes, 576u);
  EXPECT_EQ(c.primaryOnly.arenaBytes, 704u);
  EXPECT_EQ(c.all.order, PlacementOrder::SizeThenLastTask);
  EXPECT_EQ(offsets(c.all),
            (std::vector<uint64_t>{192, 0, 512, 384, 0, 192}));
}

TEST(MemoryPlan, BreadthOrderReachesTheBound) {
  // Live at task 3: t0 t1 t2 t5 = 192 + 64 + 64 + 128 = 448 B; at task 2:
  // t0 t3 t5 = 512 B... and t4 [0,1] = 256 with t0: 448 B. The bound is
  // 512 B; both size orders place t4 (the largest) at 0 and end at 576.
  auto c = planBothWays({buf(0, 192, 0, 3), buf(1, 64, 3, 5),
                         buf(2, 64, 3, 3), buf(3, 192, 2, 2),
                         buf(4, 256, 0, 1), buf(5, 128, 2, 3)});
  EXPECT_EQ(c.all.arenaLowerBoundBytes, 512u);
  EXPECT_EQ(c.all.arenaBytes, 512u);
  EXPECT_EQ(c.primaryOnly.arenaBytes, 576u);
  EXPECT_EQ(c.all.order, PlacementOrder::Breadth);
  EXPECT_EQ(offsets(c.all),
            (std::vector<uint64_t>{0, 192, 256, 192, 192, 384}));
}

TEST(MemoryPlan, PortfolioStopsAtTheBound) {
  // The primary heuristic reaches the bound: nothing else is tried, so the
  // plan is exactly greedy by size with best fit.
  auto c = planBothWays({buf(0, 128, 0, 1), buf(1, 256, 1, 2),
                         buf(2, 128, 2, 3)});
  EXPECT_EQ(c.all.arenaBytes, c.all.arenaLowerBoundBytes);
  EXPECT_EQ(c.all.order, PlacementOrder::SizeThenFirstTask);
  EXPECT_EQ(c.all.gap, GapChoice::BestFit);
  EXPECT_EQ(offsets(c.all), offsets(c.primaryOnly));
}

TEST(MemoryPlan, HeuristicNames) {
  EXPECT_STREQ(placementOrderName(PlacementOrder::SizeThenFirstTask), "size");
  EXPECT_STREQ(placementOrderName(PlacementOrder::Breadth), "breadth");
  EXPECT_STREQ(gapChoiceName(GapChoice::FirstFit), "first-fit");
}

// ---------------------------------------------------------------------------
// In-place reuse.

TEST(MemoryPlan, InPlaceChain) {
  // A -> relu(A) in place -> reshape in place: one slot.
  auto p = planOk({buf(0, 256, 0, 1), buf(1, 256, 1, 2, 64, 0),
                   buf(2, 256, 2, 3, 64, 1)});
  EXPECT_EQ(offsets(p), (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(p.arenaBytes, 256u);
  EXPECT_EQ(p.numInPlace, 2u);
  EXPECT_EQ(p.buffers[1].reusesStorageOf, std::optional<uint64_t>(0));
  EXPECT_EQ(p.buffers[2].reusesStorageOf, std::optional<uint64_t>(1));
  EXPECT_FALSE(p.buffers[0].reusesStorageOf);
  EXPECT_EQ(p.arenaLowerBoundBytes, 256u);
  EXPECT_EQ(p.noReuseLowerBoundBytes, 512u);

  PlanOptions off;
  off.allowInPlace = false;
  auto q = planOk({buf(0, 256, 0, 1), buf(1, 256, 1, 2, 64, 0),
                   buf(2, 256, 2, 3, 64, 1)},
                  off);
  EXPECT_EQ(q.numInPlace, 0u);
  EXPECT_EQ(q.arenaBytes, 512u);
  EXPECT_EQ(q.arenaLowerBoundBytes, 512u);
}

TEST(MemoryPlan, InPlaceOnlyOneReuserPerInput) {
  // B and C both may reuse A; the smaller id (B) gets it, C goes elsewhere.
  auto p = planOk({buf(0, 256, 0, 1), buf(1, 256, 1, 2, 64, 0),
                   buf(2, 256, 1, 2, 64, 0)});
  EXPECT_EQ(p.buffers[1].offset, 0u);
  EXPECT_EQ(p.buffers[1].reusesStorageOf, std::optional<uint64_t>(0));
  EXPECT_FALSE(p.buffers[2].reusesStorageOf);
  EXPECT_EQ(p.buffers[2].offset, 256u);
  EXPECT_EQ(p.arenaBytes, 512u);
  EXPECT_EQ(p.arenaLowerBoundBytes, 512u);
}

TEST(MemoryPlan, InPlaceSmallerReuserFreesTheTail) {
  // A 256 [0,1]; B 128 [1,3] reuses A; C 128 [2,3]. After A dies, only B's
  // 128 bytes of the shared slot are live, so C fits at 128.
  auto p = planOk({buf(0, 256, 0, 1), buf(1, 128, 1, 3, 64, 0),
                   buf(2, 128, 2, 3)});
  EXPECT_EQ(offsets(p), (std::vector<uint64_t>{0, 0, 128}));
  EXPECT_EQ(p.arenaBytes, 256u);
  EXPECT_EQ(p.arenaLowerBoundBytes, 256u);
}

TEST(MemoryPlan, InPlaceNeverThreeLiveAtOnce) {
  // B lives only at task 1 (produced and consumed there): A -> B -> C all in
  // place would put three buffers live at task 1 in one slot. The second
  // reuse is refused and the plan stays valid.
  auto p = planOk({buf(0, 256, 0, 1), buf(1, 256, 1, 1, 64, 0),
                   buf(2, 256, 1, 2, 64, 1)});
  EXPECT_EQ(p.numInPlace, 1u);
}

TEST(MemoryPlan, InPlaceCycleRefused) {
  auto p = planOk({buf(0, 64, 3, 3, 64, 1), buf(1, 64, 3, 3, 64, 0)});
  EXPECT_EQ(p.numInPlace, 1u);
}

// ---------------------------------------------------------------------------
// Alignment and padding.

TEST(MemoryPlan, Alignment) {
  // Unpadded 100-byte buffers: the next offset is rounded up, the size not.
  auto p = planOk({buf(0, 100, 0, 2), buf(1, 100, 0, 2), buf(2, 100, 0, 2)});
  EXPECT_EQ(offsets(p), (std::vector<uint64_t>{0, 128, 256}));
  EXPECT_EQ(p.arenaBytes, 356u);
  EXPECT_EQ(p.buffers[0].allocatedSize, 100u);
  EXPECT_EQ(p.arenaAlignment, 64u);

  PlanOptions pad;
  pad.padSizesToAlignment = true;
  auto q = planOk({buf(0, 100, 0, 2), buf(1, 100, 0, 2), buf(2, 100, 0, 2)},
                  pad);
  EXPECT_EQ(q.arenaBytes, 384u);
  EXPECT_EQ(q.buffers[2].allocatedSize, 128u);
  EXPECT_EQ(q.arenaLowerBoundBytes, 384u);
}

TEST(MemoryPlan, MixedAlignments) {
  // A 4096-aligned buffer after a 64-aligned one skips to 4096.
  auto p = planOk({buf(0, 8192, 0, 1, 64), buf(1, 100, 0, 1, 4096),
                   buf(2, 10, 0, 1, 1)});
  EXPECT_EQ(p.buffers[0].offset, 0u);
  EXPECT_EQ(p.buffers[1].offset, 8192u);
  EXPECT_EQ(p.buffers[2].offset, 8292u);
  EXPECT_EQ(p.arenaAlignment, 4096u);
}

TEST(MemoryPlan, ZeroSizedBuffers) {
  auto p = planOk({buf(0, 0, 0, 5), buf(1, 64, 0, 5), buf(2, 0, 1, 2)});
  EXPECT_EQ(p.arenaBytes, 64u);
  EXPECT_EQ(p.buffers[1].offset, 0u);
}

// ---------------------------------------------------------------------------
// Determinism.

TEST(MemoryPlan, ShuffledInputGivesSamePlan) {
  std::mt19937_64 rng(7);
  std::vector<PlanBuffer> bs;
  // Many ties: equal sizes and equal first tasks.
  for (uint64_t i = 0; i < 60; ++i) {
    int64_t f = static_cast<int64_t>(rng() % 10);
    bs.push_back(buf(i * 7 + 3, 64 * (1 + rng() % 3), f,
                     f + static_cast<int64_t>(rng() % 4)));
  }
  auto ref = planOk(bs);
  std::map<uint64_t, uint64_t> refOff;
  for (size_t i = 0; i < bs.size(); ++i)
    refOff[bs[i].id] = ref.buffers[i].offset;
  for (int round = 0; round < 20; ++round) {
    std::shuffle(bs.begin(), bs.end(), rng);
    auto p = planOk(bs);
    EXPECT_EQ(p.arenaBytes, ref.arenaBytes);
    for (size_t i = 0; i < bs.size(); ++i)
      EXPECT_EQ(p.buffers[i].offset, refOff[bs[i].id]) << bs[i].id;
  }
}

// ---------------------------------------------------------------------------
// Invalid inputs.

TEST(MemoryPlan, RejectsInvalidInput) {
  EXPECT_NE(planError({buf(0, 64, 5, 4)}).find("before first task"),
            std::string::npos);
  EXPECT_NE(planError({buf(0, 64, 0, 1, 0)}).find("power of two"),
            std::string::npos);
  EXPECT_NE(planError({buf(0, 64, 0, 1, 48)}).find("power of two"),
            std::string::npos);
  EXPECT_NE(planError({buf(0, 64, 0, 1), buf(0, 64, 0, 1)}).find("duplicate"),
            std::string::npos);
  // In-place candidates that are not legal.
  EXPECT_NE(planError({buf(0, 64, 0, 1, 64, 9)}).find("names no buffer"),
            std::string::npos);
  EXPECT_NE(planError({buf(0, 64, 0, 1, 64, 0)}).find("itself"),
            std::string::npos);
  EXPECT_NE(planError({buf(0, 64, 0, 2), buf(1, 64, 1, 3, 64, 0)})
                .find("not at this buffer's first task"),
            std::string::npos);
  EXPECT_NE(planError({buf(0, 64, 0, 1), buf(1, 128, 1, 3, 64, 0)})
                .find("is smaller"),
            std::string::npos);
}

TEST(MemoryPlan, RejectsOverflow) {
  const uint64_t big = std::numeric_limits<uint64_t>::max() - 10;
  // Two huge live-together buffers: the second offset overflows.
  EXPECT_NE(planError({buf(0, big, 0, 1, 1), buf(1, big, 0, 1, 1)})
                .find("overflow"),
            std::string::npos);
  // Padding overflows.
  MemoryPlan plan;
  std::string error;
  PlanOptions pad;
  pad.padSizesToAlignment = true;
  EXPECT_FALSE(planMemory({buf(0, big, 0, 1, 1024)}, plan, error, pad));
  EXPECT_NE(error.find("overflow"), std::string::npos);
  // Extreme task numbers are fine.
  auto p = planOk({buf(0, 64, std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::max())});
  EXPECT_EQ(p.arenaBytes, 64u);
}

TEST(MemoryPlan, VerifierCatchesBadPlans) {
  // 0 [0,2] and 1 [1,3] live together; 2 reuses 1 in place at task 3.
  std::vector<PlanBuffer> bs = {buf(0, 128, 0, 2), buf(1, 128, 1, 3),
                                buf(2, 128, 3, 4, 64, 1)};
  MemoryPlan p;
  p.buffers.resize(3);
  p.buffers[0] = {0, 128, std::nullopt};
  p.buffers[1] = {128, 128, std::nullopt};
  p.buffers[2] = {128, 128, uint64_t(1)};
  p.arenaBytes = 256;
  std::string error;
  EXPECT_TRUE(verifyPlan(bs, p, error)) << error;

  MemoryPlan overlap = p;
  overlap.buffers[1].offset = overlap.buffers[2].offset = 64;
  EXPECT_FALSE(verifyPlan(bs, overlap, error));
  EXPECT_NE(error.find("overlap in memory"), std::string::npos) << error;

  MemoryPlan misaligned = p;
  misaligned.buffers[0].offset += 32;
  EXPECT_FALSE(verifyPlan(bs, misaligned, error));
  EXPECT_NE(error.find("alignment"), std::string::npos) << error;

  MemoryPlan outside = p;
  outside.arenaBytes -= 1;
  EXPECT_FALSE(verifyPlan(bs, outside, error));
  EXPECT_NE(error.find("outside the arena"), std::string::npos) << error;

  MemoryPlan small = p;
  small.buffers[0].allocatedSize = 64;
  EXPECT_FALSE(verifyPlan(bs, small, error));

  MemoryPlan missing = p;
  missing.buffers.pop_back();
  EXPECT_FALSE(verifyPlan(bs, missing, error));

  // The pair claim must be a legal in-place pair at one offset.
  MemoryPlan moved = p;
  moved.buffers[2].offset = 0;
  EXPECT_FALSE(verifyPlan(bs, moved, error));
  EXPECT_NE(error.find("not a legal in-place pair"), std::string::npos);
  // Without the claim, the legal pair (2 reuses 1 at task 3) may still share
  // storage; 1 and 0, live together at tasks 1..2, may not.
  MemoryPlan unclaimed = p;
  unclaimed.buffers[2].reusesStorageOf.reset();
  EXPECT_TRUE(verifyPlan(bs, unclaimed, error)) << error;
  MemoryPlan notPair = p;
  notPair.buffers[1].offset = notPair.buffers[2].offset = 0;
  EXPECT_FALSE(verifyPlan(bs, notPair, error));
  EXPECT_NE(error.find("overlap in memory"), std::string::npos) << error;
}

// ---------------------------------------------------------------------------
// Property tests over random problems.

struct Ratios {
  std::vector<double> r;
  void add(const MemoryPlan &p) {
    r.push_back(p.arenaLowerBoundBytes
                    ? double(p.arenaBytes) / double(p.arenaLowerBoundBytes)
                    : 1.0);
  }
  double quantile(double q) const {
    std::vector<double> s = r;
    std::sort(s.begin(), s.end());
    size_t i = std::min(s.size() - 1, size_t(q * double(s.size() - 1) + 0.5));
    return s[i];
  }
  double fractionAtMost(double x) const {
    size_t c = 0;
    for (double v : r)
      c += v <= x + 1e-12;
    return double(c) / double(r.size());
  }
  void report(const char *what) const {
    std::printf("[memplan] %s: %zu problems, arena/lower_bound min %.4f "
                "median %.4f p90 %.4f p99 %.4f max %.4f; <=1.00: %.1f%%, "
                "<=1.05: %.1f%%, <=1.10: %.1f%%\n",
                what, r.size(), quantile(0), quantile(0.5), quantile(0.9),
                quantile(0.99), quantile(1), 100 * fractionAtMost(1.0),
                100 * fractionAtMost(1.05), 100 * fractionAtMost(1.10));
    std::fflush(stdout);
  }
};

void checkProperties(const std::vector<PlanBuffer> &bs, const MemoryPlan &p) {
  std::string error;
  ASSERT_TRUE(verifyPlan(bs, p, error)) << error;
  EXPECT_GE(p.arenaBytes, p.arenaLowerBoundBytes);
  EXPECT_GE(p.noReuseLowerBoundBytes, p.arenaLowerBoundBytes);
  uint64_t largest = 0;
  for (const PlanBuffer &b : bs)
    largest = std::max(largest, b.size);
  EXPECT_GE(p.arenaLowerBoundBytes, largest);
}

// Arbitrary interval problems: random live ranges, sizes over four orders of
// magnitude, random power-of-two alignments, legal in-place candidates.
std::vector<PlanBuffer> randomProblem(std::mt19937_64 &rng) {
  std::vector<PlanBuffer> bs;
  int n = 1 + int(rng() % 80);
  int tasks = 1 + int(rng() % 40);
  for (int i = 0; i < n; ++i) {
    int64_t f = int64_t(rng() % tasks);
    int64_t len = int64_t(rng() % 3 == 0 ? rng() % tasks : rng() % 3);
    uint64_t size = 1 + rng() % (uint64_t(1) << (4 + rng() % 14));
    uint64_t align = uint64_t(1) << (rng() % 10);
    PlanBuffer b = buf(uint64_t(i) * 3 + 1, size, f, f + len, align);
    if (rng() % 3 == 0) {
      std::vector<const PlanBuffer *> cands;
      for (const PlanBuffer &c : bs)
        if (c.lastTask == f && c.size >= size)
          cands.push_back(&c);
      if (!cands.empty())
        b.inPlaceOf = cands[rng() % cands.size()]->id;
    }
    bs.push_back(b);
  }
  return bs;
}

TEST(MemoryPlan, PropertyRandomProblems) {
  std::mt19937_64 rng(20240601);
  Ratios ratios, noReuse;
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<PlanBuffer> bs = randomProblem(rng);
    MemoryPlan p = planOk(bs);
    checkProperties(bs, p);
    ratios.add(p);
    // Same plan for a shuffled input.
    std::vector<size_t> perm(bs.size());
    for (size_t i = 0; i < perm.size(); ++i)
      perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<PlanBuffer> shuffled;
    for (size_t i : perm)
      shuffled.push_back(bs[i]);
    MemoryPlan q = planOk(shuffled);
    ASSERT_EQ(q.arenaBytes, p.arenaBytes);
    for (size_t i = 0; i < perm.size(); ++i)
      ASSERT_EQ(q.buffers[i].offset, p.buffers[perm[i]].offset);
    // Without in-place reuse the plain bound holds.
    PlanOptions off;
    off.allowInPlace = false;
    MemoryPlan r = planOk(bs, off);
    checkProperties(bs, r);
    EXPECT_GE(r.arenaBytes, r.noReuseLowerBoundBytes);
    EXPECT_EQ(r.numInPlace, 0u);
    noReuse.add(r);
    if (HasFatalFailure())
      return;
  }
  ratios.report("random interval problems (in-place on)");
  noReuse.report("random interval problems (in-place off)");
}

// A dataflow graph in task order: task i produces buffer i and reads `inputs`.
struct Graph {
  std::vector<uint64_t> sizes;
  std::vector<std::vector<int>> inputs;
  std::vector<int> inPlace; // input index reused in place, or -1
  int add(uint64_t size, std::vector<int> in, int inPlaceInput = -1) {
    sizes.push_back(size);
    inputs.push_back(std::move(in));
    inPlace.push_back(inPlaceInput);
    return int(sizes.size()) - 1;
  }
  // Live range: producer .. last consumer (the final output to the end). An
  // in-place candidate is kept only where it is legal (its last reader).
  std::vector<PlanBuffer> buffers(bool inPlaceOn) const {
    int n = int(sizes.size());
    std::vector<int64_t> last(n);
    for (int i = 0; i < n; ++i)
      last[i] = i;
    for (int i = 0; i < n; ++i)
      for (int j : inputs[i])
        last[j] = std::max<int64_t>(last[j], i);
    last[n - 1] = n;
    std::vector<PlanBuffer> bs;
    for (int i = 0; i < n; ++i) {
      PlanBuffer b = buf(uint64_t(i), sizes[i], i, last[i]);
      int c = inPlace[i];
      if (inPlaceOn && c >= 0 && last[c] == i && sizes[c] >= sizes[i])
        b.inPlaceOf = uint64_t(c);
      bs.push_back(b);
    }
    return bs;
  }
};

// Chains with skip connections: each op reads the previous output and, now
// and then, one from up to 12 ops back (residuals, attention's q/k/v fan-out);
// sizes from a few shape classes (1x, 2x, 4x a base, and a large "scores"
// class), elementwise-looking ops offered in place.
Graph randomSkipChain(std::mt19937_64 &rng) {
  Graph g;
  uint64_t base = 64 * (1 + rng() % 1024);
  int n = 8 + int(rng() % 200);
  g.add(base, {});
  for (int i = 1; i < n; ++i) {
    std::vector<int> in = {i - 1};
    if (rng() % 10 < 3 && i >= 2) {
      int back = 2 + int(rng() % std::min(11, i - 1));
      in.push_back(i - back);
    }
    static const uint64_t mult[] = {1, 1, 1, 1, 1, 2, 4, 8};
    uint64_t size = base * mult[rng() % 8];
    int ip = -1;
    if (rng() % 3 == 0) {
      size = std::min(size, g.sizes[i - 1]);
      ip = i - 1;
    }
    g.add(size, in, ip);
  }
  return g;
}

// A BERT-style encoder with random dimensions (fp16 activations).
Graph randomEncoder(std::mt19937_64 &rng, int layers, uint64_t seq,
                    uint64_t hidden, uint64_t heads) {
  Graph g;
  const uint64_t e = 2; // fp16
  uint64_t act = seq * hidden * e, ffn = 4 * act,
           scores = heads * seq * seq * e;
  int x = g.add(act, {}); // embeddings
  for (int l = 0; l < layers; ++l) {
    int ln1 = g.add(act, {x});
    int q = g.add(act, {ln1});
    int k = g.add(act, {ln1});
    int v = g.add(act, {ln1});
    int s = g.add(scores, {q, k});
    int p = g.add(scores, {s}, s); // softmax in place
    int ctx = g.add(act, {p, v});
    int o = g.add(act, {ctx});
    int x2 = g.add(act, {x, o}, o); // residual add in place
    int ln2 = g.add(act, {x2});
    int f1 = g.add(ffn, {ln2});
    int ge = g.add(ffn, {f1}, f1); // gelu in place
    int f2 = g.add(act, {ge});
    x = g.add(act, {x2, f2}, f2);
  }
  (void)rng;
  return g;
}

// BERT-base (12 layers, hidden 768, 12 heads, seq 128) as vinci-partition-
// kernels outlines it today, in its task order, fp16 activations: no kernel
// is offered in place. The mask cast and the three embedding gathers come
// first; a layer is q/k/v matmuls with head-split transposes, the scores
// matmul (reads the mask), softmax, the context matmul and its transpose,
// the output projection with the residual add, LayerNorm, the FFN up matmul
// (GELU fused) and the FFN down matmul with the residual add, LayerNorm.
// The last LayerNorm writes the graph output, which is not in the arena.
std::vector<PlanBuffer> bertBaseAsPartitioned() {
  const uint64_t act = 128 * 768 * 2, scores = 12 * 128 * 128 * 2,
                 ffn = 4 * act, mask = 128 * 2;
  Graph g;
  int maskCast = g.add(mask, {});
  int wordEmb = g.add(act, {}), posEmb = g.add(act, {}),
      typeEmb = g.add(act, {});
  int sum = g.add(act, {wordEmb, posEmb, typeEmb});
  int x = g.add(act, {sum});
  for (int layer = 0; layer < 12; ++layer) {
    int q = g.add(act, {x});
    int qHeads = g.add(act, {q});
    int k = g.add(act, {x});
    int v = g.add(act, {x});
    int vHeads = g.add(act, {v});
    int kHeads = g.add(act, {k});
    int s = g.add(scores, {qHeads, kHeads, maskCast});
    int p = g.add(scores, {s});
    int ctx = g.add(act, {p, vHeads});
    int ctxRows = g.add(act, {ctx});
    int attnOut = g.add(act, {ctxRows, x});
    int ln1 = g.add(act, {attnOut});
    int up = g.add(ffn, {ln1});
    int down = g.add(act, {up, ln1});
    x = g.add(act, {down});
  }
  std::vector<PlanBuffer> bs = g.buffers(false);
  bs.pop_back(); // the graph output is the caller's buffer
  return bs;
}

TEST(MemoryPlan, BertBaseAsPartitioned) {
  // The peak is six activations plus the mask: the FFN down matmul (up's
  // 4 + ln1 + down) and the scores matmul (x, q, k, v heads + scores' 2).
  std::vector<PlanBuffer> bs = bertBaseAsPartitioned();
  const uint64_t act = 128 * 768 * 2;
  MemoryPlan p = planOk(bs);
  PlanOptions primary;
  primary.tryAllHeuristics = false;
  MemoryPlan q = planOk(bs, primary);
  EXPECT_EQ(p.arenaLowerBoundBytes, 6 * act + 256);
  // Greedy by size with best fit needs a seventh activation slot (1.17);
  // the portfolio reaches the bound.
  EXPECT_GT(double(q.arenaBytes), 1.10 * double(q.arenaLowerBoundBytes));
  EXPECT_EQ(p.arenaBytes, p.arenaLowerBoundBytes);
  std::printf("[memplan] BERT-base as partitioned: arena %llu B, lower bound "
              "%llu B (ratio %.4f, %s/%s); greedy by size with best fit "
              "alone %llu B (%.4f)\n",
              (unsigned long long)p.arenaBytes,
              (unsigned long long)p.arenaLowerBoundBytes,
              double(p.arenaBytes) / double(p.arenaLowerBoundBytes),
              placementOrderName(p.order), gapChoiceName(p.gap),
              (unsigned long long)q.arenaBytes,
              double(q.arenaBytes) / double(q.arenaLowerBoundBytes));
}

// Plans `bs` three ways: the default (the whole portfolio), greedy by size
// with best fit alone, and without in-place reuse.
struct ThreeWay {
  Ratios plan, greedyOnly, noInPlace;
  double worstPlan = 0;
  void run(const std::vector<PlanBuffer> &withInPlace,
           const std::vector<PlanBuffer> &without) {
    MemoryPlan p = planOk(withInPlace);
    checkProperties(withInPlace, p);
    PlanOptions g;
    g.tryAllHeuristics = false;
    MemoryPlan q = planOk(withInPlace, g);
    checkProperties(withInPlace, q);
    EXPECT_EQ(q.order, PlacementOrder::SizeThenFirstTask);
    EXPECT_EQ(q.gap, GapChoice::BestFit);
    EXPECT_LE(p.arenaBytes, q.arenaBytes);
    PlanOptions off;
    off.allowInPlace = false;
    MemoryPlan r = planOk(without, off);
    checkProperties(without, r);
    plan.add(p);
    greedyOnly.add(q);
    noInPlace.add(r);
    worstPlan = std::max(worstPlan, plan.r.back());
  }
  void report(const std::string &what) const {
    plan.report((what + " (default)").c_str());
    greedyOnly.report((what + " (greedy by size alone)").c_str());
    noInPlace.report((what + " (default, in-place off)").c_str());
  }
};

TEST(MemoryPlan, PropertyTransformerLikeGraphs) {
  std::mt19937_64 rng(424242);
  ThreeWay chains, encoders;
  for (int iter = 0; iter < 3000; ++iter) {
    Graph g = randomSkipChain(rng);
    chains.run(g.buffers(true), g.buffers(false));
    if (HasFatalFailure())
      return;
  }
  for (int iter = 0; iter < 300; ++iter) {
    static const uint64_t seqs[] = {16, 32, 64, 128, 256, 384, 512};
    static const uint64_t hid[] = {64, 128, 256, 512, 768, 1024};
    uint64_t seq = seqs[rng() % 7], hidden = hid[rng() % 6];
    uint64_t heads = hidden / 64;
    int layers = 1 + int(rng() % 12);
    Graph g = randomEncoder(rng, layers, seq, hidden, heads);
    encoders.run(g.buffers(true), g.buffers(false));
    if (HasFatalFailure())
      return;
  }
  chains.report("skip-connection chains");
  encoders.report("BERT-style encoders");
  // Measured (docs/memory-planning.md): random skip chains reach 1.36, so
  // 1.10 is not asserted for them; the encoders stay at 1.00 by default.
  EXPECT_LE(encoders.worstPlan, 1.10);
  // Where greedy by size alone loses: short sequences, where the FFN's 4x
  // buffer is the peak. 2 layers, seq 16, hidden 64 (A = 2 KiB): the bound
  // is 6A (x2 + gelu's 4A + f2 at the second FFN matmul); greedy by size
  // places the long-lived residual units badly and needs 7A.
  {
    Graph small = randomEncoder(rng, 2, 16, 64, 1);
    MemoryPlan d = planOk(small.buffers(true));
    PlanOptions g;
    g.tryAllHeuristics = false;
    MemoryPlan q = planOk(small.buffers(true), g);
    EXPECT_EQ(d.arenaLowerBoundBytes, 6u * 2048);
    EXPECT_EQ(q.arenaBytes, 7u * 2048);
    EXPECT_EQ(d.arenaBytes, 6u * 2048);
    EXPECT_FALSE(d.order == PlacementOrder::SizeThenFirstTask &&
                 d.gap == GapChoice::BestFit);
  }
  // BERT-base itself: 12 layers, hidden 768, 12 heads, seq 128.
  Graph bert = randomEncoder(rng, 12, 128, 768, 12);
  MemoryPlan p = planOk(bert.buffers(true));
  std::printf("[memplan] BERT-base encoder: arena %llu B, lower bound %llu B "
              "(ratio %.4f), no-reuse bound %llu B, %zu in place\n",
              (unsigned long long)p.arenaBytes,
              (unsigned long long)p.arenaLowerBoundBytes,
              double(p.arenaBytes) / double(p.arenaLowerBoundBytes),
              (unsigned long long)p.noReuseLowerBoundBytes, p.numInPlace);
  EXPECT_LE(double(p.arenaBytes), 1.10 * double(p.arenaLowerBoundBytes));
}

} // namespace
