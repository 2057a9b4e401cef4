// ATC's dynamic-shape options as users type them: --input_shape with -1 and
// one of --dynamic_batch_size, --dynamic_image_size, --dynamic_dims.
#include "driver/Gears.h"

#include <gtest/gtest.h>

using vinci::driver::GearKind;
using vinci::driver::GearPlan;
using vinci::driver::parseGearPlan;
using vinci::driver::ShapeOptions;

namespace {

ShapeOptions shapes(std::string inputShape) {
  ShapeOptions options;
  options.inputShape = std::move(inputShape);
  return options;
}

// The error for `options`, which must be one line and name `option`.
std::string errorOf(const ShapeOptions &options, const std::string &option) {
  GearPlan plan;
  std::string error = parseGearPlan(options, plan);
  EXPECT_NE(error, "") << "accepted";
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_NE(error.find(option), std::string::npos) << "'" << option << "' not in: " << error;
  return error;
}

TEST(GearOptions, StaticShapesHaveNoGears) {
  GearPlan plan;
  ASSERT_EQ(parseGearPlan(shapes("x:1,3,224,224;mask:1,128"), plan), "");
  EXPECT_FALSE(plan.hasGears());
  ASSERT_EQ(plan.inputs.size(), 2u);
  EXPECT_EQ(plan.inputs[1].name, "mask"); // in the order given
  EXPECT_EQ(plan.staticShapes()["x"], (std::vector<int64_t>{1, 3, 224, 224}));
  ASSERT_EQ(parseGearPlan(ShapeOptions(), plan), "");
  EXPECT_TRUE(plan.inputs.empty());
}

TEST(GearOptions, BatchSizesSetDimZeroOfEveryDynamicInput) {
  ShapeOptions options = shapes("x:-1,3,32,32;y:-1,10");
  options.batchSizes = "1,2,4,8";
  GearPlan plan;
  ASSERT_EQ(parseGearPlan(options, plan), "");
  EXPECT_EQ(plan.kind, GearKind::BatchSize);
  ASSERT_EQ(plan.gears.size(), 4u);
  EXPECT_EQ(plan.gears[2].shapes["x"], (std::vector<int64_t>{4, 3, 32, 32}));
  EXPECT_EQ(plan.gears[2].shapes["y"], (std::vector<int64_t>{4, 10}));
  EXPECT_EQ(plan.label(3), "8");
  ASSERT_EQ(plan.dims.size(), 2u);
  EXPECT_EQ(plan.dims[1].value, 0u);
  // ATC also takes ';' between batch sizes.
  options.batchSizes = "1;2";
  ASSERT_EQ(parseGearPlan(options, plan), "");
  EXPECT_EQ(plan.gears.size(), 2u);
}

TEST(GearOptions, ImageSizesFollowTheInputFormat) {
  ShapeOptions options = shapes("image:1,3,-1,-1");
  options.imageSizes = "416,416;832,640";
  GearPlan plan;
  ASSERT_EQ(parseGearPlan(options, plan), "");  // NCHW by default
  EXPECT_EQ(plan.gears[1].shapes["image"], (std::vector<int64_t>{1, 3, 832, 640}));
  EXPECT_EQ(plan.label(1), "832,640");
  options = shapes("image:1,-1,-1,3");
  options.imageSizes = "416,416;832,640";
  options.inputFormat = "nhwc";
  ASSERT_EQ(parseGearPlan(options, plan), "");
  EXPECT_EQ(plan.gears[1].shapes["image"], (std::vector<int64_t>{1, 832, 640, 3}));
  EXPECT_EQ(plan.dims[0].value, 0u);  // height
  EXPECT_EQ(plan.dims[1].value, 1u);  // width
}

TEST(GearOptions, DimsTakeOneValuePerDynamicDimInOrder) {
  ShapeOptions options = shapes("ids:1,-1;mask:1,-1;past:1,2,-1,64");
  options.dims = "32,32,0;1,1,128";
  GearPlan plan;
  ASSERT_EQ(parseGearPlan(options, plan), "");
  EXPECT_EQ(plan.kind, GearKind::Dims);
  EXPECT_EQ(plan.gears[0].shapes["past"], (std::vector<int64_t>{1, 2, 0, 64}));  // 0: empty cache
  EXPECT_EQ(plan.gears[1].shapes["mask"], (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(plan.label(1), "1,1,128");
  EXPECT_EQ(plan.dims[2].value, 2u);
  EXPECT_EQ(plan.dims[2].input, "past");
}

TEST(GearOptions, FaultsAreOneLineErrorsNamingTheOption) {
  ShapeOptions both = shapes("x:-1,4");
  both.batchSizes = "1,2";
  both.dims = "1;2";
  EXPECT_NE(errorOf(both, "--dynamic_batch_size").find("mutually exclusive"), std::string::npos);

  EXPECT_NE(errorOf(shapes("x:-1,4"), "--input_shape").find("input 'x' dim 0"), std::string::npos);
  ShapeOptions noMinusOne = shapes("x:2,4");
  noMinusOne.dims = "1;2";
  errorOf(noMinusOne, "--dynamic_dims");
  ShapeOptions noShape;
  noShape.batchSizes = "1,2";
  errorOf(noShape, "--dynamic_batch_size");

  ShapeOptions batch = shapes("x:1,-1");
  batch.batchSizes = "1,2";
  EXPECT_NE(errorOf(batch, "--dynamic_batch_size").find("dim 0 (the batch) only"), std::string::npos);
  for (const char *text : {"1", "1,x", "1,,2", "0,1", "1,2,1", "-1,2"}) {
    ShapeOptions bad = shapes("x:-1,4");
    bad.batchSizes = text;
    errorOf(bad, "--dynamic_batch_size");
  }
  std::string many;
  for (int i = 1; i <= 101; ++i)
    many += (i > 1 ? "," : "") + std::to_string(i);
  ShapeOptions tooMany = shapes("x:-1,4");
  tooMany.batchSizes = many;
  EXPECT_NE(errorOf(tooMany, "--dynamic_batch_size").find("101 gears"), std::string::npos);

  ShapeOptions image = shapes("x:1,3,-1,-1");
  image.imageSizes = "416;832,832";
  EXPECT_NE(errorOf(image, "--dynamic_image_size").find("(height,width)"), std::string::npos);
  image.imageSizes = "416,416;832,832";
  image.inputFormat = "ND";
  errorOf(image, "--input_format");
  image.inputFormat = "NHWC";  // -1 in dims 2 and 3 are W and C for NHWC
  errorOf(image, "--dynamic_image_size");
  image.inputFormat = "NC1HWC0";
  EXPECT_NE(errorOf(image, "--input_format").find("known: NCHW, NHWC, ND"), std::string::npos);
  ShapeOptions oneSide = shapes("x:1,3,-1,224");
  oneSide.imageSizes = "416,416;832,832";
  EXPECT_NE(errorOf(oneSide, "--dynamic_image_size").find("both the height and the width"),
            std::string::npos);

  ShapeOptions dims = shapes("a:1,-1;b:-1");
  dims.dims = "1,2;3";
  EXPECT_NE(errorOf(dims, "--dynamic_dims").find("one per -1"), std::string::npos);
  dims.dims = "1,2;1,2";
  EXPECT_NE(errorOf(dims, "--dynamic_dims").find("twice"), std::string::npos);
  dims.dims = "1,2;3,4";
  dims.inputFormat = "NCHW";
  errorOf(dims, "--input_format ND");
  for (const char *text : {"x:1,-2", "x:1,a", "x", ":1", "x:1;x:2"}) {
    ShapeOptions bad = shapes(text);
    errorOf(bad, "--input_shape");
  }
}

} // namespace
