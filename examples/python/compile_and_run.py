#!/usr/bin/python3
"""Compile torchvision's ResNet-18 for the Ascend 310P from Python, run it on the simulator, print top-5.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/compile_and_run.py

The model (weights=None: no download here; batch norms drawn
deterministically) goes through the PyTorch front end directly (make_fx, no
ONNX). Exits 1 when the logits are not within relative L2 5e-3 of torch
fp32's (the fp16 build measures about 5e-4).
"""
import os, sys, tempfile
import numpy as np
import torch
import vinci

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "models"))
sys.path.insert(0, os.path.join(here, "..", "resnet18"))
from export_models import resnet18_model  # noqa: E402
from prepare import synthetic_image  # noqa: E402

model, x = resnet18_model(), torch.from_numpy(synthetic_image())
out = os.environ.get("VINCI_EXAMPLE_OM") or os.path.join(tempfile.mkdtemp(), "resnet18.om")
om = vinci.compile(model, example_inputs=x, output=out)
m = vinci.load(om)
(logits,) = m.run(x.numpy())
with torch.no_grad():
    expected = model(x).numpy()
for rank, c in enumerate(logits[0].argsort()[::-1][:5], 1):
    print(f"{rank}. class {c}: {logits[0, c]:.4f} (torch fp32 {expected[0, c]:.4f})")
rel_l2 = np.linalg.norm(logits - expected) / np.linalg.norm(expected)
print(f"relative L2 vs torch fp32: {rel_l2:.2e}")
print(f"simulated {m.profile()['simulated_us']:.1f} us on {m.info['soc']} (timing model, not hardware)")
sys.exit(0 if rel_l2 <= 5e-3 else 1)
