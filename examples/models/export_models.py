#!/usr/bin/python3
"""Export the reference models that Vinci's importer and benchmarks use.

Run with Debian's Python (torch 1.13, torchvision 0.14, onnx 1.12):

    /usr/bin/python3 examples/models/export_models.py --out build/models
    /usr/bin/python3 examples/models/export_models.py --out /tmp/m --only bert_tiny

Models (all with static shapes, eval mode, torch.manual_seed(0), random
weights -- no downloads, torchvision weights=None):

  resnet18   torchvision.models.resnet18, input "input" float32 1x3x224x224,
             opset 14; its BatchNorm statistics and affine parameters drawn
             deterministically (resnet18_model), so that a dropped scale or
             shift changes the output.
  bert_base  hand-written 12-layer BERT-base-style encoder: hidden 768,
             12 heads, FFN 3072, GELU via erf, post-LN; embeddings word
             (30522) + position (512) + token type (2), LayerNorm. Inputs
             input_ids and attention_mask (int64 1x128; the mask is turned
             into an additive -10000 bias). Opset 14. About 420-440 MB.
  bert_tiny  the same architecture, 2 layers, hidden 128, 2 heads, FFN 512,
             vocab 1000. Under 3 MB, for tests.

The files are large and derived: write them to a build or temp folder, never
commit them.
"""

import argparse
import math
import os
import sys
import time

import torch
from torch import nn

OPSET = 14


# --------------------------------------------------------------------------
# BERT-style encoder, plain torch
# --------------------------------------------------------------------------

class BertConfig:
    def __init__(self, vocab_size, hidden, layers, heads, ffn,
                 max_position=512, type_vocab=2, ln_eps=1e-12):
        assert hidden % heads == 0
        self.vocab_size = vocab_size
        self.hidden = hidden
        self.layers = layers
        self.heads = heads
        self.ffn = ffn
        self.max_position = max_position
        self.type_vocab = type_vocab
        self.ln_eps = ln_eps


BERT_BASE = BertConfig(vocab_size=30522, hidden=768, layers=12, heads=12,
                       ffn=3072)
BERT_TINY = BertConfig(vocab_size=1000, hidden=128, layers=2, heads=2,
                       ffn=512)


def gelu_erf(x):
    # The exact GELU BERT uses: x * 0.5 * (1 + erf(x / sqrt(2))).
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


class BertEmbeddings(nn.Module):
    def __init__(self, cfg, seq_len):
        super().__init__()
        self.word_embeddings = nn.Embedding(cfg.vocab_size, cfg.hidden)
        self.position_embeddings = nn.Embedding(cfg.max_position, cfg.hidden)
        self.token_type_embeddings = nn.Embedding(cfg.type_vocab, cfg.hidden)
        self.LayerNorm = nn.LayerNorm(cfg.hidden, eps=cfg.ln_eps)
        self.register_buffer(
            "position_ids", torch.arange(seq_len, dtype=torch.int64)[None, :],
            persistent=False)
        self.register_buffer(
            "token_type_ids", torch.zeros(1, seq_len, dtype=torch.int64),
            persistent=False)

    def forward(self, input_ids):
        seq_len = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_len]
        token_type_ids = self.token_type_ids[:, :seq_len]
        x = (self.word_embeddings(input_ids)
             + self.position_embeddings(position_ids)
             + self.token_type_embeddings(token_type_ids))
        return self.LayerNorm(x)


class BertSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads = cfg.heads
        self.head_dim = cfg.hidden // cfg.heads
        self.query = nn.Linear(cfg.hidden, cfg.hidden)
        self.key = nn.Linear(cfg.hidden, cfg.hidden)
        self.value = nn.Linear(cfg.hidden, cfg.hidden)

    def split_heads(self, x):
        # [B, S, H] -> [B, heads, S, head_dim], written the way exported
        # models in the wild write it (size() arithmetic -> Shape/Gather/
        # Concat/Reshape chains in the ONNX graph).
        new_shape = x.size()[:-1] + (self.heads, self.head_dim)
        return x.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, hidden, additive_mask):
        q = self.split_heads(self.query(hidden))
        k = self.split_heads(self.key(hidden))
        v = self.split_heads(self.value(hidden))
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores / math.sqrt(self.head_dim)
        scores = scores + additive_mask
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v)
        ctx = ctx.permute(0, 2, 1, 3).contiguous()
        new_shape = ctx.size()[:-2] + (self.heads * self.head_dim,)
        return ctx.view(new_shape)


class BertLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attention = BertSelfAttention(cfg)
        self.attention_output = nn.Linear(cfg.hidden, cfg.hidden)
        self.attention_norm = nn.LayerNorm(cfg.hidden, eps=cfg.ln_eps)
        self.intermediate = nn.Linear(cfg.hidden, cfg.ffn)
        self.output = nn.Linear(cfg.ffn, cfg.hidden)
        self.output_norm = nn.LayerNorm(cfg.hidden, eps=cfg.ln_eps)

    def forward(self, hidden, additive_mask):
        # Post-LN, as in the original BERT.
        attn = self.attention_output(self.attention(hidden, additive_mask))
        hidden = self.attention_norm(attn + hidden)
        ffn = self.output(gelu_erf(self.intermediate(hidden)))
        return self.output_norm(ffn + hidden)


class BertEncoder(nn.Module):
    def __init__(self, cfg, seq_len):
        super().__init__()
        self.embeddings = BertEmbeddings(cfg, seq_len)
        self.layers = nn.ModuleList(BertLayer(cfg) for _ in range(cfg.layers))
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m):
        # BERT's initialisation: N(0, 0.02) weights, zero biases, unit norms.
        if isinstance(m, (nn.Linear, nn.Embedding)):
            m.weight.data.normal_(mean=0.0, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            m.bias.data.zero_()
        if isinstance(m, nn.LayerNorm):
            m.weight.data.fill_(1.0)
            m.bias.data.zero_()

    def forward(self, input_ids, attention_mask):
        # [B, S] int64 mask of 1 (attend) / 0 (ignore) -> additive bias
        # broadcast over heads and query positions: [B, 1, 1, S].
        mask = attention_mask[:, None, None, :].to(torch.float32)
        additive_mask = (1.0 - mask) * -10000.0
        hidden = self.embeddings(input_ids)
        for layer in self.layers:
            hidden = layer(hidden, additive_mask)
        return hidden


# --------------------------------------------------------------------------
# Exporters
# --------------------------------------------------------------------------

def _export(model, args, path, input_names, output_names, opset=OPSET):
    model.eval()
    with torch.no_grad():
        torch.onnx.export(
            model, args, path,
            input_names=input_names,
            output_names=output_names,
            opset_version=opset,
            do_constant_folding=True,
            export_params=True,
            training=torch.onnx.TrainingMode.EVAL,
            verbose=False)


def batch_norms_drawn(model, seed):
    """Running statistics and affine parameters drawn from a seeded generator:
    weights=None leaves mean 0, variance 1, scale 1 and shift 0, which a
    compiler that dropped the whole batch norm would reproduce."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(n, generator=g) * 0.1)
    return model


def resnet18_model():
    import torchvision
    torch.manual_seed(0)
    return batch_norms_drawn(torchvision.models.resnet18(weights=None), seed=1).eval()


def export_resnet18(path):
    model = resnet18_model()
    x = torch.randn(1, 3, 224, 224)
    _export(model, (x,), path, ["input"], ["output"])


def _export_bert(cfg, path, seq_len=128):
    torch.manual_seed(0)
    model = BertEncoder(cfg, seq_len).eval()
    g = torch.Generator().manual_seed(0)
    input_ids = torch.randint(0, cfg.vocab_size, (1, seq_len),
                              dtype=torch.int64, generator=g)
    attention_mask = torch.ones(1, seq_len, dtype=torch.int64)
    _export(model, (input_ids, attention_mask), path,
            ["input_ids", "attention_mask"], ["last_hidden_state"])


def export_bert_base(path):
    _export_bert(BERT_BASE, path)


def export_bert_tiny(path):
    _export_bert(BERT_TINY, path)


MODELS = {
    "resnet18": export_resnet18,
    "bert_base": export_bert_base,
    "bert_tiny": export_bert_tiny,
}


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Export Vinci's reference ONNX models (random weights, "
                    "static shapes, deterministic).")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--only", default="",
                    help="comma-separated subset of: " + ", ".join(MODELS))
    args = ap.parse_args(argv)

    names = [n.strip() for n in args.only.split(",") if n.strip()] \
        if args.only else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error("unknown model(s): %s (known: %s)"
                 % (", ".join(unknown), ", ".join(MODELS)))

    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    for name in names:
        path = os.path.join(args.out, name + ".onnx")
        tmp = path + ".tmp"
        t0 = time.perf_counter()
        try:
            MODELS[name](tmp)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        dt = time.perf_counter() - t0
        size = os.path.getsize(path)
        print("wrote %-10s %s  %12d bytes (%.1f MB)  %.1f s"
              % (name, path, size, size / 1e6, dt), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
