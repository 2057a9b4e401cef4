#!/usr/bin/python3
"""Import benchmark: how long vinci-compile takes to import real models, and
how much memory it needs, next to a peer (onnx.load) on the same files.

    /usr/bin/python3 bench/import_bench.py [--vinci-compile PATH] [--runs 3]

A benchmark, not a test: it prints ONE JSON object on stdout and exits 0 when
every measurement ran (targets missed or not; the JSON says which), non-zero
when a model could not be exported or imported.

What it does:
  1. Exports resnet18 and bert_base with examples/models/export_models.py
     into bench/out/ (gitignored), unless a cached file there is newer than
     the export script.
  2. Runs `vinci-compile --model M --emit=vg --output TMP` --runs times per
     model, each run in a fresh child process, and keeps the best (lowest)
     wall time and the lowest peak RSS. Peak RSS is that one child's
     ru_maxrss, read with os.wait4() on its pid, so it never mixes in other
     children (RUSAGE_CHILDREN would be a running maximum over all of them).
  3. Peer: the same best-of-N for onnx.load() of the same file in a fresh
     Debian /usr/bin/python3 child (python3-onnx, C++ protobuf). Its time is
     measured inside the child around onnx.load() alone (interpreter start-up
     and `import onnx` excluded); its peak RSS is the child's ru_maxrss
     (includes the interpreter, about 30-60 MB).

Host-side figures only: no simulator and no NPU are involved.
"""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORT_SCRIPT = os.path.join(REPO, "examples", "models", "export_models.py")
DEBIAN_PYTHON = "/usr/bin/python3"
MODELS = ["resnet18", "bert_base"]
# Targets from issue 2: BERT-base imports in under 2 s and in under 2x its
# file size of memory.
TARGETS = {"bert_base": {"import_seconds_max": 2.0,
                         "rss_over_file_ratio_max": 2.0}}

DYNAMIC_TYPE = re.compile(r"tensor<[^>]*\?")

PEER_SNIPPET = r"""
import sys, time
import onnx
t0 = time.perf_counter()
m = onnx.load(sys.argv[1])
dt = time.perf_counter() - t0
print(repr(dt))
"""


def find_vinci_compile(explicit):
    if explicit:
        return explicit
    for rel in ("build/bin/vinci-compile", "build-main/bin/vinci-compile"):
        path = os.path.join(REPO, rel)
        if os.access(path, os.X_OK):
            return path
    return os.path.join(REPO, "build/bin/vinci-compile")


def run_measured(argv, stdout_path=None, stderr_path=None):
    """Runs argv in a fresh child; returns (exit_status, wall_s, rusage,
    stdout_text, stderr_text). The rusage is wait4()'s for this pid only."""
    out_f = open(stdout_path or os.devnull, "wb")
    err_f = tempfile.TemporaryFile()
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out_f,
                                stderr=err_f, close_fds=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped already
        err_f.seek(0)
        err = err_f.read().decode("utf-8", "replace")
    finally:
        out_f.close()
        err_f.close()
    out = ""
    if stdout_path:
        with open(stdout_path, "rb") as f:
            out = f.read(1 << 20).decode("utf-8", "replace")
    return proc.returncode, wall, usage, out, err


def maxrss_bytes(usage):
    return usage.ru_maxrss * 1024  # Linux reports ru_maxrss in KiB


def ensure_exported(name, out_dir, force):
    path = os.path.join(out_dir, name + ".onnx")
    if (not force and os.path.exists(path)
            and os.path.getmtime(path) >= os.path.getmtime(EXPORT_SCRIPT)):
        return path, None
    t0 = time.perf_counter()
    proc = subprocess.run(
        [DEBIAN_PYTHON, EXPORT_SCRIPT, "--out", out_dir, "--only", name],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    if proc.returncode != 0 or not os.path.exists(path):
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
        raise RuntimeError("export of %s failed (exit %d): %s"
                           % (name, proc.returncode, " | ".join(tail)))
    return path, time.perf_counter() - t0


def bench_vinci(compiler, model_path, runs, tmp_dir):
    out_path = os.path.join(tmp_dir, "out.mlir")
    walls, rsses, usages, summary = [], [], [], ""
    for _ in range(runs):
        if os.path.exists(out_path):
            os.remove(out_path)
        rc, wall, usage, _, err = run_measured(
            [compiler, "--model", model_path, "--emit=vg",
             "--output", out_path])
        if rc != 0:
            raise RuntimeError("vinci-compile exited %d on %s: %s"
                               % (rc, model_path, err.strip()))
        walls.append(wall)
        rsses.append(maxrss_bytes(usage))
        usages.append(usage)
        summary = err.strip().splitlines()[-1] if err.strip() else ""
    with open(out_path, "r", encoding="utf-8", errors="replace") as f:
        ir = f.read()
    # A dynamic dim prints as '?' inside a tensor type: tensor<?x128xf32>.
    dynamic = len(DYNAMIC_TYPE.findall(ir))
    best = usages[walls.index(min(walls))]
    return {"walls": walls, "rsses": rsses, "summary": summary,
            "best_usage": {"cpu_user_seconds": round(best.ru_utime, 3),
                           "cpu_sys_seconds": round(best.ru_stime, 3),
                           "minor_page_faults": best.ru_minflt},
            "ir_bytes": len(ir.encode()), "dynamic_tensor_types": dynamic}


def bench_peer(model_path, runs, tmp_dir):
    walls, rsses = [], []
    for _ in range(runs):
        rc, _, usage, out, err = run_measured(
            [DEBIAN_PYTHON, "-c", PEER_SNIPPET, model_path],
            stdout_path=os.path.join(tmp_dir, "peer.txt"))
        if rc != 0:
            raise RuntimeError("onnx.load failed on %s: %s"
                               % (model_path, err.strip()[-400:]))
        walls.append(float(out.strip().splitlines()[-1]))
        rsses.append(maxrss_bytes(usage))
    return {"walls": walls, "rsses": rsses}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vinci-compile", dest="compiler", default=None,
                    help="vinci-compile binary (default: build/bin, then "
                         "build-main/bin, relative to the repo root)")
    ap.add_argument("--runs", type=int, default=3, help="runs per figure "
                    "(best of N; default 3)")
    ap.add_argument("--out-dir", default=os.path.join(REPO, "bench", "out"),
                    help="export cache (default bench/out)")
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated subset of: " + ",".join(MODELS))
    ap.add_argument("--reexport", action="store_true",
                    help="export again even when cached")
    ap.add_argument("--no-peer", action="store_true",
                    help="skip the onnx.load comparison")
    ap.add_argument("--pretty", action="store_true", help="indent the JSON")
    args = ap.parse_args(argv)

    compiler = find_vinci_compile(args.compiler)
    result = {
        "benchmark": "import",
        "what": "vinci-compile --emit=vg wall time and peak RSS per model "
                "(fresh process per run, best of %d), vs onnx.load" % args.runs,
        "vinci_compile": os.path.relpath(compiler, REPO)
        if compiler.startswith(REPO) else compiler,
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                 "loadavg_1m_at_start": round(os.getloadavg()[0], 2)},
        "note": "host-side import only; no simulator or NPU figures",
        "models": {},
    }
    failed = False
    if not os.access(compiler, os.X_OK):
        result["error"] = (
            "vinci-compile not found or not executable: %s%s" % (
                compiler, "" if args.compiler else
                " (tried build/bin and build-main/bin under the repo root; "
                "build it or pass --vinci-compile PATH)"))
        print(json.dumps(result, indent=2 if args.pretty else None))
        return 2

    os.makedirs(args.out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vinci_import_bench_") as tmp:
        for name in [n for n in args.models.split(",") if n]:
            entry = {}
            result["models"][name] = entry
            try:
                path, export_s = ensure_exported(name, args.out_dir,
                                                 args.reexport)
                size = os.path.getsize(path)
                entry["file"] = os.path.relpath(path, REPO)
                entry["file_bytes"] = size
                if export_s is not None:
                    entry["export_seconds"] = round(export_s, 2)
                v = bench_vinci(compiler, path, args.runs, tmp)
                best_s = min(v["walls"])
                peak = min(v["rsses"])
                entry.update({
                    "import_seconds": round(best_s, 3),
                    "import_seconds_runs": [round(w, 3) for w in v["walls"]],
                    "peak_rss_bytes": peak,
                    "rss_over_file_ratio": round(peak / size, 3),
                    "best_run": v["best_usage"],
                    "fully_static": v["dynamic_tensor_types"] == 0,
                    "ir_bytes": v["ir_bytes"],
                    "vinci_compile_summary": v["summary"],
                })
                target = TARGETS.get(name)
                if target:
                    entry["targets"] = dict(target)
                    entry["targets"]["import_seconds_met"] = \
                        best_s < target["import_seconds_max"]
                    entry["targets"]["rss_met"] = \
                        peak / size < target["rss_over_file_ratio_max"]
                    entry["targets"]["met"] = (
                        entry["targets"]["import_seconds_met"]
                        and entry["targets"]["rss_met"])
                if not args.no_peer:
                    p = bench_peer(path, args.runs, tmp)
                    peer_s = min(p["walls"])
                    peer_rss = min(p["rsses"])
                    entry["peer_onnx_load"] = {
                        "seconds": round(peer_s, 3),
                        "peak_rss_bytes": peer_rss,
                        "rss_over_file_ratio": round(peer_rss / size, 3),
                        "vinci_over_onnx_load_time_ratio":
                            round(best_s / peer_s, 3) if peer_s > 0 else None,
                        "vinci_over_onnx_load_rss_ratio":
                            round(peak / peer_rss, 3),
                    }
            except (RuntimeError, OSError) as e:
                entry["error"] = str(e)
                failed = True
    result["host"]["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result, indent=2 if args.pretty else None))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
