#!/usr/bin/python3
"""Models exported as Ascend C: bit-identical to the simulator, deterministic.

  bert2        a 2-layer BERT-style encoder (examples/models/export_models.py
               BERT_TINY: hidden 128, 2 heads, FFN 512, seq 128; int64 ids and
               mask, post-LN, erf GELU), compiled force_fp16: the exported
               program, built with its own CMakeLists (the README's commands)
               against the host implementation, gives the simulator's output
               byte for byte, for a full and for a padded attention mask.
  determinism  exporting the encoder twice gives byte-identical folders.
  encoder_layer, gpt2_blocks, mlp
               the other e2e models (torch's nn.TransformerEncoderLayer as
               e2e_bert_models runs it, e2e_gpt2_blocks' two pre-LN blocks,
               examples/mlp), each built as one translation unit,
               bit-identical to the simulator.
  tiny_resnet, pools_and_bias, tiny_mobilenet, resnet18, mobilenet_v2
               e2e_conv_models' small models, torchvision's ResNet-18 and
               MobileNetV2 (BatchNorm statistics as e2e_conv_models
               calibrates them), weights=None, 1x3x224x224; not by default:
               the Cube conv template's copy_nchw2nc1hwc0 has no Ascend C
               mapping yet (see CONV_CASES).
The reference .om is compiled for Ascend310P3-AscendC, the SoC the export
plans its kernels for (the 310P3 with the 248 KiB of UB Ascend C gives a
kernel), so that both run the same tiling. The exporter's refusals are
ascendc-export-tests' (ExportTest.cpp). Prints one line per case and
'N passed, N failed'.

  ascendc_models.py --bin build/bin --host-include backend/ascendc/host/include
                    --host-lib build/lib/libvinci_ascendc_host.a [--case NAME ...]
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "models"))
import export_models  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import conv_models  # noqa: E402
import gpt2_blocks as gpt2_blocks_model  # noqa: E402

SEQ = 128
ASCEND_C_SOC = ["--soc_version", "Ascend310P3-AscendC"]


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


def unity_build(args, project, program):
    """Builds an export as one translation unit (for the many kernels of a
    CNN), unoptimised: the kernels only call the host implementation, whose
    library is optimised (MobileNetV2: 10 s to build, 15 s to run; at -O1
    58 s and 14 s). '' or the compiler's last line."""
    with open(os.path.join(project, "io.json")) as f:
        io = json.load(f)
    unity = program + ".cpp"
    with open(unity, "w") as f:
        for path in ["main.cpp"] + [k["file"] for k in io["kernels"]]:
            f.write(f'#include "{os.path.join(project, path)}"\n')
    link = ["-fuse-ld=gold"] if shutil.which("ld.gold") else []
    code, message = run([args.cxx, "-std=c++17", "-O0", "-DVINCI_ASCENDC_HOST", "-I",
                         args.host_include, unity, args.host_lib, "-o", program] + link)
    return io, (message if code else "")


def compare(report, name, io, om, program, project, data, inputs, run_tool):
    """Runs the simulator on `inputs` (name -> array, in order) and the
    exported program, and reports whether the outputs are the same bytes."""
    os.makedirs(data)
    files = []
    for index, value in enumerate(inputs):
        np.save(os.path.join(data, f"in{index}.npy"), value)
        value.tofile(os.path.join(data, f"input_{index}.bin"))
        files.append(os.path.join(data, f"in{index}.npy"))
    code, message = run([run_tool, "--model", om, "--hazards", "fatal", "--input", *files,
                         "--output_dir", os.path.join(data, "sim")])
    if code == 0:
        code, message = run([program, os.path.join(project, "weights.bin"), data])
    if code:
        report(name, False, message.splitlines()[-1])
        return
    details = []
    for index in range(len(io["outputs"])):
        expected = np.load(os.path.join(data, "sim", f"output_{index}.npy"))
        with open(os.path.join(data, f"output_{index}.bin"), "rb") as f:
            actual = np.frombuffer(f.read(), expected.dtype)
        bits = f"u{expected.itemsize}"
        differ = int(np.count_nonzero(actual.view(bits) != expected.ravel().view(bits))) \
            if actual.size == expected.size else -1
        details.append((differ, f"output {list(expected.shape)} {expected.dtype}: " + (
            "bit-identical to the simulator" if differ == 0 else
            f"{differ} of {expected.size} elements differ" if differ > 0 else
            f"{actual.size} elements, the simulator's {expected.size}")))
    report(name, all(d == 0 for d, _ in details),
           f"{len(io['kernels'])} kernels, " + "; ".join(t for _, t in details))


def export_torch(model, shape, path, seed=0):
    """Exports `model` for one random input of `shape`: [the input]."""
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed))
    torch.onnx.export(model.eval(), (x,), path, opset_version=14, input_names=["x"],
                      output_names=["y"])
    return [x.numpy()]


def resnet18(path):
    export_models.export_resnet18(path)
    return [np.random.RandomState(0).standard_normal((1, 3, 224, 224)).astype(np.float32)]


def mobilenet_v2(path):
    torch.manual_seed(0)
    return export_torch(conv_models.mobilenet_v2(), (1, 3, 224, 224), path)


def gpt2_blocks(path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(gpt2_blocks_model.Block(), gpt2_blocks_model.Block())
    return export_torch(model, (1, gpt2_blocks_model.SEQ, gpt2_blocks_model.DIM), path)


def mlp(path):
    shutil.copyfile(os.path.join(HERE, "..", "..", "examples", "mlp", "mlp.onnx"), path)
    return [np.random.RandomState(0).standard_normal((1, 1, 16, 16)).astype(np.float32)]


def encoder_layer(path):
    """torch's nn.TransformerEncoderLayer as e2e_bert_models runs it (its
    head split transposes the f32 graph input into an f16 intermediate),
    exported with autograd on (torch 1.13's no_grad fast path has no ONNX
    export)."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                             dropout=0.0, batch_first=True).eval()
    x = torch.randn(2, 16, 64)
    torch.onnx.export(layer, x, path, opset_version=14, input_names=["x"], output_names=["y"])
    return [x.numpy()]


def small_cnn(name):
    """One of e2e_conv_models' small models (conv_models.MODELS)."""
    def make(path):
        torch.manual_seed(0)
        factory, shape, _ = conv_models.MODELS[name]
        return export_torch(factory(), shape, path)
    return make


# Models built as one translation unit: name -> writes the ONNX file at the
# path given and returns the inputs.
CNN_CASES = {"encoder_layer": encoder_layer, "gpt2_blocks": gpt2_blocks, "mlp": mlp,
             **{name: small_cnn(name) for name in conv_models.MODELS},
             "resnet18": resnet18, "mobilenet_v2": mobilenet_v2}
# Not by default: the Cube conv template's first convolution of a model
# converts its NCHW input with copy_nchw2nc1hwc0, which the exporter refuses
# (docs/ascendc.md); they exported bit-identical while convolutions were
# pad + strided-slice im2col + Cube matmul.
CONV_CASES = [*conv_models.MODELS, "resnet18", "mobilenet_v2"]
CASES = ["bert2", "determinism", *CNN_CASES]
DEFAULT_CASES = [c for c in CASES if c not in CONV_CASES]


def model_case(args, report, work, name, onnx_path, inputs):
    """Compiles the model to .om and exports it (both for
    Ascend310P3-AscendC), builds the export as one translation unit and
    compares it with the simulator."""
    compile_tool = os.path.join(args.bin, "vinci-compile")
    om, project = os.path.join(work, name + ".om"), os.path.join(work, name)
    program = os.path.join(work, name + "_main")
    code, message = run([compile_tool, "--model", onnx_path, "--output", om, *ASCEND_C_SOC])
    if code == 0:
        code, message = run([compile_tool, "--model", onnx_path, "--emit=ascendc",
                             "--output", project])
    io, why = (None, message) if code else unity_build(args, project, program)
    if why:
        report(name, False, why.splitlines()[-1])
        return
    compare(report, name, io, om, program, project, os.path.join(work, name + "_data"), inputs,
            os.path.join(args.bin, "vinci-run"))


def main():
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--host-include", required=True)
    parser.add_argument("--host-lib", required=True)
    parser.add_argument("--cxx", default="g++")
    parser.add_argument("--case", action="append", choices=CASES,
                        help="run this case (repeatable; default: " + ", ".join(DEFAULT_CASES) + ")")
    args = parser.parse_args()
    cases = args.case or DEFAULT_CASES
    compile_tool = os.path.join(args.bin, "vinci-compile")
    run_tool = os.path.join(args.bin, "vinci-run")
    passed = failed = 0

    def report(name, ok, detail):
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)

    with tempfile.TemporaryDirectory(prefix="vinci-ascendc-models-") as work:
        if "bert2" in cases or "determinism" in cases:
            cfg = export_models.BERT_TINY
            torch.manual_seed(0)
            model = export_models.BertEncoder(cfg, SEQ).eval()
            generator = torch.Generator().manual_seed(1)
            ids = torch.randint(0, cfg.vocab_size, (1, SEQ), dtype=torch.int64,
                                generator=generator)
            full = torch.ones(1, SEQ, dtype=torch.int64)
            padded = full.clone()
            padded[0, 100:] = 0
            onnx_path = os.path.join(work, "bert2.onnx")
            export_models._export(model, (ids, full), onnx_path, ["input_ids", "attention_mask"],
                                  ["last_hidden_state"])
            project = os.path.join(work, "bert2")
            code, message = run([compile_tool, "--model", onnx_path, "--emit=ascendc",
                                 "--output", project])
        if "bert2" in cases:
            om = os.path.join(work, "bert2.om")
            if code == 0:
                code, message = run([compile_tool, "--model", onnx_path, "--output", om,
                                     *ASCEND_C_SOC])
            io, program, why = (None, None, message) if code else build(
                args, project, os.path.join(work, "bert2_build"))
            if why:
                report("bert2", False, why.splitlines()[-1])
            else:
                for case, mask in (("all_tokens", full), ("padding_mask", padded)):
                    compare(report, f"bert2 {case}", io, om, program, project,
                            os.path.join(work, case), [ids.numpy(), mask.numpy()], run_tool)

        if "determinism" in cases:
            # The same model exported again, to a fresh folder and over the
            # earlier export.
            again = os.path.join(work, "bert2_again")
            why = message.splitlines()[-1] if code else ""
            for _ in range(2):
                if not why:
                    code, message = run([compile_tool, "--model", onnx_path, "--emit=ascendc",
                                         "--output", again])
                    why = message.splitlines()[-1] if code else same_tree(project, again)
            report("determinism", not why, why or "two exports and a re-export over the first "
                                                  "are byte-identical")

        for name in CNN_CASES:
            if name in cases:
                onnx_path = os.path.join(work, name + ".onnx")
                inputs = CNN_CASES[name](onnx_path)
                model_case(args, report, work, name, onnx_path, inputs)

    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
