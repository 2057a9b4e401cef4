#!/usr/bin/python3
"""Compile a PyTorch classifier for the Ascend 310P, run it on the simulator, print top-5.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/compile_and_run.py

The model is examples/mlp's classifier (a torchvision network would need
convolutions, which the backend does not lower yet); it goes through the
PyTorch front end directly, no ONNX.
"""
import os, sys, tempfile
import torch
import vinci

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mlp"))
from make_mlp import MLP  # noqa: E402

torch.manual_seed(0)
model, x = MLP().eval(), torch.rand(1, 1, 16, 16)
out = os.environ.get("VINCI_EXAMPLE_OM") or os.path.join(tempfile.mkdtemp(), "mlp.om")
om = vinci.compile(model, example_inputs=x, output=out)
m = vinci.load(om)
(probs,) = m.run(x.numpy())
with torch.no_grad():
    expected = model(x).numpy()
for rank, c in enumerate(probs[0].argsort()[::-1][:5], 1):
    print(f"{rank}. class {c}: {probs[0, c]:.4f} (torch fp32 {expected[0, c]:.4f})")
print(f"simulated {m.profile()['simulated_us']:.1f} us on {m.info['soc']} (timing model, not hardware)")
