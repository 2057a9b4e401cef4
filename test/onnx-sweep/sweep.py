#!/usr/bin/python3
"""Importer sweep over Debian's libonnx-testdata.

Every model must either import and verify, or fail with Vinci's clean
diagnostic (one 'vinci-compile: error:' line per problem, exit 1 or 2).
A crash, a hang, or any other output is a failure. Node tests whose
operators are all in the foundation issue's list must import, unless the
feature they exercise is out of scope (listed in OUT_OF_SCOPE with the
reason). Prints the counts and ends with 'N passed, N failed'.

  sweep.py --vinci-compile build/bin/vinci-compile [--json out.json] [--doc docs/onnx-support.md]
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

import onnx

DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple", "real"]

# The operators the foundation issue requires (issue 2, item 3).
REQUIRED_OPS = set("""Constant Add Sub Mul Div Pow Neg Abs Sqrt Reciprocal Exp Log Tanh Erf
Sigmoid Relu LeakyRelu Clip HardSigmoid HardSwish Where Equal Less Greater Not Cast MatMul
Gemm Conv MaxPool AveragePool GlobalAveragePool BatchNormalization LayerNormalization Softmax
LogSoftmax ReduceMean ReduceSum ReduceMax ReduceMin ReduceProd ArgMax Transpose Reshape
Flatten Squeeze Unsqueeze Concat Split Slice Gather Expand Pad Resize Identity Dropout Shape
ConstantOfShape Range""".split())

# Features of required ops that Vinci does not take, with the reason. A
# required node test may fail only with one of these diagnostics.
OUT_OF_SCOPE = [
    (r"training_mode = |output 1 \(training statistics\)", "training mode (Vinci compiles for inference)"),
    (r"STRING", "string tensors"),
    (r"mode 'cubic'", "cubic resize (the vg dialect takes nearest and linear)"),
    (r"tf_crop_and_resize", "Resize with a region of interest"),
    (r"output 1 \(Indices\)", "MaxPool's Indices output"),
    (r"is not a tensor", "sequence and optional values"),
    (r"computed at run time", "data-dependent shapes (static shapes only)"),
    (r"storage_order = 1", "MaxPool storage_order = 1"),
    (r"exclude_outside", "Resize exclude_outside"),
]


def graph_inputs(model):
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def run(compiler, model_path, const_inputs, out_path):
    cmd = [compiler, "--model", model_path, "--emit=vg", "--output", out_path]
    if const_inputs:
        cmd += ["--const_input", ";".join(f"{n}:{p}" for n, p in const_inputs.items())]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    return proc.returncode, proc.stderr


def clean_failure(rc, stderr):
    lines = [l for l in stderr.splitlines() if l.strip()]
    return rc in (1, 2) and lines and all(l.startswith("vinci-compile: error:") for l in lines)


def sweep_one(compiler, suite, name):
    folder = os.path.join(DATA, suite, name)
    path = os.path.join(folder, "model.onnx")
    model = onnx.load(path, load_external_data=False)
    ops = sorted({n.op_type for n in model.graph.node})
    inputs = graph_inputs(model)
    result = {"suite": suite, "test": name, "ops": ops, "bound": []}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.mlir")
        const_inputs = {}
        for _ in range(8):
            rc, stderr = run(compiler, path, const_inputs, out)
            if rc != 0 and rc is not None and "--const_input" in stderr:
                # Shape tensors given as graph inputs: bind the ones named,
                # from the test's own input data, and try again.
                named = set(re.findall(r"'([^']+)' is a graph input", stderr))
                for index, value_info in enumerate(inputs):
                    pb = os.path.join(folder, "test_data_set_0", f"input_{index}.pb")
                    if value_info.name in named and os.path.exists(pb):
                        const_inputs[value_info.name] = pb
                if named and named <= set(const_inputs):
                    continue
            break
        result["bound"] = sorted(const_inputs)
    if rc == 0:
        result["status"] = "imported"
    elif clean_failure(rc, stderr):
        result["status"] = "diagnosed"
        result["message"] = stderr.splitlines()[0].split(": ", 3)[-1]
    else:
        result["status"] = "crash"
        result["message"] = (stderr or "")[-600:] + f" (exit {rc})"
    required = suite == "node" and ops and set(ops) <= REQUIRED_OPS
    result["required"] = bool(required)
    if required and result["status"] == "diagnosed":
        reason = next((why for pattern, why in OUT_OF_SCOPE
                       if re.search(pattern, result["message"])), None)
        result["out_of_scope"] = reason
    return result


def op_under_test(result):
    """The operator a node test is about: its name's op, else its ops."""
    if result["suite"] != "node":
        return None
    name = result["test"][len("test_"):].lower().replace("_", "")
    best = None
    for op in result["ops"]:
        if name.startswith(op.lower()) and (best is None or len(op) > len(best)):
            best = op
    return best or (result["ops"][0] if len(result["ops"]) == 1 else None)


def write_doc(results, path):
    per_op = collections.defaultdict(lambda: {"imported": 0, "failed": 0, "notes": set()})
    for r in results:
        op = op_under_test(r)
        if not op:
            continue
        row = per_op[op]
        if r["status"] == "imported":
            row["imported"] += 1
            if r["bound"]:
                row["notes"].add("shape inputs bound with --const_input")
        else:
            row["failed"] += 1
            row["notes"].add(r.get("out_of_scope") or r.get("message", "")[:90])
    lines = [
        "# ONNX operator support",
        "",
        "Generated by `test/onnx-sweep/sweep.py --doc` from the importer sweep over",
        "Debian's libonnx-testdata (ONNX 1.12 node tests); do not edit by hand.",
        "Regenerate with `scripts/update-onnx-support.sh`.",
        "",
        "This table covers import into the vg dialect (shape inference, verification,",
        "folding). Code generation for the Da Vinci cores is tracked separately.",
        "",
        "| op | in issue 2's list | node tests imported | failed | notes |",
        "|---|---|---|---|---|",
    ]
    for op in sorted(per_op):
        row = per_op[op]
        notes = "; ".join(sorted(n for n in row["notes"] if n)).replace("|", "\\|")
        lines.append(f"| {op} | {'yes' if op in REQUIRED_OPS else 'no'} | {row['imported']} "
                     f"| {row['failed']} | {notes} |")
    counts = collections.Counter(r["status"] for r in results)
    lines += ["", f"Totals over {len(results)} models (all suites): "
              f"{counts['imported']} imported, {counts['diagnosed']} rejected with a diagnostic, "
              f"{counts['crash']} crashes.", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vinci-compile", required=True)
    parser.add_argument("--json")
    parser.add_argument("--doc", help="write the operator support table here")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    work = [(s, t) for s in SUITES if os.path.isdir(os.path.join(DATA, s))
            for t in sorted(os.listdir(os.path.join(DATA, s)))
            if os.path.exists(os.path.join(DATA, s, t, "model.onnx"))]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda st: sweep_one(args.vinci_compile, *st), work))

    counts = collections.Counter(r["status"] for r in results)
    bound = sum(1 for r in results if r["status"] == "imported" and r["bound"])
    required = [r for r in results if r["required"]]
    required_failures = [r for r in required if r["status"] != "imported" and not r.get("out_of_scope")]
    out_of_scope = [r for r in required if r.get("out_of_scope")]
    for suite in SUITES:
        c = collections.Counter(r["status"] for r in results if r["suite"] == suite)
        print(f"sweep: {suite:18s} imported {c['imported']:4d}  diagnosed {c['diagnosed']:4d}  "
              f"crashes {c['crash']}")
    print(f"sweep: {len(results)} models: {counts['imported']} imported ({bound} with shape inputs "
          f"bound), {counts['diagnosed']} rejected with a clean diagnostic, {counts['crash']} crashes")
    print(f"sweep: node tests of the required ops: {len(required)}; imported "
          f"{sum(r['status'] == 'imported' for r in required)}; out of scope {len(out_of_scope)}; "
          f"unexpected failures {len(required_failures)}")
    for r in out_of_scope:
        print(f"  out of scope: {r['test']}: {r['out_of_scope']}")
    for r in results:
        if r["status"] == "crash":
            print(f"  CRASH: {r['suite']}/{r['test']}: {r['message']}")
    for r in required_failures:
        print(f"  FAILED (required op): {r['test']}: {r.get('message')}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.doc:
        write_doc(results, args.doc)
    failed = counts["crash"] + len(required_failures)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
