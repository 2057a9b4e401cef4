// GoogleTest of the exporter's refusals (backend/ascendc, docs/ascendc.md):
// a dv kernel it cannot write is one line naming the kernel and the
// instruction, and no folder is left behind, not even a half-written one.
// The refused kernels are written here in dv: an instruction no Ascend C
// call expresses, and a kernel planned for the 310P3's whole UB. The
// near-miss, the same kernel as the compiler writes it, exports. Also the
// conv template's load_3d as LoadData with LoadData3DParamsV1, and a padded
// L1 tile where the UB has little room left for staging, built with the host
// C++ compiler against the host implementation and run: its bytes must be
// the NZ tile by definition.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

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

TEST_F(Export, TheConvTemplatesLoad3dIsLoadDataWithLoad3dV1Params) {
  // The Cube conv template's img2col: LoadData with a LoadData3DParamsV1
  // declared once, its fields by name (the ISA's [w, h] pairs split).
  const std::string load =
      "%m = dv.alloc offset 0 : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>\n"
      "    %a = dv.alloc offset 0 : !dv.buf<l0a, 64x144xf16, nz>\n"
      "    dv.load_3d positions %m to %a {fmap_h = 8, fmap_w = 7, pads = "
      "array<i64: 1, 2, 3, 0>, filter = array<i64: 3, 2>, strides = array<i64: "
      "1, 2>, dilations = array<i64: 1, 1>, first_tap = array<i64: 2, 1>, "
      "left_top = array<i64: -1, -3>, repeat = 4, jump_stride = 9} : !dv.buf<l1, "
      "1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>";
  ASSERT_EQ(run("Ascend310P3-AscendC", load + "\n    " + load.substr(load.find("dv.load_3d"))), "");
  std::ifstream source(output + "/kernels/k0_abs.cpp");
  std::string text((std::istreambuf_iterator<char>(source)), std::istreambuf_iterator<char>());
  for (const char *want :
       {"LoadData3DParamsV1<half> img2col0;", "img2col0.padList[0] = 1;", "img2col0.padList[1] = 2;",
        "img2col0.padList[2] = 3;", "img2col0.l1H = 8;", "img2col0.l1W = 7;",
        "img2col0.fetchFilterW = 2;", "img2col0.fetchFilterH = 1;", "img2col0.leftTopW = -1;",
        "img2col0.leftTopH = -3;", "img2col0.strideW = 1;", "img2col0.strideH = 2;",
        "img2col0.filterW = 3;", "img2col0.filterH = 2;", "img2col0.jumpStride = 9;",
        "img2col0.repeatMode = 1;", "img2col0.repeatTime = 4;", "img2col0.padValue = 0;"})
    EXPECT_NE(text.find(want), std::string::npos) << want << " in\n" << text;
  // Two loads with the same parameters share one declaration.
  EXPECT_EQ(text.find("img2col1"), std::string::npos) << text;
  size_t first = text.find("LoadData(l0a_0, l1_0, img2col0);");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_NE(text.find("LoadData(l0a_0, l1_0, img2col0);", first + 1), std::string::npos) << text;
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

// A padded NZ tile built in L1 (copy_nd2nz: 40 x 17 fp16 to 48 x 48), read
// back through the UB to GM as its three column blocks. @UB@ places the
// read-back buffer: at 248800 it leaves 512 bytes of UB above it for
// staging, so the exporter fills the padding 512 bytes of zeros a copy and
// builds the partial last column block in pieces of 16 rows (16, 16, 8);
// at 0 everything fits at once.
const char *const kNzTile = R"mlir(
module attributes {dv.soc = "Ascend310P3-AscendC", vinci.precision_mode = "force_fp16"} {
  func.func @main(%arg0: tensor<40x17xf16> {vg.name = "x"}) -> (tensor<3x48x16xf16> {vg.name = "y"}) {
    %0 = dv.launch @k0_nz(%arg0) : (tensor<40x17xf16>) -> tensor<3x48x16xf16>
    return %0 : tensor<3x48x16xf16>
  }
  dv.kernel @k0_nz(%arg0: !dv.gm<40x17xf16>, %arg1: !dv.gm<3x48x16xf16>) attributes {block_dim = 1 : i64, kind = "cube", vinci.template = "matmul"} {
    %0 = dv.view %arg0[0] : !dv.gm<40x17xf16> to !dv.gm<680xf16>
    %1 = dv.alloc offset 0 : !dv.buf<l1, 48x48xf16, nz>
    dv.copy_nd2nz %0 to %1 {cols = 17 : i64, dst_cols = 48 : i64, dst_rows = 48 : i64, rows = 40 : i64, src_row_stride = 17 : i64} : !dv.gm<680xf16> to !dv.buf<l1, 48x48xf16, nz>
    dv.pipe_barrier ALL
    %2 = dv.alloc offset @UB@ : !dv.buf<ub, 2304xf16>
    dv.copy %1 to %2 {burst_bytes = 4608 : i64} : !dv.buf<l1, 48x48xf16, nz> to !dv.buf<ub, 2304xf16>
    dv.pipe_barrier ALL
    %3 = dv.view %arg1[0] : !dv.gm<3x48x16xf16> to !dv.gm<2304xf16>
    dv.copy %2 to %3 {burst_bytes = 4608 : i64} : !dv.buf<ub, 2304xf16> to !dv.gm<2304xf16>
    dv.return
  }
}
)mlir";

std::vector<uint16_t> readWords(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint16_t> words(bytes.size() / 2);
  std::memcpy(words.data(), bytes.data(), words.size() * 2);
  return words;
}

TEST_F(Export, APaddedL1TileIsStagedInPiecesWhereTheUbIsShort) {
  // The input: distinct finite fp16 values; the NZ tile by its definition:
  // column block cb, row r, lane c holds x[r][cb * 16 + c], zero past the data.
  constexpr int kRows = 40, kCols = 17, kTileRows = 48, kBlocks = 3;
  std::vector<uint16_t> x(kRows * kCols), want(kBlocks * kTileRows * 16, 0);
  for (int i = 0; i < kRows * kCols; ++i)
    x[i] = uint16_t(0x3C00 + i);
  for (int cb = 0; cb < kBlocks; ++cb)
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < 16 && cb * 16 + c < kCols; ++c)
        want[(cb * kTileRows + r) * 16 + c] = x[r * kCols + cb * 16 + c];
  for (const char *ub : {"248800", "0"}) {
    SCOPED_TRACE(std::string("read-back buffer at UB byte ") + ub);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(replaced(kNzTile, "@UB@", ub), &ctx);
    ASSERT_TRUE(module);
    vinci::backend::AscendCSummary summary;
    std::string error;
    ASSERT_TRUE(vinci::backend::exportAscendC(*module, "nz", output, summary, error)) << error;
    std::ifstream source(output + "/kernels/k0_nz.cpp");
    std::string text((std::istreambuf_iterator<char>(source)), std::istreambuf_iterator<char>());
    // Pieces where the UB is short, one go where it is not.
    EXPECT_EQ(text.find("for (int32_t p = 0; p < 2; ++p)") != std::string::npos,
              std::string(ub) != "0") << text;
    const std::string program = work + "/nz_main", data = work + "/data";
    std::string build = std::string(VINCI_TEST_CXX) + " -std=c++17 -DVINCI_ASCENDC_HOST -I " +
                        VINCI_TEST_HOST_INCLUDE + " " + output + "/main.cpp " + output +
                        "/kernels/k0_nz.cpp " + VINCI_TEST_HOST_LIBRARY + " -o " + program;
    ASSERT_EQ(std::system(build.c_str()), 0) << build;
    ASSERT_FALSE(llvm::sys::fs::create_directories(data));
    std::ofstream(data + "/input_0.bin", std::ios::binary)
        .write(reinterpret_cast<const char *>(x.data()), std::streamsize(x.size() * 2));
    std::string runIt = program + " " + output + "/weights.bin " + data + " > /dev/null";
    ASSERT_EQ(std::system(runIt.c_str()), 0) << runIt;
    std::vector<uint16_t> got = readWords(data + "/output_0.bin");
    ASSERT_EQ(got.size(), want.size());
    int differ = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (got[i] != want[i] && differ++ < 4)
        ADD_FAILURE() << "column block " << i / (16 * kTileRows) << ", row "
                      << i / 16 % kTileRows << ", lane " << i % 16 << ": 0x" << std::hex
                      << got[i] << ", want 0x" << want[i];
    EXPECT_EQ(differ, 0) << "elements differ";
    (void)llvm::sys::fs::remove_directories(data);
  }
}

}  // namespace
