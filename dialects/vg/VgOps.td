//===- VgOps.td - vg graph operations ---------------------------*- tablegen -*-===//
//
// One op per ONNX operator, with ONNX semantics (numpy broadcasting, NCHW,
// the ONNX attribute names). Shape-like ONNX inputs are attributes: the
// importer folds them to constants first. Every op infers its result types;
// inference doubles as the verifier and its messages name the op and the
// offending operand or attribute.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_VG_OPS_TD
#define VINCI_VG_OPS_TD

include "VgBase.td"

// Shared by every op: an inferred type may be less static than the one in
// the IR (an operand that is not a constant yet), never different.
defvar VGCompatibleReturnTypes = [{
  bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                          ::mlir::TypeRange actual) {
    return ::vinci::vg::areCompatibleResultTypes(inferred, actual);
  }
}];

class VG_ShapedOp<string mnemonic, list<Trait> traits = []>
    : VG_InferredOp<mnemonic, traits> {
  let extraClassDefinition = VGCompatibleReturnTypes;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def VG_ConstantOp : VG_Op<"constant", [ConstantLike, Pure,
    InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "a constant tensor (weights, or folded shape arithmetic)";
  let description = [{
    Holds an initializer, a Constant node, or the result of folding.
    Weights larger than a few elements are `dense_resource` blobs: the bytes
    stay in one buffer shared with the importer and never pass through text.

    ```mlir
    %w = vg.constant dense_resource<fc1.weight> : tensor<768x768xf32>
    %s = vg.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs VG_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let extraClassDefinition = VGCompatibleReturnTypes;
}

//===----------------------------------------------------------------------===//
// Elementwise: unary
//===----------------------------------------------------------------------===//

// Result type = operand type; ODS derives inferReturnTypes from the trait.
class VG_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : VG_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                   DeclareOpInterfaceMethods<InferTypeOpInterface>],
                                  traits)> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

class VG_FloatUnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : VG_UnaryOp<mnemonic, VG_FloatTensor, traits> {
  let summary = "elementwise " # formula;
  let hasFolder = 1;
}

def VG_NegOp : VG_UnaryOp<"neg", RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64]>> {
  let summary = "elementwise -x";
  let hasFolder = 1;
}
def VG_AbsOp : VG_UnaryOp<"abs", RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>> {
  let summary = "elementwise |x|";
  let hasFolder = 1;
}
def VG_SqrtOp : VG_FloatUnaryOp<"sqrt", "sqrt(x)">;
def VG_ReciprocalOp : VG_FloatUnaryOp<"reciprocal", "1/x">;
def VG_ExpOp : VG_FloatUnaryOp<"exp", "e^x">;
def VG_LogOp : VG_FloatUnaryOp<"log", "ln(x)">;
def VG_TanhOp : VG_FloatUnaryOp<"tanh", "tanh(x)">;
def VG_ErfOp : VG_FloatUnaryOp<"erf", "erf(x)">;
def VG_SigmoidOp : VG_FloatUnaryOp<"sigmoid", "1/(1+e^-x)">;
def VG_ReluOp : VG_FloatUnaryOp<"relu", "max(x, 0)">;
def VG_HardSwishOp : VG_FloatUnaryOp<"hard_swish", "x * max(0, min(1, x/6 + 1/2))">;
def VG_FloorOp : VG_FloatUnaryOp<"floor", "floor(x)">;
def VG_CeilOp : VG_FloatUnaryOp<"ceil", "ceil(x)">;
def VG_RoundOp : VG_FloatUnaryOp<"round", "x rounded to the nearest integer, halves to even">;
def VG_SinOp : VG_FloatUnaryOp<"sin", "sin(x)">;
def VG_CosOp : VG_FloatUnaryOp<"cos", "cos(x)">;
def VG_SoftplusOp : VG_FloatUnaryOp<"softplus", "ln(1 + e^x)">;
def VG_SignOp : VG_UnaryOp<"sign", RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64]>> {
  let summary = "elementwise sign(x) in {-1, 0, 1}";
  let hasFolder = 1;
}
def VG_NotOp : VG_UnaryOp<"not", VG_BoolTensor> {
  let summary = "elementwise logical not";
  let hasFolder = 1;
}
def VG_IdentityOp : VG_UnaryOp<"identity", VG_Tensor> {
  let summary = "the input itself";
  let hasFolder = 1;
}
def VG_DropoutOp : VG_UnaryOp<"dropout", VG_Tensor> {
  let summary = "dropout in inference: the input itself";
  let description = [{
    Kept so that an imported graph matches its source one to one; the
    folder removes it. The mask output of ONNX Dropout is not supported.
  }];
  let arguments = (ins VG_Tensor:$input, DefaultValuedAttr<F32Attr, "0.5">:$ratio);
  let hasFolder = 1;
}

def VG_GeluOp : VG_UnaryOp<"gelu", VG_FloatTensor> {
  let summary = "elementwise x * Phi(x), the Gaussian error linear unit";
  let description = [{
    `approximate = "none"`: 0.5 * x * (1 + erf(x / sqrt(2)));
    `approximate = "tanh"`: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
    ONNX has no Gelu before opset 20: exporters decompose it, and
    vinci-fuse-gelu recomposes it so that it runs as one Vector op chain.
  }];
  let arguments = (ins VG_FloatTensor:$input,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let hasVerifier = 1;
}

class VG_FloatUnaryAttrOp<string mnemonic, string formula, dag attrs>
    : VG_UnaryOp<mnemonic, VG_FloatTensor> {
  let summary = "elementwise " # formula;
  let arguments = !con((ins VG_FloatTensor:$input), attrs);
}

def VG_LeakyReluOp : VG_FloatUnaryAttrOp<"leaky_relu", "x < 0 ? alpha*x : x",
    (ins DefaultValuedAttr<F32Attr, "0.01">:$alpha)>;
def VG_HardSigmoidOp : VG_FloatUnaryAttrOp<"hard_sigmoid", "max(0, min(1, alpha*x + beta))",
    (ins DefaultValuedAttr<F32Attr, "0.2">:$alpha, DefaultValuedAttr<F32Attr, "0.5">:$beta)>;
def VG_EluOp : VG_FloatUnaryAttrOp<"elu", "x < 0 ? alpha*(e^x - 1) : x",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)>;
def VG_SeluOp : VG_FloatUnaryAttrOp<"selu", "gamma * (x < 0 ? alpha*(e^x - 1) : x)",
    (ins DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
         DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma)>;
def VG_ClipOp : VG_UnaryOp<"clip", RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>> {
  let summary = "elementwise min(max(x, min), max)";
  let description = [{
    ONNX passes min and max as optional inputs (attributes before opset 11);
    here they are optional attributes, since the importer requires them to
    be constants. A missing bound is no bound.
  }];
  let arguments = (ins RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>:$input,
                   OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
  let hasFolder = 1;
}

def VG_CastOp : VG_ShapedOp<"cast"> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    ONNX Cast: float to int truncates toward zero, to bool is x != 0.
    ```mlir
    %1 = vg.cast %0 {to = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
    ```
  }];
  let arguments = (ins VG_Tensor:$input, TypeAttr:$to);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise: binary and ternary with numpy broadcasting
//===----------------------------------------------------------------------===//

class VG_BinaryOp<string mnemonic, string formula, Type operandType,
                  Type resultType, string resultElement>
    : VG_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "elementwise " # formula # " with numpy broadcasting";
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs resultType:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  // resultElement: "lhs" keeps the left operand's element type, "i1" gives bool.
  let extraClassDefinition = VGCompatibleReturnTypes # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *,
        std::optional<::mlir::Location> location, Adaptor adaptor,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::vinci::vg::inferBroadcastResult(location, "}] # mnemonic # [{",
          {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          /*boolResult=*/}] # !if(!eq(resultElement, "i1"), "true", "false") # [{,
          /*sameElementType=*/}] # !if(!eq(mnemonic, "pow"), "false", "true") # [{,
          inferred);
    }
  }];
}

defvar VG_Numeric = RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;

def VG_AddOp : VG_BinaryOp<"add", "a + b", VG_Numeric, VG_Numeric, "lhs">;
def VG_SubOp : VG_BinaryOp<"sub", "a - b", VG_Numeric, VG_Numeric, "lhs">;
def VG_MulOp : VG_BinaryOp<"mul", "a * b", VG_Numeric, VG_Numeric, "lhs">;
def VG_DivOp : VG_BinaryOp<"div", "a / b (integers truncate)", VG_Numeric, VG_Numeric, "lhs">;
def VG_PowOp : VG_BinaryOp<"pow", "a ^ b", VG_Numeric, VG_Numeric, "lhs">;
def VG_MaxOp : VG_BinaryOp<"max", "max(a, b)", VG_Numeric, VG_Numeric, "lhs">;
def VG_MinOp : VG_BinaryOp<"min", "min(a, b)", VG_Numeric, VG_Numeric, "lhs">;
def VG_ModOp : VG_BinaryOp<"mod", "a mod b (sign of b; fmod=1: sign of a)", VG_Numeric, VG_Numeric, "lhs"> {
  let arguments = (ins VG_Numeric:$lhs, VG_Numeric:$rhs, DefaultValuedAttr<I64Attr, "0">:$fmod);
}
def VG_PReluOp : VG_BinaryOp<"prelu", "x < 0 ? slope*x : x", VG_FloatTensor, VG_FloatTensor, "lhs">;
def VG_EqualOp : VG_BinaryOp<"equal", "a == b", VG_Tensor, VG_BoolTensor, "i1">;
def VG_LessOp : VG_BinaryOp<"less", "a < b", VG_Numeric, VG_BoolTensor, "i1">;
def VG_LessOrEqualOp : VG_BinaryOp<"less_or_equal", "a <= b", VG_Numeric, VG_BoolTensor, "i1">;
def VG_GreaterOp : VG_BinaryOp<"greater", "a > b", VG_Numeric, VG_BoolTensor, "i1">;
def VG_GreaterOrEqualOp : VG_BinaryOp<"greater_or_equal", "a >= b", VG_Numeric, VG_BoolTensor, "i1">;
def VG_AndOp : VG_BinaryOp<"and", "a and b", VG_BoolTensor, VG_BoolTensor, "i1">;
def VG_OrOp : VG_BinaryOp<"or", "a or b", VG_BoolTensor, VG_BoolTensor, "i1">;
def VG_XorOp : VG_BinaryOp<"xor", "a xor b", VG_BoolTensor, VG_BoolTensor, "i1">;

def VG_WhereOp : VG_ShapedOp<"where"> {
  let summary = "elementwise cond ? x : y with numpy broadcasting";
  let arguments = (ins VG_BoolTensor:$condition, VG_Tensor:$x, VG_Tensor:$y);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra and convolution
//===----------------------------------------------------------------------===//

def VG_MatMulOp : VG_ShapedOp<"matmul"> {
  let summary = "numpy matmul, with optional transposes of the last two dims";
  let description = [{
    ONNX MatMul (batch dims broadcast, 1-D operands promoted) plus the
    transposes that Gemm carries, so Gemm(A, B, C) imports as
    `add(matmul(A, B) {transpose_a, transpose_b}, C)` scaled by alpha/beta.
    ```mlir
    %y = vg.matmul %x, %w {transpose_b = true}
        : (tensor<8x768xf32>, tensor<3072x768xf32>) -> tensor<8x3072xf32>
    ```
  }];
  let arguments = (ins VG_Numeric:$a, VG_Numeric:$b,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                   DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs VG_Numeric:$output);
  let hasCanonicalizer = 1;
}

def VG_ConvOp : VG_ShapedOp<"conv"> {
  let summary = "N-d convolution (NCHW), groups, dilations, pads, strides";
  let description = [{
    ONNX Conv. `pads` is [begin_0, ..., begin_n, end_0, ..., end_n]; with
    auto_pad SAME_UPPER / SAME_LOWER / VALID the pads are computed from the
    static shapes (`getEffectivePads`). kernel_shape, when present, must match
    the weight.
  }];
  let arguments = (ins VG_FloatTensor:$input, VG_FloatTensor:$weight,
                   Optional<VG_FloatTensor>:$bias,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs VG_FloatTensor:$output);
  let extraClassDeclaration = [{
    /// Pads after resolving auto_pad, 2 * spatial rank entries.
    ::llvm::SmallVector<int64_t> getEffectivePads();
  }];
}

class VG_PoolOp<string mnemonic, string what, Type tensorType, dag extraAttrs>
    : VG_ShapedOp<mnemonic> {
  let summary = what # " pooling over the spatial dims (NCHW)";
  let arguments = !con((ins tensorType:$input,
                   DefaultValuedAttr<StrAttr, "\"NOTSET\"">:$auto_pad,
                   DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                   DenseI64ArrayAttr:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides), extraAttrs);
  let results = (outs tensorType:$output);
}

def VG_MaxPoolOp : VG_PoolOp<"max_pool", "max", VG_Numeric,
    (ins OptionalAttr<DenseI64ArrayAttr>:$dilations,
         DefaultValuedAttr<I64Attr, "0">:$storage_order)>;
def VG_AveragePoolOp : VG_PoolOp<"average_pool", "average", VG_FloatTensor,
    (ins DefaultValuedAttr<I64Attr, "0">:$count_include_pad)>;

class VG_GlobalPoolOp<string mnemonic, string what> : VG_ShapedOp<mnemonic> {
  let summary = what # " over all spatial dims: N x C x 1 x ... x 1";
  let arguments = (ins VG_FloatTensor:$input);
  let results = (outs VG_FloatTensor:$output);
}
def VG_GlobalAveragePoolOp : VG_GlobalPoolOp<"global_average_pool", "mean">;
def VG_GlobalMaxPoolOp : VG_GlobalPoolOp<"global_max_pool", "max">;

//===----------------------------------------------------------------------===//
// Normalisation and softmax
//===----------------------------------------------------------------------===//

def VG_BatchNormOp : VG_ShapedOp<"batch_norm"> {
  let summary = "inference batch normalisation over channel dim 1";
  let description = [{
    y = scale * (x - mean) / sqrt(var + epsilon) + bias, per channel.
    Training mode (running statistics outputs) is not supported.
  }];
  let arguments = (ins VG_FloatTensor:$input, VG_FloatTensor:$scale,
                   VG_FloatTensor:$bias, VG_FloatTensor:$mean,
                   VG_FloatTensor:$variance,
                   DefaultValuedAttr<F32Attr, "1e-5">:$epsilon);
  let results = (outs VG_FloatTensor:$output);
}

def VG_LayerNormOp : VG_ShapedOp<"layer_norm"> {
  let summary = "layer normalisation over dims [axis, rank)";
  let description = [{
    ONNX LayerNormalization (opset 17): mean and variance over the trailing
    dims from `axis`, then scale and optional bias (broadcast to those dims).
    The statistics are computed in fp32 whatever the storage type.
  }];
  let arguments = (ins VG_FloatTensor:$input, VG_FloatTensor:$scale,
                   Optional<VG_FloatTensor>:$bias,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F32Attr, "1e-5">:$epsilon);
  let results = (outs VG_FloatTensor:$output);
}

def VG_RmsNormOp : VG_ShapedOp<"rms_norm"> {
  let summary = "root-mean-square normalisation over dims [axis, rank)";
  let description = [{
    y = x / sqrt(mean(x^2) + epsilon) * scale over the trailing dims from
    `axis` (as in T5 and LLaMA); the statistic is computed in fp32.
  }];
  let arguments = (ins VG_FloatTensor:$input, VG_FloatTensor:$scale,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F32Attr, "1e-5">:$epsilon);
  let results = (outs VG_FloatTensor:$output);
}

class VG_SoftmaxLikeOp<string mnemonic, string formula> : VG_ShapedOp<mnemonic> {
  let summary = formula # " along one axis (ONNX opset 13 semantics)";
  let arguments = (ins VG_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs VG_FloatTensor:$output);
}
def VG_SoftmaxOp : VG_SoftmaxLikeOp<"softmax", "e^x / sum(e^x)">;
def VG_LogSoftmaxOp : VG_SoftmaxLikeOp<"log_softmax", "x - ln(sum(e^x))">;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class VG_ReduceOp<string mnemonic, string formula> : VG_ShapedOp<mnemonic> {
  let summary = formula # " over `axes` (all dims when empty)";
  let description = [{
    ONNX Reduce*: negative axes count from the back; keepdims keeps reduced
    dims as 1; with no axes all dims reduce unless noop_with_empty_axes.
  }];
  let arguments = (ins VG_Numeric:$input,
                   OptionalAttr<DenseI64ArrayAttr>:$axes,
                   DefaultValuedAttr<I64Attr, "1">:$keepdims,
                   DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs VG_Numeric:$output);
}
def VG_ReduceMeanOp : VG_ReduceOp<"reduce_mean", "mean">;
def VG_ReduceSumOp : VG_ReduceOp<"reduce_sum", "sum">;
def VG_ReduceMaxOp : VG_ReduceOp<"reduce_max", "max">;
def VG_ReduceMinOp : VG_ReduceOp<"reduce_min", "min">;
def VG_ReduceProdOp : VG_ReduceOp<"reduce_prod", "product">;
def VG_ReduceL2Op : VG_ReduceOp<"reduce_l2", "sqrt(sum(x^2))">;

class VG_ArgReduceOp<string mnemonic, string what> : VG_ShapedOp<mnemonic> {
  let summary = "index of the " # what # " along one axis (i64)";
  let arguments = (ins VG_Numeric:$input,
                   DefaultValuedAttr<I64Attr, "0">:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$keepdims,
                   DefaultValuedAttr<I64Attr, "0">:$select_last_index);
  let results = (outs VG_IndexTensor:$output);
}
def VG_ArgMaxOp : VG_ArgReduceOp<"arg_max", "largest element">;
def VG_ArgMinOp : VG_ArgReduceOp<"arg_min", "smallest element">;

//===----------------------------------------------------------------------===//
// Data movement and shape
//===----------------------------------------------------------------------===//

def VG_TransposeOp : VG_ShapedOp<"transpose"> {
  let summary = "permutes dims: output dim i is input dim perm[i]";
  let arguments = (ins VG_Tensor:$input, OptionalAttr<DenseI64ArrayAttr>:$perm);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_ReshapeOp : VG_ShapedOp<"reshape"> {
  let summary = "reshape; 0 copies the input dim (unless allowzero), -1 is inferred";
  let arguments = (ins VG_Tensor:$input, DenseI64ArrayAttr:$shape,
                   DefaultValuedAttr<I64Attr, "0">:$allowzero);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_FlattenOp : VG_ShapedOp<"flatten"> {
  let summary = "2-D reshape: dims [0, axis) and [axis, rank) each multiply out";
  let arguments = (ins VG_Tensor:$input, DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_SqueezeOp : VG_ShapedOp<"squeeze"> {
  let summary = "removes the size-1 dims listed in axes (all size-1 dims when absent)";
  let arguments = (ins VG_Tensor:$input, OptionalAttr<DenseI64ArrayAttr>:$axes);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_UnsqueezeOp : VG_ShapedOp<"unsqueeze"> {
  let summary = "inserts size-1 dims at the output positions listed in axes";
  let arguments = (ins VG_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_ConcatOp : VG_ShapedOp<"concat"> {
  let summary = "joins tensors along axis";
  let arguments = (ins Variadic<VG_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_SplitOp : VG_ShapedOp<"split"> {
  let summary = "splits along axis into pieces of the sizes in `split`";
  let arguments = (ins VG_Tensor:$input, DefaultValuedAttr<I64Attr, "0">:$axis,
                   DenseI64ArrayAttr:$split);
  let results = (outs Variadic<VG_Tensor>:$outputs);
}

def VG_SliceOp : VG_ShapedOp<"slice"> {
  let summary = "strided slice: one (start, end, step) per listed axis";
  let description = [{
    ONNX Slice with constant parameters. starts, ends, axes and steps have
    one entry each per sliced axis; out-of-range starts and ends clamp as
    ONNX says (INT64_MAX means "to the end").
  }];
  let arguments = (ins VG_Tensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$axes,
                   DenseI64ArrayAttr:$steps);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_GatherOp : VG_ShapedOp<"gather"> {
  let summary = "takes slices of data along axis at the given indices";
  let description = [{
    Output shape: data.shape[:axis] + indices.shape + data.shape[axis+1:].
    Negative indices count from the end of the axis.
  }];
  let arguments = (ins VG_Tensor:$data, VG_IndexTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_ExpandOp : VG_ShapedOp<"expand"> {
  let summary = "broadcasts the input to a shape (numpy rules, both ways)";
  let arguments = (ins VG_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_TileOp : VG_ShapedOp<"tile"> {
  let summary = "repeats the input repeats[i] times along dim i";
  let arguments = (ins VG_Tensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs VG_Tensor:$output);
}

def VG_PadOp : VG_ShapedOp<"pad"> {
  let summary = "pads each dim (constant, reflect or edge)";
  let description = [{
    `pads` is [begin_0, ..., begin_n, end_0, ..., end_n]; negative pads crop.
  }];
  let arguments = (ins VG_Tensor:$input, DenseI64ArrayAttr:$pads,
                   DefaultValuedAttr<StrAttr, "\"constant\"">:$mode,
                   DefaultValuedAttr<F64Attr, "0.0">:$constant_value);
  let results = (outs VG_Tensor:$output);
}

def VG_ResizeOp : VG_ShapedOp<"resize"> {
  let summary = "nearest or linear resize over the dims with scale != 1";
  let description = [{
    ONNX Resize restricted to mode nearest and linear. `scales` is always
    present (one per dim) because the coordinate transformation uses it;
    `sizes`, when the model gave sizes, fixes the output shape.
  }];
  let arguments = (ins VG_FloatTensor:$input,
                   DenseF32ArrayAttr:$scales,
                   OptionalAttr<DenseI64ArrayAttr>:$sizes,
                   DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
                   DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
                   DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode,
                   DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value);
  let results = (outs VG_FloatTensor:$output);
}

def VG_ShapeOp : VG_ShapedOp<"shape"> {
  let summary = "the input's shape, dims [start, end), as a 1-D i64 tensor";
  let arguments = (ins VG_Tensor:$input,
                   DefaultValuedAttr<I64Attr, "0">:$start,
                   OptionalAttr<I64Attr>:$end);
  let results = (outs VG_IndexTensor:$output);
  let hasFolder = 1;
}

def VG_ConstantOfShapeOp : VG_ShapedOp<"constant_of_shape"> {
  let summary = "a tensor of the given shape filled with one value";
  let arguments = (ins DenseI64ArrayAttr:$shape, ElementsAttr:$value);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

def VG_RangeOp : VG_ShapedOp<"range"> {
  let summary = "start, start+delta, ... up to (not including) limit";
  let arguments = (ins ElementsAttr:$start, ElementsAttr:$limit, ElementsAttr:$delta);
  let results = (outs VG_Tensor:$output);
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Preprocessing
//===----------------------------------------------------------------------===//

def VG_AippOp : VG_ShapedOp<"aipp"> {
  let summary = "static image preprocessing (ATC's AIPP): a uint8 image to a model input";
  let description = [{
    What ATC's static AIPP does on the AI Core, in its order: channel swap,
    crop, colour-space conversion, normalisation, padding. The image is
    uint8 in one of four layouts (`input_format`):

    | input_format | image type | channels |
    |---|---|---|
    | RGB888_U8   | [N, H, W, 3], packed | R, G, B |
    | XRGB8888_U8 | [N, H, W, 4], packed | X, R, G, B |
    | YUV400_U8   | [N, H, W, 1] | Y |
    | YUV420SP_U8 | [N, H * 3 / 2, W, 1]: an H x W Y plane, then H / 2 rows of interleaved U, V (NV12) | Y, U, V |

    The result is [N, C, crop[2] + padding[0] + padding[1], crop[3] +
    padding[2] + padding[3]] of element type `to`, with C the length of
    `mean`. For every output channel c and cropped pixel p (rows crop[0] ..,
    columns crop[1] ..):

    - `channels[j]` is the image channel that the conversion's input j reads
      (the swaps: [2, 1, 0] reads B, G, R of an RGB image);
    - with `csc_matrix` (3 x 3, row-major): y_c = clamp(floor(sum_j
      csc_matrix[c][j] * (x_j - csc_input_bias[j]) / 256) +
      csc_output_bias[c], 0, 255); without it y_c = x_c;
    - out_c = (y_c - mean[c] - min[c]) * var_reci[c];
    - padded positions hold `padding_value`.

    ```mlir
    %x = vg.aipp %img {input_format = "RGB888_U8", crop = array<i64: 16, 16, 224, 224>,
                       channels = array<i64: 0, 1, 2>, csc_input_bias = array<i64: 0, 0, 0>,
                       csc_output_bias = array<i64: 0, 0, 0>,
                       mean = array<f32: 0.0, 0.0, 0.0>, min = array<f32: 123.675, 116.28, 103.53>,
                       var_reci = array<f32: 0.0171, 0.0175, 0.0174>,
                       padding = array<i64: 0, 0, 0, 0>, padding_value = 0.0 : f32, to = f32}
        : (tensor<1x256x256x3xui8>) -> tensor<1x3x224x224xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[UI8]>:$image,
                   StrAttr:$input_format,
                   DenseI64ArrayAttr:$crop,
                   DenseI64ArrayAttr:$channels,
                   OptionalAttr<DenseI64ArrayAttr>:$csc_matrix,
                   DenseI64ArrayAttr:$csc_input_bias,
                   DenseI64ArrayAttr:$csc_output_bias,
                   DenseF32ArrayAttr:$mean,
                   DenseF32ArrayAttr:$min,
                   DenseF32ArrayAttr:$var_reci,
                   DenseI64ArrayAttr:$padding,
                   F32Attr:$padding_value,
                   TypeAttr:$to);
  let results = (outs VG_FloatTensor:$output);
  let extraClassDeclaration = [{
    /// Bytes a pixel takes in the image's packed rows (YUV420SP_U8: its Y
    /// plane; the UV rows take as many bytes as the Y rows).
    int64_t getPixelBytes();
    /// The image's height and width in pixels.
    int64_t getImageHeight();
    int64_t getImageWidth();
  }];
}

#endif // VINCI_VG_OPS_TD
