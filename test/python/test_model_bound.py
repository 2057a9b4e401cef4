"""ctest bench_model_bound: bench/model_bound.py's FLOPs and bytes against
figures worked out by hand for one-node models (a Gemm, a Conv, a grouped
Conv, a batched MatMul, a ConvTranspose) and a two-conv chain, its peaks
against the SoC table's source, and its CLI.

    /usr/bin/python3 test/python/test_model_bound.py
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import model_bound  # noqa: E402


def weight(name, shape):
    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def graph_model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


class ModelBoundTest(unittest.TestCase):
    def test_gemm(self):
        # y[8, 32] = x[8, 64] @ W[64, 32] + b[32]: 8 * 32 * 64 multiply-adds.
        model = graph_model([helper.make_node("Gemm", ["x", "W", "b"], ["y"])],
                            [("x", [8, 64])], [("y", [8, 32])],
                            [weight("W", [64, 32]), weight("b", [32])])
        bound = model_bound.model_lower_bound(model)
        self.assertEqual(bound["flops"], 2 * 8 * 32 * 64)
        self.assertEqual(bound["weight_bytes"], 2 * (64 * 32 + 32))
        self.assertEqual(bound["io_bytes"], 2 * (8 * 64 + 8 * 32))
        self.assertEqual(bound["conv_activation_bytes"], 0)
        self.assertEqual(bound["gm_bytes"], 5696)
        # Memory bound: 5696 B / 204.8 GB/s = 0.0278125 us (32768 FLOPs take 0.00047 us).
        self.assertEqual(bound["bound_by"], "memory")
        self.assertAlmostEqual(bound["model_lower_bound_us"], 0.028, places=3)

    def test_gemm_transposed_operands(self):
        model = graph_model([helper.make_node("Gemm", ["x", "W"], ["y"], transA=1, transB=1)],
                            [("x", [64, 8])], [("y", [8, 32])], [weight("W", [32, 64])])
        self.assertEqual(model_bound.model_lower_bound(model)["flops"], 2 * 8 * 32 * 64)

    def test_conv(self):
        # 3 -> 16 channels, 3x3, pad 1 on 32x32: every one of the 16 * 32 * 32
        # outputs takes 3 * 3 * 3 multiply-adds; x and y are the graph's I/O,
        # counted once.
        model = graph_model([helper.make_node("Conv", ["x", "W", "B"], ["y"], pads=[1, 1, 1, 1])],
                            [("x", [1, 3, 32, 32])], [("y", [1, 16, 32, 32])],
                            [weight("W", [16, 3, 3, 3]), weight("B", [16])])
        bound = model_bound.model_lower_bound(model)
        self.assertEqual(bound["conv_flops"], 2 * 16 * 32 * 32 * 27)
        self.assertEqual(bound["matmul_flops"], 0)
        self.assertEqual(bound["weight_bytes"], 2 * (16 * 27 + 16))
        self.assertEqual(bound["io_bytes"], 2 * (3 * 32 * 32 + 16 * 32 * 32))
        self.assertEqual(bound["conv_activation_bytes"], 0)

    def test_grouped_conv_counts_its_groups(self):
        # groups 4: each output channel sees 8 / 4 = 2 input channels; stride 2 halves 16x16.
        model = graph_model([helper.make_node("Conv", ["x", "W"], ["y"], group=4, strides=[2, 2],
                                              pads=[1, 1, 1, 1])],
                            [("x", [1, 8, 16, 16])], [("y", [1, 8, 8, 8])],
                            [weight("W", [8, 2, 3, 3])])
        self.assertEqual(model_bound.model_lower_bound(model)["conv_flops"], 2 * 8 * 8 * 8 * 2 * 9)

    def test_conv_chain_reads_each_activation_once(self):
        # x -> conv -> t -> relu -> r -> conv -> y: t and r go through GM once each.
        model = graph_model([helper.make_node("Conv", ["x", "W1"], ["t"], pads=[1, 1, 1, 1]),
                             helper.make_node("Relu", ["t"], ["r"]),
                             helper.make_node("Conv", ["r", "W2"], ["y"])],
                            [("x", [1, 4, 8, 8])], [("y", [1, 2, 8, 8])],
                            [weight("W1", [6, 4, 3, 3]), weight("W2", [2, 6, 1, 1])])
        bound = model_bound.model_lower_bound(model)
        self.assertEqual(bound["conv_activation_bytes"], 2 * (6 * 64 + 6 * 64))
        self.assertEqual(bound["flops"], 2 * (6 * 64 * 36 + 2 * 64 * 6))

    def test_batched_matmul_broadcasts(self):
        # [2, 3, 4, 5] @ [5, 6]: 2 * 3 batches of 4x6 outputs, 5 deep; the
        # [5, 6] operand is a graph input here, counted with the I/O.
        model = graph_model([helper.make_node("MatMul", ["a", "b"], ["y"])],
                            [("a", [2, 3, 4, 5]), ("b", [5, 6])], [("y", [2, 3, 4, 6])])
        bound = model_bound.model_lower_bound(model)
        self.assertEqual(bound["matmul_flops"], 2 * 2 * 3 * 4 * 6 * 5)
        self.assertEqual(bound["io_bytes"], 2 * (120 + 30 + 144))

    def test_conv_transpose(self):
        # Every one of the 4 * 5 * 5 inputs scatters into 2 output channels x 3x3.
        model = graph_model([helper.make_node("ConvTranspose", ["x", "W"], ["y"])],
                            [("x", [1, 4, 5, 5])], [("y", [1, 2, 7, 7])],
                            [weight("W", [4, 2, 3, 3])])
        self.assertEqual(model_bound.model_lower_bound(model)["conv_flops"], 2 * 100 * 18)

    def test_dynamic_batch_needs_an_input_shape(self):
        model = graph_model([helper.make_node("Gemm", ["x", "W"], ["y"])],
                            [("x", ["N", 64])], [("y", ["N", 32])], [weight("W", [64, 32])])
        with self.assertRaisesRegex(ValueError, r"not static; fix .* --input_shape"):
            model_bound.model_lower_bound(model)
        fixed = model_bound.model_lower_bound(model, model_bound.parse_input_shapes("x:4,64"))
        self.assertEqual(fixed["flops"], 2 * 4 * 32 * 64)
        with self.assertRaisesRegex(ValueError, r"'z', which is not a graph input"):
            model_bound.model_lower_bound(model, {"z": [1]})

    def test_peaks_are_the_soc_tables_source(self):
        # runtime/soc/soc.cpp derives Ascend310P3's clock from 70 TFLOPS fp16
        # and takes 204.8 GB/s of GM, both from the Atlas 300I Duo datasheet.
        with open(os.path.join(ROOT, "runtime", "soc", "soc.cpp")) as f:
            table = f.read()
        p310 = table[table.index('"Ascend310P3",'):table.index("kTiming310P,", table.index(
            '"Ascend310P3",'))]
        self.assertRegex(p310, r"clock_hz\*/\s*70e12\s*/")
        self.assertEqual(float(re.search(r"gm_bytes_per_second\*/\s*([\d.e]+)", p310).group(1)),
                         model_bound.GM_BYTES_PER_SECOND)
        self.assertEqual(model_bound.PEAK_FP16_FLOPS, 70e12)

    def test_cli_prints_json_and_fails_cleanly(self):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "gemm.onnx")
            onnx.save(graph_model([helper.make_node("Gemm", ["x", "W"], ["y"])],
                                  [("x", [8, 64])], [("y", [8, 32])], [weight("W", [64, 32])]),
                      path)
            tool = [sys.executable, os.path.join(ROOT, "bench", "model_bound.py")]
            done = subprocess.run(tool + [path], capture_output=True, text=True, check=True)
            self.assertEqual(json.loads(done.stdout)["flops"], 32768)
            bad = os.path.join(work, "bad.onnx")
            with open(bad, "wb") as f:
                f.write(b"not a model")
            done = subprocess.run(tool + [bad], capture_output=True, text=True)
            self.assertEqual(done.returncode, 2)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1)
            self.assertIn("bad.onnx", done.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
