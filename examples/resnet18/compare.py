#!/usr/bin/python3
"""Compare the simulator's ResNet-18 logits with torch fp32's, and its
simulated latency with the model's lower bound.

    /usr/bin/python3 examples/resnet18/compare.py REFERENCE.npy OUTPUT.npy \
        --model resnet18.onnx --run_log vinci-run.log

Passes (exit 0) when the logits match as the conv issue asks: cosine
>= 0.9999, the same top-1 class, a max abs error under 2% of the
reference's standard deviation, and a relative L2 error (the difference's
norm over torch's) of at most 5e-3. The fp16 build measures 5.3e-4 (max
abs 0.18% of the deviation); torch's own logits for another image
(prepare.py's picture with seed 1) fail every check: relative L2 5.8e-2,
max abs 19% of the deviation, cosine 0.9986, another top-1 class.

The latency is the simulator's (its timing model of an Ascend310P3 from
published numbers, read from vinci-run's 'simulated:' line), beside the
lower bound computed from the ONNX graph alone by bench/model_bound.py.
"""
import argparse
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from model_bound import model_lower_bound  # noqa: E402

MAX_REL_L2 = 5e-3
MIN_COSINE = 0.9999
MAX_ABS_OF_STD = 0.02


def simulated_us(run_log):
    with open(run_log) as f:
        for line in f:
            match = re.match(r"simulated: \d+ cycles = ([0-9.]+) us", line)
            if match:
                return float(match.group(1))
    sys.exit(f"compare.py: error: no 'simulated:' line in {run_log} (is it vinci-run's output?)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("output")
    parser.add_argument("--model", required=True, help="the ONNX model, for the lower bound")
    parser.add_argument("--run_log", required=True, help="vinci-run's printed output")
    args = parser.parse_args()
    expected = np.load(args.reference).astype(np.float64).ravel()
    actual = np.load(args.output).astype(np.float64).ravel()
    if actual.shape != expected.shape:
        sys.exit(f"compare.py: error: output has {actual.size} values, the reference "
                 f"{expected.size}")

    rel_l2 = np.linalg.norm(actual - expected) / np.linalg.norm(expected)
    cosine = actual @ expected / (np.linalg.norm(actual) * np.linalg.norm(expected))
    max_abs = np.abs(actual - expected).max()
    std = expected.std()
    print("rank  vinci (fp16 on the simulator)   torch fp32")
    for rank, (a, e) in enumerate(zip(actual.argsort()[::-1][:5], expected.argsort()[::-1][:5]), 1):
        print(f"{rank:>4}  class {a:>3}: {actual[a]:8.4f}        class {e:>3}: {expected[e]:8.4f}")
    checks = [
        (f"relative L2 {rel_l2:.2e} (at most {MAX_REL_L2:g})", rel_l2 <= MAX_REL_L2),
        (f"cosine {cosine:.7f} (at least {MIN_COSINE})", cosine >= MIN_COSINE),
        (f"max abs {max_abs:.4f} = {max_abs / std:.2%} of the reference's deviation "
         f"(under {MAX_ABS_OF_STD:.0%})", max_abs < MAX_ABS_OF_STD * std),
        (f"top-1 class {actual.argmax()} (torch {expected.argmax()})",
         actual.argmax() == expected.argmax()),
    ]
    for text, ok in checks:
        print(f"  {'ok  ' if ok else 'FAIL'} {text}")

    bound = model_lower_bound(args.model)
    latency = simulated_us(args.run_log)
    print(f"simulated {latency:,.1f} us a run (the simulator's Ascend310P3 timing table, "
          f"published numbers, not a hardware measurement); the model's lower bound "
          f"{bound['model_lower_bound_us']:,.1f} us ({bound['bound_by']}-bound, from the ONNX "
          f"graph at {bound['peaks']}): {latency / bound['model_lower_bound_us']:.1f}x")
    ok = all(ok for _, ok in checks)
    print("PASS: matches torch fp32" if ok else "FAIL: does not match torch fp32")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
