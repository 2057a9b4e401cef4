"""Load a compiled .om model and run it on the simulator, from numpy arrays.

    m = vinci.load("mlp.om")
    m.inputs                       # [TensorInfo(name='input', shape=(1, 1, 16, 16), dtype='float32')]
    outputs = m.run({"input": x})  # or m.run(x), m.run([x, y]): a list of numpy arrays
    m.profile()                    # the simulator's figures of this thread's last run

A model compiled with gears (--dynamic_dims and its kin, docs/gears.md) has
-1 in the input dims that gears set; m.gears lists them, and run() picks
the gear whose input shapes the arrays have.

A Model is shared freely between threads: each thread gets its own execution
context (made on its first run), as the C API prescribes, and the simulator
runs with the GIL released, so threads run models in parallel.
"""

import os
import threading
from collections import namedtuple

import numpy as np

from . import _runtime
from .errors import ExecutionError, InputError, ModelLoadError

TensorInfo = namedtuple("TensorInfo", "name shape dtype format")
TensorInfo.__doc__ = """An input or output of a model: name, shape (tuple; -1 in a dim that
gears set), dtype (numpy's name; 'bfloat16' data is held as uint16 bit patterns) and storage
format."""

Gear = namedtuple("Gear", "values inputs outputs")
Gear.__doc__ = """One gear of a model: its values (as the compile option gave them) and its
inputs and outputs (TensorInfo, with this gear's shapes)."""

# bfloat16 has no numpy dtype: its bit patterns travel as uint16, as vinci-run writes them.
_NUMPY_DTYPES = {"bfloat16": np.dtype(np.uint16), "bool": np.dtype(np.bool_)}

TIMING_NOTE = ("simulated: cycles and microseconds come from the simulator's timing model of "
               "an Ascend 310P built from published numbers, not from a hardware measurement")


def _numpy_dtype(name):
    return _NUMPY_DTYPES.get(name) or np.dtype(name)


class Model:
    """A loaded .om model. Make one with vinci.load()."""

    def __init__(self, path, threads=0, hazards="fatal"):
        path = os.fspath(path)
        if hazards not in ("fatal", "warn"):
            raise ValueError(f"hazards must be 'fatal' or 'warn', not {hazards!r}")
        if not os.path.exists(path):
            raise ModelLoadError(f"cannot load '{path}': no such file (compile one with "
                                 f"vinci.compile or vinci-compile)", "I/O error")
        self.path = path
        self._loaded = _runtime.LoadedModel(path, int(threads), hazards == "fatal")
        self.info = self._loaded.info()
        self.inputs = [self._tensor_info(d) for d in self._loaded.inputs()]
        self.outputs = [self._tensor_info(d) for d in self._loaded.outputs()]
        self._output_descs = self._loaded.outputs()
        self._gear_descs = self._loaded.gears()
        self.gear_kind = self._loaded.gear_kind()
        self.gears = [Gear(tuple(g["values"]), [self._tensor_info(d) for d in g["inputs"]],
                           [self._tensor_info(d) for d in g["outputs"]])
                      for g in self._gear_descs]
        self._local = threading.local()

    @staticmethod
    def _tensor_info(desc):
        return TensorInfo(desc["name"], tuple(desc["shape"]), desc["dtype"], desc["format"])

    def __repr__(self):
        show = lambda ts: ", ".join(f"{t.name}: {t.dtype}{list(t.shape)}" for t in ts)
        return (f"<vinci.Model '{self.path}' for {self.info['soc']} "
                f"({show(self.inputs)}) -> ({show(self.outputs)})>")

    def _session(self):
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = _runtime.Session(self._loaded)
        return session

    def _ordered_inputs(self, inputs):
        """The caller's inputs as a list in the model's input order."""
        names = [t.name for t in self.inputs]
        if isinstance(inputs, dict):
            unknown = [k for k in inputs if k not in names]
            if unknown:
                raise InputError(f"{self.path}: no input named {unknown[0]!r} "
                                 f"(the model's inputs: {', '.join(names)})")
            missing = [n for n in names if n not in inputs]
            if missing:
                raise InputError(f"{self.path}: input {missing[0]!r} is missing "
                                 f"(the model's inputs: {', '.join(names)})")
            return [inputs[n] for n in names]
        if isinstance(inputs, (list, tuple)):
            values = list(inputs)
        else:
            values = [inputs]
        if len(values) != len(names):
            raise InputError(f"{self.path}: {len(values)} input(s) given, the model takes "
                             f"{len(names)} ({', '.join(names)})")
        return values

    @staticmethod
    def _as_array(value):
        if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor
            value = value.detach().cpu().numpy()
        return np.asarray(value)

    def _checked_array(self, info, value):
        array = self._as_array(value)
        expected = _numpy_dtype(info.dtype)
        if array.dtype != expected:
            raise InputError(f"{self.path}: input {info.name!r} has dtype {array.dtype}, the model "
                             f"takes {info.dtype} (convert it, e.g. x.astype(np.{expected}))")
        if array.shape != info.shape:
            raise InputError(f"{self.path}: input {info.name!r} has shape {array.shape}, the model "
                             f"takes {info.shape} (compile with another input_shape to change it)")
        return np.ascontiguousarray(array)

    def run(self, inputs):
        """Runs the model once; returns its outputs as a list of numpy arrays.

        `inputs`: a dict by input name, a list in input order, or one array
        for a model with one input. Arrays (or torch tensors) must have the
        input's dtype and shape exactly; nothing is cast implicitly.
        """
        values = [self._as_array(value) for value in self._ordered_inputs(inputs)]
        input_infos, output_infos, output_descs = self.inputs, self.outputs, self._output_descs
        gear = None
        if self.gears:
            # The runtime matches the shapes and, when none fits, lists the gears.
            gear = self._loaded.match_gear([list(v.shape) for v in values])
            input_infos, output_infos = self.gears[gear].inputs, self.gears[gear].outputs
            output_descs = self._gear_descs[gear]["outputs"]
        arrays = [self._checked_array(info, value) for info, value in zip(input_infos, values)]
        outputs = []
        for info, desc in zip(output_infos, output_descs):
            dtype = _numpy_dtype(info.dtype)
            count = int(np.prod(info.shape, dtype=np.int64))
            if info.format == "ND" and count * dtype.itemsize == desc["size"]:
                outputs.append(np.empty(info.shape, dtype))
            else:  # a padded device layout: returned flat, as stored
                outputs.append(np.empty(desc["size"] // dtype.itemsize, dtype))
        session = self._session()
        if gear is not None:
            session.set_gear(gear)
        self._local.gear = gear
        session.run(arrays, outputs)
        return outputs

    __call__ = run

    def profile(self):
        """The simulator's figures of this thread's last successful run, as a dict.

        Keys: cycles, simulated_us, clock_hz, host_seconds, pipe_busy_cycles
        (per pipe: S, V, M = Cube, MTE1, MTE2, MTE3), gm_bytes_read,
        gm_bytes_written, instructions, cube_fractal_ops, num_tasks,
        hazard_count, hazards (messages, in hazards='warn' mode), tasks (one
        dict per kernel launch) and note (what the figures are).
        """
        session = getattr(self._local, "session", None)
        if session is None:
            raise ExecutionError(f"{self.path}: no run yet on this thread: call run() before "
                                 f"profile()", "invalid argument")
        figures = session.profile()
        figures["note"] = TIMING_NOTE
        gear = getattr(self._local, "gear", None)
        if gear is not None:
            figures["gear"] = self.gears[gear].values
        return figures


def load(path, threads=0, hazards="fatal"):
    """Loads and validates an .om model; returns a Model.

    threads: host threads simulating the AI cores (0 = all; results do not
    depend on it). hazards: 'fatal' fails a run on an unsynchronised pipe
    hazard (as vinci-run does), 'warn' counts them in the profile.
    """
    return Model(path, threads=threads, hazards=hazards)
