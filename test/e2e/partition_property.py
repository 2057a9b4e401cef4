#!/usr/bin/python3
"""Property test of the partition: a set of vg ops that lowers op by op lowers
in every combination vinci-partition-kernels forms of it.

Random small graphs of supported ops (elementwise chains with every kind of
broadcast operand, matmuls and batched matmuls with an epilogue, norms,
softmax, reductions, arg max, data movement, casts, comparisons and where)
are compiled to dv twice through the driver, in process: once with every
kernel-level fusion off (UBFusion ALL off: each op is its own kernel) and
once with the defaults. A graph that does not lower op by op is not a case
of the property (counted by reason); a case that lowers op by op but not as
the partition combines it fails, printed with its ops and the compiler's
message. Both precision modes are swept (force_fp16 and
must_keep_origin_dtype: their templates differ). The partition asks the
templates before a kernel absorbs an op (docs/architecture.md); bypass that
question and this test fails.

  partition_property.py --python build/python [--graphs N] [--seed S] [--verbose]

Prints 'N cases, N joins, N failed' and exits 1 when a case fails or when
fewer than half the graphs are cases (a generator that drifted into graphs
that never lower tests nothing).
"""
import argparse
import json
import os
import random
import sys
import tempfile

import numpy as np

# --- shapes -------------------------------------------------------------------

DIMS = [1, 2, 3, 4, 5, 8, 16, 17, 32, 33, 64, 96, 130]
MAX_ELEMENTS = 1 << 15


def elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def broadcast(a, b):
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    return tuple(max(x, y) for x, y in zip(a, b))


def random_shape(rng, rank=None):
    rank = rank or rng.randint(1, 4)
    while True:
        shape = tuple(rng.choice(DIMS) for _ in range(rank))
        if elements(shape) <= MAX_ELEMENTS:
            return shape


class Graph:
    """Builds the graph dict vinci._compiler.compile_graph takes (through
    vinci.torch_import.GraphBuilder) and keeps a readable op list."""

    def __init__(self, ti, name, rng):
        self.ti, self.rng = ti, rng
        self.b = ti.GraphBuilder(name)
        self.lines = []
        self.values = []  # inputs and op results
        self.shapes = {}  # id(value) -> shape, for every value
        self.count = 0

    def input(self, shape):
        name = f"x{len(self.b.inputs)}"
        value = self.b.input(name, shape, "float32")
        self.values.append(value)
        self.shapes[id(value)] = shape
        self.lines.append(f"%{name}: {list(shape)}")
        return value, shape

    def constant(self, shape, dtype="float32", data=None):
        if data is None:
            data = (np.random.default_rng(self.rng.randint(0, 1 << 30))
                    .standard_normal(shape or ()).astype(np.float32))
        name = f"c{len(self.b.constants)}"
        value = self.b.constant(name, np.asarray(data), dtype, shape)
        self.shapes[id(value)] = tuple(shape)
        return value, name

    def op(self, name, operands, attributes, shape, dtype="float32", text=""):
        value = self.b.op(name, [v for v, _ in operands], attributes, source=f"n{self.count}",
                          shape=shape, dtype=dtype)
        self.count += 1
        self.lines.append(f"n{self.count - 1} = {name} {text or ', '.join(t for _, t in operands)}"
                          f" {attributes or ''} -> {list(shape)} {dtype}".rstrip())
        self.values.append(value)
        self.shapes[id(value)] = tuple(shape)
        return value

    def shape_of(self, value):
        return self.shapes[id(value)]

    def finish(self, outputs):
        return self.b.finish([(v, f"y{i}") for i, v in enumerate(outputs)])


# --- the ops ------------------------------------------------------------------

UNARY = ["relu", "sigmoid", "tanh", "exp", "abs", "neg", "sqrt", "reciprocal", "log", "erf",
         "floor", "ceil", "sin", "cos", "sign", "softplus", "hard_swish", "gelu"]
UNARY_ATTR = {
    "leaky_relu": lambda ti, rng: {"alpha": ti._f32(rng.choice([0.01, 0.2]))},
    "hard_sigmoid": lambda ti, rng: {"alpha": ti._f32(rng.choice([0.2, 1 / 6])),
                                     "beta": ti._f32(0.5)},
    "elu": lambda ti, rng: {"alpha": ti._f32(1.0)},
    "selu": lambda ti, rng: {},
    "clip": lambda ti, rng: {"min": ti._f64(0.0), "max": ti._f64(6.0)},
}
BINARY = ["add", "sub", "mul", "div", "max", "min", "pow"]
COMPARE = ["less", "greater", "equal", "less_or_equal", "greater_or_equal"]
REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_l2", "reduce_prod"]


def other_operand(g, shape):
    """A second operand for a binary op on `shape`: a scalar, a row, a
    column, a per-channel vector, some other broadcast, the full shape (a
    constant or a new input)."""
    rng = g.rng
    rank = len(shape)
    kind = rng.choice(["scalar", "row", "column", "channel", "broadcast", "full", "input"])
    if kind == "scalar":
        other = ()
    elif kind == "row" and rank >= 1:
        other = (shape[-1],)
    elif kind == "column" and rank >= 2:
        other = shape[:-1] + (1,)
    elif kind == "channel" and rank >= 3:
        other = tuple(d if i == 1 else 1 for i, d in enumerate(shape))
    elif kind == "broadcast":
        other = tuple(d if rng.random() < 0.5 else 1 for d in shape)
    elif kind == "input":
        return g.input(shape)[0], "%x"
    else:
        other = shape
    value, name = g.constant(other)
    return value, f"{name}{list(other)}"


def step(g, current, shape, ti):
    """Applies one random op to `current` (of `shape`); returns the new
    (value, shape, dtype) or None when the op does not apply to the shape."""
    rng = g.rng
    rank = len(shape)
    cur = (current, "%")
    family = rng.choices(
        ["unary", "unary_attr", "binary", "binary", "where", "matmul", "bmm", "norm", "softmax",
         "reduce", "arg", "transpose", "slice", "gather", "concat", "cast", "reuse"],
        k=1)[0]
    if rank == 0 and family not in ("unary", "unary_attr", "binary", "where", "cast", "reuse"):
        return None
    if family == "unary":
        return g.op("vg." + rng.choice(UNARY), [cur], None, shape), shape
    if family == "unary_attr":
        name = rng.choice(sorted(UNARY_ATTR))
        return g.op("vg." + name, [cur], UNARY_ATTR[name](ti, rng), shape), shape
    if family == "binary":
        other = other_operand(g, shape)
        operands = [cur, other] if rng.random() < 0.7 else [other, cur]
        out = broadcast(shape, g.shape_of(other[0]))
        return g.op("vg." + rng.choice(BINARY), operands, None, out), out
    if family == "where":
        other = other_operand(g, shape)
        out = broadcast(shape, g.shape_of(other[0]))
        mask = g.op("vg." + rng.choice(COMPARE), [cur, other], None, out, "bool")
        third = other_operand(g, out)
        out = broadcast(out, g.shape_of(third[0]))
        return g.op("vg.where", [(mask, "%mask"), cur, third], None, out), out
    if family == "matmul" and rank >= 1:
        n = rng.choice([16, 33, 64, 128, 200])
        transpose_b = rng.random() < 0.4
        k = shape[-1]
        weight, name = g.constant((n, k) if transpose_b else (k, n))
        out = shape[:-1] + (n,)
        if rank == 1 or elements(out) > MAX_ELEMENTS:
            return None
        return g.op("vg.matmul", [cur, (weight, name)], {"transpose_b": ti._bool(transpose_b)},
                    out), out
    if family == "bmm" and rank >= 3:
        n = rng.choice([16, 32, 48])
        other, _ = g.input(shape[:-2] + (shape[-1], n))
        out = shape[:-1] + (n,)
        if elements(out) > MAX_ELEMENTS:
            return None
        return g.op("vg.matmul", [cur, (other, "%x")], None, out), out
    if family == "norm":
        c = shape[-1]
        scale, sname = g.constant((c,))
        operands = [cur, (scale, sname)]
        name = rng.choice(["vg.layer_norm", "vg.rms_norm"])
        if name == "vg.layer_norm" and rng.random() < 0.7:
            operands.append(g.constant((c,)))
        return g.op(name, operands, {"axis": ti._i64(-1), "epsilon": ti._f32(1e-5)}, shape), shape
    if family == "softmax":
        axis = rng.randrange(rank) if rng.random() < 0.3 else rank - 1
        name = rng.choice(["vg.softmax", "vg.log_softmax"])
        return g.op(name, [cur], {"axis": ti._i64(axis)}, shape), shape
    if family == "reduce":
        first = rng.randrange(rank)
        last = rng.randrange(first, rank) if rng.random() < 0.5 else rank - 1
        axes = list(range(first, last + 1))
        keep = rng.random() < 0.5
        out = tuple(1 if i in axes else d for i, d in enumerate(shape)) if keep else \
            tuple(d for i, d in enumerate(shape) if i not in axes)
        return g.op("vg." + rng.choice(REDUCE), [cur],
                    {"axes": ti._i64s(axes), "keepdims": ti._i64(int(keep))}, out), out
    if family == "arg":
        axis = rng.randrange(rank)
        out = tuple(d for i, d in enumerate(shape) if i != axis)
        index = g.op("vg." + rng.choice(["arg_max", "arg_min"]), [cur],
                     {"axis": ti._i64(axis), "keepdims": ti._i64(0)}, out, "int64")
        return g.op("vg.cast", [(index, "%i")], {"to": "f32"}, out), out
    if family == "transpose" and rank >= 2:
        perm = list(range(rank))
        rng.shuffle(perm)
        out = tuple(shape[p] for p in perm)
        return g.op("vg.transpose", [cur], {"perm": ti._i64s(perm)}, out), out
    if family == "slice":
        axis = rng.randrange(rank)
        if shape[axis] < 2:
            return None
        start = rng.randrange(shape[axis] - 1)
        end = rng.randrange(start + 1, shape[axis] + 1)
        out = tuple(end - start if i == axis else d for i, d in enumerate(shape))
        return g.op("vg.slice", [cur], {"starts": ti._i64s([start]), "ends": ti._i64s([end]),
                                        "axes": ti._i64s([axis]), "steps": ti._i64s([1])},
                    out), out
    if family == "gather":
        axis = rng.randrange(rank)
        count = rng.choice([1, 2, 5])
        scalar = count == 1 and rng.random() < 0.5
        picks = np.array([rng.randrange(-shape[axis], shape[axis]) for _ in range(count)],
                         np.int64)
        indices, name = g.constant(() if scalar else (count,), "int64",
                                   picks[0] if scalar else picks)
        out = shape[:axis] + (() if scalar else (count,)) + shape[axis + 1:]
        if not out:
            return None
        return g.op("vg.gather", [cur, (indices, name)], {"axis": ti._i64(axis)}, out), out
    if family == "concat":
        axis = rng.randrange(rank)
        other, _ = g.input(shape)
        out = tuple(2 * d if i == axis else d for i, d in enumerate(shape))
        if elements(out) > MAX_ELEMENTS:
            return None
        return g.op("vg.concat", [cur, (other, "%x")], {"axis": ti._i64(axis)}, out), out
    if family == "cast":
        half = g.op("vg.cast", [cur], {"to": "f16"}, shape, "float16")
        return g.op("vg.cast", [(half, "%h")], {"to": "f32"}, shape), shape
    if family == "reuse":
        # A value used twice (swish x * sigmoid(x)): no join may take it.
        gate = g.op("vg.sigmoid", [cur], None, shape)
        return g.op("vg.mul", [cur, (gate, "%gate")], None, shape), shape
    return None


def random_graph(ti, seed):
    rng = random.Random(seed)
    g = Graph(ti, f"g{seed}", rng)
    current, shape = g.input(random_shape(rng))
    for _ in range(rng.randint(2, 6)):
        for _attempt in range(8):
            result = step(g, current, shape, ti)
            if result is not None:
                current, shape = result
                break
    outputs = [current]
    if rng.random() < 0.2 and len(g.values) > 2:
        # An earlier value also leaves the graph: its kernel must write it.
        earlier = g.values[rng.randrange(1, len(g.values) - 1)]
        if earlier is not current:
            outputs.append(earlier)
    return g, outputs


# --- the property ---------------------------------------------------------------


def compile_dv(graph, precision, switch_file=None, report=None):
    """'' when the driver lowers `graph` to dv, else its first error line."""
    options = {"soc_version": "Ascend310P3", "precision_mode": precision, "emit": "dv"}
    if switch_file:
        options["fusion_switch_file"] = switch_file
    if report:
        options["report"] = report
    options["model"] = graph["name"]
    from vinci import _compiler  # the driver in process: no subprocess per compile
    code, _, log = _compiler.compile_graph(options, graph)
    if code == 0:
        return ""
    lines = [l for l in log.splitlines() if "error" in l] or log.splitlines() or ["failed"]
    return lines[0]


def kernels_in(report):
    with open(report) as f:
        return json.load(f)["num_kernels"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="build/python (the vinci package)")
    parser.add_argument("--graphs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, args.python)
    from vinci import torch_import as ti

    cases = joins = 0
    failures, not_cases = [], {}
    with tempfile.TemporaryDirectory() as work:
        unfused = os.path.join(work, "unfused.json")
        with open(unfused, "w") as f:
            json.dump({"Switch": {"UBFusion": {"ALL": "off"}}}, f)
        alone, fused = os.path.join(work, "alone.json"), os.path.join(work, "fused.json")
        for index in range(args.graphs):
            seed = args.seed * 100003 + index
            g, outputs = random_graph(ti, seed)
            graph = g.finish(outputs)
            precision = "force_fp16" if index % 2 == 0 else "must_keep_origin_dtype"
            why = compile_dv(graph, precision, unfused, alone)
            if why:
                key = why.split(": ")[-1][:90]
                not_cases[key] = not_cases.get(key, 0) + 1
                if args.verbose:
                    print(f"not a case: seed {seed}: {why}")
                continue
            cases += 1
            why = compile_dv(graph, precision, None, fused)
            if why:
                failures.append((seed, precision, g.lines, why))
                print(f"FAIL: seed {seed} ({precision}): lowers op by op, not as partitioned: "
                      f"{why}")
                for line in g.lines:
                    print(f"    {line}")
                continue
            joins += kernels_in(alone) - kernels_in(fused)
    print(f"{args.graphs} graphs: {cases} cases (lower op by op), {joins} joins made, "
          f"{len(failures)} failed")
    for why, count in sorted(not_cases.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  not a case x{count}: {why}")
    if cases * 2 < args.graphs:
        print(f"only {cases} of {args.graphs} graphs lower op by op: the generator tests too "
              f"little")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
