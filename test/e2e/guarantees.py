#!/usr/bin/python3
"""End to end: the guarantees DESIGN.md makes about compiled models, each
beside a near-miss that proves its comparison can fail.

  threads        a conv model, a BERT-style encoder and a few node tests, run
                 with vinci-run --threads 1 and --threads 8: the outputs and
                 the simulated profile (the Chrome trace of every pipe's
                 instructions, the cycle and GM traffic lines) are byte for
                 byte the same. Near-miss: a run on another input differs.
  paths          the same models run twice (--loop 2: the second run reuses
                 the first's hazard verdict) through the simulator's fast
                 paths and through its reference paths (--reference-paths):
                 outputs, trace, cycle and traffic lines byte for byte the
                 same. Near-miss: the other input's fast run differs.
  deterministic  the same model compiled twice, in separate processes, to
                 different paths, with and without --report and --dump_dir,
                 gives byte-identical .om files. Near-miss: another
                 --softmax_clip gives a different file.
  failed compile an existing .om survives a compile that fails (a model that
                 does not import, an operator without a template, a bad
                 option) byte for byte, and no temporary file is left beside
                 it. Near-miss: a compile that succeeds does replace it.

Prints one line per check and 'N passed, N failed'.

  guarantees.py --bin build/bin
"""
import argparse
import filecmp
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "models"))
import conv_models  # noqa: E402
import export_models  # noqa: E402
from e2e_common import summarize  # noqa: E402

NODE = "/usr/share/libonnx-testdata/data/node"
NODE_TESTS = ["test_conv_with_strides_padding", "test_softmax_axis_1", "test_matmul_4d",
              "test_gather_0", "test_reduce_mean_keepdims_random"]
# vinci-run's lines that depend on the host, not on the simulation.
HOST_LINES = re.compile(r"^(host wall time|timeline|output \d+ ').*$", re.M)


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])}: "
                           + (proc.stderr.strip().splitlines() or ["failed"])[-1])
    return proc


class Tools:
    def __init__(self, bin_dir, work):
        self.compile_tool = os.path.join(bin_dir, "vinci-compile")
        self.run_tool = os.path.join(bin_dir, "vinci-run")
        self.work = work

    def compile(self, model, om, *extra):
        run([self.compile_tool, "--model", model, "--output", om, *extra])
        return om

    def simulate(self, om, inputs, tag, threads, *extra):
        """(output bytes per file, trace bytes, simulated stdout lines)."""
        out = os.path.join(self.work, f"{tag}.t{threads}" + "".join(extra).replace("-", "_"))
        trace = out + ".trace.json"
        proc = run([self.run_tool, "--model", om, "--hazards", "fatal", "--threads", str(threads),
                    "--profile", trace, "--output_dir", out, "--input", *inputs, *extra])
        outputs = {f: open(os.path.join(out, f), "rb").read() for f in sorted(os.listdir(out))}
        return outputs, open(trace, "rb").read(), HOST_LINES.sub("", proc.stdout)


def differences(one, other):
    """Names of the parts of two simulate() results that differ."""
    parts = ("outputs", "trace", "cycle and traffic lines")
    return [name for name, a, b in zip(parts, one, other) if a != b]


def thread_models(work):
    """(tag, .onnx, input files, other input files) for the threads check."""
    models = []
    torch.manual_seed(0)
    conv = conv_models.batch_norms_randomised(conv_models.TinyResNet(), 1).eval()
    path = os.path.join(work, "tiny_resnet.onnx")
    torch.onnx.export(conv, torch.randn(1, 3, 64, 64), path, opset_version=14,
                      input_names=["x"], output_names=["y"])
    inputs = []
    for seed in (1, 2):
        inputs.append(os.path.join(work, f"tiny_resnet_x{seed}.npy"))
        np.save(inputs[-1], np.random.default_rng(seed).standard_normal((1, 3, 64, 64),
                                                                           np.float32))
    models.append(("tiny_resnet", path, inputs[:1], inputs[1:]))

    path = os.path.join(work, "bert_tiny.onnx")
    export_models.export_bert_tiny(path)
    feeds = []
    for seed in (1, 2):
        ids = np.random.default_rng(seed).integers(0, export_models.BERT_TINY.vocab_size,
                                                   (1, 128)).astype(np.int64)
        mask = np.ones((1, 128), np.int64)
        mask[0, 100:] = 0
        pair = [os.path.join(work, f"bert_ids{seed}.npy"), os.path.join(work, f"bert_mask{seed}.npy")]
        np.save(pair[0], ids)
        np.save(pair[1], mask)
        feeds.append(pair)
    models.append(("bert_tiny", path, feeds[0], feeds[1]))

    for name in NODE_TESTS:
        data = os.path.join(NODE, name, "test_data_set_0")
        inputs = sorted((os.path.join(data, f) for f in os.listdir(data) if f.startswith("input_")),
                        key=lambda f: int(re.search(r"input_(\d+)", f).group(1)))
        # The other input: the first one's values reversed (same shape and dtype).
        tensor = TensorProto()
        tensor.ParseFromString(open(inputs[0], "rb").read())
        other = os.path.join(work, name + ".other.npy")
        np.save(other, numpy_helper.to_array(tensor).ravel()[::-1].reshape(tensor.dims).copy())
        models.append((name, os.path.join(NODE, name, "model.onnx"), inputs,
                       [other] + inputs[1:]))
    return models


def check_threads_and_paths(tools, work):
    results = []
    for tag, model, inputs, other_inputs in thread_models(work):
        why, paths_why = "", ""
        try:
            om = tools.compile(model, os.path.join(work, tag + ".om"))
            one = tools.simulate(om, inputs, tag, 1)
            eight = tools.simulate(om, inputs, tag, 8)
            other = tools.simulate(om, other_inputs, tag + ".other", 8)
            if differences(one, eight):
                why = f"--threads 1 and 8 differ in: {', '.join(differences(one, eight))}"
            elif "outputs" not in differences(one, other):
                why = "near-miss: another input gives the same output bytes"
            fast = tools.simulate(om, inputs, tag, 2, "--loop=2")
            reference = tools.simulate(om, inputs, tag, 2, "--loop=2", "--reference-paths")
            other_fast = tools.simulate(om, other_inputs, tag + ".other", 2, "--loop=2")
            if differences(fast, reference):
                paths_why = ("the fast and the reference paths differ in: "
                             + ", ".join(differences(fast, reference)))
            elif "outputs" not in differences(fast, other_fast):
                paths_why = "near-miss: another input gives the same output bytes"
        except RuntimeError as error:
            why = paths_why = str(error)
        results += [(f"threads_{tag}", why), (f"paths_{tag}", paths_why)]
    return results


def check_deterministic(tools, work):
    model = os.path.join(work, "bert_tiny.onnx")  # written by the threads check
    first = tools.compile(model, os.path.join(work, "first.om"))
    os.makedirs(os.path.join(work, "elsewhere"), exist_ok=True)
    second = tools.compile(model, os.path.join(work, "elsewhere", "second.om"), "--report",
                           os.path.join(work, "second.json"), "--dump_dir",
                           os.path.join(work, "second.ir"))
    clipped = tools.compile(model, os.path.join(work, "clipped.om"), "--softmax_clip", "5")
    why = ""
    if not filecmp.cmp(first, second, shallow=False):
        why = "two compiles of one model give different .om files"
    elif filecmp.cmp(first, clipped, shallow=False):
        why = "near-miss: --softmax_clip 5 gives the same .om"
    return [("deterministic_om", why)]


def contents(path):
    """The file's bytes, or None when it is gone."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def check_failed_compile_keeps_om(tools, work):
    results = []
    om = os.path.join(work, "kept", "model.om")
    os.makedirs(os.path.dirname(om), exist_ok=True)
    good = os.path.join(NODE, "test_softmax_axis_1", "model.onnx")
    tools.compile(good, om)
    before = contents(om)
    garbage = os.path.join(work, "garbage.onnx")
    with open(garbage, "wb") as f:
        f.write(b"\x08\x07not a model" * 50)
    failing = [("does_not_import", garbage, []),
               ("no_template", os.path.join(NODE, "test_max_uint16", "model.onnx"), []),
               ("bad_option", good, ["--precision_mode", "fp8"])]
    for tag, model, extra in failing:
        proc = subprocess.run([tools.compile_tool, "--model", model, "--output", om, *extra],
                              capture_output=True, text=True, timeout=300)
        why = ""
        if proc.returncode == 0:
            why = "the compile did not fail"
        elif contents(om) != before:
            why = "the existing .om is gone" if contents(om) is None else "the existing .om changed"
        elif os.listdir(os.path.dirname(om)) != ["model.om"]:
            why = f"files left beside it: {sorted(os.listdir(os.path.dirname(om)))}"
        elif not (proc.stderr.strip().splitlines() or [""])[-1].startswith(
                "vinci-compile: error: "):
            why = f"no 'vinci-compile: error:' line: {proc.stderr.strip()}"
        results.append((f"failed_compile_keeps_om_{tag}", why))
    tools.compile(os.path.join(NODE, "test_softmax_axis_0", "model.onnx"), om)
    results.append(("failed_compile_keeps_om_near_miss",
                    "" if contents(om) not in (before, None)
                    else "near-miss: a successful compile left the old .om"))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        tools = Tools(args.bin, work)
        results = check_threads_and_paths(tools, work)
        results += check_deterministic(tools, work)
        results += check_failed_compile_keeps_om(tools, work)
    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
