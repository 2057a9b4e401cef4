//===- Passes.td - graph-level rewrites on vg -------------------*- tablegen -*-===//
//
// Rewrites that recompose what exporters decompose, so that each operator
// runs as one kernel. Each can be switched off by name (--fusion_switch_file,
// GraphFusion) when bisecting a numeric problem.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_GRAPH_PASSES_TD
#define VINCI_GRAPH_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseLayerNorm : Pass<"vinci-fuse-layernorm", "mlir::ModuleOp"> {
  let summary = "Recomposes decomposed LayerNorm and RMSNorm into vg.layer_norm / vg.rms_norm";
  let description = [{
    Exporters emit LayerNorm as nine ops (ReduceMean, Sub, Pow 2 or Mul,
    ReduceMean, Add eps, Sqrt, Div or Reciprocal and Mul, then Mul gamma and
    Add beta) and RMSNorm as six. Each becomes one normalisation op, which
    lowers to one Vector kernel with fp32 statistics instead of five kernels
    that round-trip through GM. Every intermediate must have no other user,
    the reductions must cover the same trailing dims with keepdims, and eps
    must be a scalar constant added before the square root; anything else is
    left alone.

    Before:
    ```mlir
    %m = vg.reduce_mean %x {axes = array<i64: -1>}
    %d = vg.sub %x, %m
    %s = vg.pow %d, %two
    %v = vg.reduce_mean %s {axes = array<i64: -1>}
    %e = vg.add %v, %eps
    %r = vg.sqrt %e
    %n = vg.div %d, %r
    %g = vg.mul %n, %gamma
    %y = vg.add %g, %beta
    ```
    After:
    ```mlir
    %y = vg.layer_norm %x, %gamma, %beta {axis = -1 : i64, epsilon = 9.99999974E-6 : f32}
    ```
  }];
}

def FuseGelu : Pass<"vinci-fuse-gelu", "mlir::ModuleOp"> {
  let summary = "Recomposes GELU from its erf and tanh decompositions into vg.gelu";
  let description = [{
    0.5 * x * (1 + erf(x / sqrt(2))) in the orders torch exports it (and
    with x * (1 / sqrt(2)) for the division), and the tanh approximation
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), become one
    vg.gelu. Constants must match to 1e-3 relative; intermediates must have
    no other user.

    Before:
    ```mlir
    %h = vg.mul %x, %half
    %q = vg.div %x, %sqrt2
    %e = vg.erf %q
    %p = vg.add %e, %one
    %y = vg.mul %h, %p
    ```
    After:
    ```mlir
    %y = vg.gelu %x : tensor<1x128x3072xf32>
    ```
  }];
}

def FuseQkv : Pass<"vinci-fuse-qkv", "mlir::ModuleOp"> {
  let summary = "Joins matmuls of the same activations by constant weights into one matmul and slices";
  let description = [{
    Two or more vg.matmul ops (MatMul, or Gemm as matmul + add) that share
    their left operand, whose right operands are 2-D constants with the same
    K, element type and transposes, become one matmul over the weights
    concatenated along N at compile time (a new blob when the parts were
    blobs), followed by one vg.slice of the last dim per original result.
    One Cube kernel then reads the activations once (Q, K and V of an
    attention block). When every matmul's only user adds a [N] constant
    bias, the biases are concatenated too and added once; otherwise the bias
    adds stay on the slices. Matmuls with different activations, a weight
    that is not a constant, a batched (3-D and up) weight or different
    transposes are left alone.

    When two or more slices each feed a head split (reshape of the last dim
    into [h, D], then the same transpose, as BERT's Q, K and V), the
    transpose moves before the slices: one reshape and transpose of the
    fused result, and one vg.split of whole heads along the transposed head
    axis (slices when only some projections split heads): two
    data-movement kernels instead of one copy and one transpose a
    projection.

    Before:
    ```mlir
    %q = vg.matmul %x, %wq : (tensor<1x128x768xf32>, tensor<768x768xf32>) -> tensor<1x128x768xf32>
    %qb = vg.add %bq, %q : (tensor<768xf32>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
    %k = vg.matmul %x, %wk : (tensor<1x128x768xf32>, tensor<768x768xf32>) -> tensor<1x128x768xf32>
    %kb = vg.add %bk, %k : (tensor<768xf32>, tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
    ```
    After:
    ```mlir
    %w = vg.constant dense_resource<wq.wk.fused> : tensor<768x1536xf32>
    %b = vg.constant dense_resource<bq.bk.fused_bias> : tensor<1536xf32>
    %y = vg.matmul %x, %w : (tensor<1x128x768xf32>, tensor<768x1536xf32>) -> tensor<1x128x1536xf32>
    %yb = vg.add %y, %b : (tensor<1x128x1536xf32>, tensor<1536xf32>) -> tensor<1x128x1536xf32>
    %qb = vg.slice %yb {axes = array<i64: 2>, ends = array<i64: 768>, starts = array<i64: 0>, steps = array<i64: 1>}
    %kb = vg.slice %yb {axes = array<i64: 2>, ends = array<i64: 1536>, starts = array<i64: 768>, steps = array<i64: 1>}
    ```
    and with head splits after the projections:
    ```mlir
    %h = vg.reshape %yb {shape = array<i64: 1, 128, 24, 64>}
    %t = vg.transpose %h {perm = array<i64: 0, 2, 1, 3>} : (...) -> tensor<1x24x128x64xf32>
    %qh, %kh = vg.split %t {axis = 1 : i64, split = array<i64: 12, 12>}
    ```
  }];
}

#endif // VINCI_GRAPH_PASSES_TD
