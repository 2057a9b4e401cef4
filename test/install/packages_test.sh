#!/bin/sh
# ctest install_packages: the two Debian packages as a user gets them.
#  1. cpack builds vinci-runtime and vinci (.deb) from this build;
#  2. dpkg installs vinci-runtime alone into a scratch root (its own dpkg
#     database; maintainer scripts honour DPKG_ROOT): it holds no compiler and
#     no MLIR, examples/embed builds against it alone (find_package over the
#     scratch root) and runs an .om, and its vinci-run gives the same output
#     bytes as the build tree's;
#  3. dpkg installs vinci beside it: the installed vinci-compile compiles the
#     MLP (ONNX, and PyTorch through the installed Python package), and the
#     installed package imports from the scratch root's site directory, which
#     is a directory on /usr/bin/python3's default sys.path once the root is
#     / (so a real install needs no PYTHONPATH).
# Usage: packages_test.sh BUILD_DIR SOURCE_DIR WORK_DIR CC
set -eu
build=$1 source=$2 work=$3 cc=$4
rm -rf "$work"
mkdir -p "$work/pkgs"
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/pkgs" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
runtime_deb=$(ls "$work"/pkgs/vinci-runtime_*.deb)
compiler_deb=$(ls "$work"/pkgs/vinci_*.deb)

install_into() { # ROOT DEB...: dpkg into a scratch root with its own database
  root=$1; shift
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
  touch "$root/var/lib/dpkg/status"
  # --force-depends: the scratch root has none of the system's packages.
  dpkg --root="$root" --force-depends --force-not-root --force-script-chrootless --log=/dev/null -i "$@" \
    >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i $*"; }
}

# 2. The runtime alone.
edge="$work/edge"
install_into "$edge" "$runtime_deb"
[ -x "$edge/usr/bin/vinci-run" ] || fail "vinci-runtime has no vinci-run"
[ ! -e "$edge/usr/bin/vinci-compile" ] || fail "vinci-runtime ships the compiler"
if dpkg-deb -f "$runtime_deb" Depends | grep -q -i 'mlir\|llvm\|protobuf\|onnx'; then
  fail "vinci-runtime depends on the compiler's libraries: $(dpkg-deb -f "$runtime_deb" Depends)"
fi
if ldd "$edge/usr/bin/vinci-run" | grep -q -i 'mlir\|llvm\|protobuf'; then
  fail "vinci-run links compiler libraries"
fi
ldd "$edge/usr/bin/vinci-run" | grep -q "$edge/usr/bin/../lib/libvinci_runtime.so.0" ||
  fail "the installed vinci-run does not find the installed libvinci_runtime"

"$build/bin/vinci-compile" --model "$source/examples/mlp/mlp.onnx" --output "$work/mlp.om" 2>/dev/null
/usr/bin/python3 -c "
import numpy as np
np.save('$work/x.npy', np.random.default_rng(0).random((1, 1, 16, 16), dtype=np.float32))
np.random.default_rng(0).random((1, 1, 16, 16), dtype=np.float32).tofile('$work/x.bin')"
cmake -S "$source/examples/embed" -B "$work/embed" -G Ninja -DCMAKE_PREFIX_PATH="$edge/usr" \
  -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$work/embed" >/dev/null
ldd "$work/embed/vinci-embed" | grep -q "$edge/usr/lib/libvinci_runtime.so.0" ||
  fail "vinci-embed is not linked against the scratch root's runtime"
"$work/embed/vinci-embed" "$work/mlp.om" "$work/x.bin" >"$work/embed.txt"
grep -q '^probs: top-5 of 10: ' "$work/embed.txt" || fail "vinci-embed printed no result"
"$edge/usr/bin/vinci-run" --model "$work/mlp.om" --input "$work/x.npy" --output_dir "$work/out-installed" >/dev/null
"$build/bin/vinci-run" --model "$work/mlp.om" --input "$work/x.npy" --output_dir "$work/out-build" >/dev/null
for f in "$work"/out-build/*.npy; do
  cmp "$f" "$work/out-installed/$(basename "$f")" || fail "installed vinci-run differs on $(basename "$f")"
done

# 3. The compiler and the Python package beside the runtime.
full="$work/full"
install_into "$full" "$runtime_deb" "$compiler_deb"
[ -x "$full/usr/bin/vinci-compile" ] || fail "vinci ships no vinci-compile"
"$full/usr/bin/vinci-compile" --model "$source/examples/mlp/mlp.onnx" --output "$work/mlp2.om" 2>/dev/null
cmp "$work/mlp.om" "$work/mlp2.om" || fail "the installed vinci-compile writes another .om"
site=$(cd "$full/usr" && ls -d lib/python3*/dist-packages 2>/dev/null) ||
  fail "vinci installs no Python package into a lib/python3*/dist-packages directory"
/usr/bin/python3 -c "import sys; sys.exit(0 if '/usr/$site' in sys.path else 1)" ||
  fail "/usr/$site is not on /usr/bin/python3's default sys.path"
PYTHONPATH="$full/usr/$site" /usr/bin/python3 - "$full" "$work" <<'PY'
import sys, numpy as np, vinci
root, work = sys.argv[1], sys.argv[2]
assert vinci.__file__.startswith(root), f"imported {vinci.__file__}, not the installed package"
x = np.load(f"{work}/x.npy")
(installed,) = vinci.load(f"{work}/mlp.om").run(x)
expected = np.load(sorted(__import__("glob").glob(f"{work}/out-build/*.npy"))[0])
assert installed.tobytes() == expected.tobytes(), "the installed package's run differs"
PY
cat >"$work/model_def.py" <<'PY'
import torch
def make():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(256, 10), torch.nn.Softmax(-1))
PY
"$full/usr/bin/vinci-compile" --framework pytorch --model "$work/model_def.py:make" \
  --input_shape "x:1,1,16,16" --output "$work/torch.om" 2>"$work/torch.log" ||
  { cat "$work/torch.log"; fail "the installed vinci-compile --framework pytorch"; }
echo "install_packages: ok ($(basename "$runtime_deb"), $(basename "$compiler_deb"))"
