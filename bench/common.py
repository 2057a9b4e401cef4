"""What the model benchmarks (bench/*/run.py) share: compiling to an .om
with its compile report, running it on the simulator and reading the
figures vinci-run prints, the roofline of the compiled kernels beside the
model's own lower bound (model_bound.py, from the ONNX graph alone), the
error against a reference.

Not a benchmark itself (bench/run_all.sh runs bench/*_bench.py and
bench/*/run.py only).
"""
import json
import math
import os
import re
import subprocess
import tempfile
import time

import numpy as np

from model_bound import model_lower_bound

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "build", "bin")

# The SoC table's Ascend310P3 (runtime/soc/soc.cpp): 8 AI cores, one 16^3
# fp16 fractal a cycle each; 204.8 GB/s of GM for the chip.
CORES, FRACTAL_FLOPS, GM_BANDWIDTH = 8, 16 * 16 * 16 * 2, 204.8e9


def compile_with_report(onnx_path, om_path, report_path, attempts=2):
    """vinci-compile to an .om with --report, best wall time of `attempts`;
    returns the figures and the report."""
    seconds = []
    for _ in range(attempts):
        start = time.perf_counter()
        subprocess.run([os.path.join(BIN, "vinci-compile"), "--model", onnx_path, "--output",
                        om_path, "--report", report_path], check=True, capture_output=True)
        seconds.append(time.perf_counter() - start)
    report = json.load(open(report_path))
    figures = {
        "compile_seconds": round(min(seconds), 3),
        "num_kernels": report["num_kernels"],
        # Activations stored NC1HWC0 between conv-family kernels, and those
        # still converted on chip at the layout's boundaries.
        "nc1hwc0_tensors": report["nc1hwc0_tensors"],
        "layout_conversions": report["layout_conversions"],
        "arena_bytes": report["arena_bytes"],
        "arena_lower_bound_bytes": report["arena_lower_bound_bytes"],
        "arena_ratio": round(report["arena_bytes"] / report["arena_lower_bound_bytes"], 4),
    }
    return figures, report


def simulate(om_path, inputs, out_dir, runs=1, trace=None):
    """vinci-run with hazards fatal; returns the simulated and host figures it
    prints and output 0."""
    cmd = [os.path.join(BIN, "vinci-run"), "--model", om_path, "--hazards", "fatal",
           "--loop", str(runs), "--input", *inputs, "--output_dir", out_dir]
    if trace:
        cmd += ["--profile", trace]
    proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
    text = proc.stdout + proc.stderr
    cycles, micros = re.search(r"simulated: (\d+) cycles = ([\d.]+) us", text).groups()
    read, written = map(int, re.search(r"GM traffic per run: (\d+) bytes read, (\d+) bytes "
                                       r"written", text).groups())
    host_ms = float(re.search(r"host wall time: ([\d.]+) ms per run", text).group(1))
    return {"simulated_cycles": int(cycles), "simulated_us": float(micros),
            "simulated_gm_bytes_read": read, "simulated_gm_bytes_written": written,
            "host_ms": host_ms, "output": np.load(os.path.join(out_dir, "output_0.npy"))}


def kernel_spans(trace_path):
    """Each launch's span (first start to last end) in the timeline, in us,
    in launch order. Launches are told apart by the index each event carries
    (args.launch), not by kernel name or pc: identical kernels share one
    program and name (three transposes of one shape run back to back), and a
    launch's first traced instruction need not be pc 0 (set_flag, wait_flag
    and Scalar instructions are not traced)."""
    with open(trace_path) as f:
        trace = json.load(f)
    if trace["otherData"].get("truncated"):
        raise RuntimeError(f"{trace_path}: the trace is truncated, so its launches' spans are "
                           "short; profile a smaller model")
    launches = trace["otherData"]["launches"]
    spans = [[math.inf, 0.0] for _ in range(launches)]
    for event in trace["traceEvents"]:
        args = event.get("args", {})
        if "launch" not in args or "dur" not in event:
            continue
        span = spans[args["launch"]]
        span[0] = min(span[0], event["ts"])
        span[1] = max(span[1], event["ts"] + event["dur"])
    silent = [i for i, (start, _) in enumerate(spans) if start == math.inf]
    if silent:
        raise RuntimeError(f"{trace_path}: launch(es) {silent} of {launches} have no traced "
                           "instruction, so no span")
    return [end - start for start, end in spans]


def cube_peak_flops(simulated):
    clock_hz = simulated["simulated_cycles"] / (simulated["simulated_us"] * 1e-6)
    return CORES * FRACTAL_FLOPS * clock_hz


def roofline(report, simulated):
    """max(Cube FLOPs / Cube peak, GM bytes / bandwidth) over the report's
    kernels (each reads its inputs and writes its outputs once), beside the
    simulated latency."""
    peak = cube_peak_flops(simulated)
    cube_flops = sum(k["flops"] for k in report["kernels"] if k["kind"] == "cube")
    gm_bytes = sum(k["gm_bytes"] for k in report["kernels"])
    bound_us = max(cube_flops / peak, gm_bytes / GM_BANDWIDTH) * 1e6
    return {
        "cube_flops": cube_flops,
        "report_gm_bytes": gm_bytes,
        "roofline_us": round(bound_us, 1),
        "roofline_bound_by": "cube" if cube_flops / peak > gm_bytes / GM_BANDWIDTH else "gm",
        "simulated_over_roofline": round(simulated["simulated_us"] / bound_us, 2),
    }


def model_bound_figures(onnx_path, simulated_us, input_shapes=None):
    """model_bound.py's bound of the model beside the simulated latency: it
    does not depend on the compiler's partition, unlike roofline()."""
    bound = model_lower_bound(onnx_path, input_shapes)
    return {
        "model_flops": bound["flops"],
        "model_gm_bytes": bound["gm_bytes"],
        "model_lower_bound_us": bound["model_lower_bound_us"],
        "model_lower_bound_by": bound["bound_by"],
        "simulated_over_model_lower_bound": round(simulated_us / bound["model_lower_bound_us"], 2),
    }


def relative_l2(expected, actual):
    """||actual - expected|| / ||expected||: an error with its magnitude."""
    e, a = expected.astype(np.float64).ravel(), actual.astype(np.float64).ravel()
    return float(np.linalg.norm(a - e) / np.linalg.norm(e))


def cosine(expected, actual):
    a, b = expected.astype(np.float64).ravel(), actual.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


NODE_DIR = os.path.join(ROOT, "bench", "out", "node")
ORT_SCRIPT = r"""
const ort = require('onnxruntime-node');
const fs = require('fs');
const [model, feedsPath, runs] = process.argv.slice(2);
const arrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array};
(async () => {
  const opts = {intraOpNumThreads: 2, interOpNumThreads: 1, graphOptimizationLevel: 'all'};
  const session = await ort.InferenceSession.create(model, opts);
  const feeds = {};
  for (const [name, f] of Object.entries(JSON.parse(fs.readFileSync(feedsPath, 'utf8')))) {
    const bytes = fs.readFileSync(f.file);
    const data = new arrays[f.dtype](bytes.buffer, bytes.byteOffset,
                                     bytes.byteLength / arrays[f.dtype].BYTES_PER_ELEMENT);
    feeds[name] = new ort.Tensor(f.dtype, data, f.shape);
  }
  await session.run(feeds);  // warm-up
  const times = [];
  for (let i = 0; i < Number(runs); ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({best_ms: times[0], median_ms: times[times.length >> 1],
                              version: require('onnxruntime-node/package.json').version}));
})().catch((e) => { console.error(e.message); process.exit(1); });
"""


def ensure_onnxruntime_node(log=None):
    """The npm package onnxruntime-node (a benchmark-only dependency), installed
    once into bench/out/node; returns (its directory, "") or (None, why)."""
    import shutil
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None, "node/npm not installed"
    if not os.path.isdir(os.path.join(NODE_DIR, "node_modules", "onnxruntime-node")):
        if log:
            log("installing onnxruntime-node into " + NODE_DIR)
        os.makedirs(NODE_DIR, exist_ok=True)
        env = dict(os.environ, ONNXRUNTIME_NODE_INSTALL="skip")
        proc = subprocess.run(["npm", "install", "--no-save", "--prefix", NODE_DIR,
                               "onnxruntime-node"], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            return None, "npm install onnxruntime-node failed: " + proc.stderr.strip()[-300:]
    return NODE_DIR, ""


def run_onnxruntime_node(onnx_path, inputs, runs):
    """onnxruntime-node CPU fp32 (2 intra-op threads) on `inputs`, a list of
    (input name, .npy path): {"best_ms", "median_ms", "version"} after one
    warm-up run, or {"error": why}."""
    node_dir, why = ensure_onnxruntime_node()
    if not node_dir:
        return {"error": why}
    with tempfile.TemporaryDirectory() as work:
        feeds = {}
        for name, path in inputs:
            array = np.load(path)
            raw = os.path.join(work, name + ".bin")
            array.tofile(raw)
            feeds[name] = {"dtype": str(array.dtype), "shape": list(array.shape), "file": raw}
        feeds_path, script = os.path.join(work, "feeds.json"), os.path.join(work, "ort.js")
        with open(feeds_path, "w") as f:
            json.dump(feeds, f)
        with open(script, "w") as f:
            f.write(ORT_SCRIPT)
        env = dict(os.environ, NODE_PATH=os.path.join(node_dir, "node_modules"))
        proc = subprocess.run(["node", script, onnx_path, feeds_path, str(runs)], env=env,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip()[-300:]}
    return json.loads(proc.stdout)
