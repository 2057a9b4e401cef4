"""Vinci from Python: compile a model for the Ascend 310P and run the .om on the simulator.

    import vinci
    vinci.compile("mlp.onnx", output="mlp.om")                 # or an nn.Module + example inputs
    m = vinci.load("mlp.om")
    probs, = m.run(x)                                            # numpy in, numpy out
    m.profile()["simulated_us"]                                  # the simulator's figures

See docs/python.md. Importing vinci loads only the runtime; the compiler (and
PyTorch, for nn.Modules) load on the first vinci.compile().
"""

from .errors import (CompileError, Error, ExecutionError, InputError, ModelLoadError,
                     UnsupportedOperatorError)
from .runtime import Gear, Model, TensorInfo, load
from .compiler import compile

__all__ = ["compile", "load", "Model", "TensorInfo", "Gear", "Error", "CompileError",
           "UnsupportedOperatorError", "ModelLoadError", "InputError", "ExecutionError"]
