#!/usr/bin/python3
"""Runs the simulated 1024^3 fp16 matmul benchmark beside numpy's fp32 matmul
(OpenBLAS) of the same size, measured in the same run, and prints one JSON
object. Usage: /usr/bin/python3 bench/matmul_1024/run.py [path/to/vinci-bench-matmul]

The simulated figures model an Ascend 310P3 AI Core from published numbers;
they are not hardware measurements. A benchmark, not a test.
"""
import json
import os
import subprocess
import sys

NUMPY_PROBE = r"""
import io, json, time, contextlib
import numpy as np
info = {"numpy": np.__version__}
try:
    from threadpoolctl import threadpool_info
    info["blas"] = [{k: p.get(k) for k in ("internal_api", "version", "num_threads", "filepath", "architecture")}
                    for p in threadpool_info()]
except ImportError:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        np.show_config()
    info["blas"] = " ".join(l.strip() for l in buf.getvalue().splitlines() if "blas" in l.lower() or "libraries" in l.lower())[:600]
import os
loaded = sorted({os.path.realpath(l.split()[-1]) for l in open("/proc/self/maps")
                 if "blas" in l.lower() and "/" in l})
info["blas_loaded"] = loaded  # the BLAS the Debian alternatives actually resolved to
rng = np.random.default_rng(0)
a = rng.standard_normal((1024, 1024), dtype=np.float32)
b = rng.standard_normal((1024, 1024), dtype=np.float32)
a @ b  # warm-up
times = []
for _ in range(10):
    t0 = time.perf_counter(); a @ b; times.append(time.perf_counter() - t0)
times.sort()
info["seconds"] = times[0]
info["seconds_median"] = times[len(times) // 2]
print(json.dumps(info))
"""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "build", "bin", "vinci-bench-matmul")
    binary = sys.argv[1] if len(sys.argv) > 1 else default
    sim = json.loads(subprocess.run([binary], check=True, capture_output=True, text=True).stdout)

    env = dict(os.environ)
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(var, None)  # let OpenBLAS pick its own kernels in this subprocess
    env.setdefault("OPENBLAS_NUM_THREADS", str(os.cpu_count() or 1))
    probe = subprocess.run(["/usr/bin/python3", "-c", NUMPY_PROBE], check=True, capture_output=True,
                           text=True, env=env)
    np_info = json.loads(probe.stdout)

    out = {
        "note": sim["note"],
        "cube_utilisation": sim["cube_utilisation"],
        "cube_utilisation_of_chip_peak": sim["cube_utilisation_of_chip_peak"],
        "simulated_cycles": sim["simulated_cycles"],
        "simulated_us": sim["simulated_us"],
        "gm_bound_cycles": sim["gm_bound_cycles"],
        "host_wall_seconds": sim["host_wall_seconds"],
        "numpy_fp32_seconds": np_info["seconds"],
        "ratio_host_over_numpy": sim["host_wall_seconds"] / np_info["seconds"],
        "numpy": np_info["numpy"],
        "numpy_blas_loaded": np_info["blas_loaded"],
        "numpy_blas": np_info["blas"],
        "host_cpus": os.cpu_count(),
        "simulator": sim,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
