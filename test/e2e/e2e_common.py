"""What the end-to-end model tests share: compiling a model to an .om
(optionally with a fusion switch file) and running it on the simulator with
hazards fatal, cosine similarity, and the 'N passed, N failed' summary."""
import json
import os
import subprocess

import numpy as np


def compile_and_run(bin_dir, work, model, tag, switches, inputs):
    """Compiles `model` with --report (and `switches` as a fusion switch file
    when given), runs it on `inputs`; returns (output 0, the report's
    kernels, "") or (None, None, the failing step's last stderr line)."""
    om, report = os.path.join(work, tag + ".om"), os.path.join(work, tag + ".json")
    extra = []
    if switches:
        path = os.path.join(work, tag + ".switches.json")
        with open(path, "w") as f:
            json.dump(switches, f)
        extra = ["--fusion_switch_file", path]
    out_dir = os.path.join(work, tag + ".out")
    for step in ([os.path.join(bin_dir, "vinci-compile"), "--model", model, "--output", om,
                  "--report", report] + extra,
                 [os.path.join(bin_dir, "vinci-run"), "--model", om, "--hazards", "fatal",
                  "--input", *inputs, "--output_dir", out_dir]):
        proc = subprocess.run(step, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            return None, None, (proc.stderr.strip().splitlines() or ["failed"])[-1]
    with open(report) as f:
        return np.load(os.path.join(out_dir, "output_0.npy")), json.load(f)["kernels"], ""


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def summarize(results):
    """Prints a PASS/FAIL line per (name, why) and the totals; returns the exit code."""
    failed = 0
    for name, why in results:
        print(f"{'FAIL' if why else 'PASS'}: {name}{': ' + why if why else ''}")
        failed += bool(why)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0
