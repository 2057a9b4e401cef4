"""ctest python_torch_import: the PyTorch front end (make_fx -> vg, no ONNX).

An MLP compiled from its nn.Module runs on the simulator and matches torch;
the MLP, nn.TransformerEncoderLayer (batch_first) and a hand-written BERT
layer import to the same vg op counts and kernel counts as their ONNX
exports; ResNet-18 imports into vg (its convolutions do not lower yet);
unmapped aten ops are reported all at once with counts; and the
vinci-compile --framework pytorch route works and fails clearly.

    PYTHONPATH=build/python /usr/bin/python3 test/python/test_torch_import.py --bin build/bin
"""
import collections
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import vinci

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "bin")
sys.path.insert(0, os.path.join(ROOT, "examples", "mlp"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
from e2e_common import mismatch, rejects, rejects_each  # noqa: E402
from make_mlp import MLP  # noqa: E402

# Relative L2 error against torch fp32 (force_fp16 storage). The MLP's 10
# probabilities are all near 0.1: cosine and argmax accept most other
# inputs' outputs, so its check also proves that 200 of them fail.
MAX_REL_L2 = 1e-3
MAX_REL_L2_BERT = 5e-3


class BertLayer(nn.Module):
    """A BERT encoder layer written out by hand (post-norm, GELU, additive mask)."""

    def __init__(self, hidden=64, heads=4, ffn=128):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.attention_output = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ffn)
        self.output = nn.Linear(ffn, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)

    def split_heads(self, x):
        batch, seq, _ = x.shape
        return x.view(batch, seq, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        batch, seq, hidden = hidden_states.shape
        q = self.split_heads(self.query(hidden_states))
        k = self.split_heads(self.key(hidden_states))
        v = self.split_heads(self.value(hidden_states))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + attention_mask
        context = (scores.softmax(-1) @ v).permute(0, 2, 1, 3).reshape(batch, seq, hidden)
        x = self.attention_norm(hidden_states + self.attention_output(context))
        return self.output_norm(x + self.output(F.gelu(self.intermediate(x))))


class BertBaseEncoder(nn.Module):
    """BERT-base's encoder: 12 BertLayers of hidden 768, 12 heads, FFN 3072
    (no embeddings); bench/torch_import_bench.py times it."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(BertLayer(768, 12, 3072) for _ in range(12))

    def forward(self, hidden_states, attention_mask):
        for layer in self.layers:
            hidden_states = layer(hidden_states, attention_mask)
        return hidden_states


class BertModel(nn.Module):
    """BERT as Hugging Face writes it, small: embeddings looked up by int64 ids
    (position ids from a buffer, token types from zeros_like), an int64
    attention mask turned additive, encoder layers and the tanh pooler."""

    def __init__(self, vocab=1000, hidden=64, layers=2):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(512, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(512).expand((1, -1)))
        self.layers = nn.ModuleList(BertLayer(hidden, 4, 2 * hidden) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, input_ids, attention_mask):
        positions = self.position_ids[:, :input_ids.shape[1]]
        x = self.norm(self.word(input_ids) + self.position(positions)
                      + self.token_type(torch.zeros_like(input_ids)))
        mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return x, torch.tanh(self.pooler(x[:, 0]))


class GPT2Block(nn.Module):
    """A GPT-2 block as Hugging Face writes it: Conv1D linears (addmm on [in, out]
    weights), a causal mask buffer, tanh GELU."""

    def __init__(self, hidden=64, heads=4, seq=16):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.c_attn = nn.Parameter(torch.randn(hidden, 3 * hidden) * 0.02)
        self.c_proj = nn.Parameter(torch.randn(hidden, hidden) * 0.02)
        self.c_fc = nn.Parameter(torch.randn(hidden, 4 * hidden) * 0.02)
        self.c_out = nn.Parameter(torch.randn(4 * hidden, hidden) * 0.02)
        self.register_buffer("causal", torch.tril(torch.ones(seq, seq, dtype=torch.bool))
                             .view(1, 1, seq, seq))

    @staticmethod
    def conv1d(x, weight):
        return torch.addmm(torch.zeros(weight.shape[1]), x.view(-1, x.size(-1)), weight) \
            .view(x.shape[:-1] + (weight.shape[1],))

    def forward(self, x):
        batch, seq, hidden = x.shape
        q, k, v = self.conv1d(self.ln_1(x), self.c_attn).split(hidden, dim=2)
        q, k, v = (t.view(batch, seq, self.heads, -1).permute(0, 2, 1, 3) for t in (q, k, v))
        w = q @ k.transpose(-1, -2) / math.sqrt(v.size(-1))
        w = torch.where(self.causal[:, :, :seq, :seq], w, torch.tensor(torch.finfo(w.dtype).min))
        a = (w.softmax(-1) @ v).permute(0, 2, 1, 3).reshape(batch, seq, hidden)
        x = x + self.conv1d(a, self.c_proj)
        return x + self.conv1d(F.gelu(self.conv1d(self.ln_2(x), self.c_fc), approximate="tanh"),
                               self.c_out)


def op_counts(ir):
    return collections.Counter(re.findall(r"= (vg\.[a-z_]+)", ir))


def outputs_of_other_inputs(module, count=200):
    """torch's output of `module` for `count` other random MLP inputs."""
    generator = torch.Generator().manual_seed(100)
    with torch.no_grad():
        for _ in range(count):
            yield module(torch.rand(1, 1, 16, 16, generator=generator)).numpy()


class TorchImportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="vinci-torch-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work)

    def path(self, name):
        return os.path.join(self.work, name)

    def onnx_export(self, module, inputs, names, name):
        path = self.path(name + ".onnx")
        # Autograd stays on, as for vinci's capture: under no_grad
        # TransformerEncoderLayer runs a fused kernel that ONNX cannot export.
        torch.onnx.export(module, inputs, path, input_names=names, opset_version=14,
                          do_constant_folding=True)
        return path

    def compare_with_onnx(self, module, inputs, names, name):
        """vg-opt op counts and kernel counts: torch import vs torch -> ONNX -> vinci."""
        module.eval()
        direct = vinci.compile(module, inputs, output=None, emit="vg-opt", input_names=names,
                               report=self.path(name + ".torch.json"))
        exported = vinci.compile(self.onnx_export(module, inputs, names, name), output=None,
                                 emit="vg-opt", report=self.path(name + ".onnx.json"))
        # Constants aside: torch.onnx.export merges initializers of equal value
        # (BERT-base's 48 LayerNorm weights and biases become 2 blobs).
        direct_ops, exported_ops = op_counts(direct), op_counts(exported)
        del direct_ops["vg.constant"], exported_ops["vg.constant"]
        self.assertEqual(direct_ops, exported_ops)
        kernels = []
        for kind in ("torch", "onnx"):
            with open(self.path(f"{name}.{kind}.json")) as report:
                kernels.append(json.load(report)["num_kernels"])
        self.assertEqual(kernels[0], kernels[1])
        return direct_ops

    def test_mlp_runs_and_matches_torch(self):
        torch.manual_seed(0)
        mlp, x = MLP().eval(), torch.rand(1, 1, 16, 16)
        om = vinci.compile(mlp, example_inputs=x, output=self.path("mlp.om"))
        model = vinci.load(om)
        self.assertEqual([(t.name, t.shape) for t in model.inputs], [("x", (1, 1, 16, 16))])
        (probs,) = model.run(x)
        with torch.no_grad():
            expected = mlp(x).numpy()
        self.assertEqual(mismatch(probs, expected, MAX_REL_L2), "")
        self.assertEqual(rejects_each(outputs_of_other_inputs(mlp), expected, MAX_REL_L2,
                                      "another input's output"), "")
        counts = self.compare_with_onnx(mlp, (x,), ["x"], "mlp")
        self.assertEqual(counts["vg.matmul"], 3)

    def test_transformer_encoder_layer(self):
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
        counts = self.compare_with_onnx(layer, (torch.rand(2, 8, 64),), ["src"], "encoder")
        self.assertEqual(counts["vg.layer_norm"], 2)
        self.assertEqual(counts["vg.softmax"], 1)

    def test_bert_layer(self):
        torch.manual_seed(0)
        layer = BertLayer().eval()
        mask = torch.zeros(1, 1, 1, 16)
        mask[..., 6:] = -10000.0  # the last ten positions are padding
        inputs = (torch.randn(1, 16, 64), mask)
        names = ["hidden_states", "attention_mask"]
        counts = self.compare_with_onnx(layer, inputs, names, "bert")
        self.assertEqual(counts["vg.gelu"], 1)
        self.assertEqual(counts["vg.layer_norm"], 2)
        model = vinci.load(vinci.compile(layer, inputs, output=self.path("bert.om"),
                                         input_names=names))
        (out,) = model.run(dict(zip(names, inputs)))
        with torch.no_grad():
            expected = layer(*inputs).numpy()
            unmasked = layer(inputs[0], torch.zeros(1, 1, 1, 16)).numpy()
        self.assertEqual(mismatch(out, expected, MAX_REL_L2_BERT), "")
        # The mask moves torch's output by far more than the tolerance
        # (0.11 against 5e-3): an ignored mask fails the check above.
        self.assertEqual(rejects(unmasked, expected, MAX_REL_L2_BERT, "an ignored attention mask",
                                 margin=10), "")

    def test_bert_model_with_embeddings(self):
        torch.manual_seed(0)
        inputs = (torch.randint(0, 1000, (1, 16)), torch.ones(1, 16, dtype=torch.int64))
        counts = self.compare_with_onnx(BertModel().eval(), inputs,
                                        ["input_ids", "attention_mask"], "bert_model")
        # word and position lookups, x[:, 0]; the token-type lookup folds (constant ids)
        self.assertEqual(counts["vg.gather"], 3)
        self.assertEqual(counts["vg.tanh"], 1)

    def test_bert_base_same_kernels_as_onnx(self):
        """The issue's bar: a torch-imported BERT-base encoder (12 layers, seq
        128) compiles to as many kernels as its ONNX export."""

        torch.manual_seed(0)
        inputs = (torch.rand(1, 128, 768), torch.zeros(1, 1, 1, 128))
        self.compare_with_onnx(BertBaseEncoder(), inputs, ["hidden_states", "attention_mask"],
                               "bert_base")

    def test_gpt2_block_imports_into_vg(self):
        torch.manual_seed(0)
        counts = op_counts(vinci.compile(GPT2Block().eval(), torch.rand(1, 16, 64), output=None,
                                         emit="vg-opt"))
        self.assertEqual(counts["vg.where"], 1)      # the causal mask, folded to a constant
        self.assertEqual(counts["vg.gelu"], 1)       # approximate="tanh"
        self.assertEqual(counts["vg.matmul"], 6)

    def test_resnet18_and_mobilenet_v2_import_into_vg(self):
        import torchvision
        resnet = torchvision.models.resnet18().eval()
        ir = vinci.compile(resnet, torch.rand(1, 3, 224, 224), output=None, emit="vg")
        counts = op_counts(ir)
        self.assertEqual(counts["vg.conv"], 20)
        self.assertEqual(counts["vg.batch_norm"], 20)
        self.assertEqual(counts["vg.max_pool"], 1)
        self.assertRegex(ir, r"-> tensor<1x1000xf32>")
        mobilenet = op_counts(vinci.compile(torchvision.models.mobilenet_v2().eval(),
                                            torch.rand(1, 3, 224, 224), output=None, emit="vg"))
        self.assertEqual(mobilenet["vg.conv"], 52)
        self.assertEqual(mobilenet["vg.clip"], 35)  # ReLU6 as hardtanh(0, 6)

    def test_adaptive_average_pool(self):
        """VGG's adaptive_avg_pool2d to 7x7: from 14x14 an average pool of 2x2
        windows (matches torch), from 7x7 nothing; from 10x10 (no window
        fits) a one-line error naming the node, and its users are not built
        (they raised KeyError)."""
        class Pooled(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, padding=1)

            def forward(self, x):
                return torch.flatten(nn.functional.adaptive_avg_pool2d(self.conv(x), (7, 7)), 1)

        torch.manual_seed(0)
        module = Pooled().eval()
        for side in (14, 7):
            x = torch.randn(1, 3, side, side)
            (out,) = vinci.load(vinci.compile(module, x, output=self.path(f"pool{side}.om"))).run(x)
            with torch.no_grad():
                expected = module(x).numpy()
            self.assertEqual(mismatch(out, expected, MAX_REL_L2), "", f"from {side}x{side}")
        with self.assertRaises(vinci.UnsupportedOperatorError) as caught:
            vinci.compile(module, torch.randn(1, 3, 10, 10), output=self.path("pool10.om"))
        self.assertIn("(aten._adaptive_avg_pool2d.default): adaptive_avg_pool2d from 10x10 to 7x7",
                      str(caught.exception))

    def test_as_strided_that_keeps_elements_in_place(self):
        """ConvNeXt's pooled [1, C, 1, 1] restrided channels-last is the value
        itself; a restride that moves elements (a transpose) is a one-line
        error naming the node."""
        class Restrided(nn.Module):
            def __init__(self, size, stride):
                super().__init__()
                self.size, self.stride = size, stride

            def forward(self, x):
                pooled = x.mean((-1, -2), keepdim=True) * 2
                return torch.as_strided(pooled, self.size, self.stride) + 1

        x = torch.randn(1, 8, 4, 4)
        module = Restrided((1, 8, 1, 1), (8, 1, 8, 8))
        (out,) = vinci.load(vinci.compile(module, x, output=self.path("strided.om"))).run(x)
        self.assertEqual(mismatch(out, module(x).numpy(), MAX_REL_L2), "")
        with self.assertRaises(vinci.UnsupportedOperatorError) as caught:  # every other channel
            vinci.compile(Restrided((1, 4, 1, 1), (8, 2, 8, 8)), x, output=self.path("strided2.om"))
        self.assertIn("as_strided to size [1, 4, 1, 1], stride [8, 2, 8, 8]", str(caught.exception))

    def test_index_with_one_index_tensor(self):
        """table[index] (MaxViT's relative position bias, a parameter and a
        buffer) and x[:, idx] are gathers; two index tensors are a one-line
        error naming the node."""
        class Indexed(nn.Module):
            def __init__(self):
                super().__init__()
                self.table = nn.Parameter(torch.randn(10, 6))
                self.register_buffer("index", torch.tensor([[3, 1], [9, 0], [3, 3]]))

            def forward(self, x):
                return x[:, self.index[0]] * self.table[self.index][1, 0, 2:4]

        torch.manual_seed(0)
        module, x = Indexed().eval(), torch.randn(4, 12)
        (out,) = vinci.load(vinci.compile(module, x, output=self.path("index.om"))).run(x)
        with torch.no_grad():
            self.assertEqual(mismatch(out, module(x).numpy(), MAX_REL_L2), "")

        class TwoIndices(nn.Module):
            def forward(self, x):
                return x[torch.tensor([0, 1]), torch.tensor([2, 3])]

        with self.assertRaises(vinci.UnsupportedOperatorError) as caught:
            vinci.compile(TwoIndices(), torch.randn(4, 12), output=self.path("index2.om"))
        self.assertIn("(aten.index.Tensor): indexing with 2 index tensors", str(caught.exception))

    def test_constant_pad_and_roll(self):
        """F.pad (zero pads, a fill value, a crop: a slice, then the pad)
        and torch.roll over dims and flattened (Swin's shifted windows)
        against torch; a shift of a whole dim is the value itself."""
        class PadRoll(nn.Module):
            def forward(self, x):
                y = F.pad(x, (1, 2, 0, 3), value=0.5) + 0  # [2, 6, 8, 9]
                y = torch.roll(y, shifts=(-3, 2, 8), dims=(1, 2, 2)) * 2
                y = torch.roll(y, 7) - F.pad(y, (0, 0, 0, 0))
                return F.pad(y, (-1, 2, -2, -1)) + torch.roll(y, 6, 1)[:, :, :5, :1]

        torch.manual_seed(0)
        module, x = PadRoll().eval(), torch.randn(2, 6, 5, 6)
        (out,) = vinci.load(vinci.compile(module, x, output=self.path("padroll.om"))).run(x)
        with torch.no_grad():
            self.assertEqual(mismatch(out, module(x).numpy(), MAX_REL_L2), "")

    def test_long_broadcast_rows(self):
        """Broadcasts over rows longer than 2048 elements: Swin's window
        mask [1, W, 1, 49, 49] over the scores [1, W, heads, 49, 49] (one
        2401-element row a window and head) and a row broadcast of 5000
        elements, against torch."""
        class Masked(nn.Module):
            def forward(self, scores, mask, x, bias):
                return torch.softmax(scores + mask, -1), torch.relu(x * bias) - bias

        torch.manual_seed(0)
        inputs = (torch.randn(1, 16, 3, 49, 49), torch.randn(1, 16, 1, 49, 49),
                  torch.randn(6, 5000), torch.randn(5000))
        module = Masked().eval()
        outs = vinci.load(vinci.compile(module, inputs, output=self.path("rows.om"))).run(list(inputs))
        with torch.no_grad():
            for out, want in zip(outs, module(*inputs)):
                self.assertEqual(mismatch(out, want.numpy(), MAX_REL_L2), "")

    def test_unmapped_ops_are_listed_with_counts(self):
        class Odd(nn.Module):
            def forward(self, x):
                return torch.cumsum(x, 1) + torch.cumsum(x, 0) + torch.flip(x, [0])

        with self.assertRaises(vinci.UnsupportedOperatorError) as caught:
            vinci.compile(Odd(), torch.rand(4, 4), output=self.path("odd.om"))
        self.assertEqual(caught.exception.ops, {"aten.cumsum.default": 2, "aten.flip.default": 1})
        self.assertIn("unsupported operators: aten.cumsum.default x2, aten.flip.default x1",
                      str(caught.exception))
        self.assertFalse(os.path.exists(self.path("odd.om")))
        report = None
        with self.assertRaises(vinci.UnsupportedOperatorError) as caught:
            report = vinci.compile(Odd(), torch.rand(4, 4), check_support=True)
        self.assertIsNone(report)
        self.assertIn("aten.flip.default                                     1  UNSUPPORTED",
                      str(caught.exception))

    def test_module_errors(self):
        with self.assertRaisesRegex(vinci.CompileError, "needs example_inputs"):
            vinci.compile(MLP())
        with self.assertRaisesRegex(vinci.CompileError, "unknown --soc_version"):
            vinci.compile(MLP(), torch.rand(1, 1, 16, 16), soc_version="Ascend999")

    # --- vinci-compile --framework pytorch ---
    def write_factory(self):
        path = self.path("model_def.py")
        with open(path, "w") as f:
            f.write("import sys\nsys.path.insert(0, %r)\nfrom make_mlp import MLP\n"
                    "def make():\n    import torch\n    torch.manual_seed(0)\n"
                    "    return MLP()\n" % os.path.join(ROOT, "examples", "mlp"))
        return path

    def vinci_compile(self, *args, env=None):
        return subprocess.run([os.path.join(BIN, "vinci-compile"), *args], capture_output=True,
                              text=True, env=env)

    def test_cli_framework_pytorch(self):
        factory = self.write_factory()
        om = self.path("cli.om")
        done = self.vinci_compile("--framework", "pytorch", "--model", factory + ":make",
                                  "--input_shape", "x:1,1,16,16", "--output", om)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("vinci-compile: imported", done.stderr)
        model = vinci.load(om)
        x = torch.rand(1, 1, 16, 16)
        torch.manual_seed(0)
        mlp = MLP().eval()
        with torch.no_grad():
            expected = mlp(x).numpy()
        self.assertEqual(mismatch(model.run(x)[0], expected, MAX_REL_L2), "")
        self.assertEqual(rejects_each(outputs_of_other_inputs(mlp), expected, MAX_REL_L2,
                                      "another input's output"), "")

        missing = self.vinci_compile("--framework", "pytorch", "--model", factory + ":nothing",
                                     "--input_shape", "x:1,1,16,16", "--output", om)
        self.assertEqual(missing.returncode, 2)
        self.assertEqual(missing.stderr.strip().splitlines(),
                         [f"vinci-compile: error: --model '{factory}:nothing': {factory} has no "
                          f"function 'nothing'"])
        no_shape = self.vinci_compile("--framework", "pytorch", "--model", factory + ":make")
        self.assertEqual(no_shape.returncode, 2)
        self.assertIn("needs --input_shape", no_shape.stderr)

    def test_cli_without_torch(self):
        fake = self.path("no_torch")
        os.makedirs(os.path.join(fake, "torch"), exist_ok=True)
        with open(os.path.join(fake, "torch", "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named torch (simulated)')\n")
        env = dict(os.environ, PYTHONPATH=fake)
        done = self.vinci_compile("--framework", "pytorch", "--model",
                                  self.write_factory() + ":make", "--input_shape", "x:1,1,16,16",
                                  "--output", self.path("none.om"), env=env)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.strip().splitlines(),
                         ["vinci-compile: error: the PyTorch front end needs PyTorch 1.13 or later "
                          "with make_fx (Debian: apt install python3-torch): No module named torch "
                          "(simulated)"])


if __name__ == "__main__":
    if "--bin" in sys.argv:
        at = sys.argv.index("--bin")
        BIN = sys.argv[at + 1]
        del sys.argv[at:at + 2]
    unittest.main(verbosity=2)
