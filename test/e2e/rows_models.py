#!/usr/bin/python3
"""End to end: every Rows-family op over row lengths from 1 to 2^20 and
global pooling over images up to 1024 x 1024, against numpy.

Each case is one vg op (softmax, log_softmax, layer_norm, rms_norm, the
reductions, arg_max / arg_min, global average / max pooling) built with the
vinci package's graph builder, compiled in process (vinci._compiler) in a
precision mode, run on the simulator (hazards fatal) and compared with a
float64 numpy reference: relative L2 error and max abs error against the
reference's scale, exact indices for arg max / min. In force_fp16 the op
sits between two multiplies by one, so that it reads and writes fp16
intermediates (graph inputs and outputs keep fp32), and the reference reads
the fp16-rounded input; SoftmaxPrologueFusion is off there, or the softmax
would take the multiply as its prologue and read the f32 input. Rows longer than a tile run in segments, slabs
wider than UB in lane tiles and sub-row chunks: the lengths cover both
sides of every such boundary. Prints 'N passed, N failed'.

  rows_models.py --python build/python [--only SUBSTRING] [--quick]

--quick leaves out the cases over 2^18 elements a row (CI runs them all:
about a minute).
"""
import argparse
import os
import sys
import tempfile

import numpy as np


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def layer_norm(x, scale, bias, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * scale + (bias if bias is not None else 0)


def rms_norm(x, scale, eps=1e-5):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * scale


REDUCERS = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max,
            "reduce_min": np.min, "reduce_prod": np.prod,
            "reduce_l2": lambda x, axis, keepdims: np.sqrt((x * x).sum(axis=axis,
                                                                        keepdims=keepdims))}


def case_list(quick):
    lengths = [1, 3, 63, 64, 65, 200, 768, 4095, 16384, 16385, 65543, 262144, 1 << 20]
    if quick:
        lengths = [n for n in lengths if n <= 1 << 18]
    rows_for = lambda n: 37 if n <= 1000 else 3 if n <= 70000 else 1  # noqa: E731
    cases = []
    for n in lengths:
        r = rows_for(n)
        for op in ("softmax", "log_softmax", "layer_norm", "rms_norm", "reduce_sum",
                   "reduce_mean", "reduce_max", "reduce_min", "reduce_l2", "arg_max",
                   "arg_min_last"):
            cases.append((f"{op}_{r}x{n}", op, (r, n), -1))
    # Middle axes (column mode): a slab that fits, one wider than UB in its
    # lanes, one with more sub-rows than fit.
    for shape in ((4, 7, 33), (2, 300, 1000), (1, 5000, 64), (1, 21, 4096)):
        for op in ("softmax", "log_softmax", "reduce_sum", "reduce_max", "arg_max", "reduce_prod"):
            cases.append((f"{op}_axis1_{'x'.join(map(str, shape))}", op, shape, 1))
    # Many short rows: several tiles a block, two buffer sets taking turns.
    for op in ("softmax", "layer_norm", "reduce_mean", "arg_max"):
        cases.append((f"{op}_1000x49", op, (1000, 49), -1))
        cases.append((f"{op}_128x768", op, (128, 768), -1))
    # Global pooling: images to 1024 x 1024.
    for side in (7, 56, 224, 512, 1024):
        if quick and side > 512:
            continue
        channels = 64 if side <= 56 else 8 if side <= 224 else 2
        for op in ("global_average_pool", "global_max_pool"):
            cases.append((f"{op}_{channels}x{side}x{side}", op, (1, channels, side, side), None))
    return cases


def build(ti, op, shape, axis, fp16_between, rng):
    """The graph dict and the reference of one case."""
    g = ti.GraphBuilder("rows")
    x = rng.standard_normal(shape).astype(np.float32)
    if op == "reduce_prod":
        x = (1 + 0.01 * x).astype(np.float32)  # a product that stays in range
    if op.startswith("arg"):
        x = np.round(x * 4) / 4  # ties, so first and last index differ
    value = g.input("x", shape, "float32")
    ref_x = x.astype(np.float16).astype(np.float64) if fp16_between else x.astype(np.float64)
    one = None
    if fp16_between:
        one = g.constant("one", np.ones((), np.float32), "float32", ())
        value = g.op("vg.mul", [value, one], shape=shape, dtype="float32")
    rank = len(shape)
    a = axis % rank if axis is not None else None
    magnitude = None
    if op in ("softmax", "log_softmax"):
        out = g.op("vg." + op, [value], {"axis": ti._i64(a)}, shape=shape, dtype="float32")
        want = (softmax if op == "softmax" else log_softmax)(ref_x, a)
    elif op in ("layer_norm", "rms_norm"):
        c = shape[-1]
        scale = (1 + 0.25 * rng.standard_normal(c)).astype(np.float32)
        operands = [value, g.constant("scale", scale, "float32", (c,))]
        bias = None
        if op == "layer_norm":
            bias = (0.1 * rng.standard_normal(c)).astype(np.float32)
            operands.append(g.constant("bias", bias, "float32", (c,)))
        ref_w = lambda w: w.astype(np.float16).astype(np.float64) if fp16_between else w  # noqa: E731
        out = g.op("vg." + op, operands, {"axis": ti._i64(-1), "epsilon": ti._f32(1e-5)},
                   shape=shape, dtype="float32")
        want = layer_norm(ref_x, ref_w(scale), ref_w(bias)) if bias is not None else \
            rms_norm(ref_x, ref_w(scale))
    elif op in REDUCERS:
        out_shape = tuple(1 if i == a else d for i, d in enumerate(shape))
        out = g.op("vg." + op, [value], {"axes": ti._i64s([a]), "keepdims": ti._i64(1)},
                   shape=out_shape, dtype="float32")
        want = REDUCERS[op](ref_x, axis=a, keepdims=True)
        if op in ("reduce_sum", "reduce_mean"):
            magnitude = REDUCERS[op](np.abs(ref_x), axis=a, keepdims=True)
    elif op.startswith("arg"):
        last = op.endswith("_last")
        name = "arg_max" if op.startswith("arg_max") else "arg_min"
        out_shape = tuple(d for i, d in enumerate(shape) if i != a)
        out = g.op("vg." + name, [value], {"axis": ti._i64(a), "keepdims": ti._i64(0),
                                            "select_last_index": ti._i64(int(last))},
                   shape=out_shape, dtype="int64")
        pick = np.argmax if name == "arg_max" else np.argmin
        want = (ref_x.shape[a] - 1 - pick(np.flip(ref_x, a), axis=a)) if last else \
            pick(ref_x, axis=a)
        return g.finish([(out, "y")]), x, want, True, None
    else:  # global pooling
        out_shape = shape[:2] + (1, 1)
        out = g.op("vg." + op, [value], None, shape=out_shape, dtype="float32")
        want = (ref_x.mean if op == "global_average_pool" else ref_x.max)(axis=(2, 3),
                                                                          keepdims=True)
        if op == "global_average_pool":
            magnitude = np.abs(ref_x).mean(axis=(2, 3), keepdims=True)
    if fp16_between:
        out = g.op("vg.mul", [out, one], shape=tuple(want.shape), dtype="float32")
    return g.finish([(out, "y")]), x, want, False, magnitude


def check(got, want, exact, fp16, magnitude):
    """`magnitude`: the scale errors are judged against (the reduction of
    |x| for sums and means, whose result may cancel to near zero)."""
    if got.shape != want.shape:
        return f"shape {got.shape}, numpy {want.shape}"
    if exact:
        wrong = int((got != want).sum())
        return f"{wrong} of {want.size} indices differ" if wrong else ""
    got = got.astype(np.float64)
    if fp16:  # what an exact kernel stores (small softmax outputs are fp16 subnormals)
        want = want.astype(np.float16).astype(np.float64)
    if magnitude is not None:
        error = np.abs(got - want) / np.maximum(magnitude, 1e-30)
        bound = 2e-3 if fp16 else 2e-5
        worst = float(error.max())
        return "" if np.isfinite(got).all() and worst <= bound else \
            f"max error {worst:.2e} of the reduction of |x| (allowed {bound:g})"
    scale = float(np.abs(want).max()) or 1.0
    rel = float(np.linalg.norm(got - want) / (np.linalg.norm(want) or 1.0))
    worst = float(np.abs(got - want).max()) / scale
    bound = 2e-3 if fp16 else 2e-5
    if not np.isfinite(got).all() or rel > bound or worst > 4 * bound:
        return f"relative L2 {rel:.2e}, max error {worst:.2e} of the scale (allowed {bound:g})"
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True)
    parser.add_argument("--only")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, args.python)
    import vinci
    from vinci import _compiler
    from vinci import torch_import as ti
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from e2e_common import summarize

    results = []
    with tempfile.TemporaryDirectory() as work:
        fp16_between = os.path.join(work, "no_prologue.json")
        with open(fp16_between, "w") as f:
            f.write('{"Switch": {"UBFusion": {"SoftmaxPrologueFusion": "off"}}}')
        for index, (name, op, shape, axis) in enumerate(case_list(args.quick)):
            if args.only and args.only not in name:
                continue
            for precision in ("must_keep_origin_dtype", "force_fp16"):
                fp16 = precision == "force_fp16"
                rng = np.random.default_rng(index)
                graph, x, want, exact, magnitude = build(ti, op, shape, axis, fp16, rng)
                om = os.path.join(work, f"case{index}.om")
                options = {"soc_version": "Ascend310P3", "precision_mode": precision,
                           "emit": "om", "output": om, "model": name}
                if fp16:
                    options["fusion_switch_file"] = fp16_between
                code, _, log = _compiler.compile_graph(options, graph)
                tag = f"{name} ({precision})"
                if code != 0:
                    lines = [l for l in log.splitlines() if "error" in l] or ["failed"]
                    results.append((tag, "compile: " + lines[0]))
                    continue
                try:
                    got, = vinci.load(om).run(x)
                except vinci.Error as error:
                    results.append((tag, f"run: {error}"))
                    continue
                results.append((tag, check(got, want, exact, fp16, magnitude)))
                print(f"{'FAIL' if results[-1][1] else 'PASS'}: {tag}"
                      f"{': ' + results[-1][1] if results[-1][1] else ''}", flush=True)
    print()
    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
