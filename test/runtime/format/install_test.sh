#!/bin/sh
# ctest rt_install: install the runtime component, then build and run a C
# application against it twice: with find_package(VinciRuntime) and with
# pkg-config. Also checks that the installed library needs nothing beyond
# libc, libstdc++, libm and libgcc_s.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR MAKE_MODELS WORK_DIR CC
set -eu
build=$1 source=$2 make_models=$3 work=$4 cc=$5
rm -rf "$work"
mkdir -p "$work/m"
"$make_models" "$work/m"
cmake --install "$build" --component vinci_runtime --prefix "$work/prefix" >/dev/null
lib=$(find "$work/prefix" -name 'libvinci_runtime.so.*.*' | head -n 1)
[ -n "$lib" ] || { echo "FAIL: libvinci_runtime.so not installed"; exit 1; }

extra=$(ldd "$lib" | grep -v -E 'linux-vdso|ld-linux|libc\.so|libstdc\+\+\.so|libm\.so|libgcc_s\.so|libpthread\.so' || true)
[ -z "$extra" ] || { echo "FAIL: unexpected dependencies: $extra"; exit 1; }
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^vinci_' || true)
[ -z "$exported" ] || { echo "FAIL: exports beyond the C API: $exported"; exit 1; }

cmake -S "$source/test/runtime/format/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer" "$work/m/add.om" | tee "$work/cmake_run.txt"
grep -q "ran 2 tasks" "$work/cmake_run.txt"

pcdir=$(dirname "$(find "$work/prefix" -name vinci-runtime.pc)")
flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs vinci-runtime)
"$cc" "$source/test/runtime/format/consumer/consumer.c" $flags -o "$work/consumer_pc"
LD_LIBRARY_PATH=$(dirname "$lib") "$work/consumer_pc" "$work/m/add.om" | grep -q "ran 2 tasks"
echo "install, find_package and pkg-config: ok"
