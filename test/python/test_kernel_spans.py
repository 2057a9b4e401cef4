"""ctest bench_kernel_spans: bench/common.py kernel_spans (each launch's span
in a vinci-run --profile trace) on hand-made traces whose launches look
alike, then on vinci-run's own trace of a GPT-2 block, whose three head
transposes are one program run back to back, beginning with an untraced
set_flag.

    /usr/bin/python3 test/python/test_kernel_spans.py [--bin build/bin]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from common import kernel_spans  # noqa: E402

BIN = os.path.join(ROOT, "build", "bin")


def event(launch, kernel, block, pc, ts, dur):
    return {"ph": "X", "name": "copy", "cat": "MTE2", "pid": block, "tid": 4, "ts": ts,
            "dur": dur, "args": {"pc": pc, "block": block, "cycles": 1, "launch": launch,
                                 "kernel": kernel}}


def write_trace(directory, events, launches, truncated=False):
    path = os.path.join(directory, "trace.json")
    metadata = [{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "AI core 0"}}]
    with open(path, "w") as f:
        json.dump({"otherData": {"truncated": truncated, "launches": launches},
                   "traceEvents": metadata + events}, f)
    return path


class KernelSpansTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        self.addCleanup(self.work.cleanup)

    def test_launches_of_one_program_back_to_back(self):
        # Three launches of "k3_transpose" on two blocks, none with an event at
        # pc 0 (its set_flag is not traced): three spans of 10, 20 and 30 us.
        events = []
        for launch, (start, length) in enumerate([(100, 10), (110, 20), (130, 30)]):
            for block in (0, 1):
                events.append(event(launch, "k3_transpose", block, 3, start, length / 2))
                events.append(event(launch, "k3_transpose", block, 6, start + length / 2,
                                    length / 2))
        spans = kernel_spans(write_trace(self.work.name, events, 3))
        self.assertEqual([round(s, 6) for s in spans], [10, 20, 30])

    def test_one_launch_whose_blocks_start_again_at_pc_0(self):
        # One launch of eight blocks, each starting at pc 0: one span, from the
        # earliest start to the latest end over the blocks.
        events = [event(0, "k0_layer_norm", b, pc, 5 + b + pc, 1) for b in range(8)
                  for pc in (0, 4)]
        self.assertEqual(kernel_spans(write_trace(self.work.name, events, 1)), [5 + 7 + 4 + 1 - 5])

    def test_a_launch_without_events_is_an_error(self):
        events = [event(0, "a", 0, 0, 0, 1), event(2, "c", 0, 0, 2, 1)]
        with self.assertRaisesRegex(RuntimeError, r"launch\(es\) \[1\] of 3"):
            kernel_spans(write_trace(self.work.name, events, 3))

    def test_a_truncated_trace_is_an_error(self):
        with self.assertRaisesRegex(RuntimeError, "truncated"):
            kernel_spans(write_trace(self.work.name, [event(0, "a", 0, 0, 0, 1)], 1, True))

    def test_vinci_run_trace_of_a_gpt2_block(self):
        # The failing case of bench/transformer/run.py gpt2_block_s128, shrunk:
        # q, k and v transposed to 12 heads by one program, three launches in a
        # row; with 12 heads on 6 blocks each block loops over two, and the
        # program opens with the loop's set_flag.
        import torch
        from torch import nn

        class Heads(nn.Module):
            def __init__(self):
                super().__init__()
                self.qkv = nn.Linear(192, 3 * 192)

            def forward(self, x):
                q, k, v = self.qkv(x).split(192, dim=-1)
                q, k, v = (t.view(1, 32, 12, 16).transpose(1, 2) for t in (q, k, v))
                return (q @ k.transpose(-1, -2)).softmax(-1) @ v

        torch.manual_seed(0)
        x = torch.randn(1, 32, 192)
        work = self.work.name
        onnx_path, om, report_path = (os.path.join(work, n) for n in ("m.onnx", "m.om", "r.json"))
        torch.onnx.export(Heads().eval(), (x,), onnx_path, input_names=["x"], opset_version=14)
        subprocess.run([os.path.join(BIN, "vinci-compile"), "--model", onnx_path, "--output", om,
                        "--report", report_path], check=True, capture_output=True)
        with open(report_path) as f:
            report = json.load(f)
        names = [k["name"] for k in report["kernels"]]
        transposes = [n for n in names if n.endswith("_transpose")]
        self.assertGreaterEqual(len(transposes), 2, names)
        self.assertLess(report["kernel_programs"], len(names), "no program is shared")
        np.save(os.path.join(work, "x.npy"), x.numpy())
        trace = os.path.join(work, "trace.json")
        subprocess.run([os.path.join(BIN, "vinci-run"), "--model", om, "--hazards", "fatal",
                        "--input", os.path.join(work, "x.npy"), "--output_dir",
                        os.path.join(work, "out"), "--profile", trace],
                       check=True, capture_output=True)
        with open(trace) as f:
            traced = [e["args"] for e in json.load(f)["traceEvents"] if "launch" in e.get("args", {})]
        self.assertFalse([a for a in traced if a["kernel"] == transposes[0] and a["pc"] == 0],
                         "the premise: the transposes' first instruction has no event")
        spans = kernel_spans(trace)
        self.assertEqual(len(spans), len(names))
        self.assertTrue(all(s > 0 for s in spans), spans)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=BIN)
    args, rest = parser.parse_known_args()
    BIN = args.bin
    unittest.main(argv=[sys.argv[0]] + rest)
