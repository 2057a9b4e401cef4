// GoogleTest of the exporter's refusals (backend/ascendc, docs/ascendc.md):
// a dv kernel it cannot write is one line naming the kernel and the
// instruction, and no folder is left behind, not even a half-written one.
// Planned for Ascend310P3-AscendC, every model the compiler compiles exports
// (node tests, BERT, ResNet-18), so the refused kernels are written here in
// dv: an instruction no Ascend C call expresses, and a kernel planned for the
// 310P3's whole UB. The near-miss, the same kernel as the compiler writes it,
// exports.
#include <gtest/gtest.h>

#include <string>

#include "ascendc/ExportAscendC.h"
#include "dv/DvOps.h"
#include "vg/VgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace {

// test_abs as vinci-compile --emit=dv writes it for Ascend310P3-AscendC;
// @SOC@ and @BODY_EXTRA@ are the cases' edits.
const char *const kAbs = R"mlir(
module attributes {dv.soc = "@SOC@", vinci.precision_mode = "force_fp16"} {
  func.func @main(%arg0: tensor<3x4x5xf32> {vg.name = "x"}) -> (tensor<3x4x5xf32> {vg.name = "y"}) {
    %0 = dv.launch @k0_abs(%arg0) : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    return %0 : tensor<3x4x5xf32>
  }
  dv.kernel @k0_abs(%arg0: !dv.gm<3x4x5xf32>, %arg1: !dv.gm<3x4x5xf32>) attributes {block_dim = 1 : i64, kind = "vector", vinci.template = "elementwise"} {
    %0 = dv.view %arg0[0] : !dv.gm<3x4x5xf32> to !dv.gm<60xf32>
    %1 = dv.alloc offset 0 : !dv.buf<ub, 128xf32>
    dv.copy %0 to %1 {burst_bytes = 240 : i64} : !dv.gm<60xf32> to !dv.buf<ub, 128xf32>
    @BODY_EXTRA@
    dv.set_flag MTE2 -> V event 0
    %2 = dv.alloc offset 512 : !dv.buf<ub, 128xf16>
    %3 = dv.view %1[0] : !dv.buf<ub, 128xf32> to !dv.buf<ub, 64xf32>
    %4 = dv.view %2[0] : !dv.buf<ub, 128xf16> to !dv.buf<ub, 64xf16>
    dv.wait_flag MTE2 -> V event 0
    dv.vconv %3 to %4 {mask = array<i64: 1152921504606846975, 0>, rep = array<i64: 4, 8>, repeat = 1 : i64} : !dv.buf<ub, 64xf32> to !dv.buf<ub, 64xf16>
    %5 = dv.alloc offset 768 : !dv.buf<ub, 128xf16>
    dv.vabs %2 to %5 {mask = array<i64: 1152921504606846975, 0>, repeat = 1 : i64} : !dv.buf<ub, 128xf16> to !dv.buf<ub, 128xf16>
    %6 = dv.alloc offset 0 : !dv.buf<ub, 128xf32>
    %7 = dv.view %5[0] : !dv.buf<ub, 128xf16> to !dv.buf<ub, 64xf16>
    %8 = dv.view %6[0] : !dv.buf<ub, 128xf32> to !dv.buf<ub, 64xf32>
    dv.vconv %7 to %8 {mask = array<i64: 1152921504606846975, 0>, rep = array<i64: 8, 4>, repeat = 1 : i64} : !dv.buf<ub, 64xf16> to !dv.buf<ub, 64xf32>
    dv.set_flag V -> MTE3 event 0
    %9 = dv.view %arg1[0] : !dv.gm<3x4x5xf32> to !dv.gm<60xf32>
    dv.wait_flag V -> MTE3 event 0
    dv.copy %6 to %9 {burst_bytes = 240 : i64} : !dv.buf<ub, 128xf32> to !dv.gm<60xf32>
    dv.return
  }
}
)mlir";

std::string replaced(std::string text, const std::string &key, const std::string &value) {
  text.replace(text.find(key), key.size(), value);
  return text;
}

class Export : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx.loadDialect<vinci::dv::DVDialect, vinci::vg::VGDialect, mlir::func::FuncDialect>();
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("vinci-ascendc-export", dir));
    work = dir.str().str();
    output = work + "/export";
  }
  void TearDown() override { (void)llvm::sys::fs::remove_directories(work); }

  /// Exports kAbs with the edits: "" or the exporter's error.
  std::string run(const std::string &soc, const std::string &extra) {
    std::string text = replaced(replaced(kAbs, "@SOC@", soc), "@BODY_EXTRA@", extra);
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
    if (!module) return "does not parse";
    vinci::backend::AscendCSummary summary;
    std::string error;
    return vinci::backend::exportAscendC(*module, "abs", output, summary, error) ? "" : error;
  }

  /// The entries of the work folder: the export, or nothing at all.
  unsigned entries() {
    unsigned n = 0;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(work, ec), end; it != end && !ec; it.increment(ec))
      ++n;
    return n;
  }

  mlir::MLIRContext ctx;
  std::string work, output;
};

TEST_F(Export, TheCompilersKernelExports) {
  ASSERT_EQ(run("Ascend310P3-AscendC", ""), "");
  EXPECT_TRUE(llvm::sys::fs::exists(output + "/kernels/k0_abs.cpp"));
  EXPECT_TRUE(llvm::sys::fs::exists(output + "/main.cpp"));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(Export, AnInstructionWithNoAscendCCallIsOneLineNamingKernelAndInstruction) {
  // copy_nchw2nc1hwc0: an element-wise scatter, which no DataCopy expresses.
  std::string error = run("Ascend310P3-AscendC",
                          "%s = dv.alloc offset 1024 : !dv.buf<ub, 1x1x4x5x16xf32, nc1hwc0>\n"
                          "    dv.copy_nchw2nc1hwc0 %arg0 to %s {channels = 3 : i64, spatial = 20 : "
                          "i64, src_channel_stride = 20 : i64} : !dv.gm<3x4x5xf32> to "
                          "!dv.buf<ub, 1x1x4x5x16xf32, nc1hwc0>");
  EXPECT_NE(error.find("kernel k0_abs: "), std::string::npos) << error;
  EXPECT_NE(error.find("'dv.copy_nchw2nc1hwc0' op has no Ascend C mapping"), std::string::npos)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(entries(), 0u) << "the refused export left files behind";
}

TEST_F(Export, TheConvTemplatesLoad3dIsRefusedNamingKernelAndInstruction) {
  // The Cube conv template's img2col has no LoadData 3-D mapping yet.
  std::string error = run("Ascend310P3-AscendC",
                          "%m = dv.alloc offset 0 : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>\n"
                          "    %a = dv.alloc offset 0 : !dv.buf<l0a, 64x144xf16, nz>\n"
                          "    dv.load_3d positions %m to %a {fmap_h = 8, fmap_w = 8, pads = "
                          "array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: "
                          "1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, "
                          "left_top = array<i64: -1, -1>, repeat = 4} : !dv.buf<l1, "
                          "1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>");
  EXPECT_NE(error.find("kernel k0_abs: "), std::string::npos) << error;
  EXPECT_NE(error.find("'dv.load_3d' op has no Ascend C mapping yet"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(entries(), 0u) << "the refused export left files behind";
}

TEST_F(Export, AKernelPlannedForTheWholeUbIsRefused) {
  // The 310P3 plans for 256 KiB of UB; TPipe gives a kernel 248.
  const std::string wide = "%s = dv.alloc offset 253952 : !dv.buf<ub, 64xf32>\n"
                           "    dv.vabs %s to %s {mask = array<i64: -1, 0>, repeat = 1 : i64} : "
                           "!dv.buf<ub, 64xf32> to !dv.buf<ub, 64xf32>";
  std::string error = run("Ascend310P3", wide);
  EXPECT_NE(error.find("kernel k0_abs: "), std::string::npos) << error;
  EXPECT_NE(error.find("'dv.alloc' op ends at byte 254208 of the UB"), std::string::npos) << error;
  EXPECT_EQ(entries(), 0u);
  // The near-miss: the same buffer ending where the kernel's 32-byte staging
  // block (its GM write's tail) ends at the 248 KiB.
  EXPECT_EQ(run("Ascend310P3", replaced(wide, "253952", "253664")), "");
}

TEST_F(Export, AFolderThatIsNoExportIsLeftAlone) {
  ASSERT_FALSE(llvm::sys::fs::create_directory(output));
  std::string error = run("Ascend310P3-AscendC", "");
  EXPECT_NE(error.find("exists and is not an earlier Ascend C export"), std::string::npos) << error;
  EXPECT_FALSE(llvm::sys::fs::exists(output + "/main.cpp"));
}

}  // namespace
