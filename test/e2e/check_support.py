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

  check_support.py --bin build/bin [--every 3] [--tests a,b] [--jobs 2]
"""
import argparse
import concurrent.futures
import os
import re
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
    code = compiled.returncode
    if check.returncode != code:
        return (f"--check_support exits {check.returncode}, the compile {code}"
                f" ({first_error(compiled.stderr) or 'compiled'})"), code
    nodes = [n.name or f"{n.op_type}_{i}" for i, n in enumerate(model.graph.node)]
    status = node_status(check.stdout, nodes)
    missing = [n for n in nodes if n not in status]
    if missing:
        return f"the report has no line for node '{missing[0]}'", code
    blocked = {n for n, s in status.items() if s.startswith(BLOCKING)}
    if code == 0:
        if "The model compiles" not in check.stdout:
            return "the model compiles but the report does not say so", code
        if blocked:
            return f"the model compiles but node '{sorted(blocked)[0]}' is marked " \
                   f"'{status[sorted(blocked)[0]]}'", code
        return "", code
    if "The model does not compile" not in check.stdout:
        return "the compile fails but the report does not say so", code
    error = first_error(compiled.stderr)
    if error not in check.stdout:
        return f"the report does not give the compile's error '{error}'", code
    for node in sorted(named_nodes(compiled.stderr, nodes)):
        if node not in blocked:
            return f"the compile's error names node '{node}', the report says " \
                   f"'{status[node]}'", code
    return "", code


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with vinci-compile")
    parser.add_argument("--every", type=int, default=1,
                        help="check every N-th node test (default 1: all)")
    parser.add_argument("--tests", help="comma-separated node test names instead")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=60)
    args = parser.parse_args()
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
    sys.exit(main())
