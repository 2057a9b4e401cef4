// --input_shape and --const_input parsing: the syntax users type on the command line.
#include "onnx/OnnxImporter.h"

#include <gtest/gtest.h>

using vinci::onnx_import::parseConstInputs;
using vinci::onnx_import::parseInputShapes;

TEST(InputShape, ParsesSeveralInputs) {
  std::map<std::string, std::vector<int64_t>> shapes;
  EXPECT_EQ(parseInputShapes("input:1,3,224,224;mask:1,128", shapes), "");
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes["input"], (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(shapes["mask"], (std::vector<int64_t>{1, 128}));
}

TEST(InputShape, NamesMayContainColons) {
  std::map<std::string, std::vector<int64_t>> shapes;
  EXPECT_EQ(parseInputShapes("encoder:input:2,8", shapes), "");
  EXPECT_EQ(shapes["encoder:input"], (std::vector<int64_t>{2, 8}));
}

TEST(InputShape, ScalarInputHasNoDims) {
  std::map<std::string, std::vector<int64_t>> shapes;
  EXPECT_EQ(parseInputShapes("steps:", shapes), "");
  EXPECT_TRUE(shapes["steps"].empty());
}

TEST(InputShape, RejectsBadText) {
  for (const char *text : {"input", ":1,2", "x:1,-3", "x:1,a", "x:1,,2", "x:1;x:2", "",
                           "x:99999999999999999999"}) {
    std::map<std::string, std::vector<int64_t>> shapes;
    std::string error = parseInputShapes(text, shapes);
    EXPECT_NE(error, "") << "accepted '" << text << "'";
    EXPECT_EQ(error.find('\n'), std::string::npos) << "errors are one line";
  }
}

TEST(ConstInput, ParsesPaths) {
  std::map<std::string, std::string> inputs;
  EXPECT_EQ(parseConstInputs("shape:/tmp/a.pb;axes:rel/b.pb", inputs), "");
  EXPECT_EQ(inputs["shape"], "/tmp/a.pb");
  EXPECT_EQ(inputs["axes"], "rel/b.pb");
}

TEST(ConstInput, RejectsBadText) {
  for (const char *text : {"shape", "shape:", ":a.pb", "a:x.pb;a:y.pb", ""}) {
    std::map<std::string, std::string> inputs;
    EXPECT_NE(parseConstInputs(text, inputs), "") << "accepted '" << text << "'";
  }
}
