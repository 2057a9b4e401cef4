#!/bin/sh
# ctest rt_tools: vinci-run and vinci-info on hand-built models, including
# the error cases: exit status 1, one line on stderr that says which error it
# is (a fixed piece of the expected message), no output file. The first case
# is a near-miss: a message that is not the one expected must fail the check.
# Usage: tools_test.sh VINCI_RUN VINCI_INFO MAKE_MODELS WORK_DIR
set -u
run=$1 info=$2 make_models=$3 work=$4
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

rm -rf "$work"
mkdir -p "$work/m"
"$make_models" "$work/m" || { echo "FAIL: rt_make_models"; exit 1; }
m=$work/m

# Whether NAME's failure is the expected one: exit status 1, exactly one
# stderr line starting with 'vinci-run: error: ' and containing MESSAGE (a
# fixed string), no outputs. Prints what is wrong; returns 1 if anything is.
# (EXPECTED: the exit status, 1 unless given: 2 for a bad option.)
error_mismatch() {
  name=$1 message=$2 status=$3 expected=${4:-1}
  out_dir=$work/$name
  wrong=0
  [ "$status" -eq "$expected" ] || { echo "$name: exit status $status, expected $expected"; wrong=1; }
  [ "$(wc -l <"$work/$name.stderr")" -eq 1 ] || { echo "$name: stderr is not one line: $(cat "$work/$name.stderr")"; wrong=1; }
  grep -q '^vinci-run: error: ' "$work/$name.stderr" || { echo "$name: no 'vinci-run: error:' prefix"; wrong=1; }
  grep -qF -- "$message" "$work/$name.stderr" || { echo "$name: the error is not '$message': $(cat "$work/$name.stderr")"; wrong=1; }
  if [ -d "$out_dir" ] && [ -n "$(ls -A "$out_dir")" ]; then echo "$name: left files in $out_dir"; wrong=1; fi
  return $wrong
}

# Expects a failure with MESSAGE: expect_error NAME MESSAGE COMMAND...
# (expect_usage_error: a bad option, exit 2).
expect_error() { expect_status 1 "$@"; }
expect_usage_error() { expect_status 2 "$@"; }
expect_status() {
  expected=$1 name=$2 message=$3; shift 3
  "$@" --output_dir "$work/$name" >"$work/$name.stdout" 2>"$work/$name.stderr"
  status=$?
  if why=$(error_mismatch "$name" "$message" "$status" "$expected"); then
    echo "ok: $name: $(cat "$work/$name.stderr")"
  else
    fail "$why"
  fi
}

# --- vinci-info ---
"$info" "$m/add.om" >"$work/info.txt" 2>&1 || fail "vinci-info add.om: $(cat "$work/info.txt")"
for needle in "model 'add_chain' for Ascend310P3" "kernels (1)" "8 instructions" "memory plan (2 buffers)" \
              "  1 'y' float16 ND [2, 1024] 4096 bytes, in arena at 4096" "weights (1, 4096 bytes)" "tasks (2)" "Add_0"; do
  grep -qF "$needle" "$work/info.txt" || fail "vinci-info text lacks '$needle'"
done
"$info" --json "$m/add.om" >"$work/info.json" 2>&1 || fail "vinci-info --json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['kernels'][0]['instructions']==8 and len(d['memory_plan'])==2 and d['arena_size']==8192, d" \
  "$work/info.json" || fail "vinci-info --json is not the expected JSON"
"$info" --disassemble "$m/add.om" >"$work/disasm.txt" 2>&1 || fail "vinci-info --disassemble"
[ "$(wc -l <"$work/disasm.txt")" -gt "$(wc -l <"$work/info.txt")" ] || fail "--disassemble printed no instructions"
head -c 300 "$m/add.om" >"$work/truncated.om"
if "$info" "$work/truncated.om" >/dev/null 2>"$work/info_err.txt"; then fail "vinci-info accepted a truncated file"; fi
grep -q "truncated" "$work/info_err.txt" || fail "vinci-info truncated message: $(cat "$work/info_err.txt")"

# --- vinci-run: results ---
"$run" --model "$m/add.om" --input "$m/x.npy,$m/y.npy" --output_dir "$work/out_npy" \
  --hazards fatal --profile "$work/trace.json" >"$work/run.txt" 2>&1 || fail "vinci-run npy: $(cat "$work/run.txt")"
cmp -s "$work/out_npy/output_0.npy" "$m/expected_z.npy" || fail "output_0.npy differs from the expected z"
cmp -s "$work/out_npy/output_1.npy" "$m/expected_t.npy" || fail "output_1.npy differs from the expected t"
grep -q "output 0 'z': shape \[2, 1024\] float16" "$work/run.txt" || fail "no summary line for output 0"
grep -q "simulated: [1-9][0-9]* cycles" "$work/run.txt" || fail "no simulated cycles"
grep -q "simulated with an ideal L2: [1-9][0-9]* cycles" "$work/run.txt" || fail "no ideal-L2 figure"
grep -q "simulated bounds: [0-9.]* us to [0-9.]* us" "$work/run.txt" || fail "no simulated bounds"
if "$run" --model "$m/add.om" --input "$m/x.npy,$m/y.npy" --output_dir "$work/out_bad_timing" \
    --timing no_such_cost=1 >/dev/null 2>"$work/timing_err.txt"; then fail "vinci-run accepted a bad --timing"; fi
grep -q "no timing table entry named 'no_such_cost'" "$work/timing_err.txt" || fail "--timing message: $(cat "$work/timing_err.txt")"
[ ! -e "$work/out_bad_timing" ] || fail "a failed run left an output directory"
grep -q "GM traffic per run: 16384 bytes read, 8192 bytes written" "$work/run.txt" || fail "GM traffic line"
grep -q "host wall time" "$work/run.txt" || fail "no host wall time"
grep -q "traceEvents" "$work/trace.json" || fail "no Chrome trace"
cat "$work/run.txt"

"$run" --model "$m/add.om" --input "$m/x.pb,$m/y.pb" --output_dir "$work/out_pb" --loop 3 --threads 1 \
  >"$work/run_pb.txt" 2>&1 || fail "vinci-run pb: $(cat "$work/run_pb.txt")"
cmp -s "$work/out_pb/output_0.npy" "$m/expected_z.npy" || fail "TensorProto inputs: output_0 differs"

"$run" --model "$m/add_missing_wait.om" --input "$m/x.npy,$m/y.npy" --output_dir "$work/out_warn" \
  --hazards warn >"$work/warn.txt" 2>&1 || fail "vinci-run --hazards warn failed"
grep -q "warning: hazard" "$work/warn.txt" || fail "no hazard warning"

# --- gears: vinci-info shows them, vinci-run picks one from the input shapes ---
"$info" "$m/add_gears.om" >"$work/info_gears.txt" 2>&1 || fail "vinci-info add_gears.om: $(cat "$work/info_gears.txt")"
for needle in "gears (2, batch_size; input 0 'x' dim 0 <- value 0, input 1 'y' dim 0 <- value 0)" \
              "  gear 0 [1]: 2 tasks, arena 4096 bytes" "    inputs: 'x' [1, 1024] 2048 bytes, 'y' [1, 1024] 2048 bytes at arena 2048" \
              "  0 'x' float16 ND [-1, 1024] 4096 bytes" "arena: 8192 bytes (the largest gear's)"; do
  grep -qF "$needle" "$work/info_gears.txt" || fail "vinci-info gears text lacks '$needle'"
done
"$info" --json "$m/add_gears.om" >"$work/info_gears.json" 2>&1 || fail "vinci-info --json gears"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['gear_kind']=='batch_size' and [g['values'] for g in d['gears']]==[[1],[2]] and \
d['gears'][0]['inputs'][1]=={'shape':[1,1024],'size':2048,'arena_offset':2048} and d['tasks']==[], d" \
  "$work/info_gears.json" || fail "vinci-info --json gears is not the expected JSON"
"$run" --model "$m/add_gears.om" --input "$m/x_row.npy,$m/y_row.npy" --output_dir "$work/out_gear1" \
  >"$work/run_gear1.txt" 2>&1 || fail "vinci-run gear 1: $(cat "$work/run_gear1.txt")"
cmp -s "$work/out_gear1/output_0.npy" "$m/expected_z_row.npy" || fail "gear 1: output_0 differs from z's first row"
grep -q "gear 0 of 2 (batch size 1)" "$work/run_gear1.txt" || fail "vinci-run names no gear: $(cat "$work/run_gear1.txt")"
"$run" --model "$m/add_gears.om" --input "$m/x.npy,$m/y.npy" --output_dir "$work/out_gear2" \
  >"$work/run_gear2.txt" 2>&1 || fail "vinci-run gear 2: $(cat "$work/run_gear2.txt")"
cmp -s "$work/out_gear2/output_0.npy" "$m/expected_z.npy" || fail "gear 2: output_0 differs from z"
expect_error no_such_gear "match no gear (its dynamic batch sizes: 1;2)" \
  "$run" --model "$m/add_gears.om" --input "$m/x_row.npy,$m/y.npy"

# --- vinci-run: errors ---
expect_error missing_model "nonexistent.om: cannot open: No such file or directory" \
  "$run" --model "$work/nonexistent.om" --input "$m/x.npy,$m/y.npy"
expect_error wrong_shape "input 0 'x' ($m/x_transposed.npy): shape is [1024, 2], the model expects [2, 1024]" \
  "$run" --model "$m/add.om" --input "$m/x_transposed.npy,$m/y.npy"
expect_error wrong_dtype "input 0 'x' ($m/x_float32.npy): dtype is float32, the model expects float16" \
  "$run" --model "$m/add.om" --input "$m/x_float32.npy,$m/y.npy"
expect_error missing_input "add.om: the model takes 2 input(s), 1 given with --input" \
  "$run" --model "$m/add.om" --input "$m/x.npy"
expect_error missing_input_file "none.npy: cannot open: No such file or directory" \
  "$run" --model "$m/add.om" --input "$m/x.npy,$work/none.npy"
expect_error hazard_fatal "task 0 (kernel 'add'): block 0: hazard: pc 3 vadd (V, read UB" \
  "$run" --model "$m/add_missing_wait.om" --input "$m/x.npy,$m/y.npy" --hazards fatal
expect_error corrupt_model "truncated.om: file is truncated: 300 of" \
  "$run" --model "$work/truncated.om" --input "$m/x.npy,$m/y.npy"

# Bad options and values: one line, exit 2 (CLI11's own two lines and 105
# before).
expect_usage_error loop_zero "--loop: Value 0 not in range" \
  "$run" --model "$m/add.om" --input "$m/x.npy,$m/y.npy" --loop 0
expect_usage_error bad_hazards "--hazards: sometimes not in {fatal,warn}" \
  "$run" --model "$m/add.om" --input "$m/x.npy,$m/y.npy" --hazards sometimes
expect_usage_error unknown_option "The following argument was not expected: --frobnicate" \
  "$run" --model "$m/add.om" --input "$m/x.npy,$m/y.npy" --frobnicate

# --dump: the task outputs and their index (the rt_make_models .om files
# record none, as a writer before Task.outputs would: a one-line error).
expect_error dump_without_outputs "records no task outputs" \
  "$run" --model "$m/add.om" --input "$m/x.npy,$m/y.npy" --dump "$work/dump_none"

# The near-miss: the wrong-shape run checked against the wrong-dtype message
# (a real error, but not that one) must not pass.
if error_mismatch wrong_shape "dtype is float32, the model expects float16" 1 >/dev/null; then
  fail "near-miss: error_mismatch accepted the wrong-shape error as the wrong-dtype one"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all tool checks passed"
