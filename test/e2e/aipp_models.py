#!/usr/bin/python3
"""End to end: static AIPP (vinci-compile --insert_op_conf) on the simulator,
hazards fatal, against ATC's documented formulas computed here in numpy
(docs/aipp.md): channel swap, crop, colour-space conversion
(floor(M (x - input_bias) / 256) + output_bias, clamped to [0, 255]),
(y - mean - min) * var_reci, padding.

  features   a model that returns its input (x * 1, must_keep_origin_dtype,
             so the AIPP result reaches the caller in f32) behind each format
             and field: RGB888 cropped with the ImageNet normalisation,
             XRGB8888 with both swaps, YUV400 padded on every side in a batch
             of 2, NV12 with ATC's JPEG matrix over rows of 600 pixels (full
             groups and a partial one), NV21 without conversion, RGB -> YUV
             with output biases. Each must match to relative L2 1e-6, beside
             a near-miss: the reference without the case's distinctive step
             (swap, crop offset, bias, padding value) must fail the check.
  resnet18   torchvision's ResNet-18 (weights=None, batch norm statistics
             randomised deterministically) through AIPP builds (force_fp16):
             a 256 x 256 RGB image cropped to 224 and normalised, and a
             240 x 240 NV12 image (JPEG matrix) cropped to 224, each compared
             with torch fp32 on the float-preprocessed image: cosine >= 0.9999
             and relative L2 <= 5e-3 (conv_models' bound), with the float
             build on the same float image printed beside it. Negative
             control: the reference for the image preprocessed with R and B
             (U and V) swapped must fail the same check.

Prints one line per case and 'N passed, N failed'.

  aipp_models.py --bin build/bin [--only NAME] [--no-resnet18]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper

from e2e_common import cosine, error_figures, mismatch, rejects, relative_l2
from conv_models import batch_norms_randomised, resnet18

# ATC's JPEG (BT.601 full range) YUV -> RGB matrix and its input biases.
JPEG_YUV2RGB = [256, 0, 359, 256, -88, -183, 256, 454, 0]
JPEG_INPUT_BIAS = [0, 128, 128]
# BT.601 full range RGB -> YUV (x 256), with its output biases.
RGB2YUV = [77, 150, 29, -43, -85, 128, 128, -107, -21]
RGB2YUV_OUTPUT_BIAS = [0, 128, 128]
IMAGENET_MIN = [123.675, 116.28, 103.53]
IMAGENET_VAR_RECI = [1 / 58.395, 1 / 57.12, 1 / 57.375]
FEATURE_MAX_REL_L2 = 1e-6
RESNET_MAX_REL_L2 = 5e-3
RESNET_MIN_COSINE = 0.9999


# ---- ATC's AIPP, as documented ---------------------------------------------

def image_planes(image, fmt):
    """[N, C, H, W] float64 planes of a uint8 image as Vinci takes it:
    RGB888 [N, H, W, 3], XRGB8888 [N, H, W, 4], YUV400 [N, H, W, 1], NV12
    [N, H * 3 / 2, W, 1] with each UV pair covering 2 x 2 pixels."""
    if fmt == "YUV420SP_U8":
        height = image.shape[1] * 2 // 3
        n, width = image.shape[0], image.shape[2]
        y = image[:, :height, :, 0].astype(np.float64)
        uv = image[:, height:, :, 0].reshape(n, height // 2, width // 2, 2).astype(np.float64)
        uv = uv.repeat(2, axis=1).repeat(2, axis=2)
        return np.stack([y, uv[..., 0], uv[..., 1]], axis=1)
    return image.astype(np.float64).transpose(0, 3, 1, 2)


def aipp(image, case):
    """The documented steps: channel order (the swaps), crop, CSC,
    normalisation, padding."""
    planes = image_planes(image, case["format"])
    top, left, height, width = case["crop"]
    x = planes[:, list(case["channels"]), top:top + height, left:left + width]
    if case.get("matrix"):
        m = np.array(case["matrix"], np.float64).reshape(3, 3)
        bias = np.array(case.get("input_bias", [0, 0, 0]), np.float64)[None, :, None, None]
        y = np.floor(np.einsum("ij,njhw->nihw", m, x - bias) / 256)
        y += np.array(case.get("output_bias", [0, 0, 0]), np.float64)[None, :, None, None]
        x = np.clip(y, 0, 255)
    c = case["model"][1]
    mean = np.array(case.get("mean", [0] * 3), np.float64)[:c]
    low = np.array(case.get("min", [0] * 3), np.float64)[:c]
    var = np.array(case.get("var_reci", [1] * 3), np.float64)[:c]
    x = (x[:, :c] - (mean + low)[None, :, None, None]) * var[None, :, None, None]
    pt, pb, pl, pr = case.get("padding", (0, 0, 0, 0))
    return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)),
                  constant_values=case.get("padding_value", 0))


def config_text(case):
    """The --insert_op_conf file for a case."""
    height, width = case["image"]
    lines = ["aipp_op {", "  aipp_mode: static", f"  input_format: {case['format']}",
             f"  src_image_size_w: {width}", f"  src_image_size_h: {height}"]
    top, left, crop_h, crop_w = case["crop"]
    if (top, left, crop_h, crop_w) != (0, 0, height, width):
        lines += ["  crop: true", f"  load_start_pos_h: {top}", f"  load_start_pos_w: {left}",
                  f"  crop_size_h: {crop_h}", f"  crop_size_w: {crop_w}"]
    if any(case.get("padding", ())):
        pt, pb, pl, pr = case["padding"]
        lines += ["  padding: true", f"  top_padding_size: {pt}", f"  bottom_padding_size: {pb}",
                  f"  left_padding_size: {pl}", f"  right_padding_size: {pr}",
                  f"  padding_value: {case.get('padding_value', 0)}"]
    for flag in ("rbuv_swap_switch", "ax_swap_switch"):
        if case.get(flag):
            lines.append(f"  {flag}: true")
    if case.get("matrix"):
        lines.append("  csc_switch: true")
        lines += [f"  matrix_r{i // 3}c{i % 3}: {v}" for i, v in enumerate(case["matrix"])]
        for name in ("input_bias", "output_bias"):
            lines += [f"  {name}_{i}: {v}" for i, v in enumerate(case.get(name, ()))]
    for i in range(case["model"][1]):
        for name, key in (("mean_chn", "mean"), ("min_chn", "min"), ("var_reci_chn", "var_reci")):
            if key in case:
                lines.append(f"  {name}_{i}: {case[key][i]!r}")
    return "\n".join(lines + ["}", ""])


def image_shape(case):
    n, (height, width) = case["model"][0], case["image"]
    if case["format"] == "YUV420SP_U8":
        return (n, height * 3 // 2, width, 1)
    return (n, height, width, {"RGB888_U8": 3, "XRGB8888_U8": 4, "YUV400_U8": 1}[case["format"]])


# ---- compile and run --------------------------------------------------------

def run(bin_dir, work, name, model, inputs, extra):
    """Compiles `model` with `extra` options and runs it on `inputs` (arrays);
    returns (output 0, "") or (None, the failing step's first stderr line)."""
    om, out_dir = os.path.join(work, name + ".om"), os.path.join(work, name + ".out")
    paths = []
    for i, array in enumerate(inputs):
        paths.append(os.path.join(work, f"{name}.in{i}.npy"))
        np.save(paths[-1], array)
    for step in ([os.path.join(bin_dir, "vinci-compile"), "--model", model, "--output", om] +
                 extra,
                 [os.path.join(bin_dir, "vinci-run"), "--model", om, "--hazards", "fatal",
                  "--input", ",".join(paths), "--output_dir", out_dir]):
        proc = subprocess.run(step, capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            return None, (proc.stderr.strip().splitlines() or ["failed"])[0]
    return np.load(os.path.join(out_dir, "output_0.npy")).astype(np.float64), ""


def identity_model(path, shape):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    graph = helper.make_graph([helper.make_node("Mul", ["x", "one"], ["y"], name="times_one")],
                              "aipp_identity", [x], [y], [one])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


# Each case: the model input, the image, the AIPP steps, and the mistake its
# near-miss makes (a change to the reference the check must see).
FEATURES = {
    "rgb_crop_imagenet": dict(
        model=(1, 3, 8, 20), image=(12, 24), format="RGB888_U8", crop=(3, 1, 8, 20),
        channels=(0, 1, 2), mean=[1, 2, 3], min=IMAGENET_MIN, var_reci=IMAGENET_VAR_RECI,
        mistake=("the crop one column to the left", dict(crop=(3, 0, 8, 20)))),
    "xrgb_both_swaps": dict(
        model=(1, 3, 5, 7), image=(5, 7), format="XRGB8888_U8", crop=(0, 0, 5, 7),
        channels=(2, 1, 0), ax_swap_switch=True, rbuv_swap_switch=True,
        mistake=("X taken first (no ax swap)", dict(channels=(3, 2, 1)))),
    "yuv400_padded_batch2": dict(
        model=(2, 1, 9, 600), image=(5, 596), format="YUV400_U8", crop=(0, 0, 5, 596),
        channels=(0,), padding=(3, 1, 2, 2), padding_value=-1.5, mean=[10], min=[0.5],
        var_reci=[0.01],
        mistake=("padding with 0", dict(padding_value=0))),
    "nv12_jpeg_wide": dict(
        model=(1, 3, 8, 600), image=(10, 604), format="YUV420SP_U8", crop=(2, 2, 8, 600),
        channels=(0, 1, 2), matrix=JPEG_YUV2RGB, input_bias=JPEG_INPUT_BIAS,
        min=IMAGENET_MIN, var_reci=IMAGENET_VAR_RECI,
        mistake=("U and V swapped", dict(channels=(0, 2, 1)))),
    "nv21_no_csc_batch2": dict(
        model=(2, 3, 6, 10), image=(6, 10), format="YUV420SP_U8", crop=(0, 0, 6, 10),
        channels=(0, 2, 1), rbuv_swap_switch=True,
        mistake=("read as NV12", dict(channels=(0, 1, 2)))),
    "rgb_to_yuv": dict(
        model=(1, 3, 6, 20), image=(6, 20), format="RGB888_U8", crop=(0, 0, 6, 20),
        channels=(0, 1, 2), matrix=RGB2YUV, output_bias=RGB2YUV_OUTPUT_BIAS, mean=[1, 2, 3],
        min=[0.5, 1, 2], var_reci=[1, 0.5, 0.25],
        mistake=("no output bias", dict(output_bias=[0, 0, 0]))),
}


def run_feature(name, case, bin_dir, work, rng):
    """(why it failed or "", figures)."""
    model = os.path.join(work, name + ".onnx")
    identity_model(model, case["model"])
    conf = os.path.join(work, name + ".cfg")
    with open(conf, "w") as f:
        f.write(config_text(case))
    image = rng.integers(0, 256, image_shape(case), dtype=np.uint8)
    got, why = run(bin_dir, work, name, model, [image],
                   ["--insert_op_conf", conf, "--precision_mode", "must_keep_origin_dtype"])
    if why:
        return why, ""
    want = aipp(image, case)
    what, change = case["mistake"]
    mistaken = aipp(image, {**case, **change})
    return (mismatch(got, want, FEATURE_MAX_REL_L2) or
            rejects(mistaken, want, FEATURE_MAX_REL_L2, what)), error_figures(got, want)


# ---- ResNet-18 ----------------------------------------------------------------

def natural_image(rng, height, width):
    """A smooth RGB image (gradients, two discs, mild noise), uint8
    [1, H, W, 3]: what a camera gives rather than noise, so that 4:2:0
    chroma carries the picture."""
    yy, xx = np.mgrid[0:height, 0:width] / max(height, width)
    r = 200 * xx + 30
    g = 160 * yy + 40 * np.sin(6 * xx)
    b = 120 + 80 * np.cos(5 * (xx + yy))
    for cy, cx, rad, color in ((0.3, 0.4, 0.15, (250, 40, 30)), (0.7, 0.65, 0.2, (20, 200, 90))):
        disc = (yy - cy) ** 2 + (xx - cx) ** 2 < rad ** 2
        r, g, b = (np.where(disc, c, ch) for c, ch in zip(color, (r, g, b)))
    rgb = np.stack([r, g, b], axis=-1) + rng.normal(0, 6, (height, width, 3))
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)[None]


def to_nv12(rgb):
    """JPEG (BT.601 full range) RGB -> NV12 [1, H * 3 / 2, W, 1], chroma
    averaged over each 2 x 2 block."""
    x = rgb[0].astype(np.float64)
    y = 0.299 * x[..., 0] + 0.587 * x[..., 1] + 0.114 * x[..., 2]
    u = -0.168736 * x[..., 0] - 0.331264 * x[..., 1] + 0.5 * x[..., 2] + 128
    v = 0.5 * x[..., 0] - 0.418688 * x[..., 1] - 0.081312 * x[..., 2] + 128
    h, w = y.shape
    sub = lambda p: p.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    uv = np.stack([sub(u), sub(v)], axis=-1).reshape(h // 2, w)
    planes = np.concatenate([y, uv], axis=0)
    return np.clip(np.rint(planes), 0, 255).astype(np.uint8)[None, :, :, None]


def run_resnet18(bin_dir, work):
    torch.manual_seed(0)
    model = batch_norms_randomised(resnet18(), 1).eval()
    onnx_path = os.path.join(work, "resnet18.onnx")
    torch.onnx.export(model, torch.zeros(1, 3, 224, 224), onnx_path, opset_version=14,
                      input_names=["x"], output_names=["y"])
    rng = np.random.default_rng(5)
    rgb = natural_image(rng, 256, 256)
    nv12 = to_nv12(natural_image(rng, 240, 240))
    imagenet = dict(model=(1, 3, 224, 224), min=IMAGENET_MIN, var_reci=IMAGENET_VAR_RECI)
    cases = {
        "resnet18_rgb888": (rgb, dict(imagenet, image=(256, 256), format="RGB888_U8",
                                      crop=(16, 16, 224, 224), channels=(0, 1, 2)),
                            "R and B swapped", dict(channels=(2, 1, 0))),
        "resnet18_nv12": (nv12, dict(imagenet, image=(240, 240), format="YUV420SP_U8",
                                     crop=(8, 8, 224, 224), channels=(0, 1, 2),
                                     matrix=JPEG_YUV2RGB, input_bias=JPEG_INPUT_BIAS),
                          "U and V swapped", dict(channels=(0, 2, 1))),
    }
    results = []
    for name, (image, case, what, change) in cases.items():
        floats = aipp(image, case).astype(np.float32)
        with torch.no_grad():
            want = model(torch.from_numpy(floats)).numpy().astype(np.float64)
            mistaken = model(torch.from_numpy(
                aipp(image, {**case, **change}).astype(np.float32))).numpy()
        conf = os.path.join(work, name + ".cfg")
        with open(conf, "w") as f:
            f.write(config_text(case))
        got, why = run(bin_dir, work, name, onnx_path, [image], ["--insert_op_conf", conf])
        if why:
            results.append((name, why, ""))
            continue
        plain, why = run(bin_dir, work, name + "_float", onnx_path, [floats], [])
        if why:
            results.append((name, "the float build: " + why, ""))
            continue
        cos = cosine(got, want)
        detail = (f"{error_figures(got, want)}, cosine {cos:.7f}; the float build on the "
                  f"float image: rel L2 {relative_l2(plain, want):.2e}, cosine "
                  f"{cosine(plain, want):.7f}")
        why = (mismatch(got, want, RESNET_MAX_REL_L2) or
               (f"cosine {cos:.7f} < {RESNET_MIN_COSINE}" if cos < RESNET_MIN_COSINE else "") or
               rejects(mistaken, want, RESNET_MAX_REL_L2, what))
        results.append((name, why, detail))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--only", help="run this case only")
    parser.add_argument("--no-resnet18", action="store_true")
    parser.add_argument("--keep", help="keep the files in this directory")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        for name, case in FEATURES.items():
            if args.only in (None, name):
                results.append((name, *run_feature(name, case, args.bin, work, rng)))
                report(*results[-1])
        if not args.no_resnet18 and args.only in (None, "resnet18"):
            for result in run_resnet18(args.bin, work):
                results.append(result)
                report(*result)
    failed = sum(1 for _, why, _ in results if why)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


def report(name, why, detail):
    print(f"{'FAIL' if why else 'PASS'}: {name}: {why + '; ' if why else ''}{detail}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
