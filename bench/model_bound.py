#!/usr/bin/python3
"""A model's lower bound on an Ascend 310P, from its ONNX graph alone.

    /usr/bin/python3 bench/model_bound.py model.onnx [--input_shape "x:1,3,224,224"]
    from model_bound import model_lower_bound    # bench/ on sys.path

No compiler, no compile report: the bound must not move when the compiler
partitions a model worse (a per-kernel roofline over the report's kernels
does, since every extra kernel adds its own GM traffic to its own bound).

  flops  2 x the multiply-adds of every MatMul, Gemm, Conv and ConvTranspose
         (batch and broadcast batch dims included, a grouped conv by its
         groups); other ops are free.
  bytes  at fp16 storage (2 bytes an element, whatever the graph's dtype):
         every floating-point weight once (initializers and Constant
         tensors; integer constants are shape and index parameters, folded
         at compile time), every graph input and output once, and for a
         model with convolutions each conv's input and output once (a conv
         reads its activation from GM and writes its result there; no
         schedule keeps a whole feature map on chip).
  bound  max(flops / peak fp16 FLOPS, bytes / GM bandwidth), in us.

The peak figures are those runtime/soc/soc.cpp takes for Ascend310P3 from
its public source, the Atlas 300I Duo datasheet ([duo] there: 2 chips,
140 TFLOPS fp16, 408 GB/s of LPDDR4X): per chip 70 TFLOPS fp16 on the Cube
and 204.8 GB/s of GM. They are the chip's published peaks, not the
simulator's timing table, so a kinder timing model cannot lower this bound.
"""
import argparse
import json
import math
import sys

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import shape_inference

SOC = "Ascend310P3"
PEAK_FP16_FLOPS = 70e12       # [duo]: 140 TFLOPS fp16 for 2 chips
GM_BYTES_PER_SECOND = 204.8e9  # [duo]: LPDDR4X 408 GB/s for 2 chips, as soc.cpp takes it
STORAGE_BYTES = 2              # fp16
FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16,
               onnx.TensorProto.DOUBLE}
CONVS = ("Conv", "ConvTranspose")


def parse_input_shapes(text):
    """ATC's --input_shape: 'name:1,3,224,224;ids:1,128' -> {name: [dims]}."""
    shapes = {}
    for item in filter(None, (text or "").split(";")):
        name, _, dims = item.rpartition(":")
        if not name or not dims:
            raise ValueError(f"--input_shape item '{item}' is not NAME:D0,D1,...")
        shapes[name] = [int(d) for d in dims.split(",")]
    return shapes


def _fix_input_shapes(model, shapes):
    inputs = {i.name: i for i in model.graph.input}
    for name, dims in shapes.items():
        if name not in inputs:
            raise ValueError(f"--input_shape names '{name}', which is not a graph input "
                             f"(inputs: {', '.join(inputs)})")
        shape = inputs[name].type.tensor_type.shape
        shape.ClearField("dim")
        for d in dims:
            shape.dim.add().dim_value = d


def _static_shapes(model):
    """{value name: dims} for every value whose shape is known and static."""
    inferred = shape_inference.infer_shapes(model, data_prop=True)
    shapes = {}
    graph = inferred.graph
    for v in list(graph.input) + list(graph.output) + list(graph.value_info):
        t = v.type.tensor_type
        if t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            shapes[v.name] = [d.dim_value for d in t.shape.dim]
    for init in graph.initializer:
        shapes[init.name] = list(init.dims)
    return shapes


def _shape(shapes, node, index):
    name = node.input[index]
    if name not in shapes:
        raise ValueError(f"node '{node.name or node.op_type}' ({node.op_type}): the shape of "
                         f"input {index} '{name}' is not static; fix the graph inputs' shapes "
                         "with --input_shape")
    return shapes[name]


def _attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def node_flops(node, shapes):
    """2 x multiply-adds of a MatMul, Gemm, Conv or ConvTranspose; 0 otherwise."""
    if node.op_type == "MatMul":
        a, b = _shape(shapes, node, 0), _shape(shapes, node, 1)
        a2 = [1] + a if len(a) == 1 else a
        b2 = b + [1] if len(b) == 1 else b
        m, k, n = a2[-2], a2[-1], b2[-1]
        batch = np.broadcast_shapes(tuple(a2[:-2]), tuple(b2[:-2]))
        return 2 * math.prod(batch) * m * n * k
    if node.op_type == "Gemm":
        a, b = _shape(shapes, node, 0), _shape(shapes, node, 1)
        m, k = (a[1], a[0]) if _attr(node, "transA", 0) else (a[0], a[1])
        n = b[0] if _attr(node, "transB", 0) else b[1]
        return 2 * m * n * k
    if node.op_type == "Conv":
        w = _shape(shapes, node, 1)  # [OC, IC / groups, k...]
        y = shapes.get(node.output[0])
        if y is None:
            raise ValueError(f"node '{node.name or node.op_type}' (Conv): the output shape is "
                             "not static; fix the graph inputs' shapes with --input_shape")
        return 2 * math.prod(y) * math.prod(w[1:])  # every output: IC/g * window MACs
    if node.op_type == "ConvTranspose":
        x, w = _shape(shapes, node, 0), _shape(shapes, node, 1)  # w: [IC, OC / groups, k...]
        return 2 * math.prod(x) * math.prod(w[1:])  # every input scatters OC/g * window
    return 0


def _float_constants(model):
    """(name, elements) of every floating-point initializer and Constant tensor."""
    for init in model.graph.initializer:
        if init.data_type in FLOAT_TYPES:
            yield init.name, math.prod(init.dims)
    for node in model.graph.node:
        if node.op_type == "Constant":
            for a in node.attribute:
                if a.name == "value" and a.t.data_type in FLOAT_TYPES:
                    yield node.output[0], math.prod(a.t.dims)


def model_lower_bound(model, input_shapes=None):
    """The bound of an ONNX model (a path or a ModelProto) as a dict of
    JSON-ready figures; input_shapes ({name: dims}) fixes dynamic inputs."""
    if isinstance(model, str):
        model = onnx.load(model)
    else:
        model = onnx.ModelProto.FromString(model.SerializeToString())
    if input_shapes:
        _fix_input_shapes(model, input_shapes)
    shapes = _static_shapes(model)
    graph = model.graph
    weights = dict(_float_constants(model))
    initializers = {i.name for i in graph.initializer}

    flops = {"matmul": 0, "conv": 0}
    activations = set()
    for node in graph.node:
        kind = "conv" if node.op_type in CONVS else "matmul"
        flops[kind] += node_flops(node, shapes)
        if node.op_type in CONVS:
            activations.update(n for n in (node.input[0], node.output[0]) if n not in weights)

    def elements(name):
        if name not in shapes:
            raise ValueError(f"the shape of '{name}' is not static; fix the graph inputs' "
                             "shapes with --input_shape")
        return math.prod(shapes[name])

    io = {v.name for v in graph.input if v.name not in initializers} | \
        {v.name for v in graph.output}
    weight_bytes = STORAGE_BYTES * sum(weights.values())
    io_bytes = STORAGE_BYTES * sum(elements(n) for n in io if n not in weights)
    conv_bytes = STORAGE_BYTES * sum(elements(n) for n in activations - io)
    total_flops = flops["matmul"] + flops["conv"]
    gm_bytes = weight_bytes + io_bytes + conv_bytes
    compute_us = total_flops / PEAK_FP16_FLOPS * 1e6
    memory_us = gm_bytes / GM_BYTES_PER_SECOND * 1e6
    return {
        "soc_version": SOC,
        "flops": total_flops,
        "matmul_flops": flops["matmul"],
        "conv_flops": flops["conv"],
        "gm_bytes": gm_bytes,
        "weight_bytes": weight_bytes,
        "io_bytes": io_bytes,
        "conv_activation_bytes": conv_bytes,
        "compute_us": round(compute_us, 3),
        "memory_us": round(memory_us, 3),
        "model_lower_bound_us": round(max(compute_us, memory_us), 3),
        "bound_by": "compute" if compute_us >= memory_us else "memory",
        "peaks": f"{PEAK_FP16_FLOPS / 1e12:g} TFLOPS fp16, {GM_BYTES_PER_SECOND / 1e9:g} GB/s "
                 "(Atlas 300I Duo datasheet, per chip)",
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("--input_shape", help="fix dynamic inputs: 'name:1,3,224,224;ids:1,128'")
    args = parser.parse_args(argv)
    try:
        bound = model_lower_bound(args.model, parse_input_shapes(args.input_shape))
    except (OSError, ValueError, DecodeError,
            shape_inference.InferenceError) as error:
        print(f"model_bound: error: {args.model}: {str(error).strip().splitlines()[0]}",
              file=sys.stderr)
        return 2
    print(json.dumps({"model": args.model, **bound}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
