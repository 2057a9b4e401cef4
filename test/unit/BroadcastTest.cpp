// Numpy broadcasting and ONNX slice clamping, the shape rules most ops share.
#include "vg/VgOps.h"

#include <gtest/gtest.h>

using namespace vinci::vg;
using llvm::ArrayRef;
using llvm::SmallVector;

static std::optional<SmallVector<int64_t>> bcast(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return broadcastShapes({a, b});
}

TEST(Broadcast, NumpyRules) {
  EXPECT_EQ(*bcast({3, 4, 5}, {5}), (SmallVector<int64_t>{3, 4, 5}));
  EXPECT_EQ(*bcast({3, 1, 5}, {4, 1}), (SmallVector<int64_t>{3, 4, 5}));
  EXPECT_EQ(*bcast({}, {2, 3}), (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(*bcast({0, 1}, {1, 7}), (SmallVector<int64_t>{0, 7}));
  EXPECT_FALSE(bcast({3, 4}, {5}).has_value());
  EXPECT_FALSE(bcast({2, 3}, {3, 3}).has_value());
}

TEST(Broadcast, DynamicDimsTakeStaticPartner) {
  constexpr int64_t dyn = mlir::ShapedType::kDynamic;
  EXPECT_EQ(*bcast({dyn, 4}, {3, 1}), (SmallVector<int64_t>{3, 4}));
  EXPECT_EQ(*bcast({dyn}, {1}), (SmallVector<int64_t>{dyn}));
}

TEST(NormalizeAxis, Range) {
  EXPECT_EQ(normalizeAxis(-1, 4), 3);
  EXPECT_EQ(normalizeAxis(0, 4), 0);
  EXPECT_FALSE(normalizeAxis(4, 4).has_value());
  EXPECT_FALSE(normalizeAxis(-5, 4).has_value());
}

TEST(SliceRange, OnnxClamping) {
  // Forward, with out-of-range ends (INT64_MAX means "to the end").
  SliceRange all = resolveSliceRange(10, 0, INT64_MAX, 1);
  EXPECT_EQ(all.start, 0);
  EXPECT_EQ(all.count, 10);
  SliceRange stepped = resolveSliceRange(10, 1, 8, 3); // 1, 4, 7
  EXPECT_EQ(stepped.start, 1);
  EXPECT_EQ(stepped.count, 3);
  // Negative step walks back to the front (INT64_MIN end).
  SliceRange reversed = resolveSliceRange(5, -1, INT64_MIN, -1);
  EXPECT_EQ(reversed.start, 4);
  EXPECT_EQ(reversed.count, 5);
  SliceRange empty = resolveSliceRange(5, 3, 1, 1);
  EXPECT_EQ(empty.count, 0);
  SliceRange clampedStart = resolveSliceRange(20, 1000, 1000, 1);
  EXPECT_EQ(clampedStart.count, 0);
}
