//===- Passes.td - Vinci's int64, output and partition passes --*- tablegen -*-===//
#ifndef VINCI_PASSES_TD
#define VINCI_PASSES_TD

include "mlir/Pass/PassBase.td"

def NarrowInt64 : Pass<"vinci-narrow-int64", "mlir::ModuleOp"> {
  let summary = "Stores int64 tensors as int32: the Da Vinci core has no 64-bit integers";
  let description = [{
    The Vector unit and the DMA engines know s32 at most, while ONNX models
    carry indices, shapes and masks as int64. This pass retypes every i64
    tensor of the graph functions to i32: op results, the `to` of vg.cast,
    and constants, whose values are narrowed at compile time (a value
    outside int32 is an error naming the constant). Graph inputs and outputs
    keep their int64 type for the caller: the function signature becomes
    i32 and each such argument or result is tagged with
    `vinci.io_element_type = i64`; the .om then declares the tensor int64
    with device type int32, and the runtime narrows inputs (failing on a
    value outside int32) and widens outputs at the boundary.

    Before:
    ```mlir
    func.func @main(%ids: tensor<1x128xi64>) -> tensor<1x128x768xf32> {
      %table = vg.constant dense_resource<word_embeddings> : tensor<30522x768xf32>
      %0 = vg.gather %table, %ids : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
      return %0 : tensor<1x128x768xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%ids: tensor<1x128xi32> {vinci.io_element_type = i64}) -> tensor<1x128x768xf32> {
      %table = vg.constant dense_resource<word_embeddings> : tensor<30522x768xf32>
      %0 = vg.gather %table, %ids : (tensor<30522x768xf32>, tensor<1x128xi32>) -> tensor<1x128x768xf32>
      return %0 : tensor<1x128x768xf32>
    }
    ```
  }];
}

def MaterializeOutputs : Pass<"vinci-materialize-outputs", "mlir::ModuleOp"> {
  let summary = "Copies graph outputs that no kernel computes (inputs, constants, views of them)";
  let description = [{
    Every graph output of an .om is written by a task into the caller's
    buffer. An output that is a graph input, a constant, or a reshape-like
    view of one (Identity, Reshape, Flatten, Squeeze, Unsqueeze, a Shape the
    importer folded) has no kernel, so this pass returns a whole-tensor
    `vg.slice` of it instead: one data-movement kernel copies it, as ATC
    adds a memcpy task. Outputs computed by kernels, and views of those, are
    left alone (the kernel writes the caller's buffer directly).

    Before:
    ```mlir
    func.func @main(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
      %0 = vg.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
      return %0 : tensor<6x4xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
      %0 = vg.reshape %x {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
      %1 = vg.slice %0 {axes = array<i64: 0, 1>, ends = array<i64: 6, 4>,
                        starts = array<i64: 0, 0>, steps = array<i64: 1, 1>}
          : (tensor<6x4xf32>) -> tensor<6x4xf32>
      return %1 : tensor<6x4xf32>
    }
    ```
  }];
}

def SplitWideConcats : Pass<"vinci-split-wide-concats", "mlir::ModuleOp"> {
  let summary = "Splits concats of more inputs than a kernel takes into a tree of concats";
  let description = [{
    A concat kernel takes each input as a GM argument, and a kernel takes
    at most kMaxKernelArguments (64, the .om kernel table's limit; KernelRules.h).
    A vg.concat of more than 63 inputs (the taps of an unfolded 11 x 11 or
    32 x 32 window) is rewritten as a concat of concats of at most 63
    consecutive inputs each, level by level, so that the partition never
    forms a kernel that no .om can hold. Narrower concats are left alone.

    Before (100 inputs):
    ```mlir
    %y = vg.concat %x0, %x1, ..., %x99 {axis = 0 : i64} : (...) -> tensor<100x8xf16>
    ```
    After:
    ```mlir
    %a = vg.concat %x0, ..., %x62 {axis = 0 : i64} : (...) -> tensor<63x8xf16>
    %b = vg.concat %x63, ..., %x99 {axis = 0 : i64} : (...) -> tensor<37x8xf16>
    %y = vg.concat %a, %b {axis = 0 : i64} : (...) -> tensor<100x8xf16>
    ```
  }];
}

def PartitionKernels : Pass<"vinci-partition-kernels", "mlir::ModuleOp"> {
  let summary = "Groups vg ops into Cube and Vector kernels and outlines each one";
  let description = [{
    Decides which vg ops run together as one kernel on a Da Vinci core, with
    the rules in one place (KernelRules.cpp, in the spirit of TVM's pattern
    kinds): a Cube kernel (matmul, conv) carries its elementwise epilogue
    (bias, activation, residual add, cast); chains of elementwise and
    broadcast ops become one Vector kernel; reductions, softmax, norms and
    pools are Vector kernels of their own, except that a softmax (or
    log_softmax) joins the elementwise kernel of its input as its prologue
    (a scale, a temperature, a mask add: computed in f32 before the row max,
    never rounded to the storage type first); data movement (transpose, slice,
    concat, gather, ...) is a Vector kernel; reshape-like ops are views of
    contiguous ND tensors and stay in the graph. A producer joins its
    consumer's kernel only when the consumer is its only user, so no
    intermediate has to be written to GM for someone else.

    The partition asks the templates: a join the rules allow is made only
    when a lowering template lowers the kernel with the new op (the kernel
    layer's KernelCapabilities, which runs the templates' own `mismatch` on
    the kernel outlined as it would be); otherwise the op starts a kernel of
    its own (a matmul whose consumer is a hard_swish, which the Cube
    epilogue has no form for, stays two kernels). In a debug build,
    `-debug-only=vinci-partition-kernels` prints each refused join with the
    template's reason.

    Each kernel is outlined into a private function tagged with its kind and
    the source nodes it covers; @main becomes the task list the backend
    lowers: one call per kernel, in execution order. Weights are kernel
    arguments; small constants (16 elements or fewer) are cloned inside.

    Before:
    ```mlir
    func.func @main(%x: tensor<8x768xf32>) -> tensor<8x3072xf32> {
      %w = vg.constant dense_resource<fc.weight> : tensor<768x3072xf32>
      %b = vg.constant dense_resource<fc.bias> : tensor<3072xf32>
      %0 = vg.matmul %x, %w : (...) -> tensor<8x3072xf32>
      %1 = vg.add %0, %b : (...) -> tensor<8x3072xf32>
      %2 = vg.relu %1 : tensor<8x3072xf32>
      return %2 : tensor<8x3072xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<8x768xf32>) -> tensor<8x3072xf32> {
      %w = vg.constant dense_resource<fc.weight> : tensor<768x3072xf32>
      %b = vg.constant dense_resource<fc.bias> : tensor<3072xf32>
      %0 = call @k0_matmul(%x, %w, %b) : (...) -> tensor<8x3072xf32>
      return %0 : tensor<8x3072xf32>
    }
    func.func private @k0_matmul(%arg0: ..., %arg1: ..., %arg2: ...) -> tensor<8x3072xf32>
        attributes {vinci.kernel = "cube", vinci.source_nodes = [...]} {
      %0 = vg.matmul %arg0, %arg1 ...
      %1 = vg.add %0, %arg2 ...
      %2 = vg.relu %1 ...
      return %2 : tensor<8x3072xf32>
    }
    ```

    The options turn the kernel-level fusions off one by one (ATC's
    UBFusion switches; --fusion_switch_file in vinci-compile): then each
    elementwise consumer is a kernel of its own and writes GM.
  }];
  let options = [
    Option<"cubeEpilogues", "cube-epilogues", "bool", /*default=*/"true",
           "a matmul/conv kernel absorbs its elementwise consumers (CubeEpilogueFusion)">,
    Option<"elementwiseChains", "elementwise-chains", "bool", /*default=*/"true",
           "chains of elementwise ops run as one Vector kernel (ElementwiseFusion)">,
    Option<"attention", "attention", "bool", /*default=*/"true",
           "attention's softmax, then its PV matmul, join the QK^T matmul's kernel "
           "(AttentionFusion; needs cube-epilogues)">,
    Option<"softmaxPrologues", "softmax-prologues", "bool", /*default=*/"true",
           "a softmax joins the elementwise kernel of its input (a scale, a mask add), "
           "computed in f32 in the softmax's tiles (SoftmaxPrologueFusion)">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def AssignLayouts : Pass<"vinci-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Stores the activations between conv-family kernels as NC1HWC0";
  let description = [{
    The Cube's load_3d reads a feature map as NC1HWC0 ([N, C1, H, W, 16],
    channels zero padded to 16) and its L0C result already has that layout,
    so an NCHW tensor between two convs costs a conversion at each end (a
    copy_nchw2nc1hwc0 on the way in, a vtranspose of every 16 x 16 block on
    the way out). This pass, run after vinci-partition-kernels, asks the
    template of each kernel (KernelCapabilities::nc1hwc0Classes, the kernel
    layer's answer) which of its GM arguments it can take in NC1HWC0, and
    stores a kernel result NC1HWC0 when its producer can write it so and
    every user is a kernel that can read it so. A graph input or output, a
    view (reshape, flatten) or any other consumer keeps the tensor ND, so
    the layout changes only inside the conv-family kernels at the
    boundaries, never in a kernel of its own. Arguments a template ties
    (a conv's residual operand and its output, added tile by tile in one
    layout) are NC1HWC0 together or not at all.

    Each call's layouts are recorded in `vinci.layouts` (operands, then
    results: "nd" or "nc1hwc0"), which the templates, the task plan and the
    .om writer read (passes/Layouts.h); calls with no NC1HWC0 argument get
    no attribute.

    Before:
    ```mlir
    %0 = call @k0_conv(%x, %w0) : (tensor<1x3x32x32xf16>, ...) -> tensor<1x64x32x32xf16>
    %1 = call @k1_conv(%0, %w1) : (tensor<1x64x32x32xf16>, ...) -> tensor<1x64x32x32xf16>
    %2 = call @k2_conv(%1, %w2, %0) : (...) -> tensor<1x64x32x32xf16>
    %3 = call @k3_reduce_mean(%2) : (tensor<1x64x32x32xf16>) -> tensor<1x64x1x1xf16>
    ```
    After (%2 feeds a reduction, so it stays ND, and so does %0, the
    residual k2 adds in its output's layout):
    ```mlir
    %0 = call @k0_conv(%x, %w0) : (...) -> tensor<1x64x32x32xf16>
    %1 = call @k1_conv(%0, %w1) {vinci.layouts = ["nd", "nd", "nc1hwc0"]} : (...) -> ...
    %2 = call @k2_conv(%1, %w2, %0) {vinci.layouts = ["nc1hwc0", "nd", "nd", "nd"]} : (...) -> ...
    %3 = call @k3_reduce_mean(%2) : (tensor<1x64x32x32xf16>) -> tensor<1x64x1x1xf16>
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

#endif // VINCI_PASSES_TD
