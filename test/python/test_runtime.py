"""ctest python_runtime: the vinci package compiles examples/mlp/mlp.onnx, loads
the .om, runs it on the simulator and matches PyTorch; bad paths, corrupt
files and wrong inputs raise clear exceptions; two threads share one model.

    PYTHONPATH=build/python /usr/bin/python3 test/python/test_runtime.py
"""
import os
import shutil
import sys
import tempfile
import threading
import unittest

import numpy as np
import onnx
import torch
from onnx import numpy_helper

import vinci

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MLP_ONNX = os.path.join(ROOT, "examples", "mlp", "mlp.onnx")
sys.path.insert(0, os.path.join(ROOT, "examples", "mlp"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
from e2e_common import mismatch, rejects_each  # noqa: E402
from make_mlp import MLP  # noqa: E402

# The MLP's 10 probabilities are all near 0.1, so a cosine > 0.999 and the
# same argmax accept the outputs of 170 of 200 *other* random inputs. Its
# force_fp16 output is within relative L2 5e-5 of torch; the nearest of 200
# other inputs' outputs is 4e-3 away: 1e-3 tells them apart.
MAX_REL_L2 = 1e-3
OTHER_INPUTS = 200


def torch_mlp():
    """The example's torch module with the weights stored in mlp.onnx."""
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
               for t in onnx.load(MLP_ONNX).graph.initializer}
    mlp = MLP().eval()
    mlp.load_state_dict({name: weights[name] for name in mlp.state_dict()})
    return mlp


def outputs_of_other_inputs(mlp, seed):
    """torch's output for each of OTHER_INPUTS random inputs (a generator)."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _ in range(OTHER_INPUTS):
            yield mlp(torch.from_numpy(rng.random((1, 1, 16, 16), dtype=np.float32))).numpy()


class RuntimeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="vinci-python-")
        cls.om = vinci.compile(MLP_ONNX, output=os.path.join(cls.work, "mlp.om"))
        cls.model = vinci.load(cls.om)
        cls.mlp = torch_mlp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work)

    def reference(self, x):
        with torch.no_grad():
            return self.mlp(torch.from_numpy(x)).numpy()

    def test_descriptors(self):
        self.assertEqual(self.model.inputs, [vinci.TensorInfo("input", (1, 1, 16, 16), "float32", "ND")])
        self.assertEqual([(t.name, t.shape, t.dtype) for t in self.model.outputs],
                         [("probs", (1, 10), "float32")])
        self.assertEqual(self.model.info["soc"], "Ascend310P3")

    def test_run_matches_torch(self):
        x = np.random.default_rng(0).random((1, 1, 16, 16), dtype=np.float32)
        for given in (x, {"input": x}, [x], torch.from_numpy(x)):
            (probs,) = self.model.run(given)
            self.assertEqual(probs.shape, (1, 10))
            self.assertEqual(probs.dtype, np.float32)
            expected = self.reference(x)
            self.assertEqual(mismatch(probs, expected, MAX_REL_L2), "")
        # The negative control: the output of any other input fails the check.
        self.assertEqual(rejects_each(outputs_of_other_inputs(self.mlp, 100), expected,
                                      MAX_REL_L2, "another input's output"), "")

    def test_precision_modes(self):
        # must_keep_origin_dtype: fp32 end to end (the Vector matmul), so the
        # result is much closer to torch's fp32 than force_fp16's; the .om
        # records the mode.
        x = np.random.default_rng(2).random((1, 1, 16, 16), dtype=np.float32)
        expected = self.reference(x)
        kept = vinci.load(vinci.compile(MLP_ONNX, output=os.path.join(self.work, "keep.om"),
                                        precision_mode="must_keep_origin_dtype"))
        self.assertEqual(kept.info["precision"], "must_keep_origin_dtype")
        self.assertEqual(self.model.info["precision"], "force_fp16")
        (fp32,) = kept.run(x)
        (fp16,) = self.model.run(x)
        self.assertLess(np.abs(fp32 - expected).max(), 1e-5)
        self.assertLess(np.abs(fp32 - expected).max(), np.abs(fp16 - expected).max())

    def test_profile(self):
        self.model.run(np.ones((1, 1, 16, 16), np.float32))
        profile = self.model.profile()
        self.assertGreater(profile["cycles"], 0)
        self.assertEqual(profile["num_tasks"], len(profile["tasks"]))
        self.assertEqual(sum(t["cycles"] for t in profile["tasks"]), profile["cycles"])
        self.assertEqual(set(profile["pipe_busy_cycles"]), {"S", "V", "M", "MTE1", "MTE2", "MTE3"})
        self.assertGreater(profile["pipe_busy_cycles"]["M"], 0)  # the Gemms run on the Cube
        self.assertEqual(profile["hazard_count"], 0)
        self.assertIn("simulated", profile["note"])

    def test_wrong_inputs(self):
        x = np.zeros((1, 1, 16, 16), np.float32)
        with self.assertRaisesRegex(vinci.InputError, r"input 'input' has shape \(1, 256\), the model takes \(1, 1, 16, 16\)"):
            self.model.run(x.reshape(1, 256))
        with self.assertRaisesRegex(vinci.InputError, r"input 'input' has dtype float64, the model takes float32"):
            self.model.run(x.astype(np.float64))
        with self.assertRaisesRegex(vinci.InputError, r"no input named 'x' \(the model's inputs: input\)"):
            self.model.run({"x": x})
        with self.assertRaisesRegex(vinci.InputError, r"2 input\(s\) given, the model takes 1"):
            self.model.run([x, x])
        self.assertTrue(issubclass(vinci.InputError, ValueError))

    def test_load_errors(self):
        missing = os.path.join(self.work, "missing.om")
        with self.assertRaisesRegex(vinci.ModelLoadError, r"cannot load '.*missing.om': no such file"):
            vinci.load(missing)
        garbage = os.path.join(self.work, "garbage.om")
        with open(garbage, "wb") as f:
            f.write(b"not an om file" * 100)
        with self.assertRaises(vinci.ModelLoadError) as caught:
            vinci.load(garbage)
        self.assertIn("garbage.om", str(caught.exception))
        self.assertEqual(len(str(caught.exception).splitlines()), 1)
        # A flipped byte in the middle of a real model fails its checksums.
        corrupt = os.path.join(self.work, "corrupt.om")
        with open(self.om, "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 0xFF
        with open(corrupt, "wb") as f:
            f.write(bytes(data))
        with self.assertRaisesRegex(vinci.ModelLoadError, "checksum"):
            vinci.load(corrupt)

    def test_compile_errors(self):
        with self.assertRaisesRegex(vinci.CompileError, r"^--model '.*nope.onnx' does not exist$"):
            vinci.compile(os.path.join(self.work, "nope.onnx"), output=os.path.join(self.work, "x.om"))
        with self.assertRaisesRegex(vinci.CompileError, r"unknown --soc_version 'Ascend999'"):
            vinci.compile(MLP_ONNX, output=os.path.join(self.work, "x.om"), soc_version="Ascend999")
        with self.assertRaisesRegex(vinci.CompileError, r"unknown --emit 'llvm'"):
            vinci.compile(MLP_ONNX, output=os.path.join(self.work, "x.om"), emit="llvm")
        with self.assertRaisesRegex(vinci.CompileError, r"^--precision_mode allow_fp32_to_bf16 stores bf16, which Ascend310P3 does not have"):
            vinci.compile(MLP_ONNX, precision_mode="allow_fp32_to_bf16")
        with self.assertRaisesRegex(vinci.CompileError, r"unknown --precision_mode 'fp8'"):
            vinci.compile(MLP_ONNX, precision_mode="fp8")
        with self.assertRaisesRegex(TypeError, r"unknown option\(s\) bogus"):
            vinci.compile(MLP_ONNX, bogus=1)
        self.assertFalse(os.path.exists(os.path.join(self.work, "x.om")))
        # Same check as vinci-compile --check_support; IR as text with output=None.
        self.assertIn("All operators are supported.", vinci.compile(MLP_ONNX, check_support=True))
        self.assertIn("vg.matmul", vinci.compile(MLP_ONNX, output=None, emit="vg-opt"))

    def test_two_threads_share_one_model(self):
        rng = np.random.default_rng(1)
        inputs = [rng.random((1, 1, 16, 16), dtype=np.float32) for _ in range(2)]
        expected = [self.model.run(x)[0] for x in inputs]  # this thread's own context
        results, errors = {}, []

        def worker(i):
            try:
                for _ in range(3):
                    (out,) = self.model.run(inputs[i])
                    np.testing.assert_array_equal(out, expected[i])
                results[i] = self.model.profile()["cycles"]
            except Exception as error:  # reported in the main thread
                errors.append(error)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 2)
        self.assertEqual(results[0], results[1])  # same model, same simulated cycles


if __name__ == "__main__":
    unittest.main(verbosity=2)
