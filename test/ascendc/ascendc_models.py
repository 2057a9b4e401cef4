#!/usr/bin/python3
"""Models exported as Ascend C: bit-identical to the simulator, deterministic,
and refused cleanly when the exporter cannot take them.

  bert2        a 2-layer BERT-style encoder (examples/models/export_models.py
               BERT_TINY: hidden 128, 2 heads, FFN 512, seq 128; int64 ids and
               mask, post-LN, erf GELU), compiled force_fp16: the exported
               program, built with its own CMakeLists (the README's commands)
               against the host implementation, gives the simulator's output
               byte for byte, for a full and for a padded attention mask.
  determinism  exporting the encoder twice gives byte-identical folders.
  refused      a kernel that needs more UB than Ascend C gives a kernel fails
               with one line naming the kernel and the instruction, exit code
               1, and leaves no folder (nor a half-written one) behind.
Prints one line per case and 'N passed, N failed'.

  ascendc_models.py --bin build/bin --host-include backend/ascendc/host/include
                    --host-lib build/lib/libvinci_ascendc_host.a
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "models"))
import export_models  # noqa: E402

SEQ = 128


def run(cmd, timeout=600, cwd=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    return proc.returncode, (proc.stderr.strip() or proc.stdout.strip())


def build(args, project, build_dir):
    """Builds an export with its own CMakeLists against the host
    implementation, as its README says: (io.json, the program, '' or why not)."""
    with open(os.path.join(project, "io.json")) as f:
        io = json.load(f)
    configure = ["cmake", "-S", project, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_CXX_COMPILER={args.cxx}",
                 "-DVINCI_ASCENDC_HOST_ROOT=" + os.path.dirname(os.path.abspath(args.host_include)),
                 "-DVINCI_ASCENDC_HOST_LIBRARY=" + os.path.abspath(args.host_lib)]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    code, message = run(configure)
    if code == 0:
        code, message = run(["cmake", "--build", build_dir, "-j2"])
    program = os.path.join(build_dir, io["model"].replace("-", "_") + "_main")
    if code == 0 and not os.path.isfile(program):
        code, message = 1, f"the build made no {program}"
    return io, program, (message if code else "")


def same_tree(a, b):
    """'' when folders a and b hold the same files with the same bytes."""
    compare = filecmp.dircmp(a, b)
    if compare.left_only or compare.right_only or compare.funny_files:
        return f"files differ: {compare.left_only + compare.right_only}"
    for name in compare.common_files:
        if not filecmp.cmp(os.path.join(a, name), os.path.join(b, name), shallow=False):
            return f"{name} differs"
    for sub in compare.common_dirs:
        why = same_tree(os.path.join(a, sub), os.path.join(b, sub))
        if why:
            return why
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--host-include", required=True)
    parser.add_argument("--host-lib", required=True)
    parser.add_argument("--cxx", default="g++")
    args = parser.parse_args()
    compile_tool = os.path.join(args.bin, "vinci-compile")
    run_tool = os.path.join(args.bin, "vinci-run")
    passed = failed = 0

    def report(name, ok, detail):
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)

    with tempfile.TemporaryDirectory(prefix="vinci-ascendc-models-") as work:
        cfg = export_models.BERT_TINY
        torch.manual_seed(0)
        model = export_models.BertEncoder(cfg, SEQ).eval()
        generator = torch.Generator().manual_seed(1)
        ids = torch.randint(0, cfg.vocab_size, (1, SEQ), dtype=torch.int64, generator=generator)
        full = torch.ones(1, SEQ, dtype=torch.int64)
        padded = full.clone()
        padded[0, 100:] = 0
        onnx_path = os.path.join(work, "bert2.onnx")
        export_models._export(model, (ids, full), onnx_path, ["input_ids", "attention_mask"],
                              ["last_hidden_state"])
        om = os.path.join(work, "bert2.om")
        project = os.path.join(work, "bert2")
        code, message = run([compile_tool, "--model", onnx_path, "--output", om])
        if code == 0:
            code, message = run([compile_tool, "--model", onnx_path, "--emit=ascendc",
                                 "--output", project])
        io, program, why = (None, None, message) if code else build(
            args, project, os.path.join(work, "bert2_build"))
        if why:
            report("bert2", False, why.splitlines()[-1])
        else:
            for case, mask in (("all_tokens", full), ("padding_mask", padded)):
                data = os.path.join(work, case)
                os.makedirs(data)
                files = []
                for index, value in enumerate((ids, mask)):
                    np.save(os.path.join(data, f"in{index}.npy"), value.numpy())
                    value.numpy().tofile(os.path.join(data, f"input_{index}.bin"))
                    files.append(os.path.join(data, f"in{index}.npy"))
                code, message = run([run_tool, "--model", om, "--hazards", "fatal", "--input",
                                     *files, "--output_dir", os.path.join(data, "sim")])
                if code == 0:
                    code, message = run([program, os.path.join(project, "weights.bin"), data])
                if code:
                    report(f"bert2 {case}", False, message.splitlines()[-1])
                    continue
                expected = np.load(os.path.join(data, "sim", "output_0.npy"))
                with open(os.path.join(data, "output_0.bin"), "rb") as f:
                    actual = np.frombuffer(f.read(), expected.dtype)
                bits = f"u{expected.itemsize}"
                differ = int(np.count_nonzero(actual.view(bits) != expected.ravel().view(bits))) \
                    if actual.size == expected.size else -1
                report(f"bert2 {case}", differ == 0,
                       f"{len(io['kernels'])} kernels, output {list(expected.shape)} "
                       f"{expected.dtype}: " + ("bit-identical to the simulator" if differ == 0
                                                 else f"{differ} elements differ"))

        # Determinism: the same model exported again, to a fresh folder and
        # over the earlier export.
        again = os.path.join(work, "bert2_again")
        code, message = run([compile_tool, "--model", onnx_path, "--emit=ascendc", "--output", again])
        why = message.splitlines()[-1] if code else same_tree(project, again)
        if not why:
            code, message = run([compile_tool, "--model", onnx_path, "--emit=ascendc", "--output",
                                 again])
            why = message.splitlines()[-1] if code else same_tree(project, again)
        report("determinism", not why, why or "two exports and a re-export over the first are "
                                              "byte-identical")

        # Refused: an add over 4 x 262144 floats, which the elementwise
        # template tiles for the whole 256 KiB UB; Ascend C gives 248 KiB.
        shape = [4, 262144]
        graph = helper.make_graph(
            [helper.make_node("Add", ["x", "y"], ["z"])], "wide_add",
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in ("x", "y")],
            [helper.make_tensor_value_info("z", TensorProto.FLOAT, shape)])
        wide = os.path.join(work, "wide_add.onnx")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), wide)
        target = os.path.join(work, "wide_add")
        code, message = run([compile_tool, "--model", wide, "--emit=ascendc", "--output", target])
        lines = message.splitlines()
        leftovers = [n for n in os.listdir(work) if n.startswith("wide_add") and n != "wide_add.onnx"]
        ok = (code == 1 and len(lines) == 1 and "kernel k0_add" in lines[0] and
              "'dv.alloc'" in lines[0] and "248 KiB" in lines[0] and not leftovers)
        report("refused", ok, (lines[0] if lines else "no message") +
               (f"; left behind: {leftovers}" if leftovers else "") + f" (exit {code})")

    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
