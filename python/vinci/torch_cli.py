"""vinci-compile --framework pytorch, run by vinci-compile as `python3 -m vinci.torch_cli`.

    vinci-compile --framework pytorch --model model.py:factory \\
        --input_shape "x:1,3,224,224" --output model.om

model.py:factory names a Python file and a function in it that returns the
torch.nn.Module (called with no arguments). --input_shape gives every
input's name and shape, in forward()'s order; the module is traced with
float32 zeros of those shapes. Messages and exit codes are vinci-compile's.
"""

import argparse
import sys

import vinci
from vinci import torch_import


def main(argv=None):
    parser = argparse.ArgumentParser(prog="vinci-compile --framework pytorch")
    parser.add_argument("--model", required=True, help="model.py:factory")
    parser.add_argument("--input_shape")
    for option in ("--output", "--soc_version", "--const_input", "--emit", "--dump_dir",
                   "--report", "--fusion_switch_file", "--precision_mode", "--keep_dtype",
                   "--calibration", "--quant_config",
                   "--dynamic_batch_size", "--dynamic_image_size", "--dynamic_dims",
                   "--input_format", "--log"):
        parser.add_argument(option)
    parser.add_argument("--softmax_clip", type=float)
    parser.add_argument("--check_support", action="store_true")
    parser.add_argument("--print_weights", action="store_true")
    args = parser.parse_args(argv)

    try:
        torch_import.require_torch()
        if not args.input_shape:
            raise vinci.CompileError(['--framework pytorch needs --input_shape '
                                      '"name:d0,d1,...;..." for every input of the '
                                      "module's forward()"])
        options = {k: v for k, v in vars(args).items() if v not in (None, False) and k not in
                   ("model", "output", "soc_version", "precision_mode")}
        module = torch_import.load_factory(args.model)
        result = vinci.compile(module, None, output=args.output,
                               soc_version=args.soc_version or "Ascend310P3",
                               precision_mode=args.precision_mode or "force_fp16", verbose=True,
                               **options)
        if args.output is None or args.check_support:
            sys.stdout.write(result)
        return 0
    except vinci.CompileError as error:
        for message in error.messages:
            print(f"vinci-compile: error: {message}", file=sys.stderr)
        return error.exit_code


if __name__ == "__main__":
    sys.exit(main())
