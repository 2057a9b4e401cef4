"""What the end-to-end model tests share: compiling a model to an .om
(optionally with a fusion switch file) and running it on the simulator with
hazards fatal, the magnitude comparison against a reference with its
negative control, and the 'N passed, N failed' summary.

Outputs are compared by relative L2 error, ||actual - expected|| /
||expected||, never by cosine alone: a cosine cannot see a scale (halved
features, a wrong divisor) and is 0.999 for errors of 4%."""
import json
import os
import subprocess

import numpy as np
import torch


def compile_and_run(bin_dir, work, model, tag, switches, inputs, options=()):
    """Compiles `model` with --report (and `switches` as a fusion switch file
    when given, and the compile `options`), runs it on `inputs`; returns
    (output 0, the report's kernels, "") or (None, None, the failing step's
    last stderr line)."""
    om, report = os.path.join(work, tag + ".om"), os.path.join(work, tag + ".json")
    extra = list(options)
    if switches:
        path = os.path.join(work, tag + ".switches.json")
        with open(path, "w") as f:
            json.dump(switches, f)
        extra += ["--fusion_switch_file", path]
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


def relative_l2(actual, expected):
    """||actual - expected|| / ||expected||, in float64."""
    a, e = np.asarray(actual, np.float64).ravel(), np.asarray(expected, np.float64).ravel()
    return float(np.linalg.norm(a - e) / np.linalg.norm(e))


def error_figures(actual, expected):
    """'rel L2 e, max abs e (reference scale s)' for a PASS or FAIL line."""
    a, e = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    return (f"rel L2 {relative_l2(a, e):.2e}, max abs {np.abs(a - e).max():.2e} "
            f"(reference max abs {np.abs(e).max():.2e})")


def mismatch(actual, expected, max_rel_l2):
    """"" when `actual` has the shape of `expected`, is finite and within
    relative L2 error `max_rel_l2` of it; otherwise why not, with figures."""
    if actual is None:
        return "no output"
    actual = np.asarray(actual)
    if actual.shape != np.shape(expected):
        return f"shape {actual.shape}, expected {np.shape(expected)}"
    if not np.isfinite(actual).all():
        return f"{np.count_nonzero(~np.isfinite(actual))} non-finite values"
    if not relative_l2(actual, expected) <= max_rel_l2:
        return f"{error_figures(actual, expected)} > {max_rel_l2:g}"
    return ""


def rejects(mistaken, expected, max_rel_l2, mistake, margin=1.0):
    """The negative control beside a check: "" when the output that
    `mistake` would produce is more than `margin` x `max_rel_l2` away from
    `expected` (so the check fails on it), else a reason to fail."""
    if mismatch(mistaken, expected, margin * max_rel_l2):
        return ""
    return (f"the check cannot see {mistake}: that output is within {margin:g} x "
            f"{max_rel_l2:g} ({error_figures(mistaken, expected)})")


def rejects_each(mistaken_outputs, expected, max_rel_l2, mistake):
    """rejects() for a series of outputs, e.g. a model's on other inputs:
    "" when each fails the comparison, else why the first did not."""
    for index, mistaken in enumerate(mistaken_outputs):
        why = rejects(mistaken, expected, max_rel_l2, f"{mistake} (number {index})")
        if why:
            return why
    return ""


def sharpen_attention(model, std=0.2, seed=3):
    """Redraws the query, key and value weights of every attention module
    from N(0, std^2). With BERT's N(0, 0.02) initialisation attention is
    nearly uniform and its branch small beside the residual, so the output
    hardly depends on the attention mask (masking 28 of 128 positions moves
    a 2-layer encoder by 0.3%); at std 0.2 the same mask moves it by 20%,
    which a mask test needs to be able to fail."""
    generator = torch.Generator().manual_seed(seed)
    for name, parameter in model.named_parameters():
        if parameter.dim() == 2 and any(f"attention.{p}.weight" in name
                                        for p in ("query", "key", "value")):
            parameter.data.normal_(0.0, std, generator=generator)
    return model


def summarize(results):
    """Prints a PASS/FAIL line per (name, why) and the totals; returns the exit code."""
    failed = 0
    for name, why in results:
        print(f"{'FAIL' if why else 'PASS'}: {name}{': ' + why if why else ''}")
        failed += bool(why)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0
