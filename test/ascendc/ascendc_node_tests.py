#!/usr/bin/python3
"""The ONNX node tests exported as Ascend C, built against Vinci's host
implementation and compared with the simulator bit for bit.

For each force_fp16 must-pass node test (test/e2e/node_tests.py), in its own
folder:
  1. vinci-compile --emit=om for Ascend310P3-AscendC (the 310P3 with the
     248 KiB of UB Ascend C gives a kernel, which the export plans for) and
     vinci-run (hazards fatal) give the reference outputs (the simulator,
     runtime/sim);
  2. vinci-compile --emit=ascendc, with the same inputs bound as constants,
     writes the CANN project;
  3. its main.cpp and kernels build with the system C++ compiler against the
     host implementation's library (backend/ascendc/host: written from the
     Ascend C and AscendCL documentation; it shares no code with
     runtime/sim);
  4. the program runs on the test's inputs, and every output must equal the
     simulator's byte for byte.

Step 3 builds up to BATCH exports as one program, each export's sources
unchanged inside a namespace of their own (the kernels' extern "C" names
renamed per export by the preprocessor, the helper guards reset between
exports) behind a main that picks the export by name: one g++ run and one
link for many tests, which keeps the whole set within CI's budget. A batch
that does not build is rebuilt export by export, as a user builds one, so
that a failure names its test. --solo builds every export alone.

Then the probes: exported calls made wrong on purpose (a vector op swapped,
a repeat stride, an Mmad that no longer clears L0C, a GM address, a dropped
WaitFlag, the Scalar unit's row placement of a gather), each of which must
make its test fail: a comparison that cannot tell them apart proves
nothing.

Prints one line per test that does not pass (the step and its message), one
per probe, and 'ascendc node tests: N of M exported, built and bit-identical
(P%)'. Exits 1 when a test outside KNOWN_UNEXPORTED does not pass, when one
of those passes (the list is stale), when a probe is not caught or no longer
applies, or when fewer than --min-percent pass.

  ascendc_node_tests.py --bin build/bin --host-include backend/ascendc/host/include
                        --host-lib build/lib/libvinci_ascendc_host.a [--tests a,b]
                        [--solo] [--work DIR [--keep]]
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
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
# The SoC the export plans kernels for (TPipe gives a kernel 248 KiB of the
# UB); the reference .om is planned for it too, so that both run the same tiling.
ASCEND_C_SOC = ["--soc_version", "Ascend310P3-AscendC"]
BATCH = 64  # exports a batch program holds at most

# Must-pass tests the exporter refuses, each with its one-line reason (the
# exporter's error names the kernel and the instruction); docs/ascendc.md
# says why each has no exact Ascend C form yet.
KNOWN_UNEXPORTED = {
    # LRN's window sum runs on the pooling template, which converts its f16
    # NCHW input with copy_nchw2nc1hwc0 (no Ascend C mapping yet).
    "test_lrn": "copy_nchw2nc1hwc0 has no Ascend C mapping yet",
    "test_lrn_default": "copy_nchw2nc1hwc0 has no Ascend C mapping yet",
}

# (test, kernel file glob, pattern, replacement, what the mistake is): each
# must make its test fail, by a difference from the simulator or a fault the
# host implementation reports.
PROBES = [
    ("test_sub_example", "k*_sub.cpp", r"\bSub\(", "Add(", "Sub becomes Add"),
    ("test_layer_normalization_4d_axis3_expanded", "k4_sub.cpp",
     r"(Sub\([^;]*, 3, BinaryRepeatParams\(1, 1, 1, 8, )8, 8\)", r"\g<1>0, 8)",
     "a Sub's first source repeat stride 0 instead of 8 blocks"),
    ("test_gemm_all_attributes", "k0_matmul.cpp", r"(mmad\(\d+, \d+, \d+, )true\)", r"\1false)",
     "Mmad accumulates into L0C instead of clearing it"),
    ("test_transpose_default", "k0_transpose.cpp", r"\[b \* 6\]", "[b * 5]",
     "a transposed row written one element early in GM"),
    ("test_transpose_default", "k0_transpose.cpp", r"\n *WaitFlag<HardEvent::MTE2_MTE3>\(EVENT_ID1\);",
     "", "a WaitFlag dropped"),
    ("test_nllloss_NCd1d2_expanded", "k*_gather.cpp", r"SetValue\(r \* 4 \+ i,", "SetValue(r * 4,",
     "the Scalar unit puts a gathered row's bytes on one byte"),
]


def run(cmd, timeout, cwd=None):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)


def last_line(proc):
    text = (proc.stderr or proc.stdout or "").strip().splitlines()
    return text[-1] if text else f"exit {proc.returncode}"


class Export:
    """A node test exported and simulated, waiting to be built and run."""

    def __init__(self, name, here, project, io, run_dir, sim_out):
        self.name, self.here, self.project, self.io = name, here, project, io
        self.run_dir, self.sim_out = run_dir, sim_out
        self.sources = [os.path.join(project, p)
                        for p in ["main.cpp"] + [k["file"] for k in io["kernels"]]]
        self.command = None  # the program and its leading arguments, once built


def prepare(args, name, work):
    """(Export, '') once the simulator's outputs and the export are in
    place, else (None, 'step: why')."""
    folder = os.path.join(node_tests.DATA, name)
    model_path = os.path.join(folder, "model.onnx")
    model = onnx.load(model_path, load_external_data=False)
    data = os.path.join(folder, "test_data_set_0")
    here = os.path.join(work, name)
    shutil.rmtree(here, ignore_errors=True)  # nothing of an earlier run is compared
    os.makedirs(here)
    om = os.path.join(here, "model.om")
    proc, bound, unbound = node_tests.compile_node_test(args.bin, model, model_path, om, PRECISION,
                                                        args.timeout, extra=ASCEND_C_SOC)
    if unbound or proc.returncode != 0:
        return None, "compile .om: " + last_line(proc) + (f" ({unbound})" if unbound else "")
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
        return None, "simulate: " + last_line(proc)

    project = os.path.join(here, "ascendc")
    proc, _, _ = node_tests.compile_node_test(args.bin, model, model_path, project, PRECISION,
                                              args.timeout, emit="ascendc", bound=bound)
    if proc.returncode != 0:
        return None, "export: " + last_line(proc)
    with open(os.path.join(project, "io.json")) as f:
        io = json.load(f)
    run_dir = os.path.join(here, "run")
    os.makedirs(run_dir)
    for index, (file, spec) in enumerate(zip(run_inputs, io["inputs"])):
        value = node_tests.load_pb(os.path.join(data, file))
        if str(value.dtype) != spec["dtype"] or list(value.shape) != spec["shape"]:
            return None, (f"inputs: {file} is {value.dtype}{list(value.shape)}, the export takes "
                          f"{spec['dtype']}{spec['shape']}")
        np.ascontiguousarray(value).tofile(os.path.join(run_dir, f"input_{index}.bin"))
    return Export(name, here, project, io, run_dir, sim_out), ""


def compile_program(args, unity, program):
    """'' once `unity` is built into `program`, else the compiler's last line."""
    proc = run(args.cxx + ["-std=c++17", "-O0", "-DVINCI_ASCENDC_HOST", "-I", args.host_include,
                           unity, args.host_lib, "-o", program] + args.link_flags,
               args.timeout * 4)
    return "" if proc.returncode == 0 else last_line(proc)


def build_solo(args, export):
    """Builds one export as its user would: '' or 'build: why'."""
    unity = os.path.join(export.here, "unity.cpp")
    with open(unity, "w") as f:
        f.write("".join(f'#include "{p}"\n' for p in export.sources))
    program = os.path.join(export.here, "program")
    why = compile_program(args, unity, program)
    if why:
        return "build: " + why
    export.command = [program]
    return ""


def build_batch(args, exports, folder, index):
    """Builds `exports` as one program: '' or why it did not build."""
    system, helpers, body = [], set(), []
    for file in (p for e in exports for p in e.sources):
        with open(file) as f:
            text = f.read()
        system += [h for h in re.findall(r"^#include <([^>]+)>", text, re.M) if h not in system]
        helpers.update(re.findall(r"^#define (VINCI_ASCENDC_\w+)$", text, re.M))
    for k, export in enumerate(exports):
        names = [kernel["name"] for kernel in export.io["kernels"]]
        body += [f"#define {n} t{k}_{n}" for n in names] + [f"namespace t{k} {{  // {export.name}"]
        body += [f'#include "{p}"' for p in export.sources] + ["}"]
        body += [f"#undef {n}" for n in names + sorted(helpers)]
    lines = ["// Exports built as one program (test/ascendc/ascendc_node_tests.py).",
             "// Each export's includes first, so that its own are no-ops in its namespace."]
    lines += [f"#include <{h}>" for h in system]
    lines += ['#include "acl/acl.h"', '#include "kernel_operator.h"', ""] + body
    lines += ["", "int main(int argc, char **argv) {", "  if (argc < 2) return 2;"]
    lines += [f'  if (!std::strcmp(argv[1], "{e.name}")) return t{k}::main(argc - 1, argv + 1);'
              for k, e in enumerate(exports)]
    lines += ["  return 2;", "}", ""]
    unity = os.path.join(folder, f"batch{index}.cpp")
    with open(unity, "w") as f:
        f.write("\n".join(lines))
    program = os.path.join(folder, f"batch{index}")
    why = compile_program(args, unity, program)
    if not why:
        for export in exports:
            export.command = [program, export.name]
    return why


def run_and_compare(args, export):
    """'' when every output is the simulator's, byte for byte, else why not."""
    proc = run(export.command + [os.path.join(export.project, "weights.bin"), export.run_dir],
               args.timeout)
    if proc.returncode != 0:
        return "run: " + last_line(proc)
    for index, spec in enumerate(export.io["outputs"]):
        expected = np.load(os.path.join(export.sim_out, f"output_{index}.npy"))
        with open(os.path.join(export.run_dir, f"output_{index}.bin"), "rb") as f:
            actual = f.read()
        if str(expected.dtype) != spec["dtype"] or list(expected.shape) != spec["shape"]:
            return (f"output {index}: the simulator gives {expected.dtype}{list(expected.shape)}, "
                    f"the export {spec['dtype']}{spec['shape']}")
        reference = np.ascontiguousarray(expected).tobytes()
        if actual != reference:
            if len(actual) != len(reference):
                return f"output {index}: {len(actual)} bytes, the simulator's {len(reference)}"
            bits = f"u{expected.itemsize}"
            a = np.frombuffer(actual, expected.dtype)
            differ = np.flatnonzero(a.view(bits) != np.ascontiguousarray(expected).ravel().view(bits))
            first = int(differ[0])
            return (f"output {index}: {differ.size} of {a.size} elements differ from the "
                    f"simulator's, first at {first}: {a[first]!r} vs {expected.ravel()[first]!r}")
    return ""


def probe(args, export, pattern_file, pattern, replacement, work, index):
    """Runs `export` with one kernel edited: (True, why it failed) when the
    test catches the edit, (False, why not)."""
    here = os.path.join(work, f"probe{index}")
    shutil.rmtree(here, ignore_errors=True)
    shutil.copytree(export.here, here, ignore=shutil.ignore_patterns("program", "batch*"))
    project = os.path.join(here, "ascendc")
    files = sorted(glob.glob(os.path.join(project, "kernels", pattern_file)))
    if len(files) != 1:
        return False, f"no longer applies: {len(files)} kernels match {pattern_file}"
    with open(files[0]) as f:
        text = f.read()
    edited, count = re.subn(pattern, replacement, text, count=1)
    if count == 0:
        return False, f"no longer applies: {os.path.basename(files[0])} has no {pattern!r}"
    with open(files[0], "w") as f:
        f.write(edited)
    mutant = Export(export.name, here, project, export.io, os.path.join(here, "run"),
                    os.path.join(here, "sim"))
    why = build_solo(args, mutant) or run_and_compare(args, mutant)
    if not args.keep:
        shutil.rmtree(here, ignore_errors=True)
    return (True, why) if why else (False, "the edited export still matches the simulator")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with vinci-compile and vinci-run")
    parser.add_argument("--host-include", required=True, help="the host implementation's include/")
    parser.add_argument("--host-lib", required=True, help="libvinci_ascendc_host.a")
    parser.add_argument("--cxx", help="the host C++ compiler (default: g++, through ccache when "
                                      "it is installed)")
    parser.add_argument("--tests", help="comma-separated node test names (default: the must-pass list)")
    parser.add_argument("--solo", action="store_true", help="build every export alone")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--min-percent", type=float, default=95.0)
    parser.add_argument("--work", help="the tests' folders (default: a temporary folder); a "
                                       "passing test's is removed unless --keep")
    parser.add_argument("--keep", action="store_true", help="keep every test's folder")
    args = parser.parse_args()
    args.cxx = args.cxx.split() if args.cxx else (
        ["ccache", "g++"] if shutil.which("ccache") else ["g++"])
    # gold links a test program in a fifth of the time of the default linker.
    args.link_flags = ["-fuse-ld=gold"] if shutil.which("ld.gold") else []

    tests = args.tests.split(",") if args.tests else node_tests.LOWERED
    scratch = None if args.work else tempfile.TemporaryDirectory(prefix="vinci-ascendc-")
    work = os.path.abspath(args.work or scratch.name)
    os.makedirs(work, exist_ok=True)
    start = time.monotonic()
    failures, exports = {}, {}

    def guarded(step, *values):
        try:
            return step(*values)
        except subprocess.TimeoutExpired as e:
            return f"{os.path.basename(e.cmd[0])}: timed out after {e.timeout:.0f} s"

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        def one(name):
            try:
                return name, prepare(args, name, work)
            except subprocess.TimeoutExpired as e:
                return name, (None, f"{os.path.basename(e.cmd[0])}: timed out after "
                                    f"{e.timeout:.0f} s")
        for name, (export, why) in pool.map(one, tests):
            if export:
                exports[name] = export
            else:
                failures[name] = why
        prepared = time.monotonic()

        ready = [exports[n] for n in tests if n in exports]
        batches = [] if args.solo else [
            ready[i::max(args.jobs, -(-len(ready) // BATCH))] for i in range(
                min(len(ready), max(args.jobs, -(-len(ready) // BATCH))))]
        batch_folder = os.path.join(work, "batches")
        os.makedirs(batch_folder, exist_ok=True)
        unbuilt = [] if batches else list(ready)
        for batch, why in zip(batches, pool.map(
                lambda b: guarded(build_batch, args, b[1], batch_folder, b[0]), enumerate(batches))):
            if why:
                print(f"note: a batch of {len(batch)} exports does not build ({why}); building "
                      "each alone", flush=True)
                unbuilt += batch
        for export, why in zip(unbuilt, pool.map(lambda e: guarded(build_solo, args, e), unbuilt)):
            if why:
                failures[export.name] = why
        built = time.monotonic()

        runnable = [e for e in ready if e.command]
        for export, why in zip(runnable, pool.map(lambda e: guarded(run_and_compare, args, e),
                                                  runnable)):
            if why:
                failures[export.name] = why
    finished = time.monotonic()

    passed = len(tests) - len(failures)
    unexpected = sorted(n for n in failures if n not in KNOWN_UNEXPORTED)
    stale = sorted(n for n in KNOWN_UNEXPORTED if n in tests and n not in failures)
    for name in sorted(failures):
        print(f"{'KNOWN' if name in KNOWN_UNEXPORTED else 'FAIL'}: {name}: {failures[name]}")
    for name in stale:
        print(f"STALE: {name} passes: take it off KNOWN_UNEXPORTED")

    # The probes, on tests that passed: each edit must be caught.
    uncaught = 0
    for index, (test, file, pattern, replacement, what) in enumerate(PROBES):
        if test not in tests:
            continue
        if test in failures:
            print(f"PROBE NOT RUN: {test}: {what}: the test itself fails")
            uncaught += 1
            continue
        try:
            caught, why = probe(args, exports[test], file, pattern, replacement, work, index)
        except subprocess.TimeoutExpired as e:  # a hang is a caught mistake too
            caught, why = True, f"{os.path.basename(e.cmd[0])}: timed out after {e.timeout:.0f} s"
        print(f"{'PROBE CAUGHT' if caught else 'PROBE MISSED'}: {test}: {what}: {why}")
        uncaught += not caught

    if not args.keep:
        for name in exports:
            if name not in failures:
                shutil.rmtree(exports[name].here, ignore_errors=True)
        shutil.rmtree(batch_folder, ignore_errors=True)
    percent = 100.0 * passed / max(1, len(tests))
    print(f"ascendc node tests ({PRECISION}): {passed} of {len(tests)} exported, built and "
          f"bit-identical to the simulator ({percent:.1f}%) in {time.monotonic() - start:.0f} s "
          f"with {args.jobs} jobs (compile, simulate and export {prepared - start:.0f} s; build "
          f"{built - prepared:.0f} s in {len(batches) or len(unbuilt)} programs; run "
          f"{finished - built:.0f} s)")
    ok = not unexpected and not stale and not uncaught and percent >= args.min_percent
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
