#!/bin/sh
# ctest rt_fuzz_load: a bounded libFuzzer run of load + validate, seeded with
# the hand-built models. Usage: fuzz.sh FUZZER MAKE_MODELS WORK_DIR RUNS
set -eu
fuzzer=$1 make_models=$2 work=$3 runs=$4
rm -rf "$work"
mkdir -p "$work/seeds" "$work/corpus"
"$make_models" "$work/seeds"
# Seeds: the .om files only (the .npy/.pb files are tool inputs).
find "$work/seeds" -maxdepth 1 -type f ! -name '*.om' -delete
exec "$fuzzer" -runs="$runs" -max_len=65536 -seed=1 -timeout=10 -rss_limit_mb=4096 \
  -print_final_stats=1 "$work/corpus" "$work/seeds"
