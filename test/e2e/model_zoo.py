#!/usr/bin/python3
"""The torchvision model zoo through both front ends, on the simulator.

Every classification model of torchvision 0.14 (torchvision.models.
list_models) is built with weights=None (torch seeded: the same weights
every run), its BatchNorm running statistics measured on random inputs (as
training sets them; with the defaults, mean 0 and variance 1, deep nets'
activations shrink below fp16's range and no fp16 run could match) and
then every BatchNorm and LayerNorm scale and bias perturbed from a seeded
generator, so that a dropped scale or bias changes the output (a Linear
layer initialised to zero, ViT's head, gets seeded weights). Models over
MAX_PARAMS parameters are skipped. Each model is then, at each input size
(1 x 3 x S x S, a seeded normal input):

  onnx   exported by torch.onnx at opset 14, vinci-compile --emit=om
  torch  the PyTorch front end (vinci.compile on the module: make_fx)

force_fp16, run with vinci-run (hazards fatal), and compared with torch's
fp32 output: it matches when cosine >= 0.999 and the relative L2 error
||got - want|| / ||want|| <= 2%. A size the architecture does not take (its
torch forward raises: ViT's position embedding, MaxViT's grid) is n/a.

Each (model, front end, size) runs in a child process (a crash or the
memory of one model does not take the sweep down). What does not depend on
Vinci is cached (--cache: the calibrated weights, inputs, torch outputs,
ONNX exports), and so is each result, keyed by a hash of the Vinci build
(vinci-compile, vinci-run, the vinci package) and of this script: a rerun
with the same build only redoes what changed.

  model_zoo.py --bin build/bin --python build/python [--models a,b] [--ci]
               [--front-ends onnx,torch] [--sizes 224,512] [--cache DIR]
               [--doc FILE | --write-doc] [--check FILE]

--write-doc writes docs/model-zoo.md (scripts/update-model-zoo.sh); --ci
runs the CI subset (one small model of each family, CI_MODELS) and --check
FILE fails when FILE (docs/model-zoo.md) does not list the same results for
it (every column but the times, which depend on the host). Prints one line
per case and, per front end, 'N of M compile and match'.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_zoo_doc import CI_HEADING, FE_NAMES, ci_section, render_doc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "model-zoo.md")
DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "vinci-model-zoo")

MAX_PARAMS = 150e6
COSINE_MIN = 0.999
REL_L2_MAX = 0.02
SIM_US_SLACK = 0.1  # the CI check's tolerance on simulated microseconds
TARGET = 0.9  # of the models not skipped, through each front end (issue 14)
SIZES = (224, 512)
FRONT_ENDS = ("onnx", "torch")
OPSET = 14
# One small member of each family, at the smallest input its architecture
# takes (CI's time: the simulator's cost grows with the pixels). 224 where
# the architecture fixes it: VGG's adaptive pool to 7 x 7 needs the
# features' side, input / 32, to be a multiple of 7 for the ONNX export;
# ViT's position embedding is for 224; MaxViT's 7 x 7 grid and windows need
# input / 32 to be a multiple of 7.
CI_MODELS = {  # model: input side
    "resnet18": 64, "vgg11": 224, "densenet121": 64, "googlenet": 64,
    "mobilenet_v2": 64, "mobilenet_v3_small": 64, "mnasnet0_5": 64,
    "efficientnet_b0": 64, "regnet_x_400mf": 64, "shufflenet_v2_x0_5": 64,
    "squeezenet1_1": 64, "convnext_tiny": 64, "vit_b_32": 224, "swin_t": 64,
    "maxvit_t": 224,
}
FAMILIES = [  # (family, name prefixes), in the doc's order
    ("AlexNet", ("alexnet",)), ("ConvNeXt", ("convnext",)), ("DenseNet", ("densenet",)),
    ("EfficientNet", ("efficientnet_b",)), ("EfficientNetV2", ("efficientnet_v2",)),
    ("GoogLeNet / Inception", ("googlenet", "inception")), ("MaxViT", ("maxvit",)),
    ("MNASNet", ("mnasnet",)), ("MobileNet", ("mobilenet",)), ("RegNet", ("regnet",)),
    ("ResNet / ResNeXt / Wide ResNet", ("resnet", "resnext", "wide_resnet")),
    ("ShuffleNetV2", ("shufflenet",)), ("SqueezeNet", ("squeezenet",)),
    ("Swin / Swin V2", ("swin",)), ("VGG", ("vgg",)), ("ViT", ("vit",)),
]
CASE_TIMEOUT = 3 * 3600


def family_of(name):
    for family, prefixes in FAMILIES:
        if name.startswith(prefixes):
            return family
    return "other"


# --- the models (torch only; no Vinci here) ----------------------------------

def build_model(name, cache):
    """The model with its calibrated and perturbed parameters (cached)."""
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None)
    state = os.path.join(cache, f"{name}.state.pt")
    if os.path.exists(state):
        model.load_state_dict(torch.load(state))
        return model.eval()
    # Inception-v3's auxiliary head, which runs in training mode only, takes
    # no input smaller than the 299 x 299 it was designed for.
    calibrate_batch_norms(model, side=299 if name == "inception_v3" else 224)
    perturb_norms(model)
    fill_zero_layers(model)
    torch.save(model.state_dict(), state + ".tmp")
    os.replace(state + ".tmp", state)
    return model.eval()


def calibrate_batch_norms(model, batches=2, batch=2, side=224):
    """Running statistics measured on seeded random inputs, as training
    would set them (a cumulative average over the batches)."""
    import torch
    from torch import nn
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for m in norms:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch, 3, side, side, generator=g))
    model.eval()


def perturb_norms(model):
    """Every BatchNorm and LayerNorm scale to 1 +- 0.25 and bias to
    +-0.1 (seeded): a compiler that drops one changes the output."""
    import torch
    from torch import nn
    g = torch.Generator().manual_seed(11)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.modules.batchnorm._BatchNorm, nn.LayerNorm)):
                if getattr(m, "weight", None) is not None:
                    m.weight.copy_(1 + 0.25 * (2 * torch.rand(m.weight.shape, generator=g) - 1))
                if getattr(m, "bias", None) is not None:
                    m.bias.copy_(0.1 * (2 * torch.rand(m.bias.shape, generator=g) - 1))


def fill_zero_layers(model):
    """A Linear layer initialised to zero (ViT's classifier head) gets
    seeded normal weights of std 1 / sqrt(fan in): with a zero head every
    output is 0 whatever the network computes, and a zero reference
    proves nothing."""
    import torch
    from torch import nn
    g = torch.Generator().manual_seed(13)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear) and not m.weight.any():
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) / m.in_features ** 0.5)


def parameter_count(name, cache):
    """The model's parameter count (cached: building the largest takes a while)."""
    path = os.path.join(cache, "parameters.json")
    counts = {}
    if os.path.exists(path):
        with open(path) as f:
            counts = json.load(f)
    if name not in counts:
        import torchvision
        model = torchvision.models.get_model(name, weights=None)
        counts[name] = sum(p.numel() for p in model.parameters())
        with open(path + ".tmp", "w") as f:
            json.dump(counts, f, indent=0, sort_keys=True)
        os.replace(path + ".tmp", path)
    return counts[name]


def reference(name, side, cache):
    """(input path, torch fp32 output) at side x side; None output with the
    reason when the architecture does not take that size."""
    import numpy as np
    import torch
    x_path = os.path.join(cache, f"input-{side}.npy")
    if not os.path.exists(x_path):
        x = np.random.default_rng(side).standard_normal((1, 3, side, side)).astype(np.float32)
        np.save(x_path + ".tmp.npy", x)
        os.replace(x_path + ".tmp.npy", x_path)
    want_path = os.path.join(cache, f"{name}-{side}.want.npy")
    na_path = os.path.join(cache, f"{name}-{side}.na.txt")
    if os.path.exists(want_path):
        return x_path, np.load(want_path), ""
    if os.path.exists(na_path):
        with open(na_path) as f:
            return x_path, None, f.read()
    model = build_model(name, cache)
    try:
        with torch.no_grad():
            want = model(torch.from_numpy(np.load(x_path))).numpy()
    except Exception as error:  # the architecture's own check (ViT, MaxViT)
        why = one_line(f"{type(error).__name__}: {error}")
        with open(na_path, "w") as f:
            f.write(why)
        return x_path, None, why
    np.save(want_path + ".tmp.npy", want)
    os.replace(want_path + ".tmp.npy", want_path)
    return x_path, want, ""


def one_line(text, limit=220):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# --- one case (a child process) ------------------------------------------------

def run_case(args):
    """Compiles and runs one (model, front end, size); writes the result JSON."""
    import numpy as np
    import torch
    name, front_end, side = args.one[0], args.one[1], int(args.one[2])
    torch.set_num_threads(1)
    cache = args.cache
    result = {"model": name, "front_end": front_end, "side": side}

    def finish(stage, why="", **figures):
        result.update(stage=stage, why=one_line(why), **figures)
        with open(args.result, "w") as f:
            json.dump(result, f)
        return 0

    x_path, want, na = reference(name, side, cache)
    if want is None:
        return finish("n/a", na)
    work = tempfile.mkdtemp(prefix=f"zoo-{name}-{front_end}-{side}-", dir=args.work)
    om, report = os.path.join(work, "model.om"), os.path.join(work, "report.json")
    start = time.time()
    if front_end == "onnx":
        onnx_path = os.path.join(cache, f"{name}-{side}.onnx")
        if not os.path.exists(onnx_path):
            model = build_model(name, cache)
            try:
                torch.onnx.export(model, torch.from_numpy(np.load(x_path)), onnx_path + ".tmp",
                                  opset_version=OPSET, input_names=["x"], output_names=["y"])
            except Exception as error:
                return finish("export", f"torch.onnx.export (opset {OPSET}): "
                              f"{type(error).__name__}: {error}")
            os.replace(onnx_path + ".tmp", onnx_path)
        start = time.time()
        proc = subprocess.run([os.path.join(args.bin, "vinci-compile"), "--model", onnx_path,
                               "--emit=om", "--output", om, "--report", report],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return finish("compile", first_error(proc.stderr))
    else:
        sys.path.insert(0, args.python)
        import vinci
        model = build_model(name, cache)
        start = time.time()
        try:
            vinci.compile(model, example_inputs=torch.from_numpy(np.load(x_path)), output=om,
                          report=report)
        except vinci.Error as error:
            return finish("compile", first_error(str(error)))
    compile_seconds = time.time() - start
    with open(report) as f:
        kernels = json.load(f)["num_kernels"]
    out_dir = os.path.join(work, "out")
    start = time.time()
    proc = subprocess.run([os.path.join(args.bin, "vinci-run"), "--model", om, "--input", x_path,
                           "--output_dir", out_dir, "--hazards", "fatal"],
                          capture_output=True, text=True)
    run_seconds = time.time() - start
    figures = dict(kernels=kernels, compile_seconds=round(compile_seconds, 1),
                   run_seconds=round(run_seconds, 1))
    if proc.returncode != 0:
        return finish("run", first_error(proc.stderr), **figures)
    simulated = re.search(r"= ([0-9.]+) us at", proc.stdout)
    figures["simulated_us"] = float(simulated.group(1)) if simulated else None
    got = np.load(os.path.join(out_dir, "output_0.npy")).astype(np.float64).ravel()
    ref = want.astype(np.float64).ravel()
    if not np.any(ref):
        return finish("numerics", "torch's output is all zeros: the comparison proves nothing",
                      **figures)
    if got.shape != ref.shape:
        return finish("numerics", f"output of {got.size} elements, torch has {ref.size}",
                      **figures)
    cosine = float(got @ ref / (np.linalg.norm(got) * np.linalg.norm(ref) + 1e-300))
    rel_l2 = float(np.linalg.norm(got - ref) / (np.linalg.norm(ref) + 1e-300))
    figures.update(cosine=cosine, rel_l2=rel_l2,
                   max_abs=float(np.abs(got - ref).max()), ref_max=float(np.abs(ref).max()))
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    if not (np.isfinite(cosine) and cosine >= COSINE_MIN and rel_l2 <= REL_L2_MAX):
        return finish("numerics", f"cosine {cosine:.6f}, relative L2 {100 * rel_l2:.2f}% "
                      f"(needs >= {COSINE_MIN} and <= {100 * REL_L2_MAX:.0f}%)", **figures)
    return finish("ok", **figures)


def first_error(text):
    """The first line that says what failed (an MLIR diagnostic or the
    driver's error), without the tool's prefix and temporary paths."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for line in lines:
        if "error" in line.lower() or "unsupported" in line.lower():
            line = re.sub(r"^vinci-compile: error: ", "", line)
            return re.sub(r"/tmp/\S+/", "", line)
    return lines[0] if lines else "failed"


# --- the sweep -------------------------------------------------------------------

def build_hash(args):
    """What results depend on: the Vinci build (the tools, the shared
    libraries they load, the vinci package) and the code that runs a case
    (not the rest of this script: choosing the CI subset or rewording a
    message does not redo an hour of cases)."""
    import inspect
    digest = hashlib.sha1()
    for code in CASE_CODE:
        digest.update(inspect.getsource(code).encode())
    digest.update(repr((OPSET, COSINE_MIN, REL_L2_MAX)).encode())
    paths = [os.path.join(args.bin, "vinci-compile"), os.path.join(args.bin, "vinci-run")]
    lib = os.path.join(os.path.dirname(args.bin), "lib")  # vinci-run's libvinci_runtime
    if os.path.isdir(lib):
        paths += sorted(os.path.join(lib, f) for f in os.listdir(lib) if ".so" in f)
    package = os.path.join(args.python, "vinci")
    if os.path.isdir(package):
        paths += sorted(os.path.join(package, f) for f in os.listdir(package)
                        if f.endswith((".py", ".so")))
    for path in paths:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


CASE_CODE = (build_model, calibrate_batch_norms, perturb_norms, fill_zero_layers, reference,
             run_case, first_error, one_line)


def run_sweep_case(args, name, front_end, side, stamp):
    results = os.path.join(args.cache, "results")
    os.makedirs(results, exist_ok=True)
    path = os.path.join(results, f"{name}-{front_end}-{side}.json")
    if os.path.exists(path):
        with open(path) as f:
            cached = json.load(f)
        if cached.get("build") == stamp:
            return cached
    start = time.time()
    command = [sys.executable, os.path.abspath(__file__), "--one", name, front_end, str(side),
               "--result", path + ".tmp", "--bin", args.bin, "--python", args.python,
               "--cache", args.cache, "--work", args.work]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=CASE_TIMEOUT)
        failed = proc.returncode != 0 or not os.path.exists(path + ".tmp")
    except subprocess.TimeoutExpired:
        proc, failed = None, True
    if failed:
        why = "timed out" if proc is None else \
            f"the case crashed (exit {proc.returncode}): {first_error(proc.stderr)}"
        result = {"model": name, "front_end": front_end, "side": side, "stage": "crash",
                  "why": one_line(why)}
    else:
        with open(path + ".tmp") as f:
            result = json.load(f)
        os.remove(path + ".tmp")
    result["build"] = stamp
    result["seconds"] = round(time.time() - start, 1)
    with open(path, "w") as f:
        json.dump(result, f)
    return result


def describe(result):
    if result["stage"] == "ok":
        return (f"ok: cosine {result['cosine']:.6f}, relative L2 {100 * result['rel_l2']:.3f}%, "
                f"{result['kernels']} kernels, {result['simulated_us']:.0f} us simulated, "
                f"compile {result['compile_seconds']} s, run {result['run_seconds']} s")
    return f"{result['stage']}: {result['why']}"


def check_ci(ci_rows, front_ends, committed):
    """1 when COMMITTED's CI section is not what these results render: every
    cell the same but the simulated microseconds, which may differ by
    SIM_US_SLACK (the kernels' timing moves with every performance change;
    the doc is stale for it when it moves by more)."""
    with open(committed) as f:
        text = f.read()
    have = (CI_HEADING + text.split(CI_HEADING, 1)[1]).splitlines() if CI_HEADING in text else []
    want = ci_section(ci_rows, front_ends)
    while want and not want[-1]:
        want.pop()
    while have and not have[-1]:
        have.pop()
    cells = lambda line: [c.strip() for c in line.strip().strip("|").split("|")]
    us_columns = {2 + 5 * k + 4 for k in range(len(front_ends))}

    def same(a, b):
        if a == b:
            return True
        x, y = cells(a), cells(b)
        if len(x) != len(y) or not a.startswith("| ") or "---" in a:
            return False
        for k, (u, v) in enumerate(zip(x, y)):
            if u == v:
                continue
            if k not in us_columns or not (u and v):
                return False
            if abs(float(u) - float(v)) > SIM_US_SLACK * float(v):
                return False
        return True
    stale = [(w, h) for w, h in zip(want, have) if not same(w, h)]
    for w, h in stale:
        print(f"{committed} has: {h}\nthis run gives: {w}")
    if stale or len(have) != len(want):
        print(f"{committed} is stale for the CI subset ({len(stale)} line(s) differ, "
              f"{len(have)} lines against {len(want)}): regenerate its CI section with "
              f"scripts/update-model-zoo.sh --ci")
        return 1
    print(f"{committed} matches the CI subset's results")
    return 0


def write_ci_section(ci_rows, front_ends, doc):
    """Rewrites DOC's CI section alone (the rest is the whole sweep's)."""
    with open(doc) as f:
        text = f.read()
    if CI_HEADING not in text:
        print(f"model_zoo.py: error: {doc} has no '{CI_HEADING}' section: write the whole doc "
              f"first (scripts/update-model-zoo.sh without --ci)", file=sys.stderr)
        return 2
    with open(doc, "w") as f:
        f.write(text.split(CI_HEADING, 1)[0] + "\n".join(ci_section(ci_rows, front_ends)))
    print(f"wrote the CI section of {doc}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--models", help="comma-separated model names (default: all)")
    parser.add_argument("--ci", action="store_true", help="the CI subset, at its sizes")
    parser.add_argument("--front-ends", default=",".join(FRONT_ENDS))
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--cache", default=DEFAULT_CACHE)
    parser.add_argument("--work", help="scratch directory (default: a temporary one)")
    parser.add_argument("--doc")
    parser.add_argument("--write-doc", action="store_true")
    parser.add_argument("--check", metavar="COMMITTED")
    parser.add_argument("--one", nargs=3, metavar=("MODEL", "FRONT_END", "SIZE"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.bin, args.python = os.path.abspath(args.bin), os.path.abspath(args.python)
    os.makedirs(args.cache, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vinci-zoo-") as scratch:
        args.work = args.work or scratch
        os.makedirs(args.work, exist_ok=True)
        if args.one:
            return run_case(args)
        return sweep(args)


def sweep(args):
    import torchvision
    front_ends = args.front_ends.split(",")
    stamp = build_hash(args)
    if args.ci:
        return sweep_ci(args, front_ends, stamp)
    all_names = sorted(torchvision.models.list_models(module=torchvision.models))
    names = args.models.split(",") if args.models else all_names
    unknown = [n for n in names if n not in all_names]
    if unknown:
        print(f"model_zoo.py: error: unknown model(s) {', '.join(unknown)} (torchvision "
              f"{torchvision.__version__} has {len(all_names)}: --models takes their names)",
              file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    rows, counts = [], {(fe, s): [0, 0, 0] for fe in front_ends for s in sizes}
    for name in names:
        params = parameter_count(name, args.cache)
        if params > MAX_PARAMS:
            print(f"SKIP: {name}: {params / 1e6:.0f} M parameters (over {MAX_PARAMS / 1e6:.0f} M)",
                  flush=True)
            rows.append((name, params, None))
            continue
        results = {}
        for side in sizes:
            for fe in front_ends:
                r = run_sweep_case(args, name, fe, side, stamp)
                results[(fe, side)] = r
                c = counts[(fe, side)]
                if r["stage"] == "n/a":
                    c[2] += 1
                else:
                    c[1] += 1
                    c[0] += r["stage"] == "ok"
                print(f"{'PASS' if r['stage'] == 'ok' else 'FAIL' if r['stage'] != 'n/a' else 'N/A '}"
                      f": {name} {fe} {side}: {describe(r)}", flush=True)
        rows.append((name, params, results))
    for fe in front_ends:
        for side in sizes:
            ok, total, na = counts[(fe, side)]
            print(f"{FE_NAMES[fe]} {side} x {side}: {ok} of {total} compile and match"
                  + (f" ({na} n/a)" if na else ""))
    doc = DOC if args.write_doc else args.doc
    if doc:
        ci_rows = [(name, side, {fe: run_sweep_case(args, name, fe, side, stamp)
                                 for fe in front_ends})
                   for name, side in CI_MODELS.items()]
        with open(doc, "w") as f:
            f.write(render_doc(rows, ci_rows, sizes, front_ends, counts, all_names,
                               dict(max_params=MAX_PARAMS, cosine_min=COSINE_MIN,
                                    rel_l2_max=REL_L2_MAX, opset=OPSET, target=TARGET)))
        print(f"wrote {doc}")
    return 0


def sweep_ci(args, front_ends, stamp):
    ci_rows, failed = [], 0
    for name, side in CI_MODELS.items():
        results = {}
        for fe in front_ends:
            r = run_sweep_case(args, name, fe, side, stamp)
            results[fe] = r
            failed += r["stage"] not in ("ok", "n/a")
            print(f"{'PASS' if r['stage'] == 'ok' else 'FAIL'}: {name} {fe} {side}: {describe(r)}",
                  flush=True)
        ci_rows.append((name, side, results))
    print(f"{len(ci_rows) * len(front_ends) - failed} of {len(ci_rows) * len(front_ends)} "
          f"compile and match, {failed} failed")
    doc = DOC if args.write_doc else args.doc
    if doc and write_ci_section(ci_rows, front_ends, doc):
        return 2
    if args.check:
        return check_ci(ci_rows, front_ends, args.check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
