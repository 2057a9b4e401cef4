"""vinci.compile: vinci-compile's driver, called in-process.

The options are vinci-compile's, spelled as keyword arguments (without the
dashes), validated by the same library and failing with the same one-line
messages, raised as vinci.CompileError.
"""

import os
import sys

from .errors import CompileError, UnsupportedOperatorError

# ATC's --precision_mode names that vinci-compile implements (docs/precision.md);
# the driver checks the mode, so ATC's others (the bf16 ones) fail with its
# one-line message, which names the SoC that has bf16.
PRECISION_MODES = ("force_fp16", "allow_mix_precision", "allow_fp32_to_fp16",
                   "must_keep_origin_dtype")

# vinci-compile's options that vinci.compile passes through (besides output,
# soc_version and precision_mode, which are named arguments).
_DRIVER_OPTIONS = ("framework", "input_shape", "const_input", "emit", "dump_dir", "report",
                   "fusion_switch_file", "keep_dtype", "calibration", "quant_config",
                   "softmax_clip", "check_support",
                   "print_weights", "dynamic_batch_size", "dynamic_image_size", "dynamic_dims",
                   "input_format", "out_nodes", "output_type", "input_fp16_nodes", "log")
_TORCH_OPTIONS = ("input_names", "output_names")
_TOOL_PREFIX = "vinci-compile: error: "


def _shape_text(shapes):
    """--input_shape's spelling from {"x": (1, 3, 224, 224)} (a string passes as is);
    -1 or None marks a dim that gears set."""
    if isinstance(shapes, str):
        return shapes
    return ";".join(f"{name}:{','.join(str(-1 if d is None else int(d)) for d in dims)}"
                    for name, dims in shapes.items())


def _gears_text(gears, per_gear):
    """A gear option's spelling: "1,2,4,8" from [1, 2, 4, 8] (batch sizes), "416,416;832,832"
    from [(416, 416), (832, 832)], "32;64" from [32, 64] or [(32,), (64,)] (a string passes
    as is)."""
    if isinstance(gears, str):
        return gears
    gears = [tuple(g) if isinstance(g, (list, tuple)) else (g,) for g in gears]
    if per_gear == "batch":
        return ",".join(str(int(v)) for g in gears for v in g)
    return ";".join(",".join(str(int(v)) for v in g) for g in gears)


def _const_input_text(bindings):
    if isinstance(bindings, str):
        return bindings
    return ";".join(f"{name}:{os.fspath(path)}" for name, path in bindings.items())


def _driver_options(options, output, soc_version, precision_mode):
    converted = {"soc_version": soc_version, "precision_mode": precision_mode}
    if output is not None:
        converted["output"] = os.fspath(output)
    for key, value in options.items():
        if value is None:
            continue
        if key == "input_shape":
            value = _shape_text(value)
        elif key == "dynamic_batch_size":
            value = _gears_text(value, "batch")
        elif key in ("dynamic_image_size", "dynamic_dims"):
            value = _gears_text(value, "gear")
        elif key == "const_input":
            value = _const_input_text(value)
        elif key in ("dump_dir", "report", "fusion_switch_file", "keep_dtype", "calibration",
                     "quant_config"):
            value = os.fspath(value)
        elif key == "softmax_clip":
            value = float(value)
        elif key in ("check_support", "print_weights"):
            value = bool(value)
        converted[key] = value
    return converted


def _raise_for(exit_code, log):
    lines = [line[len(_TOOL_PREFIX):] if line.startswith(_TOOL_PREFIX) else line
             for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if not line.startswith("vinci-compile: ")]
    if exit_code == 1:
        raise UnsupportedOperatorError(errors)
    raise CompileError(errors, exit_code)


def _is_torch_module(obj):
    torch_nn = getattr(sys.modules.get("torch"), "nn", None)  # no torch import for ONNX users
    return torch_nn is not None and isinstance(obj, torch_nn.Module)


def compile(module_or_onnx_path, example_inputs=None, output="m.om", soc_version="Ascend310P3",
            precision_mode="force_fp16", verbose=False, **options):
    """Compiles a model; returns the output path (or the IR text when output=None).

    module_or_onnx_path: an .onnx file, a torch.nn.Module (with example_inputs:
    a tensor or a tuple of tensors, whose shapes become the model's fixed
    input shapes), or "model.py:factory" (a file and a function in it that
    returns the module; give input_shape).

    output: the file to write; an .om unless emit says otherwise
    (emit="vg" | "vg-opt" | "dv" | "om"). None returns the IR as text.

    precision_mode: ATC's --precision_mode: "force_fp16" (float tensors stored
    as fp16), "allow_mix_precision" (softmax, norms and sum-like reductions
    keep fp32), "allow_fp32_to_fp16" (Vector kernels keep fp32, Cube ones
    fp16) or "must_keep_origin_dtype" (fp32 stays fp32; docs/precision.md).

    options: vinci-compile's, by their command-line names: input_shape (a
    string "x:1,3,224,224;y:1,128" or a dict {"x": (1, 3, 224, 224)}; -1 or
    None marks a dim that gears set), the gears of an ONNX model as ATC
    takes them (docs/gears.md): dynamic_batch_size ("1,2,4,8" or [1, 2, 4,
    8]), dynamic_image_size ("416,416;832,832" or [(416, 416), (832,
    832)]) or dynamic_dims ("32;64" or [(32,), (64,)], one value per -1),
    with input_format ("NCHW", "NHWC", "ND"); const_input, emit, dump_dir,
    report, fusion_switch_file, keep_dtype (a file naming ops that keep
    their float type), calibration (a folder of sample inputs: ops whose
    ranges do not fit fp16 keep fp32; docs/quantization.md), quant_config,
    softmax_clip, check_support, print_weights, log; for ONNX models ATC's
    typing options out_nodes ("node:0;tensor": these tensors are the
    outputs), output_type ("FP16" or "node:0:FP16;...") and
    input_fp16_nodes ("x;y"); for nn.Modules also input_names and output_names (default: forward()'s
    parameter names, and output / output_<i>).

    check_support=True returns the operator report as text instead, and
    raises UnsupportedOperatorError (with the report) when an operator is
    missing.

    Raises CompileError (UnsupportedOperatorError for missing operators) with
    vinci-compile's one-line messages; TypeError for an unknown option.
    """
    unknown = sorted(set(options) - set(_DRIVER_OPTIONS) - set(_TORCH_OPTIONS))
    if unknown:
        raise TypeError(f"vinci.compile() got unknown option(s) {', '.join(unknown)} (known: "
                        f"{', '.join(_DRIVER_OPTIONS + _TORCH_OPTIONS)})")
    if not isinstance(precision_mode, str):
        raise TypeError(f"precision_mode must be a string (one of {', '.join(PRECISION_MODES)}), "
                        f"not {type(precision_mode).__name__}")

    torch_options = {k: options.pop(k) for k in _TORCH_OPTIONS if k in options}
    target = module_or_onnx_path
    is_torch = _is_torch_module(target)
    if not is_torch and isinstance(target, str) and options.get("framework") == "pytorch":
        from . import torch_import
        target = torch_import.load_factory(target)
        is_torch = True
    if is_torch:
        from . import torch_import
        return torch_import.compile_module(
            target, example_inputs, _driver_options(options, output, soc_version, precision_mode),
            verbose=verbose, **torch_options)
    if torch_options:
        raise TypeError(f"{', '.join(torch_options)} apply to torch modules only")
    if example_inputs is not None:
        raise TypeError("example_inputs apply to torch modules only; for an ONNX model give "
                        "input_shape")
    if not isinstance(target, (str, os.PathLike)):
        raise TypeError(f"vinci.compile() takes an .onnx path, 'model.py:factory' with "
                        f"framework='pytorch', or a torch.nn.Module, not {type(target).__name__}")
    driver = _driver_options(options, output, soc_version, precision_mode)
    driver["model"] = os.fspath(target)
    return run_driver(driver, verbose)


def run_driver(driver_options, verbose=False, graph=None):
    """Runs the driver on a file (graph=None) or on a front end's graph."""
    from . import _compiler
    if graph is None:
        exit_code, text, log = _compiler.compile_file(driver_options)
    else:
        exit_code, text, log = _compiler.compile_graph(driver_options, graph)
    if driver_options.get("check_support"):
        if exit_code == 0:
            return text
        if exit_code == 1:
            raise UnsupportedOperatorError(text.splitlines())
    if exit_code != 0:
        _raise_for(exit_code, log)
    if verbose:
        print(log, end="", file=sys.stderr)
    return driver_options["output"] if driver_options.get("output") else text
