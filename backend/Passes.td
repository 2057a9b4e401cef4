//===- Passes.td - the kernel layer's passes (vg kernels -> dv) -*- tablegen -*-===//
//
// The passes of the kernel layer: the lowering templates (backend/lower/)
// turn outlined vg kernels into dv kernels, then the dv passes (backend/dv/)
// place on-chip buffers and order the pipes. Graph-level passes and the
// partition into kernels are in passes/ and passes/graph/.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_PASSES_TD
#define VINCI_BACKEND_PASSES_TD

include "mlir/Pass/PassBase.td"

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

    The templates are listed once, most specific first, in
    backend/lower/LowerKernels.cpp (kTemplates); each lives in its own file
    under backend/lower/ behind the `KernelTemplate` interface of
    LowerCommon.h (a `mismatch` that says whether and why not, and a
    `lower`), and the first that takes a kernel lowers it. What each covers
    is documented in its file's header and in docs/vector-kernels.md,
    docs/conv.md and docs/fusion.md. A kernel no template takes is an error
    naming the kernel, its source nodes and each template's reason; with
    `allow-unlowered=true` it stays a function call.

    In the example, the "elementwise" template splits the N elements into
    block_dim equal contiguous shares and loops over full tiles, converting
    the f32 graph tensors to f16 in UB and back.

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

#endif // VINCI_BACKEND_PASSES_TD
