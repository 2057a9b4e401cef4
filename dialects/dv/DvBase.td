//===- DvBase.td - the dv Da Vinci kernel dialect ---------------*- tablegen -*-===//
//
// dv is Vinci's kernel dialect: one op per instruction of the Vinci Da Vinci
// ISA (docs/isa.md), explicit memory spaces, and the scalar unit's loops with
// affine addresses. See docs/dv-dialect.md.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_DV_BASE_TD
#define VINCI_DV_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def DV_Dialect : Dialect {
  let name = "dv";
  let cppNamespace = "::vinci::dv";
  let summary = "Vinci Da Vinci kernel dialect: memory spaces, Cube/Vector/MTE instructions, pipe sync";
  let description = [{
    A dv kernel is the program one AI Core block runs: buffers in the core's
    memory spaces (L1, L0A, L0B, L0C, UB) and in GM, instructions that each
    name the pipe that runs them (S, V, M, MTE1, MTE2, MTE3), set_flag /
    wait_flag between pipes, and loops of the Scalar unit whose induction
    variables address buffers affinely. Ops mirror the ISA one to one, so the
    encoder is a walk. The target SoC comes from the module attribute
    `dv.soc` (default Ascend310P3) and decides buffer sizes, alignment and
    the Cube's input types.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The module attribute naming the target SoC.
    static constexpr ::llvm::StringLiteral kSocAttrName = "dv.soc";
    /// On a dv.kernel: the GM arguments that take a constant weight in
    /// FRACTAL_NZ ([cols/16][rows padded to 16][16], zero padded), which
    /// the .om writer converts at compile time.
    static constexpr ::llvm::StringLiteral kNzWeightsAttrName = "dv.nz_weights";
    /// On a dv.kernel: the GM arguments that take a constant conv weight
    /// [OC, C, kh, kw] in FRACTAL_Z ([C1 * kh * kw][OC1][16 oc][16 c],
    /// channels zero padded to 16), which the .om writer packs at compile
    /// time.
    static constexpr ::llvm::StringLiteral kFractalZWeightsAttrName = "dv.fractal_z_weights";
  private:
    void registerOps();
  public:
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// Values equal soc::Space (and the ISA's space byte).
def DV_MemSpace : I32EnumAttr<"MemSpace", "a memory space of the AI Core", [
    I32EnumAttrCase<"GM", 0, "gm">,
    I32EnumAttrCase<"L1", 1, "l1">,
    I32EnumAttrCase<"L0A", 2, "l0a">,
    I32EnumAttrCase<"L0B", 3, "l0b">,
    I32EnumAttrCase<"L0C", 4, "l0c">,
    I32EnumAttrCase<"UB", 5, "ub">]> {
  let cppNamespace = "::vinci::dv";
}

def DV_Layout : I32EnumAttr<"Layout", "data layout of a buffer", [
    I32EnumAttrCase<"ND", 0, "nd">,
    I32EnumAttrCase<"NZ", 1, "nz">,
    I32EnumAttrCase<"NC1HWC0", 2, "nc1hwc0">]> {
  let cppNamespace = "::vinci::dv";
}

// Values equal sim::Pipe; ALL (= kPipeAll) only for pipe_barrier.
def DV_Pipe : I32EnumAttr<"Pipe", "a pipe of the AI Core", [
    I32EnumAttrCase<"S", 0>,
    I32EnumAttrCase<"V", 1>,
    I32EnumAttrCase<"M", 2>,
    I32EnumAttrCase<"MTE1", 3>,
    I32EnumAttrCase<"MTE2", 4>,
    I32EnumAttrCase<"MTE3", 5>,
    I32EnumAttrCase<"ALL", 6>]> {
  let cppNamespace = "::vinci::dv";
}

// Values equal the ISA's load_3d repeat mode (sim::Load3dParams).
def DV_Load3dMode : I32EnumAttr<"Load3dMode", "what a load_3d repeat steps through", [
    I32EnumAttrCase<"Taps", 0, "taps">,
    I32EnumAttrCase<"Positions", 1, "positions">]> {
  let cppNamespace = "::vinci::dv";
}

// Values equal sim::CmpMode.
def DV_CmpMode : I32EnumAttr<"CmpMode", "vector compare predicate", [
    I32EnumAttrCase<"LT", 0, "lt">, I32EnumAttrCase<"LE", 1, "le">,
    I32EnumAttrCase<"GT", 2, "gt">, I32EnumAttrCase<"GE", 3, "ge">,
    I32EnumAttrCase<"EQ", 4, "eq">, I32EnumAttrCase<"NE", 5, "ne">]> {
  let cppNamespace = "::vinci::dv";
}

// Values equal sim::RoundMode.
def DV_RoundMode : I32EnumAttr<"RoundMode", "float-to-int rounding of vconv", [
    I32EnumAttrCase<"Rint", 0, "rint">, I32EnumAttrCase<"Floor", 1, "floor">,
    I32EnumAttrCase<"Ceil", 2, "ceil">, I32EnumAttrCase<"Trunc", 3, "trunc">,
    I32EnumAttrCase<"Away", 4, "away">]> {
  let cppNamespace = "::vinci::dv";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class DV_Type<string name, string typeMnemonic> : TypeDef<DV_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def DV_GmType : DV_Type<"Gm", "gm"> {
  let summary = "a GM buffer (a kernel argument or a view of one)";
  let description = [{
    `!dv.gm<1024x1024xf16>`: row-major (ND) data in global memory. GM is
    sized by the host, so only the shape's bytes are checked against uses.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    uint64_t getNumElements() const;
    uint64_t getSizeInBytes() const;
  }];
}

def DV_BufType : DV_Type<"Buf", "buf"> {
  let summary = "an on-chip buffer: memory space, shape, element type, layout";
  let description = [{
    `!dv.buf<l0a, 64x256xf16, nz>`: `shape` elements of `elementType` in the
    space, stored in `layout` (nd by default, omitted when printed). For nz the
    shape is the padded tile [rows, cols] (rows a multiple of 16, cols of C0);
    for nc1hwc0 the innermost dim is C0. Its offset in the space is given
    where the buffer is created (dv.alloc), so allocation does not change
    types.
  }];
  let parameters = (ins "::vinci::dv::MemSpace":$space,
                        ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::vinci::dv::Layout":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    uint64_t getNumElements() const;
    uint64_t getSizeInBytes() const;
  }];
}

// Operand constraints without a C++ type, so that the full `!dv.buf<...>`
// spelling is printed in op signatures.
def DV_OnChipBuffer : Type<CPred<"::llvm::isa<::vinci::dv::BufType>($_self)">,
                           "an on-chip buffer (!dv.buf)">;
def DV_GmBuffer : Type<CPred<"::llvm::isa<::vinci::dv::GmType>($_self)">,
                       "a GM buffer (!dv.gm)">;
def DV_AnyBuffer : Type<Or<[DV_GmType.predicate, DV_BufType.predicate]>,
                        "a GM or on-chip buffer">;

//===----------------------------------------------------------------------===//
// The pipe interface
//===----------------------------------------------------------------------===//

def DV_PipeOpInterface : OpInterface<"PipeOpInterface"> {
  let cppNamespace = "::vinci::dv";
  let description = [{
    Every dv op names the pipe that executes it: the pipe byte of its ISA
    record. Structural ops (loops, block_idx, views, allocs) belong to the
    Scalar unit (S).
  }];
  let methods = [
    InterfaceMethod<"The pipe that runs this op.", "::vinci::dv::Pipe", "getPipe">,
  ];
}

class DV_Op<string mnemonic, list<Trait> traits = []>
    : Op<DV_Dialect, mnemonic, !listconcat([DV_PipeOpInterface], traits)>;

#endif // VINCI_DV_BASE_TD
