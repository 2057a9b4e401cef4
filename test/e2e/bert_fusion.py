#!/usr/bin/python3
"""End to end: the 2-layer BERT-style encoder (bert_tiny of
examples/models/export_models.py, its query, key and value weights redrawn
at std 0.2: e2e_common.sharpen_attention) compiled with every fusion on and
with QkvFusion and UBFusion off, run on the simulator (hazards fatal), each
compared with the torch fp32 model and with each other. The mask pads the
last 28 positions, so the attention mask add (a Cube epilogue) matters:
asserted, the mask moves torch's output by more than 10x the tolerance.

Checks: fused and unfused outputs are each within relative L2 error
MAX_REL_L2 of torch fp32 and of each other; the fused compile has one Cube
kernel for Q, K and V a layer (the compile report), the unfused three.
Prints 'N passed, N failed'.

  bert_fusion.py --bin build/bin
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "examples", "models"))
import export_models as em  # noqa: E402
from e2e_common import (compile_and_run, mismatch, rejects, sharpen_attention,  # noqa: E402
                        summarize)

SEQ = 128
MAX_REL_L2 = 5e-3  # fp16 storage: measured 1e-3 against torch fp32
UNFUSED = {"Switch": {"GraphFusion": {"QkvFusion": "off"}, "UBFusion": {"ALL": "off",
                                                                       "CubeEpilogueFusion": "on"}}}


def qkv_cube_kernels(kernels):
    """Cube kernels that compute layer 0's Q, K or V."""
    return len([k for k in kernels if k["kind"] == "cube" and any(
        "/layers.0/attention/" + p + "/" in n for n in k["source_nodes"]
        for p in ("query", "key", "value"))])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    ids = rng.integers(0, em.BERT_TINY.vocab_size, (1, SEQ)).astype(np.int64)
    mask = np.ones((1, SEQ), np.int64)
    mask[0, 100:] = 0
    torch.manual_seed(0)  # as export_models._export_bert builds the model
    module = sharpen_attention(em.BertEncoder(em.BERT_TINY, SEQ).eval())
    with torch.no_grad():
        want = module(torch.from_numpy(ids), torch.from_numpy(mask)).numpy()
        unmasked = module(torch.from_numpy(ids), torch.ones(1, SEQ, dtype=torch.int64)).numpy()

    results = []
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "bert_tiny.onnx")
        em._export(module, (torch.from_numpy(ids), torch.from_numpy(mask)), model,
                   ["input_ids", "attention_mask"], ["last_hidden_state"])
        inputs = [os.path.join(work, "ids.npy"), os.path.join(work, "mask.npy")]
        np.save(inputs[0], ids)
        np.save(inputs[1], mask)
        outputs = {}
        for tag, switches, qkv_want in (("fused", None, 1), ("unfused", UNFUSED, 3)):
            y, kernels, why = compile_and_run(args.bin, work, model, tag, switches, inputs)
            qkv = qkv_cube_kernels(kernels) if not why else 0
            if not why and qkv != qkv_want:
                why = f"{qkv} Cube kernels compute layer 0's Q, K, V; want {qkv_want}"
            if not why:
                why = mismatch(y, want, MAX_REL_L2) or rejects(
                    unmasked, want, MAX_REL_L2, "an ignored attention mask", margin=10)
            outputs[tag] = y
            results.append((f"{tag}_vs_torch_fp32", why))
        why = ""
        if outputs["fused"] is None or outputs["unfused"] is None:
            why = "a configuration did not run"
        else:
            why = mismatch(outputs["fused"], outputs["unfused"], MAX_REL_L2)
        results.append(("fused_vs_unfused", why))

    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
