// RUN: vinci-opt %s --test-dv-pipes --split-input-file --verify-diagnostics -o /dev/null

// PipeOpInterface::getPipe on every instruction: fixed per op, derived from
// the spaces for dv.copy, src/dst for the flags, S for pipe_barrier ALL.

dv.kernel @copy_pipes(%g: !dv.gm<8192xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 8192xf16>
  %l0a = dv.alloc : !dv.buf<l0a, 256xf16>
  %ub = dv.alloc : !dv.buf<ub, 8192xf16>
  %ub2 = dv.alloc : !dv.buf<ub, 8192xf16>
  // expected-remark @below {{pipe MTE2}}
  dv.copy %g to %l1 {burst_bytes = 16384} : !dv.gm<8192xf16> to !dv.buf<l1, 8192xf16>
  // expected-remark @below {{pipe MTE2}}
  dv.copy %g to %ub {burst_bytes = 16384} : !dv.gm<8192xf16> to !dv.buf<ub, 8192xf16>
  // expected-remark @below {{pipe MTE1}}
  dv.copy %l1 to %l0a {burst_bytes = 512} : !dv.buf<l1, 8192xf16> to !dv.buf<l0a, 256xf16>
  // expected-remark @below {{pipe MTE1}}
  dv.copy %l1 to %ub {burst_bytes = 16384} : !dv.buf<l1, 8192xf16> to !dv.buf<ub, 8192xf16>
  // expected-remark @below {{pipe MTE3}}
  dv.copy %ub to %g {burst_bytes = 16384} : !dv.buf<ub, 8192xf16> to !dv.gm<8192xf16>
  // expected-remark @below {{pipe MTE3}}
  dv.copy %ub to %l1 {burst_bytes = 16384} : !dv.buf<ub, 8192xf16> to !dv.buf<l1, 8192xf16>
  // expected-remark @below {{pipe V}}
  dv.copy %ub to %ub2 {burst_bytes = 16384} : !dv.buf<ub, 8192xf16> to !dv.buf<ub, 8192xf16>
  dv.return
}

// -----

dv.kernel @fixed_pipes(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %map = dv.alloc : !dv.buf<l1, 1x4x4x16xf16, nc1hwc0>
  // expected-remark @below {{pipe MTE2}}
  dv.copy_nd2nz %g to %l1 {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<l1, 64x64xf16, nz>
  // expected-remark @below {{pipe MTE1}}
  dv.load_fractals %l1 to %l0a {outer = 4, inner = 4, src_outer_stride = 1, src_inner_stride = 4, dst_outer_stride = 4, dst_inner_stride = 1} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0a, 64x64xf16, nz>
  // expected-remark @below {{pipe MTE1}}
  dv.load_3d positions %map to %l0a {fmap_h = 4, fmap_w = 4, pads = array<i64: 0, 0, 0, 0>, filter = array<i64: 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: 0, 0>,  repeat = 1} : !dv.buf<l1, 1x4x4x16xf16, nc1hwc0> to !dv.buf<l0a, 64x64xf16, nz>
  // expected-remark @below {{pipe M}}
  dv.mmad %l0a, %l0b to %l0c {m = 64, n = 64, k = 64, init} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  // expected-remark @below {{pipe V}}
  dv.move_l0c_ub %l0c to %ub {burst_elems = 4096} : !dv.buf<l0c, 64x64xf32, nz> to !dv.buf<ub, 64x64xf16, nz>
  // expected-remark @below {{pipe V}}
  dv.vexp %ub to %ub {repeat = 32} : !dv.buf<ub, 64x64xf16, nz> to !dv.buf<ub, 64x64xf16, nz>
  // expected-remark @below {{pipe MTE3}}
  dv.copy_nz2nd %ub to %g {rows = 64, cols = 64, dst_row_stride = 64, src_rows = 64} : !dv.buf<ub, 64x64xf16, nz> to !dv.gm<64x64xf16>
  // set_flag runs on its source pipe, wait_flag on its destination.
  // expected-remark @below {{pipe MTE2}}
  dv.set_flag MTE2 -> MTE1 event 0
  // expected-remark @below {{pipe MTE1}}
  dv.wait_flag MTE2 -> MTE1 event 0
  // expected-remark @below {{pipe V}}
  dv.pipe_barrier V
  // expected-remark @below {{pipe S}}
  dv.pipe_barrier ALL
  dv.return
}
