#!/usr/bin/python3
"""A Llama-style decoder with a key/value cache in one .om with gears, generating greedily.

The decoder (torch, random weights: 4 layers, hidden 512, RMSNorm, rotary
embeddings, SwiGLU, 8 query heads over 2 key/value heads) is exported to
ONNX with its cache as inputs (past_key_<i>, past_value_<i>) and outputs
(present_key_<i>, present_value_<i>), then compiled once with --dynamic_dims
into prefill gears (sequence 32 and 128, empty cache) and decode gears (one
token over a cache of 128, 256 or 512 positions). Generation runs on the
310P simulator: the prompt through a prefill gear, then one decode step a
token, the cache kept in a fixed buffer of the decode gear's length with the
unused positions masked. Torch generates from the same weights with its
own growing cache; the tokens must be equal, one for one.

    PYTHONPATH=build/python /usr/bin/python3 examples/gears/llama_decoder.py

Prints the tokens, the simulated time of the prefill and per decode step
(the simulator's timing model of an Ascend 310P built from published
numbers, not a hardware measurement) and exits 1 if a token differs.
"""
import argparse
import math
import os
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn

import vinci


class Config:
    vocab = 1024
    hidden = 512
    layers = 4
    heads = 8
    kv_heads = 2
    ffn = 1408
    eps = 1e-6
    max_positions = 1024
    rope_theta = 10000.0

    @property
    def head_dim(self):
        return self.hidden // self.heads


PREFILL = (32, 128)       # prompt lengths, with an empty cache
DECODE = (128, 256, 512)  # cache lengths, one new token
MASKED = -1e4             # additive mask of a position not attended


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), -1)


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.input_norm = RMSNorm(c.hidden, c.eps)
        self.post_attention_norm = RMSNorm(c.hidden, c.eps)
        self.q_proj = nn.Linear(c.hidden, c.heads * c.head_dim, bias=False)
        self.k_proj = nn.Linear(c.hidden, c.kv_heads * c.head_dim, bias=False)
        self.v_proj = nn.Linear(c.hidden, c.kv_heads * c.head_dim, bias=False)
        self.o_proj = nn.Linear(c.heads * c.head_dim, c.hidden, bias=False)
        self.gate_proj = nn.Linear(c.hidden, c.ffn, bias=False)
        self.up_proj = nn.Linear(c.hidden, c.ffn, bias=False)
        self.down_proj = nn.Linear(c.ffn, c.hidden, bias=False)

    def forward(self, x, cos, sin, mask, past_key, past_value):
        c = self.c
        b, s, _ = x.shape
        h = self.input_norm(x)
        q = self.q_proj(h).view(b, s, c.heads, c.head_dim).transpose(1, 2)
        k = self.k_proj(h).view(b, s, c.kv_heads, c.head_dim).transpose(1, 2)
        v = self.v_proj(h).view(b, s, c.kv_heads, c.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        key = torch.cat([past_key, k], 2)
        value = torch.cat([past_value, v], 2)
        # Grouped heads: each key/value head serves heads / kv_heads query heads.
        group = c.heads // c.kv_heads
        length = key.shape[2]
        keys = key[:, :, None].expand(b, c.kv_heads, group, length, c.head_dim)
        values = value[:, :, None].expand(b, c.kv_heads, group, length, c.head_dim)
        keys = keys.reshape(b, c.heads, length, c.head_dim)
        values = values.reshape(b, c.heads, length, c.head_dim)
        scores = q @ keys.transpose(-1, -2) / math.sqrt(c.head_dim) + mask
        attention = (scores.softmax(-1) @ values).transpose(1, 2).reshape(b, s, c.hidden)
        x = x + self.o_proj(attention)
        h = self.post_attention_norm(x)
        x = x + self.down_proj(nn.functional.silu(self.gate_proj(h)) * self.up_proj(h))
        return x, key, value


class Decoder(nn.Module):
    """forward(input_ids, position_ids, attention_mask, past_key_0, past_value_0, ...)
    -> (logits, present_key_0, present_value_0, ...); attention_mask is additive,
    [1, 1, S, past + S]."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c.vocab, c.hidden)
        self.layers = nn.ModuleList(DecoderLayer(c) for _ in range(c.layers))
        self.norm = RMSNorm(c.hidden, c.eps)
        self.lm_head = nn.Linear(c.hidden, c.vocab, bias=False)
        inverse = 1.0 / (c.rope_theta ** (torch.arange(0, c.head_dim, 2).float() / c.head_dim))
        angles = torch.outer(torch.arange(c.max_positions).float(), inverse)
        angles = torch.cat([angles, angles], -1)
        self.register_buffer("cos_table", angles.cos())
        self.register_buffer("sin_table", angles.sin())

    def forward(self, input_ids, position_ids, attention_mask, *past):
        x = self.embed_tokens(input_ids)
        cos = self.cos_table[position_ids][:, None]
        sin = self.sin_table[position_ids][:, None]
        presents = []
        for i, layer in enumerate(self.layers):
            x, key, value = layer(x, cos, sin, attention_mask, past[2 * i], past[2 * i + 1])
            presents += [key, value]
        return (self.lm_head(self.norm(x)),) + tuple(presents)


def input_names(c):
    return (["input_ids", "position_ids", "attention_mask"] +
            [f"past_{kind}_{i}" for i in range(c.layers) for kind in ("key", "value")])


def output_names(c):
    return ["logits"] + [f"present_{kind}_{i}" for i in range(c.layers) for kind in ("key", "value")]


def causal_mask(seq, past):
    """[1, 1, seq, past + seq]: the new tokens see the past and the tokens before them."""
    mask = torch.zeros(1, 1, seq, past + seq)
    mask[..., past:] = torch.triu(torch.full((seq, seq), MASKED), 1)
    return mask


def export(model, path):
    c = model.c
    seq, past = 4, 8
    args = (torch.zeros(1, seq, dtype=torch.int64), torch.arange(past, past + seq)[None],
            causal_mask(seq, past)) + tuple(torch.zeros(1, c.kv_heads, past, c.head_dim)
                                            for _ in range(2 * c.layers))
    dynamic = {"input_ids": {1: "seq"}, "position_ids": {1: "seq"},
               "attention_mask": {2: "seq", 3: "total"}, "logits": {1: "seq"}}
    for name in input_names(c)[3:]:
        dynamic[name] = {2: "past"}
    for name in output_names(c)[1:]:
        dynamic[name] = {2: "total"}
    with torch.no_grad():
        torch.onnx.export(model, args, path, input_names=input_names(c),
                          output_names=output_names(c), dynamic_axes=dynamic, opset_version=14)


def gear_options(c):
    """--input_shape with -1 for every sequence and cache dim, and one --dynamic_dims
    gear per prefill length and cache length (one value per -1, in order)."""
    shape = f"input_ids:1,-1;position_ids:1,-1;attention_mask:1,1,-1,-1"
    for name in input_names(c)[3:]:
        shape += f";{name}:1,{c.kv_heads},-1,{c.head_dim}"
    gears = [(s, s, s, s) + (0,) * (2 * c.layers) for s in PREFILL]
    gears += [(1, 1, 1, p + 1) + (p,) * (2 * c.layers) for p in DECODE]
    return shape, gears


def torch_generate(model, prompt, tokens):
    """Greedy generation with a growing cache, in fp32."""
    c = model.c
    past = [torch.zeros(1, c.kv_heads, 0, c.head_dim) for _ in range(2 * c.layers)]
    ids, position, out = prompt, 0, []
    with torch.no_grad():
        for _ in range(tokens):
            seq = ids.shape[1]
            results = model(ids, torch.arange(position, position + seq)[None],
                            causal_mask(seq, position), *past)
            past = list(results[1:])
            position += seq
            ids = results[0][:, -1].argmax(-1, keepdim=True)
            out.append(int(ids))
    return out


def vinci_generate(om, c, prompt, tokens):
    """Greedy generation on the simulator: a prefill gear for the prompt, then decode
    gears over a cache buffer of the gear's length, unused positions masked."""
    prompt_length = prompt.shape[1]
    assert prompt_length in PREFILL
    pos = np.arange(prompt_length, dtype=np.int64)[None]
    empty = [np.zeros((1, c.kv_heads, 0, c.head_dim), np.float32)] * (2 * c.layers)
    results = om.run([prompt.numpy(), pos, causal_mask(prompt_length, 0).numpy()] + empty)
    prefill_us = om.profile()["simulated_us"]
    token = int(results[0][0, -1].argmax())
    out, step_us = [token], []
    length = prompt_length + tokens
    capacity = next(p for p in DECODE if p >= length)
    cache = [np.zeros((1, c.kv_heads, capacity, c.head_dim), np.float32) for _ in range(2 * c.layers)]
    for buffer, present in zip(cache, results[1:]):
        buffer[:, :, :prompt_length] = present
    filled = prompt_length
    while len(out) < tokens:
        mask = np.full((1, 1, 1, capacity + 1), MASKED, np.float32)
        mask[..., :filled] = 0
        mask[..., capacity] = 0  # the new token itself
        results = om.run([np.array([[token]], np.int64), np.array([[filled]], np.int64), mask] + cache)
        step_us.append(om.profile()["simulated_us"])
        for buffer, present in zip(cache, results[1:]):
            buffer[:, :, filled] = present[:, :, capacity]
        filled += 1
        token = int(results[0][0, -1].argmax())
        out.append(token)
    return out, prefill_us, step_us


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="folder for the .onnx and .om (default: a temporary one)")
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--prompt", type=int, default=PREFILL[0], choices=PREFILL)
    args = parser.parse_args()

    torch.manual_seed(0)
    c = Config()
    model = Decoder(c).eval()
    prompt = torch.randint(0, c.vocab, (1, args.prompt), generator=torch.Generator().manual_seed(1))
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or scratch
        os.makedirs(work, exist_ok=True)
        onnx_path, om_path = os.path.join(work, "llama.onnx"), os.path.join(work, "llama.om")
        export(model, onnx_path)
        shape, gears = gear_options(c)
        start = time.time()
        vinci.compile(onnx_path, output=om_path, input_shape=shape, dynamic_dims=gears,
                      report=os.path.join(work, "llama.report.json"))
        compile_seconds = time.time() - start
        om = vinci.load(om_path)
        print(f"compiled {len(om.gears)} gears in {compile_seconds:.1f} s into "
              f"{os.path.getsize(om_path) / 1e6:.1f} MB ({os.path.getsize(onnx_path) / 1e6:.1f} MB "
              f"ONNX): prefill {', '.join(str(s) for s in PREFILL)}; decode over a cache of "
              f"{', '.join(str(p) for p in DECODE)}")
        want = torch_generate(model, prompt, args.tokens)
        got, prefill_us, step_us = vinci_generate(om, c, prompt, args.tokens)

    print("torch:", " ".join(str(t) for t in want))
    print("vinci:", " ".join(str(t) for t in got))
    print(f"simulated: prefill of {args.prompt} tokens {prefill_us:.1f} us; decode "
          f"{np.mean(step_us):.1f} us per step over {len(step_us)} steps (cache gear "
          f"{next(p for p in DECODE if p >= args.prompt + args.tokens)}; the Ascend310P3 timing "
          f"model from published numbers, not a hardware measurement)")
    if got != want:
        first = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
        print(f"FAIL: token {first} differs ({got[first]} vs torch's {want[first]})")
        return 1
    print(f"{len(got)} tokens equal to torch's greedy generation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
