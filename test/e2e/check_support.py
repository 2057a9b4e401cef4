#!/usr/bin/python3
"""--check_support against the compile it predicts, over the ONNX node tests.

Each node test is compiled as the node-test run compiles it
(node_tests.compile_node_test: its shape parameters bound from the test's data),
then `vinci-compile --check_support` runs with the same options. They must
agree:
  - the check exits as the compile does (0 exactly when the model compiles,
    and the same 1 or 2 otherwise);
  - when the compile fails, the report says 'The model does not compile',
    repeats the compile's first error, and marks every model node that the
    compile's errors name as UNSUPPORTED or FAILED;
  - when it compiles, the report says 'The model compiles' and marks no node.

The whole set takes about two minutes on two cores; --every N checks every
N-th test (by name, from the first) to keep CI short. Prints one line per
disagreement and 'N agree, N disagree'; exits 1 on any disagreement.

--e2e runs end-to-end test scripts instead (each given as its command line
after the script's name, '{bin}' standing for their --bin folder) with a
vinci-compile in front of the real one that, after each compile to an .om,
runs --check_support with the same options and judges it as above; the
scripts' own verdicts are printed but are not this check's.

  check_support.py --bin build/bin [--every 3] [--tests a,b] [--jobs 2]
  check_support.py --bin build/bin --e2e "bert_models.py --bin {bin}" ...
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import node_tests  # noqa: E402

BLOCKING = ("UNSUPPORTED", "FAILED")


def named_nodes(stderr, nodes):
    """The model's nodes the compile's errors name: the importer's
    "node 'X'", a location loc("X"), a kernel's "(from X, Y)"."""
    names = set(re.findall(r"node '([^']+)'", stderr))
    names |= set(re.findall(r'loc\("([^"]+)"\)', stderr))
    for group in re.findall(r"\(from ([^)]*)\)", stderr):
        names |= {n.strip() for n in group.split(",")}
    return names & set(nodes)


def node_status(report, nodes):
    """Each node's status text in the report's per-node table (the second
    table, after 'Compile check')."""
    table = re.split(r"\nCompile check", report, maxsplit=1)
    lines = table[1].splitlines() if len(table) == 2 else []
    status = {}
    for line in lines:
        for name in nodes:
            if line.startswith(name + " ") and name not in status:
                columns = line[len(name):].split(None, 1)  # op type, status
                status[name] = columns[1] if len(columns) == 2 else ""
    return status


def first_error(stderr):
    for line in stderr.splitlines():
        if "error: " in line:
            return line.removeprefix("vinci-compile: ").strip()
    return ""


def judge(code, compile_stderr, check, nodes):
    """'' when the --check_support run `check` agrees with a compile that
    exited `code` with `compile_stderr`, else why not. `nodes` are the ONNX
    model's node names (None for a PyTorch model: no per-node table)."""
    if check.returncode != code:
        return (f"--check_support exits {check.returncode}, the compile {code}"
                f" ({first_error(compile_stderr) or 'compiled'})")
    status = {}
    if nodes is not None:
        status = node_status(check.stdout, nodes)
        missing = [n for n in nodes if n not in status]
        if missing:
            return f"the report has no line for node '{missing[0]}'"
    blocked = {n for n, s in status.items() if s.startswith(BLOCKING)}
    if code == 0:
        if "The model compiles" not in check.stdout:
            return "the model compiles but the report does not say so"
        if blocked:
            return f"the model compiles but node '{sorted(blocked)[0]}' is marked " \
                   f"'{status[sorted(blocked)[0]]}'"
        return ""
    error = first_error(compile_stderr)
    if "The model does not compile" not in check.stdout:
        # A file that is no model has no report: the check's error is the compile's.
        if error and first_error(check.stderr) == error:
            return ""
        return "the compile fails but the report does not say so"
    if error not in check.stdout:
        return f"the report does not give the compile's error '{error}'"
    for node in sorted(named_nodes(compile_stderr, nodes or [])):
        if node not in blocked:
            return f"the compile's error names node '{node}', the report says " \
                   f"'{status[node]}'"
    return ""


def model_nodes(model):
    return [n.name or f"{n.op_type}_{i}" for i, n in enumerate(model.graph.node)]


def check_one(bin_dir, name, work, timeout):
    """'' when the check agrees with the compile, else why not; and the
    compile's exit code."""
    model = onnx.load(os.path.join(node_tests.DATA, name, "model.onnx"),
                      load_external_data=False)
    om = os.path.join(work, name + ".om")
    mode = "must_keep_origin_dtype"
    compiled, bound, _ = node_tests.compile_node_test(
        bin_dir, model, os.path.join(node_tests.DATA, name, "model.onnx"), om, mode, timeout)
    check = node_tests.execute(
        [os.path.join(bin_dir, "vinci-compile"), "--model",
         os.path.join(node_tests.DATA, name, "model.onnx"), "--precision_mode", mode,
         "--check_support", *node_tests.const_input_option(name, model, bound)], timeout)
    return judge(compiled.returncode, compiled.stderr, check, model_nodes(model)), \
        compiled.returncode


# Options that name what a compile writes, which --check_support does not
# write; dropped from its command line.
OUTPUT_OPTIONS = ("--output", "--report", "--dump_dir")
SHIM_FLAG = "--as-vinci-compile"


def option_value(args, flag):
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg[len(flag) + 1:]
    return None


def without_options(args, flags):
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in flags:
            skip = True
        elif not arg.startswith(tuple(f + "=" for f in flags)):
            kept.append(arg)
    return kept


def is_om_compile(args):
    """A compile to an .om, which the check's own compile is (not a pre-check,
    an ATC conversion mode, --emit of IR or Ascend C, --help)."""
    if any(a in ("--check_support", "--print_weights", "-h", "--help", "--version")
           for a in args):
        return False
    return option_value(args, "--mode") in (None, "0") and \
        option_value(args, "--emit") in (None, "om")


def as_vinci_compile(real_bin, log, args):
    """Stands in for vinci-compile in an end-to-end script: runs the real
    compile (its output and exit code are the script's), then the pre-check
    with the same options, and appends the verdict to `log`."""
    real = os.path.join(real_bin, "vinci-compile")
    compiled = subprocess.run([real, *args], capture_output=True)
    sys.stdout.buffer.write(compiled.stdout)
    sys.stderr.buffer.write(compiled.stderr)
    if is_om_compile(args):
        compile_stderr = compiled.stderr.decode(errors="replace")
        check = subprocess.run([real, *without_options(args, OUTPUT_OPTIONS), "--check_support"],
                               capture_output=True, text=True, errors="replace")
        model = option_value(args, "--model") or ""
        nodes = None
        if model.endswith(".onnx") and os.path.isfile(model):
            try:
                nodes = model_nodes(onnx.load(model, load_external_data=False))
            except Exception:  # noqa: BLE001 - a model the tests make unreadable on purpose
                nodes = None
        why = judge(compiled.returncode, compile_stderr, check, nodes)
        with open(log, "a") as f:
            f.write(json.dumps({"model": os.path.basename(model), "code": compiled.returncode,
                                "why": why, "error": first_error(compile_stderr)}) + "\n")
    return compiled.returncode


def check_e2e(bin_dir, scripts):
    """Runs each end-to-end script with the stand-in vinci-compile; the
    verdicts of every compile they made."""
    here = os.path.dirname(os.path.abspath(__file__))
    real_bin = os.path.abspath(bin_dir)
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="vinci-check-e2e-") as work:
        shim_bin = os.path.join(work, "bin")
        os.mkdir(shim_bin)
        for tool in os.listdir(real_bin):
            if tool != "vinci-compile":
                os.symlink(os.path.join(real_bin, tool), os.path.join(shim_bin, tool))
        for script in scripts:
            log = os.path.join(work, "verdicts.jsonl")
            with open(os.path.join(shim_bin, "vinci-compile"), "w") as f:
                f.write(f"#!/bin/sh\nexec /usr/bin/python3 {shlex.quote(os.path.abspath(__file__))}"
                        f" {SHIM_FLAG} {shlex.quote(real_bin)} {shlex.quote(log)} \"$@\"\n")
            os.chmod(os.path.join(shim_bin, "vinci-compile"), 0o755)
            command = shlex.split(script.replace("{bin}", shim_bin))
            start = time.monotonic()
            run = subprocess.run(["/usr/bin/python3", os.path.join(here, command[0]),
                                  *command[1:]], capture_output=True, text=True)
            found = []
            if os.path.exists(log):
                with open(log) as f:
                    found = [json.loads(line) for line in f]
                os.remove(log)
            print(f"{command[0]}: {len(found)} compile(s) checked; the script exits "
                  f"{run.returncode} ({time.monotonic() - start:.0f} s)")
            for line in run.stdout.splitlines():
                if line.startswith("FAIL"):
                    print(f"  {line}")
            verdicts += [(command[0], v) for v in found]
    return verdicts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with vinci-compile")
    parser.add_argument("--every", type=int, default=1,
                        help="check every N-th node test (default 1: all)")
    parser.add_argument("--tests", help="comma-separated node test names instead")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--e2e", action="append",
                        help="an end-to-end script's command line ('{bin}': the --bin folder)")
    args = parser.parse_args()
    if args.e2e:
        verdicts = check_e2e(args.bin, args.e2e)
        disagree = [(s, v) for s, v in verdicts if v["why"]]
        for script, v in disagree:
            print(f"DISAGREE: {script}: {v['model']}: {v['why']}")
        compiled = sum(v["code"] == 0 for _, v in verdicts)
        print(f"check_support: {len(verdicts) - len(disagree)} agree, {len(disagree)} disagree "
              f"({compiled} compile, {len(verdicts) - compiled} do not)")
        return 1 if disagree or not verdicts else 0
    every = sorted(t for t in os.listdir(node_tests.DATA)
                   if os.path.isfile(os.path.join(node_tests.DATA, t, "model.onnx")))
    tests = args.tests.split(",") if args.tests else every[::args.every]
    unknown = sorted(set(tests) - set(every))
    if unknown:
        parser.error("no such node test: " + ", ".join(unknown))

    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vinci-check-") as work, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda t: (t, *check_one(args.bin, t, work, args.timeout)),
                                tests))
    disagree = [(t, why) for t, why, _ in results if why]
    for name, why in disagree:
        print(f"DISAGREE: {name}: {why}")
    compiled = sum(code == 0 for _, _, code in results)
    print(f"check_support: {len(results) - len(disagree)} agree, {len(disagree)} disagree "
          f"({compiled} compile, {len(results) - compiled} do not; "
          f"{time.monotonic() - start:.0f} s with {args.jobs} jobs)")
    return 1 if disagree or not results else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == SHIM_FLAG:
        sys.exit(as_vinci_compile(sys.argv[2], sys.argv[3], sys.argv[4:]))
    sys.exit(main())
