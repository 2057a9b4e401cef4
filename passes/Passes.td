//===- Passes.td - Vinci's graph and kernel passes --------------*- tablegen -*-===//
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

def PartitionKernels : Pass<"vinci-partition-kernels", "mlir::ModuleOp"> {
  let summary = "Groups vg ops into Cube and Vector kernels and outlines each one";
  let description = [{
    Decides which vg ops run together as one kernel on a Da Vinci core, with
    the rules in one place (KernelRules.cpp, in the spirit of TVM's pattern
    kinds): a Cube kernel (matmul, conv) carries its elementwise epilogue
    (bias, activation, residual add, cast); chains of elementwise and
    broadcast ops become one Vector kernel; reductions, softmax, norms and
    pools are Vector kernels of their own; data movement (transpose, slice,
    concat, gather, ...) is a Vector kernel; reshape-like ops are views of
    contiguous ND tensors and stay in the graph. A producer joins its
    consumer's kernel only when the consumer is its only user, so no
    intermediate has to be written to GM for someone else.

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
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def AllocateBuffers : Pass<"vinci-allocate-buffers", "mlir::ModuleOp"> {
  let summary = "Places every on-chip buffer of a dv kernel at a byte offset in its space";
  let description = [{
    Gives each unplaced `dv.alloc` an `offset`, per memory space (L1, L0A,
    L0B, L0C, UB), from its live range in the kernel: buffers whose ranges do
    not overlap share bytes. Placement is greedy by size with best fit
    (backend/memplan, the planner the GM arena uses) at the space's
    alignment from the SoC table (UB/L1 32 B, L0A/L0B 512 B, L0C 64 B). A
    buffer used inside a `dv.loop` but created outside it is live for the
    whole loop, since the next iteration uses it again. Buffers that already
    have an offset stay where they are; the others go above them. A kernel
    that needs more than the space holds is an error that names the space.

    Before (the two UB buffers are never live at once):
    ```mlir
    %a = dv.alloc : !dv.buf<ub, 4096xf16>
    dv.copy %in to %a ... ; dv.vexp %a to %a ... ; dv.copy %a to %out ...
    %b = dv.alloc : !dv.buf<ub, 4096xf16>
    dv.copy %in2 to %b ... ; dv.copy %b to %out2 ...
    ```
    After:
    ```mlir
    %a = dv.alloc offset 0 : !dv.buf<ub, 4096xf16>
    ...
    %b = dv.alloc offset 0 : !dv.buf<ub, 4096xf16>
    ```
  }];
}

def InsertSync : Pass<"vinci-insert-sync", "mlir::ModuleOp"> {
  let summary = "Inserts dv.set_flag / dv.wait_flag pairs between dependent pipes of each dv kernel";
  let description = [{
    Orders every two instructions of a `dv.kernel` that run on different
    pipes and touch overlapping bytes of one buffer, at least one of them
    writing (RAW, WAR, WAW), with a `dv.set_flag SRC -> DST event e` after
    the producer and a `dv.wait_flag` before the consumer: what the
    simulator's hazard detector checks (docs/isa.md). Instructions of one
    pipe run in order there, so no `dv.pipe_barrier` is emitted.

    No more than needed: a dependence that the flags already placed order
    transitively (vector clocks over the program, the detector's own model)
    gets no pair; one pair orders every dependence between the two pipes
    up to its set. Each block is handled innermost loop first; a nested
    `dv.loop` is one item of its block. A dependence carried around a loop's
    back edge (MTE2 refills in iteration i+1 a UB tile that V read in
    iteration i) gets one pair per pipe pair: wait at the earliest consumer,
    set after the latest producer, plus a set before the loop and a wait
    after it, so every set is consumed and no wait lacks a set. Event ids
    0..7 are reused per (src, dst) pipe pair; two live pairs never share
    one. Footprints are (space, byte range) of each operand: a view's
    affine offset over every iteration of its loops (two iterations that
    can never touch the same bytes are told apart exactly), the operand
    type's bytes, rounded to the detector's 32-byte on-chip granule. Placed
    allocs compare by bytes, unplaced ones by identity (run it after
    vinci-allocate-buffers). Kernels that already contain sync ops are left
    alone.

    Before:
    ```mlir
    dv.loop %i trip 4 {
      %x = dv.view %in[%i * 2048] : !dv.gm<8192xf16> to !dv.gm<2048xf16>
      %y = dv.view %out[%i * 2048] : !dv.gm<8192xf16> to !dv.gm<2048xf16>
      dv.copy %x to %ub {burst_bytes = 4096} : ...    // MTE2
      dv.vexp %ub to %ub {repeat = 16} : ...          // V
      dv.copy %ub to %y {burst_bytes = 4096} : ...    // MTE3
    }
    ```
    After (V -> MTE2 is ordered through V -> MTE3 -> MTE2, so gets no pair):
    ```mlir
    dv.set_flag MTE3 -> MTE2 event 0
    dv.loop %i trip 4 {
      ...
      dv.wait_flag MTE3 -> MTE2 event 0
      dv.copy %x to %ub ...
      dv.set_flag MTE2 -> V event 0
      dv.wait_flag MTE2 -> V event 0
      dv.vexp %ub to %ub ...
      dv.set_flag V -> MTE3 event 0
      dv.wait_flag V -> MTE3 event 0
      dv.copy %ub to %y ...
      dv.set_flag MTE3 -> MTE2 event 0
    }
    dv.wait_flag MTE3 -> MTE2 event 0
    ```
  }];
  let dependentDialects = ["vinci::dv::DVDialect"];
}

def LowerKernels : Pass<"vinci-lower-kernels", "mlir::ModuleOp"> {
  let summary = "Lowers each outlined vg kernel to a dv.kernel and its call to a dv.launch";
  let description = [{
    Runs after vinci-partition-kernels. For each kernel function a lowering
    template covers, creates `dv.kernel @<same name>` (GM arguments: the
    call's operands, then its results), replaces the `func.call` in the
    graph with `dv.launch`, and erases the function. Sets the module's
    `dv.soc` from the `soc` option when absent. Emits unplaced `dv.alloc`s
    (vinci-allocate-buffers places them) and no set_flag/wait_flag
    (vinci-insert-sync adds them).

    Storage precision follows the module's `vinci.precision_mode` and
    `vinci.keep_dtype` (docs/precision.md): a float tensor that is a graph
    input or output (or a reshape-like view of one) keeps its type in GM;
    under force_fp16 weights and intermediates are f16 in GM, and a kernel
    that keeps its types stores f32. Kernels compute in f16 in UB and convert
    f32 GM data with dv.vconv after loading / before storing, unless they
    keep their types.

    Template "vector_matmul" (Vector, tried before the Cube's "matmul"): a
    Cube-kind matmul kernel that keeps fp32, with f32 operands in GM, runs
    in fp32 on the Vector unit (vbrcb + vmla with repeat stride 0, or
    vmul/vmla + vcadd dot products for transpose_b), since the 310P Cube
    takes no fp32.

    Template "elementwise" (Vector): float elementwise ops (add, sub, mul,
    div, max, min, relu, leaky_relu, exp, log, sqrt, reciprocal, abs, neg,
    sigmoid, tanh, clip, f16/f32 casts) on operands of the result's shape;
    one-element constants become immediates (vadds, vmuls, vmaxs, vmins).
    The N elements are split into block_dim equal contiguous shares
    (block_dim = the largest divisor of N <= min(ai cores, ceil(N / tile)));
    a block loops over pairs of full tiles (two buffer sets, so the copies
    of one tile can overlap the vector work of the other), then one more
    full tile if the count is odd and a tail with a shorter copy and a
    masked last repeat. The tile is a multiple of 128 elements such that
    two buffer sets fit UB.

    Kernels no template covers yet (matmul, reductions, softmax, broadcasts,
    data movement, integer types) are an error naming the kernel, its
    source nodes and what is missing; with `allow-unlowered=true` they stay
    function calls.

    Before:
    ```mlir
    func.func @main(%x: tensor<8x128xf32>, %y: tensor<8x128xf32>) -> tensor<8x128xf32> {
      %0 = call @k0_add(%x, %y) : (...) -> tensor<8x128xf32>
      return %0 : tensor<8x128xf32>
    }
    func.func private @k0_add(%a: tensor<8x128xf32>, %b: tensor<8x128xf32>) -> tensor<8x128xf32>
        attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
      %0 = vg.add %a, %b : (...) -> tensor<8x128xf32>
      return %0 : tensor<8x128xf32>
    }
    ```
    After:
    ```mlir
    module attributes {dv.soc = "Ascend310P3"} {
      func.func @main(%x: tensor<8x128xf32>, %y: tensor<8x128xf32>) -> tensor<8x128xf32> {
        %0 = dv.launch @k0_add(%x, %y) : (...) -> tensor<8x128xf32>
        return %0 : tensor<8x128xf32>
      }
      dv.kernel @k0_add(%a: !dv.gm<8x128xf32>, %b: !dv.gm<8x128xf32>, %c: !dv.gm<8x128xf32>)
          attributes {block_dim = 1 : i64, kind = "vector"} {
        %va = dv.view %a[0] : !dv.gm<8x128xf32> to !dv.gm<1024xf32>
        %ua = dv.alloc : !dv.buf<ub, 1024xf32>
        dv.copy %va to %ua {burst_bytes = 4096 : i64} : ...
        %ha = dv.alloc : !dv.buf<ub, 1024xf16>
        dv.vconv %ua to %ha {rep = array<i64: 4, 8>, repeat = 16 : i64} : ...
        ... (the same for %b into %hb)
        %s = dv.alloc : !dv.buf<ub, 1024xf16>
        dv.vadd %ha, %hb to %s {repeat = 8 : i64} : ...
        %o = dv.alloc : !dv.buf<ub, 1024xf32>
        dv.vconv %s to %o {rep = array<i64: 8, 4>, repeat = 16 : i64} : ...
        %vc = dv.view %c[0] : !dv.gm<8x128xf32> to !dv.gm<1024xf32>
        dv.copy %o to %vc {burst_bytes = 4096 : i64} : ...
        dv.return
      }
    }
    ```
  }];
  let options = [
    Option<"soc", "soc", "std::string", /*default=*/"\"Ascend310P3\"",
           "the target SoC, set as the module's dv.soc when it has none">,
    Option<"allowUnlowered", "allow-unlowered", "bool", /*default=*/"false",
           "keep kernels that no template lowers as function calls instead of failing">,
  ];
  let dependentDialects = ["vinci::dv::DVDialect"];
}

#endif // VINCI_PASSES_TD
