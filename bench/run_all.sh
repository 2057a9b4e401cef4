#!/bin/sh
# Runs every benchmark in bench/ and prints their JSON on stdout, one object
# per line (JSON Lines).
#
#   bench/run_all.sh               # all of them
#   bench/run_all.sh import        # only those whose path contains "import"
#
# A benchmark is either
#   bench/<name>_bench.py   or   bench/<dir>/run.py
# run from the repository root with Debian's /usr/bin/python3. It prints JSON
# on stdout: one document (object or array) or JSON Lines; progress and logs
# go to stderr. This script re-emits each object compactly on one line.
# Output that is not JSON, or a non-zero exit, counts as a failure: a line
# {"benchmark": ..., "status": "failed", ...} is printed for it, the next
# benchmark runs, and the script exits 1 at the end.
#
# Benchmarks are not tests: nothing here compares a figure with a threshold.
set -u

PY=/usr/bin/python3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vinci_run_all.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# Normalises one benchmark's stdout into compact JSON Lines.
# argv: benchmark path, stdout file, exit code. Exit 0 when the output was
# JSON and the benchmark succeeded, 1 otherwise.
normalise='
import json, sys
name, path, code = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path, encoding="utf-8", errors="replace").read()
docs, bad = [], False
if text.strip():
    try:
        doc = json.loads(text)
        docs = doc if isinstance(doc, list) else [doc]
    except ValueError:
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                docs.append(json.loads(line))
            except ValueError:
                bad = True
for d in docs:
    print(json.dumps(d, separators=(",", ":")))
if code != 0 or bad or not docs:
    why = ("exit code %d" % code if code != 0 else
           "output is not JSON" if bad else "no JSON output")
    print(json.dumps({"benchmark": name, "status": "failed", "reason": why,
                      "exit_code": code,
                      "output_tail": text[-2000:] if (bad or not docs) else ""},
                     separators=(",", ":")))
    sys.exit(1)
'

benches=$(ls bench/*_bench.py bench/*/run.py 2>/dev/null | LC_ALL=C sort)
if [ $# -gt 0 ]; then
    selected=
    for b in $benches; do
        for pat in "$@"; do
            case "$b" in *"$pat"*) selected="$selected $b"; break ;; esac
        done
    done
    benches=$selected
fi
if [ -z "$benches" ]; then
    echo "run_all: no benchmarks found (bench/*_bench.py, bench/*/run.py)" >&2
    exit 1
fi

failed=0
total=0
for b in $benches; do
    total=$((total + 1))
    echo "run_all: $b ..." >&2
    start=$(date +%s)
    "$PY" "$b" >"$tmp/out" </dev/null
    code=$?
    secs=$(( $(date +%s) - start ))
    if "$PY" -c "$normalise" "$b" "$tmp/out" "$code"; then
        echo "run_all: $b ok (${secs} s)" >&2
    else
        failed=$((failed + 1))
        echo "run_all: $b FAILED (exit $code, ${secs} s)" >&2
    fi
done

echo "run_all: $((total - failed))/$total benchmarks succeeded" >&2
[ "$failed" -eq 0 ]
