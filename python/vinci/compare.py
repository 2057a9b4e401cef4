"""Per-node accuracy comparison of a Vinci dump with a golden run, as ATC
users compare dumps with msaccucmp.

    vinci-run --model m.om --input x.npy --output_dir out --dump dump/
    python3 -m vinci.compare --dump dump/ --golden golden/ [--model m.onnx]
                             [--cosine 0.99] [--rel-l2 0.01] [--json report.json]

The dump is what `vinci-run --dump` writes: every task's outputs, in
execution (so topological) order, each named "node:index" after the source
node's output it is, listed in dump/index.json. The golden is either another
dump (a must_keep_origin_dtype build of the same model, say) or a directory
of .npy files from any framework, one per tensor, named by the tensor's
"node:index" or, with --model, by its ONNX tensor name (characters other than
letters, digits, '.' and '-' replaced by '_', as the dump names files).

For each dumped tensor with a golden one it prints cosine similarity, max
absolute error, max relative error (|a - g| / max(|g|, 1e-3 max|g|)) and
relative L2 error (||a - g|| / ||g||), and marks the first tensor whose
cosine is below --cosine or whose relative L2 is above --rel-l2: the first
divergent node, where an accuracy problem starts. The relative L2 bound
matters: a kernel whose output is 3% off keeps a cosine of 0.9997
(test/e2e/dump_compare.py), which msaccucmp's cosine threshold alone passes;
an fp16 build's kernels are typically within 1e-3. Exit status 0 when none
diverges, 1 when one does, 2 for bad input (a one-line error).
"""
import argparse
import json
import os
import re
import sys

import numpy as np


class CompareError(Exception):
    pass


def file_stem(name):
    """The dump's file name rule: '/layer/Add:0' -> 'layer_Add_0'."""
    stem = re.sub(r"[^A-Za-z0-9.\-]", "_", name).lstrip("_")
    return stem or "tensor"


def read_index(directory, what):
    path = os.path.join(directory, "index.json")
    try:
        with open(path) as f:
            index = json.load(f)
        return index["tensors"]
    except FileNotFoundError:
        raise CompareError(f"{what} '{directory}' has no index.json (write it with "
                           "vinci-run --dump)") from None
    except (ValueError, KeyError, TypeError) as e:
        raise CompareError(f"{path}: not a vinci-run dump index ({e})") from None


def onnx_tensor_names(model):
    """'node:index' -> the ONNX tensor name, for every node output of `model`
    (named as the importer names nodes: the node's name, or OpType_index)."""
    try:
        import onnx
    except ImportError:
        raise CompareError("--model needs the onnx Python package (python3-onnx)") from None
    try:
        graph = onnx.load(model, load_external_data=False).graph
    except Exception as e:  # onnx raises several types for a bad file
        raise CompareError(f"--model '{model}': cannot read it as ONNX ({e})") from None
    names = {}
    for i, node in enumerate(graph.node):
        node_name = node.name or f"{node.op_type}_{i}"
        for k, output in enumerate(node.output):
            names[f"{node_name}:{k}"] = output
    return names


class Golden:
    """Golden tensors by the dump's names: another dump's index, or .npy
    files by 'node:index' or (with --model) ONNX tensor name."""

    def __init__(self, directory, model):
        if not os.path.isdir(directory):
            raise CompareError(f"--golden '{directory}' is not a directory")
        self.directory = directory
        self.files = {}
        if os.path.exists(os.path.join(directory, "index.json")):
            for entry in read_index(directory, "--golden"):
                self.files.setdefault(entry["tensor"], entry["file"])
        else:
            for file in os.listdir(directory):
                if file.endswith(".npy"):
                    self.files[file[:-4]] = file
        self.tensor_names = onnx_tensor_names(model) if model else {}

    def find(self, tensor):
        """(the golden's path, the name it was found under), or (None, None)."""
        candidates = [tensor, file_stem(tensor)]
        if tensor in self.tensor_names:
            candidates += [self.tensor_names[tensor], file_stem(self.tensor_names[tensor])]
        for name in candidates:
            if name in self.files:
                return os.path.join(self.directory, self.files[name]), name
        return None, None


def figures(actual, golden):
    a = np.asarray(actual, np.float64).ravel()
    g = np.asarray(golden, np.float64).ravel()
    diff = np.abs(a - g)
    scale = np.abs(g).max() if g.size else 0.0
    norms = np.linalg.norm(a) * np.linalg.norm(g)
    cosine = float(a @ g / norms) if norms > 0 else (1.0 if np.array_equal(a, g) else 0.0)
    golden_norm = np.linalg.norm(g)
    return {
        "cosine": cosine,
        "max_abs": float(diff.max()) if diff.size else 0.0,
        "max_rel": float((diff / np.maximum(np.abs(g), 1e-3 * scale if scale > 0 else 1.0)).max())
                   if diff.size else 0.0,
        "rel_l2": float(np.linalg.norm(a - g) / golden_norm) if golden_norm > 0
                  else float(np.linalg.norm(a - g)),
    }


def compare(dump, golden_dir, model=None, cosine=0.99, rel_l2=0.01):
    """The per-tensor report: a list of rows in execution order and the
    index of the first divergent one (None if none)."""
    golden = Golden(golden_dir, model)
    rows, first = [], None
    for entry in read_index(dump, "--dump"):
        row = {"task": entry["task"], "kernel": entry["kernel"], "tensor": entry["tensor"]}
        path, found = golden.find(entry["tensor"])
        if path is None:
            row["status"] = "no golden"
            rows.append(row)
            continue
        actual = np.load(os.path.join(dump, entry["file"]))
        expected = np.load(path)
        row["golden"] = found
        if actual.size != expected.size:
            row["status"] = f"shape {list(actual.shape)} vs golden {list(expected.shape)}"
        elif not np.all(np.isfinite(actual.astype(np.float64))):
            row["status"] = "non-finite"
        else:
            row.update(figures(actual, expected.reshape(actual.shape)))
            row["status"] = ("diverges" if row["cosine"] < cosine or row["rel_l2"] > rel_l2
                             else "ok")
        if row["status"] != "ok" and first is None:
            first = len(rows)
        rows.append(row)
    return rows, first


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m vinci.compare",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--dump", required=True, help="a vinci-run --dump directory")
    parser.add_argument("--golden", required=True,
                        help="another dump, or .npy files by tensor name")
    parser.add_argument("--model", help="the ONNX model: golden files by ONNX tensor name")
    parser.add_argument("--cosine", type=float, default=0.99,
                        help="a tensor diverges below this cosine (default 0.99)")
    parser.add_argument("--rel-l2", type=float, default=0.01,
                        help="or above this relative L2 error (default 0.01)")
    parser.add_argument("--json", help="also write the report here")
    args = parser.parse_args(argv)
    try:
        rows, first = compare(args.dump, args.golden, args.model, args.cosine, args.rel_l2)
    except CompareError as e:
        print(f"vinci.compare: error: {e}", file=sys.stderr)
        return 2
    compared = [r for r in rows if "cosine" in r or r["status"] not in ("no golden",)]
    if not compared:
        print(f"vinci.compare: error: no dumped tensor of '{args.dump}' has a golden in "
              f"'{args.golden}' (name them node:index, or give --model for ONNX tensor names)",
              file=sys.stderr)
        return 2
    print(f"{'task':>4}  {'tensor':<40} {'cosine':>10} {'max abs':>10} {'max rel':>10} "
          f"{'rel L2':>10}  status")
    for i, r in enumerate(rows):
        mark = "  <- first divergent" if i == first else ""
        if "cosine" in r:
            print(f"{r['task']:>4}  {r['tensor']:<40} {r['cosine']:>10.6f} {r['max_abs']:>10.3e} "
                  f"{r['max_rel']:>10.3e} {r['rel_l2']:>10.3e}  {r['status']}{mark}")
        else:
            print(f"{r['task']:>4}  {r['tensor']:<40} {'':>10} {'':>10} {'':>10} {'':>10}  "
                  f"{r['status']}{mark}")
    summary = (f"first divergent: {rows[first]['tensor']} (task {rows[first]['task']}, kernel "
               f"{rows[first]['kernel']})" if first is not None else "no tensor diverges")
    print(f"{len(compared)} of {len(rows)} tensors compared; {summary}")
    if args.json:
        report = {"dump": args.dump, "golden": args.golden, "cosine_threshold": args.cosine,
                  "rel_l2_threshold": args.rel_l2, "tensors": rows,
                  "first_divergent": rows[first]["tensor"] if first is not None else None}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
    return 1 if first is not None else 0


if __name__ == "__main__":
    sys.exit(main())
