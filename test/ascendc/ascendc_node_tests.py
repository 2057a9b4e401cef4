#!/usr/bin/python3
"""The ONNX node tests exported as Ascend C, built against Vinci's host
implementation and compared with the simulator bit for bit.

For each force_fp16 must-pass node test (test/e2e/node_tests.py), in its own
folder:
  1. vinci-compile --emit=om and vinci-run (hazards fatal) give the
     reference outputs (the simulator, runtime/sim);
  2. vinci-compile --emit=ascendc, with the same inputs bound as constants,
     writes the CANN project;
  3. its main.cpp and kernels, as one translation unit, build with the
     system C++ compiler against the host implementation's library
     (backend/ascendc/host: written from the Ascend C and AscendCL
     documentation; it shares no code with runtime/sim);
  4. the program runs on the test's inputs, and every output must equal the
     simulator's byte for byte.
Prints one line per test that does not pass (the step and its message) and
'ascendc node tests: N of M exported, built and bit-identical (P%)'. Exits 1
when a test outside KNOWN_UNEXPORTED does not pass, when one of those passes
(the list is stale), or when fewer than --min-percent pass.

  ascendc_node_tests.py --bin build/bin --host-include backend/ascendc/host/include
                        --host-lib build/lib/libvinci_ascendc_host.a [--tests a,b]
                        [--work DIR [--keep]]
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import node_tests  # noqa: E402

PRECISION = "force_fp16"

# Must-pass tests the exporter refuses, each with its one-line reason (the
# exporter's error names the kernel and the instruction); docs/ascendc.md
# says why each has no exact Ascend C form yet.
KNOWN_UNEXPORTED = {
}


def run(cmd, timeout, cwd=None):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)


def last_line(proc):
    text = (proc.stderr or proc.stdout or "").strip().splitlines()
    return text[-1] if text else f"exit {proc.returncode}"


def export_and_compare(args, name, work):
    """'' when the export matches the simulator, else 'step: why'."""
    folder = os.path.join(node_tests.DATA, name)
    model_path = os.path.join(folder, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    data = os.path.join(folder, "test_data_set_0")
    here = os.path.join(work, name)
    shutil.rmtree(here, ignore_errors=True)  # nothing of an earlier run is compared
    os.makedirs(here)
    om = os.path.join(here, "model.om")
    proc, bound, unbound = node_tests.compile_node_test(args.bin, model, model_path, om, PRECISION,
                                                        args.timeout)
    if unbound or proc.returncode != 0:
        return "compile .om: " + last_line(proc) + (f" ({unbound})" if unbound else "")
    graph_inputs = [i.name for i in model.graph.input]
    inputs = node_tests.data_files(folder, "input_")
    run_inputs = [f for k, f in enumerate(inputs) if graph_inputs[k] not in bound]
    sim_out = os.path.join(here, "sim")
    cmd = [os.path.join(args.bin, "vinci-run"), "--model", om, "--hazards", "fatal",
           "--threads", "1", "--output_dir", sim_out]
    if run_inputs:
        cmd += ["--input"] + [os.path.join(data, f) for f in run_inputs]
    proc = run(cmd, args.timeout)
    if proc.returncode != 0:
        return "simulate: " + last_line(proc)

    project = os.path.join(here, "ascendc")
    proc, _, _ = node_tests.compile_node_test(args.bin, model, model_path, project, PRECISION,
                                              args.timeout, emit="ascendc", bound=bound)
    if proc.returncode != 0:
        return "export: " + last_line(proc)
    with open(os.path.join(project, "io.json")) as f:
        io = json.load(f)
    kernels = [k["file"] for k in io["kernels"]]
    unity = os.path.join(here, "unity.cpp")
    with open(unity, "w") as f:
        f.write("".join(f'#include "{os.path.join(project, p)}"\n' for p in ["main.cpp"] + kernels))
    program = os.path.join(here, "program")
    proc = run(args.cxx + ["-std=c++17", "-O0", "-DVINCI_ASCENDC_HOST", "-I", args.host_include,
                           unity, args.host_lib, "-o", program], args.timeout)
    if proc.returncode != 0:
        return "build: " + last_line(proc)

    run_dir = os.path.join(here, "run")
    os.makedirs(run_dir, exist_ok=True)
    for index, (file, spec) in enumerate(zip(run_inputs, io["inputs"])):
        value = node_tests.load_pb(os.path.join(data, file))
        if str(value.dtype) != spec["dtype"] or list(value.shape) != spec["shape"]:
            return (f"inputs: {file} is {value.dtype}{list(value.shape)}, the export takes "
                    f"{spec['dtype']}{spec['shape']}")
        np.ascontiguousarray(value).tofile(os.path.join(run_dir, f"input_{index}.bin"))
    proc = run([program, os.path.join(project, "weights.bin"), run_dir], args.timeout)
    if proc.returncode != 0:
        return "run: " + last_line(proc)
    for index, spec in enumerate(io["outputs"]):
        expected = np.load(os.path.join(sim_out, f"output_{index}.npy"))
        with open(os.path.join(run_dir, f"output_{index}.bin"), "rb") as f:
            actual = f.read()
        if str(expected.dtype) != spec["dtype"] or list(expected.shape) != spec["shape"]:
            return (f"output {index}: the simulator gives {expected.dtype}{list(expected.shape)}, "
                    f"the export {spec['dtype']}{spec['shape']}")
        reference = np.ascontiguousarray(expected).tobytes()
        if actual != reference:
            a = np.frombuffer(actual, expected.dtype) if len(actual) == len(reference) else None
            if a is None:
                return f"output {index}: {len(actual)} bytes, the simulator's {len(reference)}"
            bits = f"u{expected.itemsize}"
            differ = np.flatnonzero(a.view(bits) != np.ascontiguousarray(expected).ravel().view(bits))
            first = int(differ[0])
            return (f"output {index}: {differ.size} of {a.size} elements differ from the "
                    f"simulator's, first at {first}: {a[first]!r} vs {expected.ravel()[first]!r}")
    if not args.keep:
        shutil.rmtree(here, ignore_errors=True)
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with vinci-compile and vinci-run")
    parser.add_argument("--host-include", required=True, help="the host implementation's include/")
    parser.add_argument("--host-lib", required=True, help="libvinci_ascendc_host.a")
    parser.add_argument("--cxx", help="the host C++ compiler (default: g++, through ccache when "
                                      "it is installed)")
    parser.add_argument("--tests", help="comma-separated node test names (default: the must-pass list)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--min-percent", type=float, default=95.0)
    parser.add_argument("--work", help="the tests' folders (default: a temporary folder); a "
                                       "passing test's is removed unless --keep")
    parser.add_argument("--keep", action="store_true", help="keep every test's folder")
    args = parser.parse_args()
    if not args.cxx:
        args.cxx = ["ccache", "g++"] if shutil.which("ccache") else ["g++"]
    else:
        args.cxx = args.cxx.split()

    tests = args.tests.split(",") if args.tests else node_tests.LOWERED
    scratch = None if args.work else tempfile.TemporaryDirectory(prefix="vinci-ascendc-")
    work = os.path.abspath(args.work or scratch.name)
    os.makedirs(work, exist_ok=True)

    def one(name):
        try:
            return name, export_and_compare(args, name, work)
        except subprocess.TimeoutExpired as e:
            return name, f"{os.path.basename(e.cmd[0])}: timed out after {args.timeout} s"

    start = time.monotonic()
    failures = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, why in pool.map(one, tests):
            if why:
                failures[name] = why
    passed = len(tests) - len(failures)
    unexpected = sorted(n for n in failures if n not in KNOWN_UNEXPORTED)
    stale = sorted(n for n in KNOWN_UNEXPORTED if n in tests and n not in failures)
    for name in sorted(failures):
        print(f"{'KNOWN' if name in KNOWN_UNEXPORTED else 'FAIL'}: {name}: {failures[name]}")
    for name in stale:
        print(f"STALE: {name} passes: take it off KNOWN_UNEXPORTED")
    percent = 100.0 * passed / max(1, len(tests))
    print(f"ascendc node tests ({PRECISION}): {passed} of {len(tests)} exported, built and "
          f"bit-identical to the simulator ({percent:.1f}%) in {time.monotonic() - start:.0f} s "
          f"with {args.jobs} jobs")
    ok = not unexpected and not stale and percent >= args.min_percent
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
