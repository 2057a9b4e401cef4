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

def FoldBatchNorm : Pass<"vinci-fold-batchnorm", "mlir::ModuleOp"> {
  let summary = "Folds an inference batch_norm into the preceding conv's weights and bias";
  let description = [{
    batch_norm(conv(x, W, b)) = conv(x, W * s) + (b - mean) * s + beta with
    s = gamma / sqrt(var + eps) per output channel, computed at compile time
    in double and stored as new f32 constants (blobs named
    `<weight>.bn_folded` and `<weight>.bn_folded_bias` when the weight was a
    blob). The conv must have no other user, and its weight and bias and all
    four statistics must be constants with one value per output channel;
    anything else is left alone.

    Before:
    ```mlir
    %y = vg.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    %z = vg.batch_norm %y, %gamma, %beta, %mean, %var {epsilon = 1.0E-5 : f32}
    ```
    After:
    ```mlir
    %w2 = vg.constant dense_resource<w.bn_folded> : tensor<4x3x3x3xf32>
    %b2 = vg.constant dense_resource<w.bn_folded_bias> : tensor<4xf32>
    %z = vg.conv %x, %w2, %b2 : (...) -> tensor<1x4x6x6xf32>
    ```
  }];
}

def UnfoldWindows : Pass<"vinci-unfold-windows", "mlir::ModuleOp"> {
  let summary = "Rewrites 2-D conv and pooling as pad, one strided slice per kernel tap, and matmul / max / sum (im2col)";
  let description = [{
    Each kernel tap (ki, kj) of a 2-D window reads the padded input at
    (oh * sh + ki * dh, ow * sw + kj * dw): a vg.slice with steps. A conv
    (batch 1) becomes the taps stacked after the channels
    ([C, kh * kw, OH * OW], the order of the weight's rows) and reshaped to
    [C * kh * kw, OH * OW], multiplied on the Cube by the weight as a
    [OC, C * kh * kw] matrix (the NCHW result directly), plus the bias as a
    [1, OC, 1, 1] add. With a constant weight and bias the bias rides in
    the matmul instead: [W' | b] @ [im2col; ones], rows tap-major (the taps
    as [C, OH * OW] pieces concatenated on dim 0, then a row of ones), the
    weight permuted to [OC, kh, kw, C] at compile time. Strided windows
    slice each phase (ki * dh mod sh, kj * dw mod sw) of the input once with
    the strides and take the taps as unit-step slices of their phase when
    that saves copies (the bias column needs groups 1). max_pool
    becomes a max chain over the taps of the input padded with -inf,
    average_pool a sum chain times 1 / count (a per-position constant when
    count_include_pad is 0 and pads or ceil_mode cut windows). Global
    average / max pooling becomes a mean / max over the spatial axes.
    With groups g (depthwise: g = C) the C-major rows are a batch of g
    matrices [C / g * kh * kw, OH * OW] and the weight a batch of
    [OC / g, C / g * kh * kw] (a batched Cube matmul). A 1-D pool is the
    2-D one over the view [N, C, 1, L]. Batch > 1 conv, 1-D conv and 3-D
    windows are left alone, and so are the convs the Cube conv template
    takes (KernelRules' convCubeTemplateMismatch: img2col on chip by
    load_3d), the depthwise convs the Vector depthwise template takes
    (depthwiseTemplateMismatch: taps multiplied over NC1HWC0 rows in UB)
    and the 2-D max / average pools the pooling template takes
    (poolTemplateMismatch: windows reduced over NC1HWC0 rows in UB). Each
    conv or pool it does unfold is listed, with the template's reason, in
    the module attribute vinci.unfolded_windows ({node, op, reason}), which
    the compile report shows.

    Before:
    ```mlir
    %y = vg.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
    ```
    After:
    ```mlir
    %p = vg.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x8x6x6xf32>) -> tensor<1x8x8x8xf32>
    %t0 = vg.slice %p {axes = array<i64: 2, 3>, ends = array<i64: 6, 6>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>}
    ...  (nine taps)
    %s0 = vg.reshape %t0 {shape = array<i64: 1, 8, 1, 6, 6>}
    ...
    %c = vg.concat %s0, ..., %s8 {axis = 2 : i64} -> tensor<1x8x9x6x6xf32>
    %m = vg.reshape %c {shape = array<i64: 72, 36>}
    %y0 = vg.matmul %w2, %m : (tensor<16x72xf32>, tensor<72x36xf32>) -> tensor<16x36xf32>
    %y1 = vg.reshape %y0 {shape = array<i64: 1, 16, 6, 6>}
    %y = vg.add %y1, %b2 : (tensor<1x16x6x6xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x6x6xf32>
    ```
  }];
}

def ExpandBatchNorm : Pass<"vinci-expand-batchnorm", "mlir::ModuleOp"> {
  let summary = "Rewrites an inference batch_norm that was not folded into a conv as elementwise ops";
  let description = [{
    batch_norm(x) = x * s + t per channel. With constant statistics s and t
    are computed at compile time and stored as [1, C, 1, ..] constants (at
    the input's shape when C <= 16, the partition's immediate limit);
    otherwise (statistics that are graph inputs) the ops compute them:
    (x - mean) * (gamma / sqrt(var + eps)) + beta on [1, C, 1, ..] views of
    the statistics. Runs after vinci-fold-batchnorm, which takes the ones
    after a conv.

    Before:
    ```mlir
    %y = vg.batch_norm %x, %gamma, %beta, %mean, %var {epsilon = 1.0E-5 : f32} : (tensor<2x32x4x4xf32>, ...) -> tensor<2x32x4x4xf32>
    ```
    After:
    ```mlir
    %s = vg.constant dense<...> : tensor<1x32x1x1xf32>
    %t = vg.constant dense<...> : tensor<1x32x1x1xf32>
    %m = vg.mul %x, %s : (tensor<2x32x4x4xf32>, tensor<1x32x1x1xf32>) -> tensor<2x32x4x4xf32>
    %y = vg.add %m, %t : (tensor<2x32x4x4xf32>, tensor<1x32x1x1xf32>) -> tensor<2x32x4x4xf32>
    ```
  }];
}

def DecomposeResize : Pass<"vinci-decompose-resize", "mlir::ModuleOp"> {
  let summary = "Rewrites a static vg.resize as matmuls by constant interpolation matrices, one per resized axis";
  let description = [{
    Resize is linear in its input and separable per axis, for every ONNX
    mode (nearest with each nearest_mode, linear, cubic with cubic_coeff_a
    and exclude_outside) and coordinate transform: along axis a the output
    is R_a [O_a, I_a] applied to the input, R_a computed at compile time in
    double from the ONNX reference formulas (edge taps repeated). The last
    axis becomes X [.., W] x R^T [W, OW]; any other axis a a matmul
    R_a x X[p] over the view [P, I_a, Q] (P the dims before a, Q the dims
    after), with R_a repeated over P when P > 1 (the Cube template takes a
    2-D weight on the right only). Axes whose matrix is the identity are
    skipped; a resize that is the identity on every axis disappears.
    Matrices above 256 elements are resource blobs named
    `<node>.resize_axis<a>` (f16 tensors get inline f16 matrices).
    Nearest matrices are one-hot (exact). Left alone: dynamic shapes,
    tensors other than f32 / f16, tf_crop_and_resize (vg.resize carries no
    roi).

    Before:
    ```mlir
    %y = vg.resize %x {mode = "linear", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
    ```
    After:
    ```mlir
    %rw = vg.constant dense<...> : tensor<4x8xf32>
    %w = vg.matmul %x, %rw : (tensor<1x3x4x4xf32>, tensor<4x8xf32>) -> tensor<1x3x4x8xf32>
    %rh = vg.constant dense<...> : tensor<3x8x4xf32>
    %v = vg.reshape %w {shape = array<i64: 3, 4, 8>} : (tensor<1x3x4x8xf32>) -> tensor<3x4x8xf32>
    %m = vg.matmul %rh, %v : (tensor<3x8x4xf32>, tensor<3x4x8xf32>) -> tensor<3x8x8xf32>
    %y = vg.reshape %m {shape = array<i64: 1, 3, 8, 8>} : (tensor<3x8x8xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
}

#endif // VINCI_GRAPH_PASSES_TD
