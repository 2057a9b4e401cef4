#!/usr/bin/python3
"""A BERT-style encoder compiled once for three sequence lengths (--dynamic_dims).

The encoder of examples/models/export_models.py (BERT's architecture, small:
2 layers, hidden 128, 2 heads, random weights) is exported to ONNX with a
dynamic sequence dim, compiled with

    vinci-compile --model bert.onnx --output bert.om \\
        --input_shape "input_ids:1,-1;attention_mask:1,-1" \\
        --dynamic_dims "16,16;32,32;64,64"

(one value per -1, in --input_shape order; `;` between gears), and run from
Python at every gear: Model.run picks the gear from the input shapes. Each
gear's output is compared with torch fp32 on the same weights and inputs.

    PYTHONPATH=build/python /usr/bin/python3 examples/gears/bert_dynamic_dims.py

Prints each gear's error and simulated latency (the simulator's timing model
of an Ascend 310P built from published numbers, not a hardware measurement)
and exits 1 if a gear's relative L2 error exceeds 1e-2 (fp16 kernels).
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import torch

import vinci

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import export_models  # noqa: E402

SEQ = (16, 32, 64)
TOLERANCE = 1e-2  # relative L2 of fp16 kernels against torch fp32


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="folder for the .onnx and .om (default: a temporary one)")
    args = parser.parse_args()

    torch.manual_seed(0)
    cfg = export_models.BERT_TINY
    model = export_models.BertEncoder(cfg, max(SEQ)).eval()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or scratch
        os.makedirs(work, exist_ok=True)
        onnx_path, om_path = os.path.join(work, "bert.onnx"), os.path.join(work, "bert.om")
        ids = torch.zeros(1, max(SEQ), dtype=torch.int64)
        with torch.no_grad():
            torch.onnx.export(model, (ids, torch.ones_like(ids)), onnx_path,
                              input_names=["input_ids", "attention_mask"],
                              output_names=["last_hidden_state"], opset_version=14,
                              dynamic_axes={"input_ids": {1: "seq"}, "attention_mask": {1: "seq"},
                                            "last_hidden_state": {1: "seq"}})
        vinci.compile(onnx_path, output=om_path, input_shape="input_ids:1,-1;attention_mask:1,-1",
                      dynamic_dims=[(s, s) for s in SEQ])
        om = vinci.load(om_path)
        print(f"{os.path.basename(om_path)}: {len(om.gears)} gears ({om.gear_kind}: "
              f"{';'.join(','.join(map(str, g.values)) for g in om.gears)}), "
              f"{os.path.getsize(om_path) / 1e6:.2f} MB")

        failed = False
        rng = np.random.default_rng(0)
        for seq in SEQ:
            ids = rng.integers(0, cfg.vocab_size, (1, seq)).astype(np.int64)
            mask = np.ones((1, seq), np.int64)
            mask[0, seq - seq // 4:] = 0  # a padded request
            (got,) = om.run([ids, mask])
            with torch.no_grad():
                want = model(torch.from_numpy(ids), torch.from_numpy(mask)).numpy()
            diff = got.astype(np.float64) - want
            rel_l2 = np.linalg.norm(diff) / np.linalg.norm(want)
            failed |= not rel_l2 <= TOLERANCE
            print(f"seq {seq:3d}: output {list(got.shape)}, rel L2 {rel_l2:.2e}, max abs "
                  f"{np.abs(diff).max():.2e} (reference max abs {np.abs(want).max():.2f}), "
                  f"simulated {om.profile()['simulated_us']:.1f} us")
    print("simulated: the Ascend310P3 timing model from published numbers, not a hardware "
          "measurement")
    if failed:
        print(f"FAIL: a gear's relative L2 error exceeds {TOLERANCE}")
        return 1
    print(f"every gear matches torch (relative L2 <= {TOLERANCE})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
