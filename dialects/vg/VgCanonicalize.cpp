//===- VgCanonicalize.cpp - canonicalization patterns of vg ops -----------===//
#include "vg/VgOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace vinci::vg;

namespace {

// matmul(a, transpose(x, P)) -> matmul(a, transpose(x, P'), transpose_b = !transpose_b)
// where P' is P with its last two entries swapped, taken when that keeps
// the innermost dim in place (P'[-1] == rank - 1) and P did not: the Cube
// reads a transposed operand for free, while a transpose that moves the
// innermost dim needs 16x16 vector transposes. The same for operand a.
// Termination: P' keeps the innermost dim, so the pattern never applies to
// its own result.
struct FoldTransposeIntoMatMul : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp matmul, PatternRewriter &rewriter) const override {
    for (unsigned index : {0u, 1u}) {
      auto transpose = matmul->getOperand(index).getDefiningOp<TransposeOp>();
      if (!transpose)
        continue;
      RankedTensorType inType = transpose.getInput().getType();
      int64_t rank = inType.getRank();
      if (rank < 2 || !transpose.getPerm())
        continue;
      SmallVector<int64_t> perm(transpose.getPerm()->begin(), transpose.getPerm()->end());
      if (perm[rank - 1] == rank - 1 || perm[rank - 2] != rank - 1)
        continue;
      std::swap(perm[rank - 1], perm[rank - 2]);
      Value operand = transpose.getInput();
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
        operand = TransposeOp::create(rewriter, transpose.getLoc(), operand,
                                      rewriter.getDenseI64ArrayAttr(perm));
      bool transposeA = matmul.getTransposeA(), transposeB = matmul.getTransposeB();
      (index == 0 ? transposeA : transposeB) ^= true;
      Value a = index == 0 ? operand : matmul.getA();
      Value b = index == 1 ? operand : matmul.getB();
      rewriter.replaceOpWithNewOp<MatMulOp>(matmul, matmul.getType(), a, b,
                                            rewriter.getBoolAttr(transposeA),
                                            rewriter.getBoolAttr(transposeB));
      return success();
    }
    return failure();
  }
};

} // namespace

void MatMulOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<FoldTransposeIntoMatMul>(context);
}
