#!/usr/bin/python3
"""End to end: a 2-layer BERT-style encoder exported from torch (separate
q/k/v Linear layers, erf GELU, post-LN, int64 ids and mask, opset 14; its
query, key and value weights redrawn at std 0.2 so that attention, and the
mask, matter: e2e_common.sharpen_attention), compiled force_fp16 to an
.om, run on the simulator with hazards fatal and compared with torch's fp32
output by relative L2 error (at most MAX_REL_L2, finite). The padding mask
must move torch's output by more than 10x that tolerance (asserted: the
output with the mask ignored fails the check by a wide margin). Also checks
that bad ids fail cleanly: an id past the vocabulary stops the gather
kernel, an id outside int32 is refused when the runtime narrows the int64
input. Then torch's own nn.TransformerEncoderLayer (batch_first, f32 input
and output) the same way. Prints one line per case and 'N passed,
N failed'.

  bert_models.py --bin build/bin
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "models"))
import export_models  # noqa: E402
from e2e_common import (error_figures, mismatch, rejects, relative_l2,  # noqa: E402
                        sharpen_attention)

SEQ = 128
# fp16 storage: measured 9.6e-4 (the encoder) and 4e-4 (the layer); the
# padding mask moves the encoder's reference by 0.2.
MAX_REL_L2 = 5e-3
MASK_MARGIN = 10


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return proc.returncode, (proc.stderr.strip() or proc.stdout.strip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    compile_tool = os.path.join(args.bin, "vinci-compile")
    run_tool = os.path.join(args.bin, "vinci-run")

    cfg = export_models.BERT_TINY
    torch.manual_seed(0)
    model = sharpen_attention(export_models.BertEncoder(cfg, SEQ).eval())
    generator = torch.Generator().manual_seed(1)
    ids = torch.randint(0, cfg.vocab_size, (1, SEQ), dtype=torch.int64, generator=generator)
    full = torch.ones(1, SEQ, dtype=torch.int64)
    padded = full.clone()
    padded[0, 100:] = 0  # 28 padding positions: the additive mask is -10000 there

    passed = failed = 0

    def report(name, ok, detail):
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")

    with tempfile.TemporaryDirectory() as work:
        onnx_path = os.path.join(work, "bert2.onnx")
        om_path = os.path.join(work, "bert2.om")
        export_models._export(model, (ids, full), onnx_path, ["input_ids", "attention_mask"],
                              ["last_hidden_state"])
        code, message = run([compile_tool, "--model", onnx_path, "--output", om_path])
        if code != 0:
            report("compile", False, message)
            print(f"{passed} passed, {failed} failed")
            return 1

        def simulate(name, ids_value, mask_value):
            ids_file = os.path.join(work, name + "_ids.npy")
            mask_file = os.path.join(work, name + "_mask.npy")
            np.save(ids_file, ids_value.numpy())
            np.save(mask_file, mask_value.numpy())
            out_dir = os.path.join(work, name + ".out")
            code, message = run([run_tool, "--model", om_path, "--hazards", "fatal", "--input",
                                 ids_file, mask_file, "--output_dir", out_dir])
            if code != 0:
                return None, message
            return np.load(os.path.join(out_dir, "output_0.npy")), message

        with torch.no_grad():
            unmasked = model(ids, full).numpy()
        for name, mask in (("all_tokens", full), ("padding_mask", padded)):
            actual, message = simulate(name, ids, mask)
            if actual is None:
                report(name, False, message)
                continue
            with torch.no_grad():
                expected = model(ids, mask).numpy()
            why = mismatch(actual, expected, MAX_REL_L2)
            if not why and name == "padding_mask":
                why = rejects(unmasked, expected, MAX_REL_L2, "an ignored attention mask",
                              MASK_MARGIN)
            effect = (f"; the mask moves torch's output by {relative_l2(unmasked, expected):.3f}"
                      if name == "padding_mask" else "")
            report(name, not why,
                   why or f"{error_figures(actual, expected)} (<= {MAX_REL_L2:g}){effect}")

        # Bad ids fail with a one-line error, never a wild read.
        past_vocab = ids.clone()
        past_vocab[0, 5] = cfg.vocab_size
        actual, message = simulate("id_past_vocabulary", past_vocab, full)
        report("id_past_vocabulary", actual is None and "out of range" in message,
               message.splitlines()[-1] if message else "no error")
        huge = ids.clone()
        huge[0, 7] = 2 ** 40
        actual, message = simulate("id_outside_int32", huge, full)
        report("id_outside_int32", actual is None and "outside int32" in message,
               message.splitlines()[-1] if message else "no error")

        # nn.TransformerEncoderLayer as torch ships it: its head split
        # transposes the f32 graph input into an f16 intermediate.
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                                 dropout=0.0, batch_first=True).eval()
        x = torch.randn(2, 16, 64)
        tel_onnx, tel_om = os.path.join(work, "tel.onnx"), os.path.join(work, "tel.om")
        # Exported with autograd on: under no_grad torch 1.13 takes its fused
        # fast path, which has no ONNX export.
        torch.onnx.export(layer, x, tel_onnx, opset_version=14, input_names=["x"],
                          output_names=["y"])
        with torch.no_grad():
            expected = layer(x).numpy()
        np.save(os.path.join(work, "tel_x.npy"), x.numpy())
        code, message = run([compile_tool, "--model", tel_onnx, "--output", tel_om])
        if code == 0:
            code, message = run([run_tool, "--model", tel_om, "--hazards", "fatal", "--input",
                                 os.path.join(work, "tel_x.npy"), "--output_dir",
                                 os.path.join(work, "tel.out")])
        if code != 0:
            report("transformer_encoder_layer", False, message)
        else:
            actual = np.load(os.path.join(work, "tel.out", "output_0.npy"))
            why = mismatch(actual, expected, MAX_REL_L2)
            report("transformer_encoder_layer", not why,
                   why or f"{error_figures(actual, expected)} (<= {MAX_REL_L2:g})")

    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
