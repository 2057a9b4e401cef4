//===- DvOps.td - dv kernel operations --------------------------*- tablegen -*-===//
//
// One op per instruction of the Vinci ISA (docs/isa.md), plus the structure
// the encoder flattens: kernels, loops, block_idx, buffers and views. Operand
// order in the text is source(s) `to` destination; the ISA's slot order
// (0 = destination) is the encoder's business. Parameters keep the ISA's
// names and units (bytes for copy bursts, elements for move_l0c_ub, 512-byte
// fractals for load_fractals, 32-byte blocks for vector strides).
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_DV_OPS_TD
#define VINCI_DV_OPS_TD

include "DvBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

class DV_PipeIs<string pipe> {
  code decl = "::vinci::dv::Pipe getPipe() { return ::vinci::dv::Pipe::" # pipe # "; }";
}

//===----------------------------------------------------------------------===//
// Structure: kernels, loops, block index, buffers
//===----------------------------------------------------------------------===//

def DV_KernelOp : DV_Op<"kernel", [FunctionOpInterface, IsolatedFromAbove,
                                   AutomaticAllocationScope]> {
  let summary = "a kernel: the program every block of a launch runs";
  let description = [{
    Arguments are GM buffers (the kernel's argument table, in order); there
    are no results. `block_dim` blocks run the body, each with its own
    `dv.block_idx`; `kind` is cube, vector or mix (what the kernel uses).

    ```mlir
    dv.kernel @mm(%a: !dv.gm<256x256xf16>, %c: !dv.gm<256x256xf32>)
        attributes {block_dim = 8 : i64, kind = "cube"} { ... dv.return }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       I64Attr:$block_dim,
                       StrAttr:$kind);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"S">.decl # [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
  }];
}

def DV_LaunchOp : DV_Op<"launch", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs a kernel on the graph's tensors: the graph's task list";
  let description = [{
    The bridge between the graph (tensors, value semantics) and a kernel (GM
    buffers): the kernel's GM arguments are the launch's operands followed by
    its results, in order, each the same number of elements as its tensor.
    The element types may differ where the tensor is stored in another
    precision on the device (an f32 tensor kept as f16 under force_fp16).
    Each launch is one task of the .om; the GM placement of every tensor
    (graph input or output, weight, arena) is the emitter's decision.

    ```mlir
    %y = dv.launch @k0_add(%x, %w) : (tensor<8x768xf32>, tensor<768xf32>) -> tensor<8x768xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$outputs);
  let assemblyFormat = "$kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)";
  let extraClassDeclaration = DV_PipeIs<"S">.decl;
}

def DV_ReturnOp : DV_Op<"return", [Pure, Terminator, HasParent<"KernelOp">]> {
  let summary = "end of a kernel";
  let assemblyFormat = "attr-dict";
  let extraClassDeclaration = DV_PipeIs<"S">.decl;
}

def DV_BlockIdxOp : DV_Op<"block_idx", [Pure]> {
  let summary = "the index of this block, 0 .. block_dim - 1";
  let description = [{
    Only used as an index of `dv.view`: the ISA folds block_idx into operand
    addresses (block coefficient, or a 2-D grid with `block_idx mod G` and
    `block_idx floordiv G`).
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"S">.decl;
}

def DV_LoopOp : DV_Op<"loop", [SingleBlockImplicitTerminator<"YieldOp">,
                               RecursiveMemoryEffects]> {
  let summary = "a Scalar-unit counted loop (LoopBegin/LoopEnd)";
  let description = [{
    `dv.loop %i trip 16 { ... }`: the body runs `trip` times with %i = 0 ..
    trip - 1 (trip 0 skips it). Loops nest at most 4 deep; %i is only used
    as an index of `dv.view`, where it becomes an induction-variable
    coefficient of the operand address.
  }];
  let arguments = (ins I64Attr:$trip);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "int64_t":$trip)>];
  let extraClassDeclaration = DV_PipeIs<"S">.decl # [{
    ::mlir::Value getInductionVar() { return getBody().front().getArgument(0); }
    /// 0 for an outermost loop.
    unsigned getDepth();
  }];
}

def DV_YieldOp : DV_Op<"yield", [Pure, Terminator, HasParent<"LoopOp">]> {
  let summary = "end of a loop body";
  let assemblyFormat = "attr-dict";
  let extraClassDeclaration = DV_PipeIs<"S">.decl;
}

def DV_AllocOp : DV_Op<"alloc", []> {
  let summary = "an on-chip buffer; `offset` (bytes) once allocated";
  let description = [{
    ```mlir
    %a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>             // not placed yet
    %u = dv.alloc offset 4096 : !dv.buf<ub, 2048xf16>        // placed
    ```
    The verifier checks the buffer against the SoC's space size and, when
    placed, the offset's alignment and that offset + bytes fits the space.
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs DV_OnChipBuffer:$result);
  let assemblyFormat = "(`offset` $offset^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"S">.decl;
}

def DV_ViewOp : DV_Op<"view", [Pure]> {
  let summary = "a sub-range of a buffer at an affine element offset";
  let description = [{
    `dv.view %buf[%i * 1024 + %b * 65536] : !dv.gm<...> to !dv.gm<1024xf16>`:
    the result starts `map(indices)` elements into the source and spans the
    result type's bytes. Indices are dv.loop induction variables and
    dv.block_idx; the offset must have the ISA's form base + sum c_d * iv_d +
    (c_b * bid | c_b * (bid mod G) + c_r * (bid floordiv G)). On-chip views keep
    the space and must keep its alignment for every term. The verifier checks
    the whole range over all iterations and blocks.
  }];
  let arguments = (ins DV_AnyBuffer:$source, Variadic<Index>:$indices,
                       AffineMapAttr:$map);
  let results = (outs DV_AnyBuffer:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"S">.decl;
}

//===----------------------------------------------------------------------===//
// Sync
//===----------------------------------------------------------------------===//

def DV_SetFlagOp : DV_Op<"set_flag", []> {
  let summary = "signal event `event` from pipe `src` to pipe `dst` (runs on src)";
  let arguments = (ins DV_Pipe:$src, DV_Pipe:$dst, I64Attr:$event);
  let assemblyFormat = "$src `->` $dst `event` $event attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{ ::vinci::dv::Pipe getPipe() { return getSrc(); } }];
}

def DV_WaitFlagOp : DV_Op<"wait_flag", []> {
  let summary = "wait on pipe `dst` for event `event` set by pipe `src`";
  let arguments = (ins DV_Pipe:$src, DV_Pipe:$dst, I64Attr:$event);
  let assemblyFormat = "$src `->` $dst `event` $event attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{ ::vinci::dv::Pipe getPipe() { return getDst(); } }];
}

def DV_PipeBarrierOp : DV_Op<"pipe_barrier", []> {
  let summary = "order every instruction of a pipe (ALL: of every pipe)";
  let arguments = (ins DV_Pipe:$barrier_pipe);
  let assemblyFormat = "$barrier_pipe attr-dict";
  let extraClassDeclaration = [{
    ::vinci::dv::Pipe getPipe() {
      return getBarrierPipe() == ::vinci::dv::Pipe::ALL ? ::vinci::dv::Pipe::S
                                                        : getBarrierPipe();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def DV_CopyOp : DV_Op<"copy", []> {
  let summary = "burst copy between spaces (ISA copy)";
  let description = [{
    `bursts` bursts of `burst_bytes` bytes; `src_gap` / `dst_gap` bytes are
    skipped between bursts. The pipe follows the spaces: GM -> L1/L0A/L0B/UB
    MTE2, L1 -> L0A/L0B/UB MTE1, UB -> GM/L1 MTE3, UB -> UB V.
  }];
  let arguments = (ins DV_AnyBuffer:$src, DV_AnyBuffer:$dst,
                       DefaultValuedAttr<I64Attr, "1">:$bursts,
                       I64Attr:$burst_bytes,
                       DefaultValuedAttr<I64Attr, "0">:$src_gap,
                       DefaultValuedAttr<I64Attr, "0">:$dst_gap);
  let assemblyFormat = "$src `to` $dst attr-dict `:` type($src) `to` type($dst)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{ ::vinci::dv::Pipe getPipe(); }];
}

def DV_CopyNd2NzOp : DV_Op<"copy_nd2nz", []> {
  let summary = "MTE2: GM ND rows x cols -> a zero-padded NZ tile dst_rows x dst_cols";
  let arguments = (ins DV_GmBuffer:$src, DV_OnChipBuffer:$dst, I64Attr:$rows, I64Attr:$cols,
                       I64Attr:$src_row_stride, I64Attr:$dst_rows, I64Attr:$dst_cols);
  let assemblyFormat = "$src `to` $dst attr-dict `:` type($src) `to` type($dst)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"MTE2">.decl;
}

def DV_CopyNz2NdOp : DV_Op<"copy_nz2nd", []> {
  let summary = "MTE3: UB NZ tile (src_rows padded rows) -> GM ND rows x cols";
  let arguments = (ins DV_OnChipBuffer:$src, DV_GmBuffer:$dst, I64Attr:$rows, I64Attr:$cols,
                       I64Attr:$dst_row_stride, I64Attr:$src_rows);
  let assemblyFormat = "$src `to` $dst attr-dict `:` type($src) `to` type($dst)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"MTE3">.decl;
}

def DV_CopyNchw2Nc1hwc0Op : DV_Op<"copy_nchw2nc1hwc0", []> {
  let summary = "MTE2: GM NCHW -> L1/UB NC1HWC0 (C0 zero padded)";
  let arguments = (ins DV_GmBuffer:$src, DV_OnChipBuffer:$dst, I64Attr:$channels,
                       I64Attr:$spatial, I64Attr:$src_channel_stride);
  let assemblyFormat = "$src `to` $dst attr-dict `:` type($src) `to` type($dst)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"MTE2">.decl;
}

def DV_CopyGatherOp : DV_Op<"copy_gather", []> {
  let summary = "MTE2: GM table rows picked by i32 indices in UB -> UB/L1 (ISA copy_gather)";
  let description = [{
    For r < rows: dst[r * dst_row_stride ..] <- src[idx * src_row_stride ..],
    `row_bytes` bytes, where idx = indices[r], plus `table_rows` when
    negative (ONNX Gather). An index outside [-table_rows, table_rows) stops
    the kernel with an error. The Scalar unit reads each index, so this is
    the one data-dependent address in the ISA; `src` spans the whole table.
  }];
  let arguments = (ins DV_GmBuffer:$src, DV_OnChipBuffer:$indices, DV_OnChipBuffer:$dst,
                       I64Attr:$rows, I64Attr:$row_bytes, I64Attr:$src_row_stride,
                       I64Attr:$dst_row_stride, I64Attr:$table_rows);
  let assemblyFormat = [{
    $src `[` $indices `]` `to` $dst attr-dict `:` type($src) `,` type($indices) `to` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"MTE2">.decl;
}

def DV_LoadFractalsOp : DV_Op<"load_fractals", []> {
  let summary = "MTE1: gather 512-byte fractals L1 -> L0A/L0B, optionally transposed";
  let description = [{
    dst fractal (o * dst_outer_stride + i * dst_inner_stride) <- src fractal
    (o * src_outer_stride + i * src_inner_stride), o < outer, i < inner.
    `transpose` (16-bit types) transposes each 16x16 fractal.
  }];
  let arguments = (ins DV_OnChipBuffer:$src, DV_OnChipBuffer:$dst, I64Attr:$outer, I64Attr:$inner,
                       I64Attr:$src_outer_stride, I64Attr:$src_inner_stride,
                       I64Attr:$dst_outer_stride, I64Attr:$dst_inner_stride,
                       UnitAttr:$transpose);
  let assemblyFormat = "$src `to` $dst attr-dict `:` type($src) `to` type($dst)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"MTE1">.decl;
}

def DV_Load3dOp : DV_Op<"load_3d", []> {
  let summary = "MTE1: img2col of an L1 feature map into L0A/L0B fractals (Load3D v1)";
  let description = [{
    The source holds a feature map of planes [C1][fmap_h][fmap_w][C0]
    (NC1HWC0 of one image, C0 = 16 for f16, 32 for i8/ui8) in L1; each
    destination fractal is 16 output positions (rows) by the C0 channels
    of one plane at one kernel tap (columns), 512 bytes, row-major: the A
    operand's fractal in L0A, the transposed im2col (channels x positions)
    as B in L0B. Positions are windows of the padded map along output rows
    (Wo windows a row, from `pads`, `filter`, `dilations`, `strides`),
    starting at the window whose top-left pixel is `left_top` (negative in
    the pads). `mode` taps: `repeat` fractals of the same 16 windows, the
    tap advancing (w, then h, then the plane) from `first_tap` of plane
    `c1_index`; positions: a fixed tap, 16 more windows a fractal, fractals
    `jump_stride` apart. Pixels outside the map read `pad_value` (0 when
    absent). Pairs follow the ISA: [w, h]; pads are [left, right, top,
    bottom] (docs/isa.md, load_3d).

    ```mlir
    dv.load_3d positions %fmap to %a {fmap_h = 58, fmap_w = 56, pads = array<i64: 1, 1, 0, 0>,
        filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
        first_tap = array<i64: 0, 0>, left_top = array<i64: -1, 0>, repeat = 7, jump_stride = 36}
        : !dv.buf<l1, 4x58x56x16xf16, nc1hwc0> to !dv.buf<l0a, 112x576xf16, nz>
    ```
  }];
  let arguments = (ins DV_OnChipBuffer:$src, DV_OnChipBuffer:$dst,
                       I64Attr:$fmap_h, I64Attr:$fmap_w,
                       DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<I64Attr, "0">:$c1_index,
                       DenseI64ArrayAttr:$filter, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$first_tap,
                       DenseI64ArrayAttr:$left_top,
                       DV_Load3dMode:$mode, I64Attr:$repeat,
                       DefaultValuedAttr<I64Attr, "1">:$jump_stride,
                       OptionalAttr<AnyAttrOf<[F32Attr, I32Attr]>>:$pad_value);
  let assemblyFormat = "$mode $src `to` $dst attr-dict `:` type($src) `to` type($dst)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"MTE1">.decl # [{
    /// Windows per output row (0: the filter does not fit the padded row).
    int64_t getRowWindows();
    /// Bytes the op reads from the start of `src` and writes from `dst`.
    uint64_t getSrcFootprint();
    uint64_t getDstFootprint();
  }];
}

//===----------------------------------------------------------------------===//
// Cube
//===----------------------------------------------------------------------===//

def DV_MmadOp : DV_Op<"mmad", []> {
  let summary = "Cube: c (L0C) = [c +] a (L0A) x b (L0B), m x n x k";
  let description = [{
    Input dtype from a/b, output dtype from c. `init` overwrites c instead of
    accumulating. m, n, k <= 4095; the SoC decides the input types.
  }];
  let arguments = (ins DV_OnChipBuffer:$a, DV_OnChipBuffer:$b, DV_OnChipBuffer:$c,
                       I64Attr:$m, I64Attr:$n, I64Attr:$k, UnitAttr:$init);
  let assemblyFormat = "$a `,` $b `to` $c attr-dict `:` type($a) `,` type($b) `to` type($c)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"M">.decl;
}

def DV_MoveL0cUbOp : DV_Op<"move_l0c_ub", []> {
  let summary = "V: L0C -> UB with cast, optional relu and scale";
  let description = [{
    `bursts` bursts of `burst_elems` elements, gaps in elements. Casts
    f32 -> f32/f16/bf16, i32 -> i32/f32/f16, f16 -> f16/f32.
  }];
  let arguments = (ins DV_OnChipBuffer:$src, DV_OnChipBuffer:$dst,
                       DefaultValuedAttr<I64Attr, "1">:$bursts, I64Attr:$burst_elems,
                       DefaultValuedAttr<I64Attr, "0">:$src_gap,
                       DefaultValuedAttr<I64Attr, "0">:$dst_gap,
                       UnitAttr:$relu, OptionalAttr<F32Attr>:$scale);
  let assemblyFormat = "$src `to` $dst attr-dict `:` type($src) `to` type($dst)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"V">.decl;
}

//===----------------------------------------------------------------------===//
// Vector (pipe V, UB operands only)
//===----------------------------------------------------------------------===//

// Repeat/stride/mask parameters shared by the vector ops. `blk` and `rep`
// list the block and repeat strides (32-byte blocks) per data operand in
// the order dst, src0[, src1]; absent: blk 1 and rep 8 (contiguous).
// `mask` = [lanes 0..63, lanes 64..127] bits; absent: every lane.
// Vector scalars: f32 for float element types, i32 for integer ones.
def DV_ScalarAttr : AnyAttrOf<[F32Attr, I32Attr]>;

defvar DV_VecParams = (ins I64Attr:$repeat,
                           OptionalAttr<DenseI64ArrayAttr>:$blk,
                           OptionalAttr<DenseI64ArrayAttr>:$rep,
                           OptionalAttr<DenseI64ArrayAttr>:$mask);

class DV_VecOp<string mnemonic, dag operands, string format, list<Trait> traits = []>
    : DV_Op<mnemonic, traits> {
  let arguments = !con(operands, DV_VecParams);
  let assemblyFormat = format;
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"V">.decl;
}

class DV_VecBinaryOp<string mnemonic, string formula>
    : DV_VecOp<mnemonic, (ins DV_OnChipBuffer:$src0, DV_OnChipBuffer:$src1, DV_OnChipBuffer:$dst),
               "$src0 `,` $src1 `to` $dst attr-dict `:` type($src0) `,` type($src1) `to` type($dst)"> {
  let summary = "V: dst = " # formula;
}
def DV_VAddOp : DV_VecBinaryOp<"vadd", "src0 + src1">;
def DV_VSubOp : DV_VecBinaryOp<"vsub", "src0 - src1">;
def DV_VMulOp : DV_VecBinaryOp<"vmul", "src0 * src1">;
def DV_VDivOp : DV_VecBinaryOp<"vdiv", "src0 / src1">;
def DV_VMaxOp : DV_VecBinaryOp<"vmax", "max(src0, src1)">;
def DV_VMinOp : DV_VecBinaryOp<"vmin", "min(src0, src1)">;
def DV_VMlaOp : DV_VecBinaryOp<"vmla", "src0 * src1 + dst">;

// `scalar` is an f32 for float element types, an i32 for integer ones.
class DV_VecScalarOp<string mnemonic, string formula>
    : DV_VecOp<mnemonic, (ins DV_OnChipBuffer:$src0, DV_ScalarAttr:$scalar, DV_OnChipBuffer:$dst),
               "$src0 `,` $scalar `to` $dst attr-dict `:` type($src0) `to` type($dst)"> {
  let summary = "V: dst = " # formula;
}
def DV_VAddsOp : DV_VecScalarOp<"vadds", "src0 + scalar">;
def DV_VMulsOp : DV_VecScalarOp<"vmuls", "src0 * scalar">;
def DV_VMaxsOp : DV_VecScalarOp<"vmaxs", "max(src0, scalar)">;
def DV_VMinsOp : DV_VecScalarOp<"vmins", "min(src0, scalar)">;
def DV_VLeakyReluOp : DV_VecScalarOp<"vlrelu", "src0 >= 0 ? src0 : src0 * scalar">;
def DV_VAxpyOp : DV_VecScalarOp<"vaxpy", "src0 * scalar + dst">;

class DV_VecUnaryOp<string mnemonic, string formula>
    : DV_VecOp<mnemonic, (ins DV_OnChipBuffer:$src0, DV_OnChipBuffer:$dst),
               "$src0 `to` $dst attr-dict `:` type($src0) `to` type($dst)"> {
  let summary = "V: dst = " # formula;
}
def DV_VExpOp : DV_VecUnaryOp<"vexp", "exp(src0)">;
def DV_VLnOp : DV_VecUnaryOp<"vln", "ln(src0)">;
def DV_VSqrtOp : DV_VecUnaryOp<"vsqrt", "sqrt(src0)">;
def DV_VRsqrtOp : DV_VecUnaryOp<"vrsqrt", "1 / sqrt(src0)">;
def DV_VRecOp : DV_VecUnaryOp<"vrec", "1 / src0">;
def DV_VAbsOp : DV_VecUnaryOp<"vabs", "|src0|">;
def DV_VReluOp : DV_VecUnaryOp<"vrelu", "max(src0, 0)">;
def DV_VNegOp : DV_VecUnaryOp<"vneg", "-src0">;
def DV_VCopyOp : DV_VecUnaryOp<"vcopy", "src0 (masked, strided)">;
def DV_VBrcbOp : DV_VecUnaryOp<"vbrcb", "every lane of repeat r = element r of src0">;

def DV_VConvOp : DV_VecOp<"vconv",
    (ins DV_OnChipBuffer:$src0, DV_OnChipBuffer:$dst, DefaultValuedAttr<DV_RoundMode, "::vinci::dv::RoundMode::Rint">:$round),
    "$src0 `to` $dst (`round` $round^)? attr-dict `:` type($src0) `to` type($dst)"> {
  let summary = "V: dst = cast(src0), element types from the operands";
}

def DV_VCmpOp : DV_VecOp<"vcmp",
    (ins DV_CmpMode:$mode, DV_OnChipBuffer:$src0, DV_OnChipBuffer:$src1, DV_OnChipBuffer:$dst),
    "$mode $src0 `,` $src1 `to` $dst attr-dict `:` type($src0) `,` type($src1) `to` type($dst)"> {
  let summary = "V: dst bit mask = src0 <mode> src1 (lanes/8 bytes per repeat)";
}

def DV_VCmpsOp : DV_VecOp<"vcmps",
    (ins DV_CmpMode:$mode, DV_OnChipBuffer:$src0, DV_ScalarAttr:$scalar, DV_OnChipBuffer:$dst),
    "$mode $src0 `,` $scalar `to` $dst attr-dict `:` type($src0) `to` type($dst)"> {
  let summary = "V: dst bit mask = src0 <mode> scalar";
}

def DV_VSelOp : DV_VecOp<"vsel",
    (ins DV_OnChipBuffer:$src0, DV_OnChipBuffer:$src1, DV_OnChipBuffer:$sel_mask, DV_OnChipBuffer:$dst),
    "$src0 `,` $src1 `,` $sel_mask `to` $dst attr-dict `:` type($src0) `,` type($src1) `,` type($sel_mask) `to` type($dst)"> {
  let summary = "V: dst = bit ? src0 : src1, bits from sel_mask";
}

class DV_VecReduceOp<string mnemonic, string what>
    : DV_VecOp<mnemonic, (ins DV_OnChipBuffer:$src0, DV_OnChipBuffer:$dst, UnitAttr:$across_repeats),
               "$src0 `to` $dst attr-dict `:` type($src0) `to` type($dst)"> {
  let summary = "V: " # what # " of each repeat (of all repeats with across_repeats)";
}
def DV_VCAddOp : DV_VecReduceOp<"vcadd", "sum">;
def DV_VCMaxOp : DV_VecReduceOp<"vcmax", "max">;
def DV_VCMinOp : DV_VecReduceOp<"vcmin", "min">;

def DV_VDupOp : DV_VecOp<"vdup", (ins DV_ScalarAttr:$scalar, DV_OnChipBuffer:$dst),
    "$scalar `to` $dst attr-dict `:` type($dst)"> {
  let summary = "V: dst = scalar";
}

def DV_VTransposeOp : DV_Op<"vtranspose", []> {
  let summary = "V: transpose `tiles` consecutive 16x16 16-bit tiles";
  let arguments = (ins DV_OnChipBuffer:$src0, DV_OnChipBuffer:$dst, I64Attr:$tiles);
  let assemblyFormat = "$src0 `to` $dst attr-dict `:` type($src0) `to` type($dst)";
  let hasVerifier = 1;
  let extraClassDeclaration = DV_PipeIs<"V">.decl;
}

#endif // VINCI_DV_OPS_TD
