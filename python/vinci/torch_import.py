"""The PyTorch front end: torch.nn.Module -> aten graph -> vg, without ONNX.

Capture: torch.fx.experimental.proxy_tensor.make_fx traces the module with
the example inputs into an aten-level graph (torch 1.13 has no torch.export
or Dynamo; make_fx works where torch.fx.symbolic_trace fails on
nn.TransformerEncoderLayer). The trace runs with autograd on, so that
TransformerEncoderLayer takes its composite path instead of the fused
_transformer_encoder_layer_fwd kernel.

Mapping: one handler per aten op (the _HANDLERS table) emits vg ops with
ONNX semantics; vg infers every result type, so the graph is checked the
same way as an ONNX import. Nodes that depend on no input and no parameter
(arange, masks, shape constants) are evaluated here by torch and become
constants. Parameters go to the compiler as numpy buffers (read in place,
never printed). An aten op without a handler is reported with every other
such op and its count before anything is built.
"""

import collections
import importlib.util
import inspect
import operator
import os
import struct
import sys

import numpy as np

from .errors import CompileError, UnsupportedOperatorError

INT64_MAX = 2**63 - 1


def require_torch():
    """torch and make_fx, or a CompileError saying how to get them."""
    try:
        import torch
        from torch.fx.experimental.proxy_tensor import make_fx
    except ImportError as error:
        raise CompileError([f"the PyTorch front end needs PyTorch 1.13 or later with make_fx "
                            f"(Debian: apt install python3-torch): {error}"]) from None
    return torch, make_fx


# --- attribute spellings (MLIR attribute syntax; exact for floats) ---------

def _i64(value):
    return f"{int(value)} : i64"


def _f32(value):
    return f"0x{struct.unpack('<I', struct.pack('<f', float(value)))[0]:08X} : f32"


def _f64(value):
    return f"0x{struct.unpack('<Q', struct.pack('<d', float(value)))[0]:016X} : f64"


def _i64s(values):
    values = [int(v) for v in values]
    return f"array<i64: {', '.join(map(str, values))}>" if values else "array<i64>"


def _bool(value):
    return "true" if value else "false"


def _str(value):
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


_ELEMENT_TYPES = {  # torch dtype name -> (MLIR element type, numpy dtype)
    "float32": ("f32", np.float32), "float16": ("f16", np.float16), "float64": ("f64", np.float64),
    "bfloat16": ("bf16", np.uint16), "int64": ("i64", np.int64), "int32": ("i32", np.int32),
    "int16": ("i16", np.int16), "int8": ("i8", np.int8), "uint8": ("ui8", np.uint8),
    "bool": ("i1", np.bool_),
}


def _element_type(dtype):
    name = str(dtype).replace("torch.", "")
    if name not in _ELEMENT_TYPES:
        raise CompileError([f"tensors of {dtype} are not supported by Vinci"])
    return _ELEMENT_TYPES[name][0]


# --- the graph handed to the compiler ---------------------------------------

class Value:
    """A vg value: its index in the graph, and its shape/dtype when known."""
    __slots__ = ("index", "shape", "dtype")

    def __init__(self, index, shape=None, dtype=None):
        self.index, self.shape, self.dtype = index, shape, dtype

    @property
    def rank(self):
        return len(self.shape)


class GraphBuilder:
    """Collects inputs, constants and vg nodes into the dict that
    vinci._compiler.compile_graph takes. GraphSpec.h numbers values inputs
    first, then constants, then node results; constants turn up while nodes
    are mapped, so indices are given out at the end (finish)."""

    def __init__(self, name):
        self.name = name
        self.inputs, self.constants = [], []
        self._constant_values, self._nodes, self._node_values = [], [], []

    def input(self, name, shape, dtype):
        self.inputs.append((name, _element_type(dtype), [int(d) for d in shape]))
        return Value(len(self.inputs) - 1, tuple(shape), dtype)

    def constant(self, name, array, dtype, shape):
        """A constant over `array` (kept here, so alive until the compile returns)."""
        self.constants.append((name, _element_type(dtype), [int(d) for d in shape],
                               np.ascontiguousarray(array)))
        value = Value(None, tuple(shape), dtype)
        self._constant_values.append(value)
        return value

    def op(self, name, operands, attributes=None, source="", shape=None, dtype=None, results=1):
        values = [Value(None, tuple(shape) if shape is not None and results == 1 else None, dtype)
                  for _ in range(results)]
        self._nodes.append((name, source, list(operands), sorted((attributes or {}).items()),
                            results))
        self._node_values.extend(values)
        return values[0] if results == 1 else values

    def finish(self, outputs):
        next_index = len(self.inputs)
        for value in self._constant_values + self._node_values:
            value.index, next_index = next_index, next_index + 1
        nodes = [(name, source, [v.index for v in operands], attributes, results)
                 for name, source, operands, attributes, results in self._nodes]
        return {"name": self.name, "inputs": self.inputs, "constants": self.constants,
                "nodes": nodes, "outputs": [(value.index, name) for value, name in outputs]}


# --- aten handlers ----------------------------------------------------------

_HANDLERS = {}


def aten(*names):
    def register(handler):
        for name in names:
            _HANDLERS[name] = handler
        return handler
    return register


class _Unsupported(Exception):
    """A mapped aten op used in a form Vinci cannot import (one line)."""


def _dims(dims, rank):
    return [d % rank if rank else 0 for d in ([dims] if isinstance(dims, int) else dims)]


@aten("aten.t.default", "aten.numpy_T.default")
def _t(m, node, x):
    if x.rank < 2:
        return x
    result = m.emit(node, "vg.transpose", [x], {"perm": _i64s([1, 0])})
    m.transposed_from[id(result)] = x
    return result


@aten("aten.transpose.int")
def _transpose(m, node, x, dim0, dim1):
    perm = list(range(x.rank))
    a, b = _dims([dim0, dim1], x.rank)
    perm[a], perm[b] = perm[b], perm[a]
    if perm == sorted(perm):
        return x
    result = m.emit(node, "vg.transpose", [x], {"perm": _i64s(perm)})
    if sorted([a, b]) == [x.rank - 2, x.rank - 1]:
        m.transposed_from[id(result)] = x
    return result


@aten("aten.permute.default")
def _permute(m, node, x, dims):
    perm = _dims(dims, x.rank)
    if perm == sorted(perm):
        return x
    return m.emit(node, "vg.transpose", [x], {"perm": _i64s(perm)})


def _matmul_operand(m, b):
    """b, or the value b transposes in its last two dims (then transpose_b)."""
    source = m.transposed_from.get(id(b))
    return (source, True) if source is not None else (b, False)


_RESHAPES = ("aten.view.default", "aten._unsafe_view.default", "aten._reshape_alias.default",
             "aten.reshape.default")


def _unflattened(m, node, a):
    """Undoes make_fx's flattening of an N-d matmul, as ONNX keeps it.

    torch decomposes x[B..., M, K] @ w into view(x, [B*M, K]) -> mm -> view
    back (bmm likewise over the batch dims). When `a` is such a view of a
    higher-rank value and every user of `node` views the product back to that
    value's leading dims, returns (the value, the N-d product shape): one vg
    matmul with numpy broadcasting then does it, and the views become no-ops.
    """
    source = m.reshaped_from.get(id(a))
    if source is None or source.shape is None or source.rank <= a.rank or not node.users:
        return None
    kept = a.rank - 1  # trailing dims a keeps from source: K for mm, M and K for bmm
    if source.shape[-kept:] != a.shape[-kept:]:
        return None
    product = m.meta_shape(node)
    shape = tuple(source.shape[:-kept]) + tuple(product[-kept:])
    if all(_qualified(user.target) in _RESHAPES and m.meta_shape(user) == shape
           for user in node.users):
        return source, shape
    return None


def _emit_matmul(m, node, a, b, final=True):
    b, transpose_b = _matmul_operand(m, b)
    attributes = {"transpose_b": _bool(True)} if transpose_b else {}
    shape = None
    unflattened = _unflattened(m, node, a)
    if unflattened is not None:
        a, shape = unflattened
        b_source = m.reshaped_from.get(id(b)) if b.rank == 3 else None
        if b_source is not None and b_source.shape[-2:] == b.shape[-2:]:
            b = b_source  # its batch dims broadcast against a's
    if final:
        return m.emit(node, "vg.matmul", [a, b], attributes, shape=shape, dtype=a.dtype)
    return m.emit_inner(node, "vg.matmul", [a, b], attributes)


@aten("aten.mm.default", "aten.bmm.default", "aten.matmul.default")
def _mm(m, node, a, b):
    return _emit_matmul(m, node, a, b)


@aten("aten.addmm.default")
def _addmm(m, node, bias, a, b, beta=1, alpha=1):
    product = _emit_matmul(m, node, a, b, final=False)
    if alpha != 1:
        product = m.emit_inner(node, "vg.mul", [product, m.scalar(alpha, node)])
    if beta != 1:
        bias = m.emit_inner(node, "vg.mul", [bias, m.scalar(beta, node)])
    unflattened = _unflattened(m, node, a)
    shape = unflattened[1] if unflattened is not None else None
    return m.emit(node, "vg.add", [product, bias], shape=shape, dtype=a.dtype)


@aten("aten.linear.default")
def _linear(m, node, x, weight, bias=None):
    attributes = {"transpose_b": _bool(True)}
    if bias is None:
        return m.emit(node, "vg.matmul", [x, weight], attributes)
    product = m.emit_inner(node, "vg.matmul", [x, weight], attributes)
    return m.emit(node, "vg.add", [product, bias])


def _binary(vg_op, boolean=False):
    def handler(m, node, a, b, alpha=1):
        # torch promotes mixed operands; vg wants one element type: cast to the result's.
        wanted = m.meta_dtype(node) if not boolean else None
        operands = []
        for operand, other in ((a, b), (b, a)):
            if not isinstance(operand, Value):
                like = wanted or (other.dtype if isinstance(other, Value) else None)
                operand = m.scalar(operand, node, like)
            elif wanted is not None and operand.dtype != wanted:
                operand = m.emit_inner(node, "vg.cast", [operand],
                                       {"to": _element_type(wanted)}, dtype=wanted)
            operands.append(operand)
        if alpha != 1:
            operands[1] = m.emit_inner(node, "vg.mul", [operands[1], m.scalar(alpha, node, wanted)])
        return m.emit(node, vg_op, operands)
    return handler


for _names, _op in ((("aten.add.Tensor", "aten.add_.Tensor", "aten.add.Scalar"), "vg.add"),
                    (("aten.sub.Tensor", "aten.sub.Scalar"), "vg.sub"),
                    (("aten.mul.Tensor", "aten.mul_.Tensor", "aten.mul.Scalar"), "vg.mul"),
                    (("aten.div.Tensor", "aten.div.Scalar"), "vg.div"),
                    (("aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor"), "vg.pow"),
                    (("aten.maximum.default",), "vg.max"), (("aten.minimum.default",), "vg.min")):
    aten(*_names)(_binary(_op))
for _names, _op in ((("aten.eq.Tensor", "aten.eq.Scalar"), "vg.equal"),
                    (("aten.lt.Tensor", "aten.lt.Scalar"), "vg.less"),
                    (("aten.le.Tensor", "aten.le.Scalar"), "vg.less_or_equal"),
                    (("aten.gt.Tensor", "aten.gt.Scalar"), "vg.greater"),
                    (("aten.ge.Tensor", "aten.ge.Scalar"), "vg.greater_or_equal")):
    aten(*_names)(_binary(_op, boolean=True))


@aten("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(m, node, a, b, alpha=1):
    return _binary("vg.sub")(m, node, b, a, alpha) if alpha == 1 else m.unsupported(
        "rsub with alpha != 1")


def _unary(vg_op):
    def handler(m, node, x, *ignored):
        return m.emit(node, vg_op, [x])
    return handler


for _names, _op in ((("aten.relu.default", "aten.relu_.default"), "vg.relu"),
                    (("aten.tanh.default",), "vg.tanh"), (("aten.sigmoid.default",), "vg.sigmoid"),
                    (("aten.exp.default",), "vg.exp"), (("aten.log.default",), "vg.log"),
                    (("aten.sqrt.default",), "vg.sqrt"), (("aten.neg.default",), "vg.neg"),
                    (("aten.erf.default",), "vg.erf"), (("aten.abs.default",), "vg.abs"),
                    (("aten.reciprocal.default",), "vg.reciprocal"),
                    (("aten.sin.default",), "vg.sin"), (("aten.cos.default",), "vg.cos"),
                    (("aten.hardswish.default", "aten.hardswish_.default"), "vg.hard_swish")):
    aten(*_names)(_unary(_op))


@aten("aten.rsqrt.default")
def _rsqrt(m, node, x):
    return m.emit(node, "vg.reciprocal", [m.emit_inner(node, "vg.sqrt", [x])])


@aten("aten.hardsigmoid.default", "aten.hardsigmoid_.default")
def _hardsigmoid(m, node, x):
    # torch's relu6(x + 3) / 6, ONNX's HardSigmoid with alpha 1/6 (not its default 0.2).
    return m.emit(node, "vg.hard_sigmoid", [x], {"alpha": _f32(1 / 6), "beta": _f32(0.5)})


@aten("aten.silu.default", "aten.silu_.default")
def _silu(m, node, x):
    return m.emit(node, "vg.mul", [x, m.emit_inner(node, "vg.sigmoid", [x])])


@aten("aten.gelu.default")
def _gelu(m, node, x, approximate="none"):
    return m.emit(node, "vg.gelu", [x], {"approximate": _str(approximate)})


@aten("aten.hardtanh.default", "aten.hardtanh_.default", "aten.clamp.default")
def _clip(m, node, x, low=None, high=None):
    attributes = {}
    if low is not None:
        attributes["min"] = _f64(low)
    if high is not None:
        attributes["max"] = _f64(high)
    return m.emit(node, "vg.clip", [x], attributes)


@aten("aten._softmax.default", "aten.softmax.int")
def _softmax(m, node, x, dim, half_to_float=False):
    return m.emit(node, "vg.softmax", [x], {"axis": _i64(dim)})


@aten("aten._log_softmax.default", "aten.log_softmax.int")
def _log_softmax(m, node, x, dim, half_to_float=False):
    return m.emit(node, "vg.log_softmax", [x], {"axis": _i64(dim)})


@aten("aten.view.default", "aten._unsafe_view.default", "aten._reshape_alias.default",
      "aten.reshape.default", "aten.flatten.using_ints")
def _reshape(m, node, x, *ignored):
    shape = m.meta_shape(node)
    if tuple(shape) == x.shape:
        return x
    result = m.emit(node, "vg.reshape", [x], {"shape": _i64s(shape)})
    m.reshaped_from[id(result)] = x
    return result


@aten("aten.clone.default", "aten.detach.default", "aten.alias.default",
      "aten.lift_fresh_copy.default", "aten.contiguous.default", "aten.dropout.default")
def _same(m, node, x, *ignored, **ignored_keywords):
    return x  # values are immutable in vg: a copy, alias or inference dropout is the value


@aten("aten.as_strided.default", "aten.as_strided_.default")
def _as_strided(m, node, x, size, stride, storage_offset=0):
    # A restride that keeps the shape and the order of every element (the
    # strides of the dims longer than one are the contiguous ones: ConvNeXt's
    # pooled [1, 768, 1, 1] marked channels-last) is the value itself; a
    # real view of other elements has no vg form.
    size, stride = list(size), list(stride)
    contiguous, step = [], 1
    for extent in reversed(size):
        contiguous.insert(0, step)
        step *= extent
    same_order = all(e == 1 or s == c for e, s, c in zip(size, stride, contiguous))
    if tuple(size) != tuple(x.shape) or not same_order or storage_offset:
        raise _Unsupported(f"as_strided to size {size}, stride {stride}, offset "
                           f"{storage_offset} from {list(x.shape)} (only a restride that keeps "
                           f"every element in place)")
    return x


@aten("aten._to_copy.default")
def _to_copy(m, node, x, dtype=None, **ignored):
    wanted = m.meta_dtype(node)
    if wanted == x.dtype:
        return x
    return m.emit(node, "vg.cast", [x], {"to": _element_type(wanted)})


@aten("aten.expand.default")
def _expand(m, node, x, sizes, implicit=False):
    shape = m.meta_shape(node)
    if tuple(shape) == x.shape:
        return x
    return m.emit(node, "vg.expand", [x], {"shape": _i64s(shape)})


@aten("aten.unsqueeze.default")
def _unsqueeze(m, node, x, dim):
    return m.emit(node, "vg.unsqueeze", [x], {"axes": _i64s(_dims([dim], x.rank + 1))})


@aten("aten.squeeze.dim")
def _squeeze(m, node, x, dim):
    if x.shape[dim] != 1:
        return x
    return m.emit(node, "vg.squeeze", [x], {"axes": _i64s(_dims([dim], x.rank))})


@aten("aten.split.Tensor", "aten.split_with_sizes.default")
def _split(m, node, x, split, dim=0):
    # One slice per piece, as torch.onnx exports chunk/split: a piece nobody
    # uses then costs nothing, and each piece is one value to fuse or lower.
    dim = _dims([dim], x.rank)[0]
    total = x.shape[dim]
    sizes = list(split) if isinstance(split, (list, tuple)) else \
        [min(split, total - start) for start in range(0, total, split)]
    pieces, start = [], 0
    for size in sizes:
        pieces.append(m.emit_inner(node, "vg.slice", [x], {
            "starts": _i64s([start]), "ends": _i64s([start + size]), "axes": _i64s([dim]),
            "steps": _i64s([1])}))
        start += size
    return tuple(pieces)


@aten("aten.slice.Tensor")
def _slice(m, node, x, dim=0, start=None, end=None, step=1):
    dim = _dims([dim], x.rank)[0]
    start = 0 if start is None else start
    end = INT64_MAX if end is None else end
    if step == 1 and start == 0 and end >= x.shape[dim]:
        return x
    return m.emit(node, "vg.slice", [x], {"starts": _i64s([start]), "ends": _i64s([end]),
                                          "axes": _i64s([dim]), "steps": _i64s([step])})


@aten("aten.select.int")
def _select(m, node, x, dim, index):
    # A gather at a scalar index drops the dim, as torch.onnx exports select.
    dim = _dims([dim], x.rank)[0]
    position = m.scalar(index % x.shape[dim], node, m.torch.int64)
    return m.emit(node, "vg.gather", [x, position], {"axis": _i64(dim)})


@aten("aten.cat.default")
def _cat(m, node, tensors, dim=0):
    rank = tensors[0].rank
    return m.emit(node, "vg.concat", list(tensors), {"axis": _i64(_dims([dim], rank)[0])})


@aten("aten.constant_pad_nd.default")
def _constant_pad_nd(m, node, x, pad, value=0):
    # torch lists (begin, end) pairs from the last dim backwards; vg.pad
    # takes every dim's begin, then every dim's end (negative pads crop).
    if len(pad) % 2 or len(pad) // 2 > x.rank:
        raise _Unsupported(f"constant_pad_nd with {len(pad)} pads over a rank-{x.rank} tensor")
    begins, ends = [0] * x.rank, [0] * x.rank
    for i in range(len(pad) // 2):
        begins[x.rank - 1 - i], ends[x.rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
    if not any(begins + ends):
        return x
    # A negative pad crops: a slice first, then the pad of what is left.
    crops = [d for d in range(x.rank) if begins[d] < 0 or ends[d] < 0]
    if crops:
        shape = list(x.shape)
        starts = [max(-begins[d], 0) for d in crops]
        stops = [shape[d] - max(-ends[d], 0) for d in crops]
        for d, start, stop in zip(crops, starts, stops):
            shape[d] = stop - start
            begins[d], ends[d] = max(begins[d], 0), max(ends[d], 0)
        x = m.builder.op("vg.slice", [x], {"starts": _i64s(starts), "ends": _i64s(stops),
                                           "axes": _i64s(crops), "steps": _i64s([1] * len(crops))},
                         node.name, tuple(shape), m.meta_dtype(node))
        if not any(begins + ends):
            return x
    return m.emit(node, "vg.pad", [x], {"pads": _i64s(begins + ends), "mode": _str("constant"),
                                        "constant_value": _f64(value)})


@aten("aten.roll.default")
def _roll(m, node, x, shifts, dims=()):
    # roll(x, s, d) -> concat(x[size - s:], x[:size - s]) along d, one dim
    # at a time; without dims the flattened tensor rolls.
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else list(dims)
    shape, dtype = x.shape, m.meta_dtype(node)
    if not dims:
        if len(shifts) != 1:
            raise _Unsupported(f"roll with {len(shifts)} shifts and no dims")
        flat = m.builder.op("vg.reshape", [x], {"shape": _i64s([-1])}, node.name,
                            (_numel(shape),), dtype)
        rolled = _roll_dim(m, node, flat, shifts[0], 0, dtype)
        return rolled if rolled is flat else \
            m.emit(node, "vg.reshape", [rolled], {"shape": _i64s(shape)})
    if len(shifts) != len(dims):
        raise _Unsupported(f"roll with {len(shifts)} shifts for {len(dims)} dims")
    for shift, dim in zip(shifts, _dims(dims, x.rank)):
        x = _roll_dim(m, node, x, shift, dim, dtype)
    return x


def _numel(shape):
    count = 1
    for extent in shape:
        count *= extent
    return count


def _roll_dim(m, node, x, shift, dim, dtype):
    size = x.shape[dim]
    split = (size - shift % size) % size if size else 0
    if split == 0:
        return x

    def piece(start, end):
        shape = list(x.shape)
        shape[dim] = end - start
        return m.builder.op("vg.slice", [x], {"starts": _i64s([start]), "ends": _i64s([end]),
                                              "axes": _i64s([dim]), "steps": _i64s([1])},
                            node.name, tuple(shape), dtype)
    return m.builder.op("vg.concat", [piece(split, size), piece(0, split)],
                        {"axis": _i64(dim)}, node.name, x.shape, dtype)


@aten("aten.where.self")
def _where(m, node, condition, x, y):
    wanted = m.meta_dtype(node)
    x = x if isinstance(x, Value) else m.scalar(x, node, wanted)
    y = y if isinstance(y, Value) else m.scalar(y, node, wanted)
    return m.emit(node, "vg.where", [condition, x, y])


@aten("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(m, node, x, mask, value):
    value = value if isinstance(value, Value) else m.scalar(value, node, x.dtype)
    return m.emit(node, "vg.where", [mask, value, x])


@aten("aten.index.Tensor")
def _index(m, node, x, indices):
    # x[..., idx, ...] with one index tensor (the dims before it taken
    # whole: None): a gather on that axis, as torch.onnx exports it (MaxViT's
    # relative position bias table[index]). Several index tensors broadcast
    # together and have no single gather.
    given = [i for i, index in enumerate(indices) if index is not None]
    if len(given) != 1:
        raise _Unsupported(f"indexing with {len(given)} index tensors (one gathers on its axis)")
    return m.emit(node, "vg.gather", [x, indices[given[0]]], {"axis": _i64(given[0])})


@aten("aten.embedding.default")
def _embedding(m, node, weight, indices, *ignored):
    return m.emit(node, "vg.gather", [weight, indices], {"axis": _i64(0)})


def _reduce(vg_op):
    def handler(m, node, x, dims=None, keepdim=False, dtype=None):
        attributes = {"keepdims": _i64(1 if keepdim else 0)}
        if dims:
            attributes["axes"] = _i64s(_dims(dims, x.rank))
        return m.emit(node, vg_op, [x], attributes)
    return handler


aten("aten.mean.dim")(_reduce("vg.reduce_mean"))
aten("aten.sum.dim_IntList")(_reduce("vg.reduce_sum"))
aten("aten.amax.default")(_reduce("vg.reduce_max"))
aten("aten.amin.default")(_reduce("vg.reduce_min"))


@aten("aten.native_layer_norm.default")
def _layer_norm(m, node, x, normalized_shape, weight, bias, eps):
    weight = weight if weight is not None else m.filled(normalized_shape, 1.0, x.dtype, node)
    operands = [x, weight] + ([bias] if bias is not None else [])
    out = m.emit(node, "vg.layer_norm", operands,
                 {"axis": _i64(-len(normalized_shape)), "epsilon": _f32(eps)},
                 shape=x.shape, dtype=x.dtype)
    return (out, None, None)  # mean and rstd: training-only outputs


@aten("aten.native_batch_norm.default", "aten._native_batch_norm_legit_no_training.default")
def _batch_norm(m, node, x, weight, bias, mean, var, *rest):
    training = rest[0] if len(rest) == 3 else False
    if training:
        raise _Unsupported("batch norm in training mode (call module.eval() before compiling)")
    eps = rest[-1]
    channels = [x.shape[1]]
    weight = weight if weight is not None else m.filled(channels, 1.0, x.dtype, node)
    bias = bias if bias is not None else m.filled(channels, 0.0, x.dtype, node)
    out = m.emit(node, "vg.batch_norm", [x, weight, bias, mean, var], {"epsilon": _f32(eps)},
                 shape=x.shape, dtype=x.dtype)
    return (out, None, None)


@aten("aten.convolution.default")
def _convolution(m, node, x, weight, bias, stride, padding, dilation, transposed,
                 output_padding, groups):
    if transposed:
        raise _Unsupported("transposed convolution (vg has no ConvTranspose yet)")
    spatial = x.rank - 2
    padding = list(padding) * (spatial if len(padding) == 1 else 1)
    attributes = {"strides": _i64s(stride if len(stride) == spatial else list(stride) * spatial),
                  "pads": _i64s(padding + padding),
                  "dilations": _i64s(dilation if len(dilation) == spatial
                                     else list(dilation) * spatial),
                  "group": _i64(groups)}
    operands = [x, weight] + ([bias] if bias is not None else [])
    return m.emit(node, "vg.conv", operands, attributes)


def _pool_attributes(kernel, stride, padding, spatial):
    expand = lambda v: list(v) * spatial if len(v) == 1 else list(v)
    kernel = expand(kernel)
    stride = expand(stride) if stride else kernel
    padding = expand(padding if isinstance(padding, (list, tuple)) else [padding])
    return {"kernel_shape": _i64s(kernel), "strides": _i64s(stride), "pads": _i64s(padding * 2)}


@aten("aten.max_pool2d_with_indices.default", "aten.max_pool2d.default")
def _max_pool(m, node, x, kernel, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    attributes = _pool_attributes(kernel, stride, padding, 2)
    attributes["dilations"] = _i64s(list(dilation) * 2 if len(dilation) == 1 else dilation)
    attributes["ceil_mode"] = _i64(1 if ceil_mode else 0)
    out = m.emit(node, "vg.max_pool", [x], attributes)  # shape: from the getitem
    return (out, None) if str(node.target).startswith("aten.max_pool2d_with_indices") else out


@aten("aten.avg_pool2d.default")
def _avg_pool(m, node, x, kernel, stride=(), padding=(0,), ceil_mode=False,
              count_include_pad=True, divisor_override=None):
    if divisor_override:
        raise _Unsupported("avg_pool2d with divisor_override")
    attributes = _pool_attributes(kernel, stride, padding, 2)
    attributes["ceil_mode"] = _i64(1 if ceil_mode else 0)
    attributes["count_include_pad"] = _i64(1 if count_include_pad else 0)
    return m.emit(node, "vg.average_pool", [x], attributes)


@aten("aten._adaptive_avg_pool2d.default", "aten.adaptive_avg_pool2d.default")
def _adaptive_avg_pool(m, node, x, output_size):
    # To 1x1: a global average pool; to a size dividing the input's (VGG's
    # 7x7 at 224): an average pool of window = stride = input / output, or
    # nothing at all when the sizes are equal.
    if list(output_size) == [1, 1]:
        return m.emit(node, "vg.global_average_pool", [x])
    height, width = x.shape[-2:]
    out_h, out_w = (output_size[0] or height), (output_size[1] or width)
    if height % out_h or width % out_w:
        raise _Unsupported(f"adaptive_avg_pool2d from {height}x{width} to {out_h}x{out_w} (only "
                           f"to 1x1 or to a size that divides the input's)")
    if (out_h, out_w) == (height, width):
        return x
    kernel = [height // out_h, width // out_w]
    return m.emit(node, "vg.average_pool", [x], _pool_attributes(kernel, kernel, [0], 2))


# --- the importer -----------------------------------------------------------

# Ops whose result depends on their first operand's shape and dtype only.
_SHAPE_ONLY = {"aten.zeros_like.default", "aten.ones_like.default", "aten.full_like.default",
               "aten.empty_like.default", "aten.new_zeros.default", "aten.new_ones.default",
               "aten.new_full.default", "aten.new_empty.default"}

def _qualified(target):
    return str(target) if not callable(target) or hasattr(target, "_schema") else \
        f"{getattr(target, '__module__', '')}.{getattr(target, '__name__', target)}"


class _Importer:
    def __init__(self, graph_module, example_inputs, input_names, output_names, name):
        self.torch, _ = require_torch()
        self.gm = graph_module
        self.example_inputs = example_inputs
        self.input_names = input_names
        self.output_names = output_names
        self.builder = GraphBuilder(name)
        self.values = {}            # fx node -> Value, tuple of Values, or a folded torch tensor
        self.folded = {}            # fx node -> torch tensor computed here
        self.weights = {}           # get_attr target -> Value
        self.transposed_from = {}   # id(Value) -> the Value it transposes (last two dims)
        self.reshaped_from = {}     # id(Value) -> the Value it reshapes
        self.weight_names = {}      # get_attr target -> the module's parameter name
        self.errors = []
        self.failed = set()         # nodes an error left without a value (and their users)

    # -- used by the handlers --
    def meta(self, node, index=None):
        meta = node.meta.get("tensor_meta")
        if index is not None and isinstance(meta, (list, tuple)):
            meta = meta[index]
        return meta

    def meta_shape(self, node, index=None):
        return tuple(int(d) for d in self.meta(node, index).shape)

    def meta_dtype(self, node, index=None):
        meta = self.meta(node, index)
        return meta.dtype if meta is not None and hasattr(meta, "dtype") else None

    def emit(self, node, vg_op, operands, attributes=None, shape=None, dtype=None, results=1):
        """The vg op that gives `node`'s value (its shape and dtype from the trace)."""
        meta = self.meta(node)
        if results == 1 and shape is None and hasattr(meta, "shape"):
            shape, dtype = self.meta_shape(node), meta.dtype
        return self.builder.op(vg_op, operands, attributes, node.name, shape, dtype, results)

    def emit_inner(self, node, vg_op, operands, attributes=None, dtype=None):
        """An intermediate vg op of `node`'s mapping."""
        return self.builder.op(vg_op, operands, attributes, node.name, None, dtype)

    def scalar(self, value, node, dtype=None):
        dtype = dtype or self.meta_dtype(node) or self.torch.float32
        return self._constant_from(f"{node.name}.scalar", self.torch.tensor(value, dtype=dtype))

    def filled(self, shape, fill, dtype, node):
        return self._constant_from(f"{node.name}.fill", self.torch.full(list(shape), fill,
                                                                         dtype=dtype))

    def unsupported(self, what):
        raise _Unsupported(what)

    # -- the walk --
    def _live_nodes(self):
        graph = self.gm.graph
        output = next(n for n in graph.nodes if n.op == "output")
        live, stack = set(), [output]
        while stack:
            node = stack.pop()
            if node in live:
                continue
            live.add(node)
            stack.extend(node.all_input_nodes)
        return [n for n in graph.nodes if n in live]

    def _foldable(self, nodes):
        """Nodes computable here: no graph input or parameter upstream, or
        only through their shape (zeros_like(input_ids); shapes are static)."""
        foldable = set()
        for node in nodes:
            if node.op == "get_attr":
                if not node.target.startswith("_param_constant"):
                    foldable.add(node)  # a tensor constant the module's code made
            elif node.op == "call_function":
                inputs = node.all_input_nodes
                if _qualified(node.target) in _SHAPE_ONLY:
                    inputs = inputs[1:]
                if all(i in foldable for i in inputs):
                    foldable.add(node)
        return foldable

    def check_supported(self, nodes, foldable):
        counts = collections.Counter(
            _qualified(n.target) for n in nodes
            if n.op == "call_function" and n not in foldable and n.target is not operator.getitem
            and _qualified(n.target) not in _HANDLERS)
        if counts:
            listing = ", ".join(f"{op} x{count}" for op, count in sorted(counts.items()))
            raise UnsupportedOperatorError(
                [f"{self.builder.name}: unsupported operators: {listing} ({sum(counts.values())} "
                 f"node(s); see docs/python.md for the mapped aten ops)"], ops=counts)

    def support_report(self):
        nodes = self._live_nodes()
        foldable = self._foldable(nodes)
        counts = collections.Counter(_qualified(n.target) for n in nodes
                                     if n.op == "call_function" and n not in foldable
                                     and n.target is not operator.getitem)
        lines = [f"Operator support report for {self.builder.name} (aten ops from make_fx)",
                 f"{'op':<48} {'count':>6}  status"]
        unsupported = 0
        for op, count in sorted(counts.items()):
            ok = op in _HANDLERS
            unsupported += 0 if ok else count
            lines.append(f"{op:<48} {count:>6}  {'supported' if ok else 'UNSUPPORTED'}")
        lines.append("All operators are supported." if not unsupported
                     else f"{unsupported} node(s) use unsupported operators.")
        return "\n".join(lines) + "\n", unsupported == 0

    def _resolve(self, arg):
        torch = self.torch
        if isinstance(arg, torch.fx.Node):
            if arg in self.folded and arg not in self.values:
                folded = self.folded[arg]
                if not isinstance(folded, torch.Tensor):
                    return folded  # a Python value (e.g. a size)
                self.values[arg] = self._constant_from(arg.name, folded)
            return self.values[arg]
        if isinstance(arg, (list, tuple)):
            return type(arg)(self._resolve(a) for a in arg)
        return arg

    def _constant_from(self, name, tensor):
        tensor = tensor.detach().cpu().contiguous()
        numpy_type = _ELEMENT_TYPES[str(tensor.dtype).replace("torch.", "")][1]
        array = (tensor.view(self.torch.int16) if tensor.dtype == self.torch.bfloat16 else tensor) \
            .numpy().view(numpy_type)
        return self.builder.constant(name, array, tensor.dtype, tuple(tensor.shape))

    def _fold(self, node):
        torch = self.torch
        def materialise(arg):
            if isinstance(arg, torch.fx.Node):
                if arg in self.folded:
                    return self.folded[arg]
                # The first operand of a _SHAPE_ONLY op: only its shape and dtype matter.
                meta = self.meta(arg)
                return torch.zeros(tuple(meta.shape), dtype=meta.dtype)
            if isinstance(arg, (list, tuple)):
                return type(arg)(materialise(a) for a in arg)
            return arg
        if node.op == "get_attr":
            return getattr(self.gm, node.target)
        with torch.no_grad():
            return node.target(*materialise(node.args), **materialise(node.kwargs))

    def run(self):
        torch = self.torch
        nodes = self._live_nodes()
        foldable = self._foldable(nodes)
        self.check_supported(nodes, foldable)
        placeholders = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        outputs = []
        for node in nodes:
            if node in foldable:
                self.folded[node] = self._fold(node)
            elif node.op == "placeholder":
                index = placeholders.index(node)
                example = self.example_inputs[index]
                self.values[node] = self.builder.input(self.input_names[index],
                                                       tuple(example.shape), example.dtype)
            elif node.op == "get_attr":
                if node.target not in self.weights:
                    tensor = getattr(self.gm, node.target)
                    self.weights[node.target] = self._constant_from(
                        self.weight_names.get(node.target, node.target), tensor)
                self.values[node] = self.weights[node.target]
            elif any(i in self.failed for i in node.all_input_nodes):
                self.failed.add(node)  # its operand's error is reported; nothing to build
            elif node.op == "call_function":
                args, kwargs = self._resolve(node.args), self._resolve(node.kwargs)
                if node.target is operator.getitem:
                    value = args[0][args[1]]
                    if isinstance(value, Value) and value.shape is None and \
                            hasattr(self.meta(node), "shape"):
                        value.shape, value.dtype = self.meta_shape(node), self.meta_dtype(node)
                    self.values[node] = value
                    continue
                try:
                    self.values[node] = _HANDLERS[_qualified(node.target)](self, node, *args,
                                                                           **kwargs)
                except _Unsupported as error:
                    self.errors.append(f"node '{node.name}' ({_qualified(node.target)}): {error}")
                    self.failed.add(node)
            elif node.op == "output":
                flat = torch.utils._pytree.tree_flatten(node.args[0])[0]
                names = self.output_names or (["output"] if len(flat) == 1 else
                                              [f"output_{i}" for i in range(len(flat))])
                if len(names) != len(flat):
                    raise CompileError([f"{self.builder.name}: {len(names)} output_names for "
                                        f"{len(flat)} outputs"])
                for value, name in zip(flat, names):
                    resolved = self._resolve(value)
                    if not isinstance(resolved, Value):
                        raise CompileError([f"{self.builder.name}: output '{name}' does not depend "
                                            f"on the inputs (a constant): Vinci compiles graphs "
                                            f"whose outputs are computed"])
                    outputs.append((resolved, name))
        if self.errors:
            raise UnsupportedOperatorError([f"{self.builder.name}: {e}" for e in self.errors])
        return self.builder.finish(outputs)


def _input_names(module, count, given):
    if given is not None:
        names = list(given)
    else:
        try:
            parameters = [p for p in inspect.signature(module.forward).parameters.values()
                          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            names = [p.name for p in parameters][:count]
        except (TypeError, ValueError):
            names = []
    if len(names) != count:
        names = [f"input_{i}" for i in range(count)] if given is None else names
    if len(names) != count:
        raise CompileError([f"{len(names)} input_names for {count} example inputs"])
    return names


def capture(module, example_inputs):
    """The module traced by make_fx into an aten-level torch.fx.GraphModule."""
    torch, make_fx = require_torch()
    module.eval()
    with torch.enable_grad():  # keeps TransformerEncoderLayer off its fused fast path
        return make_fx(lambda *inputs: module(*inputs))(*example_inputs)


def _example_tuple(example_inputs, name):
    torch, _ = require_torch()
    if example_inputs is None:
        raise CompileError([f"{name}: a torch module needs example_inputs (a tensor or a tuple of "
                            f"tensors with the shapes to compile for)"])
    inputs = example_inputs if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            raise CompileError([f"{name}: example input {i} is a {type(x).__name__}, not a tensor"])
    return tuple(inputs)


def import_module(module, example_inputs, input_names=None, output_names=None, name=None):
    """The module captured and ready to map: .run() gives the graph dict for
    vinci._compiler.compile_graph, .support_report() the operator table."""
    name = name or type(module).__name__
    inputs = _example_tuple(example_inputs, name)
    graph_module = capture(module, inputs)
    importer = _Importer(graph_module, inputs, _input_names(module, len(inputs), input_names),
                         output_names, name)
    # Weights are named after the module's parameters (make_fx numbers them).
    by_identity = {id(t): n for n, t in list(module.named_parameters()) + list(module.named_buffers())}
    importer.weight_names = {
        n.target: by_identity.get(id(getattr(graph_module, n.target)), n.target)
        for n in graph_module.graph.nodes if n.op == "get_attr"}
    return importer


def example_inputs_for(input_shape):
    """Zero example inputs (float32) from --input_shape "x:1,3,224,224;y:1,128"."""
    torch, _ = require_torch()
    shapes = []
    for entry in filter(None, (e.strip() for e in input_shape.split(";"))):
        name, _, dims = entry.rpartition(":")
        try:
            shapes.append((name, [int(d) for d in dims.split(",")]))
        except ValueError:
            raise CompileError([f"--input_shape entry '{entry}' is not name:d0,d1,...: "
                                f"e.g. \"x:1,3,224,224\""]) from None
    return tuple(torch.zeros(dims) for _, dims in shapes), [n for n, _ in shapes]


def load_factory(spec):
    """The module that "model.py:factory" makes (factory() called with no arguments)."""
    path, _, factory = spec.rpartition(":")
    if not path or not factory:
        raise CompileError([f"--model '{spec}' is not model.py:factory (a Python file and the "
                            f"function in it that returns the torch.nn.Module)"])
    if not os.path.isfile(path):
        raise CompileError([f"--model '{path}' does not exist"])
    module_spec = importlib.util.spec_from_file_location(
        os.path.splitext(os.path.basename(path))[0], path)
    code = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        module_spec.loader.exec_module(code)
    finally:
        sys.path.pop(0)
    if not callable(getattr(code, factory, None)):
        raise CompileError([f"--model '{spec}': {path} has no function '{factory}'"])
    module = getattr(code, factory)()
    torch, _ = require_torch()
    if not isinstance(module, torch.nn.Module):
        raise CompileError([f"--model '{spec}': {factory}() returned a {type(module).__name__}, "
                            f"not a torch.nn.Module"])
    module._vinci_source = spec
    return module


def compile_module(module, example_inputs, driver_options, verbose=False, input_names=None,
                   output_names=None):
    """vinci.compile for a torch.nn.Module (driver_options as vinci.compiler builds them)."""
    from .compiler import run_driver
    options = dict(driver_options)
    name = getattr(module, "_vinci_source", None) or type(module).__name__
    if options.pop("const_input", None):
        raise CompileError(["const_input applies to ONNX models; a torch module's constants "
                            "are captured with it"])
    options.pop("framework", None)
    input_shape = options.pop("input_shape", None)
    if example_inputs is None and input_shape:
        example_inputs, names = example_inputs_for(input_shape)
        input_names = input_names or names
    importer = import_module(module, example_inputs, input_names, output_names,
                             name=type(module).__name__)
    if options.pop("check_support", False):
        report, supported = importer.support_report()
        if not supported:
            raise UnsupportedOperatorError(report.splitlines())
        return report
    graph = importer.run()
    options["model"] = name
    return run_driver(options, verbose, graph=graph)
