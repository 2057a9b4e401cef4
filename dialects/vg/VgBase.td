//===- VgBase.td - the vg graph dialect -------------------------*- tablegen -*-===//
//
// vg is Vinci's graph dialect: whole-tensor operations with ONNX semantics,
// value semantics and (after import) fully static shapes. See docs/vg-dialect.md.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_VG_BASE_TD
#define VINCI_VG_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def VG_Dialect : Dialect {
  let name = "vg";
  let cppNamespace = "::vinci::vg";
  let summary = "Vinci graph dialect: tensor operators with ONNX semantics";
  let description = [{
    The vg dialect holds a model as the importers see it: one operation per
    framework operator, tensors with value semantics and static shapes.
    Shape-like operands that ONNX passes as tensors (Reshape's shape, Slice's
    starts and ends, Squeeze's axes, ...) are attributes here: the importer
    folds the shape arithmetic that exporters emit and requires them to be
    constant, so every result type is static and known at construction.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
}

// Element types that the graph carries.
def VG_Float : AnyTypeOf<[F16, BF16, F32, F64]>;
def VG_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def VG_Tensor : RankedTensorOf<[AnyType]>;
def VG_BoolTensor : RankedTensorOf<[I1]>;
def VG_I64Tensor : RankedTensorOf<[I64]>;
def VG_IndexTensor : RankedTensorOf<[I32, I64]>;

class VG_Op<string mnemonic, list<Trait> traits = []>
    : Op<VG_Dialect, mnemonic, traits>;

// Every vg op with one or more results infers them from operands and
// attributes; the generated builders take no result types.
class VG_InferredOp<string mnemonic, list<Trait> traits = []>
    : VG_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptorWithIsCompatible], traits)> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

#endif // VINCI_VG_BASE_TD
