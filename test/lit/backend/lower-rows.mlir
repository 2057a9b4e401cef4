// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Golden: safe softmax of 64 rows of 200 f32 (graph input and output: f32
// in GM, no conversions). 8 blocks of 8 rows; tiles of K = 4 rows (at most
// half a block's rows, so two tiles take turns), each row padded to 4
// repeats (256 elements) in UB: burst gaps of 224 bytes. Both tiles' loads
// are issued before the first tile's vector work. With n = 4 <= K a row
// statistic is one instruction per repeat position over all 4 rows (repeat
// stride one padded row: 32 blocks) into a [4][64] buffer, then one
// vcmax/vcadd of 4 repeats; vbrcb spreads the 4 results back and 4
// instructions apply them.
// CHECK-LABEL: dv.kernel @k0_softmax
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<64x200xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<64x200xf32>)
// CHECK-SAME: attributes {block_dim = 8 : i64, kind = "vector"
// CHECK-NEXT: [[BID:%.+]] = dv.block_idx
// CHECK-NEXT: [[X0:%.+]] = dv.alloc : !dv.buf<ub, 1024xf32>
// CHECK-NEXT: [[LANES:%.+]] = dv.alloc : !dv.buf<ub, 256xf32>
// CHECK-NEXT: [[ST:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[LIVE:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[X1:%.+]] = dv.alloc : !dv.buf<ub, 1024xf32>
// CHECK-COUNT-3: dv.alloc
// CHECK-NEXT: [[IN0:%.+]] = dv.view [[X]][[[BID]] * 1600] : !dv.gm<64x200xf32> to !dv.gm<800xf32>
// CHECK-NEXT: dv.copy [[IN0]] to [[X0]] {burst_bytes = 800 : i64, bursts = 4 : i64, dst_gap = 224 : i64}
// CHECK-NEXT: [[IN1:%.+]] = dv.view [[X]][([[BID]] * 8 + 4) * 200] : !dv.gm<64x200xf32> to !dv.gm<800xf32>
// CHECK-NEXT: dv.copy [[IN1]] to [[X1]] {burst_bytes = 800 : i64, bursts = 4 : i64, dst_gap = 224 : i64}
// Non-finite logits saturate to the f32 range, over the whole tile.
// CHECK-NEXT: dv.vmins [[X0]], 3.40282347E+38 : f32 to [[X0]] {repeat = 16 : i64}
// CHECK-NEXT: dv.vmaxs [[X0]], -3.40282347E+38 : f32 to [[X0]] {repeat = 16 : i64}
// The row max: lanes 8..63 of every row's last repeat set to -inf (one
// vdup of 4 repeats, 32 blocks apart), three lane-wise vmax, one vcmax.
// CHECK-NEXT: [[J3:%.+]] = dv.view [[X0]][192] : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 832xf32>
// CHECK-NEXT: dv.vdup 0xFF800000 : f32 to [[J3]] {mask = array<i64: -256, 0>, rep = array<i64: 32>, repeat = 4 : i64}
// CHECK-NEXT: [[J1:%.+]] = dv.view [[X0]][64] : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 832xf32>
// CHECK-NEXT: [[J0:%.+]] = dv.view [[X0]][0] : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 832xf32>
// CHECK-NEXT: dv.vmax [[J0]], [[J1]] to [[LANES]] {rep = array<i64: 8, 32, 32>, repeat = 4 : i64}
// CHECK-NEXT: [[J2:%.+]] = dv.view [[X0]][128] : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 832xf32>
// CHECK-NEXT: dv.vmax [[LANES]], [[J2]] to [[LANES]] {rep = array<i64: 8, 8, 32>, repeat = 4 : i64}
// CHECK-NEXT: dv.vmax [[LANES]], [[J3]] to [[LANES]] {rep = array<i64: 8, 8, 32>, repeat = 4 : i64}
// CHECK-NEXT: [[S:%.+]] = dv.view [[ST]][0] : !dv.buf<ub, 64xf32> to !dv.buf<ub, 8xf32>
// CHECK-NEXT: dv.vcmax [[LANES]] to [[S]] {repeat = 4 : i64}
// live = 1 unless a row's logits were all -inf (saturated to -range): 0.
// CHECK-NEXT: dv.vadds [[ST]], 3.40282347E+38 : f32 to [[LIVE]] {mask = array<i64: 15, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vmaxs [[LIVE]], 0.000000e+00 : f32 to [[LIVE]] {mask = array<i64: 15, 0>
// CHECK-NEXT: dv.vmins [[LIVE]], 1.000000e+00 : f32 to [[LIVE]] {mask = array<i64: 15, 0>
// CHECK-NEXT: dv.vbrcb [[S]] to [[LANES]] {repeat = 4 : i64}
// CHECK-NEXT: dv.vsub [[J0]], [[LANES]] to [[J0]] {rep = array<i64: 32, 32, 8>, repeat = 4 : i64}
// CHECK-NEXT: dv.vsub [[J1]], [[LANES]] to [[J1]] {rep = array<i64: 32, 32, 8>, repeat = 4 : i64}
// CHECK-NEXT: dv.vsub [[J2]], [[LANES]] to [[J2]] {rep = array<i64: 32, 32, 8>, repeat = 4 : i64}
// CHECK-NEXT: dv.vsub [[J3]], [[LANES]] to [[J3]] {rep = array<i64: 32, 32, 8>, repeat = 4 : i64}
// Shifted logits clipped to [-50, 0] before exp; the sum in f32.
// CHECK-NEXT: dv.vmaxs [[X0]], -5.000000e+01 : f32 to [[X0]] {repeat = 16 : i64}
// CHECK-NEXT: dv.vexp [[X0]] to [[X0]] {repeat = 16 : i64}
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[J3]] {mask = array<i64: -256, 0>, rep = array<i64: 32>, repeat = 4 : i64}
// CHECK-NEXT: dv.vadd [[J0]], [[J1]] to [[LANES]] {rep = array<i64: 8, 32, 32>, repeat = 4 : i64}
// CHECK-NEXT: dv.vadd [[LANES]], [[J2]] to [[LANES]]
// CHECK-NEXT: dv.vadd [[LANES]], [[J3]] to [[LANES]]
// CHECK-NEXT: dv.vcadd [[LANES]] to [[S]] {repeat = 4 : i64}
// x * (live / sum): zeros for a fully masked row.
// CHECK-NEXT: dv.vdiv [[LIVE]], [[ST]] to [[ST]] {mask = array<i64: 15, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vbrcb [[S]] to [[LANES]] {repeat = 4 : i64}
// CHECK-NEXT: dv.vmul [[J0]], [[LANES]] to [[J0]] {rep = array<i64: 32, 32, 8>, repeat = 4 : i64}
// CHECK-NEXT: dv.vmul [[J1]], [[LANES]] to [[J1]]
// CHECK-NEXT: dv.vmul [[J2]], [[LANES]] to [[J2]]
// CHECK-NEXT: dv.vmul [[J3]], [[LANES]] to [[J3]]
// CHECK-NEXT: [[OUT0:%.+]] = dv.view [[Y]][[[BID]] * 1600] : !dv.gm<64x200xf32> to !dv.gm<800xf32>
// CHECK-NEXT: dv.copy [[X0]] to [[OUT0]] {burst_bytes = 800 : i64, bursts = 4 : i64, src_gap = 224 : i64}
// The second tile, the same on the other buffer set.
// CHECK-NEXT: dv.vmins [[X1]]
// CHECK: dv.copy [[X1]] to %{{.+}} {burst_bytes = 800 : i64, bursts = 4 : i64, src_gap = 224 : i64}
// CHECK-NEXT: dv.return
// The kernel pipeline (lower, allocate, sync) accepts it: the second
// tile's load goes to MTE2 before the first tile's vector work.
// SYNC-LABEL: dv.kernel @k0_softmax
// SYNC: dv.copy
// SYNC-NEXT: dv.set_flag MTE2 -> V event 0
// SYNC-NEXT: dv.view
// SYNC-NEXT: dv.copy
// SYNC-NEXT: dv.set_flag MTE2 -> V event 1
// SYNC-NEXT: dv.wait_flag MTE2 -> V event 0
// SYNC: dv.vcmax
// SYNC: dv.set_flag V -> MTE3
// SYNC: dv.wait_flag V -> MTE3
// SYNC-NEXT: dv.copy
// SYNC: dv.return

func.func @softmax_rows(%x: tensor<64x200xf32>) -> tensor<64x200xf32> {
  %0 = call @k0_softmax(%x) : (tensor<64x200xf32>) -> tensor<64x200xf32>
  return %0 : tensor<64x200xf32>
}
func.func private @k0_softmax(%arg0: tensor<64x200xf32>) -> tensor<64x200xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Softmax"]} {
  %0 = vg.softmax %arg0 : (tensor<64x200xf32>) -> tensor<64x200xf32>
  return %0 : tensor<64x200xf32>
}

// -----

// log_softmax into an f16 intermediate: 12 rows of 100 over 6 blocks, one
// row a tile (K = 1 < n = 2: statistics one vcmax/vcadd across the row's
// repeats into its own 64-lane slot, then lane 0 of each slot); the
// exponentials go to a second buffer, ln(sum) is subtracted from the
// unclipped shifted logits, the result converted to f16 for GM.
// CHECK-LABEL: dv.kernel @k0_log_softmax
// CHECK-SAME: !dv.gm<4x3x100xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<4x3x100xf16>)
// CHECK-SAME: attributes {block_dim = 6 : i64, kind = "vector"
// CHECK: dv.vcmax [[X:%[0-9]+]] to [[SLOT:%[0-9]+]] {across_repeats, repeat = 2 : i64}
// CHECK: dv.vcmax [[SLOT]] to [[ST:%[0-9]+]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK: dv.vmaxs [[X]], -5.000000e+01 : f32 to [[T:%[0-9]+]]
// CHECK-NEXT: dv.vexp [[T]] to [[T]]
// CHECK: dv.vcadd [[T]] to [[SLOT]] {across_repeats, repeat = 2 : i64}
// CHECK: dv.vln
// CHECK: dv.vsub [[X]], [[SLOT]] to [[X]] {rep = array<i64: 8, 8, 0>, repeat = 2 : i64}
// CHECK: dv.vconv [[X]] to [[H:%[0-9]+]] {rep = array<i64: 4, 8>, repeat = 2 : i64} : !dv.buf<ub, 128xf32> to !dv.buf<ub, 128xf16>
// CHECK: dv.copy [[H]] to %{{.+}} {burst_bytes = 200 : i64} : !dv.buf<ub, 128xf16> to !dv.gm<100xf16>
func.func @log_softmax_to_f16(%x: tensor<4x3x100xf32>) -> tensor<4x3x100xf32> {
  %0 = call @k0_log_softmax(%x) : (tensor<4x3x100xf32>) -> tensor<4x3x100xf32>
  %1 = call @k1_exp(%0) : (tensor<4x3x100xf32>) -> tensor<4x3x100xf32>
  return %1 : tensor<4x3x100xf32>
}
func.func private @k0_log_softmax(%arg0: tensor<4x3x100xf32>) -> tensor<4x3x100xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/LogSoftmax"]} {
  %0 = vg.log_softmax %arg0 {axis = 2 : i64} : (tensor<4x3x100xf32>) -> tensor<4x3x100xf32>
  return %0 : tensor<4x3x100xf32>
}
func.func private @k1_exp(%arg0: tensor<4x3x100xf32>) -> tensor<4x3x100xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Exp"]} {
  %0 = vg.exp %arg0 : tensor<4x3x100xf32>
  return %0 : tensor<4x3x100xf32>
}

// -----

// Layer norm of an intermediate (f16 in GM) with a constant scale (a
// weight: f16 in GM) and a graph-input bias (f32), loaded once before the
// tiles. 16 rows of 768 over 8 blocks: a row a tile, two tiles a block;
// mean, then the variance of the centred row, in f32; scale and bias
// along the row.
// CHECK-LABEL: dv.kernel @k1_layer_norm
// CHECK-SAME: (%{{.+}}: !dv.gm<2x8x768xf16>, [[S:%[a-z0-9_]+]]: !dv.gm<768xf16>, [[B:%[a-z0-9_]+]]: !dv.gm<768xf32>
// CHECK: dv.copy [[S]] to [[S16:%[0-9]+]] {burst_bytes = 1536 : i64}
// CHECK-NEXT: dv.vconv [[S16]] to [[SCALE:%[0-9]+]] {rep = array<i64: 8, 4>, repeat = 12 : i64}
// CHECK: dv.copy [[B]] to [[BIAS:%[0-9]+]] {burst_bytes = 3072 : i64}
// CHECK: dv.vcadd {{.+}} {across_repeats, repeat = 12 : i64}
// CHECK: dv.vmuls {{.+}}, 0.00130208337 : f32
// CHECK: dv.vsub
// CHECK: dv.vmul [[X:%[0-9]+]], [[X]] to [[SQ:%[0-9]+]] {repeat = 12 : i64}
// CHECK: dv.vcadd [[SQ]]
// CHECK: dv.vadds {{.+}}, 9.99999974E-6 : f32
// CHECK-NEXT: dv.vrsqrt
// CHECK: dv.vmul [[X]], [[SCALE]] to [[X]] {repeat = 12 : i64}
// CHECK-NEXT: dv.vadd [[X]], [[BIAS]] to [[X]] {repeat = 12 : i64}
func.func @layer_norm_f16(%x: tensor<2x8x768xf32>, %b: tensor<768xf32>) -> tensor<2x8x768xf32> {
  %s = vg.constant dense<1.5> : tensor<768xf32>
  %0 = call @k0_relu(%x) : (tensor<2x8x768xf32>) -> tensor<2x8x768xf32>
  %1 = call @k1_layer_norm(%0, %s, %b) : (tensor<2x8x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<2x8x768xf32>
  return %1 : tensor<2x8x768xf32>
}
func.func private @k0_relu(%arg0: tensor<2x8x768xf32>) -> tensor<2x8x768xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Relu"]} {
  %0 = vg.relu %arg0 : tensor<2x8x768xf32>
  return %0 : tensor<2x8x768xf32>
}
func.func private @k1_layer_norm(%arg0: tensor<2x8x768xf32>, %arg1: tensor<768xf32>, %arg2: tensor<768xf32>) -> tensor<2x8x768xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/LayerNorm"]} {
  %0 = vg.layer_norm %arg0, %arg1, %arg2 {axis = -1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x8x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<2x8x768xf32>
  return %0 : tensor<2x8x768xf32>
}

// -----

// RMS norm: 3 rows of 1000 (15 repeats and 40 lanes) over 3 blocks; the
// masked-off lanes of the squares are zeroed before the sum.
// CHECK-LABEL: dv.kernel @k0_rms_norm
// CHECK-SAME: attributes {block_dim = 3 : i64
// CHECK: dv.vmul [[X:%[0-9]+]], [[X]] to [[SQ:%[0-9]+]] {repeat = 16 : i64}
// CHECK-NEXT: [[TAIL:%.+]] = dv.view [[SQ]][960]
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[TAIL]] {mask = array<i64: -1099511627776, 0>
// CHECK-NEXT: dv.vcadd [[SQ]] to %{{.+}} {across_repeats, repeat = 16 : i64}
// CHECK: dv.vrsqrt
func.func @rms_norm_rows(%x: tensor<3x1000xf32>, %s: tensor<1000xf32>) -> tensor<3x1000xf32> {
  %0 = call @k0_rms_norm(%x, %s) : (tensor<3x1000xf32>, tensor<1000xf32>) -> tensor<3x1000xf32>
  return %0 : tensor<3x1000xf32>
}
func.func private @k0_rms_norm(%arg0: tensor<3x1000xf32>, %arg1: tensor<1000xf32>) -> tensor<3x1000xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/RMSNorm"]} {
  %0 = vg.rms_norm %arg0, %arg1 {epsilon = 1.0e-6 : f32} : (tensor<3x1000xf32>, tensor<1000xf32>) -> tensor<3x1000xf32>
  return %0 : tensor<3x1000xf32>
}

// -----

// reduce_mean over the last axis without keepdims: 42 rows of 10 over 7
// blocks (42 does not divide by 8), tiles of 3 rows: one vcadd of 3
// repeats gives the 3 row sums, one store of 3 results a tile.
// CHECK-LABEL: dv.kernel @k0_reduce_mean
// CHECK-SAME: attributes {block_dim = 7 : i64
// CHECK: dv.copy %{{.+}} to [[X:%[0-9]+]] {burst_bytes = 40 : i64, bursts = 3 : i64, dst_gap = 216 : i64}
// CHECK: dv.vdup 0.000000e+00 : f32 to [[X]] {mask = array<i64: -1024, 0>, repeat = 3 : i64}
// CHECK: dv.vcadd [[X]] to [[ST:%[0-9]+]] {repeat = 3 : i64}
// CHECK-NEXT: dv.vmuls {{.+}}, 1.000000e-01 : f32 to {{.+}} {mask = array<i64: 7, 0>, repeat = 1 : i64}
// CHECK: dv.copy [[ST]] to %{{.+}} {burst_bytes = 12 : i64}
func.func @reduce_mean_last(%x: tensor<6x7x10xf32>) -> tensor<6x7xf32> {
  %0 = call @k0_reduce_mean(%x) : (tensor<6x7x10xf32>) -> tensor<6x7xf32>
  return %0 : tensor<6x7xf32>
}
func.func private @k0_reduce_mean(%arg0: tensor<6x7x10xf32>) -> tensor<6x7xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/ReduceMean"]} {
  %0 = vg.reduce_mean %arg0 {axes = array<i64: -1>, keepdims = 0 : i64} : (tensor<6x7x10xf32>) -> tensor<6x7xf32>
  return %0 : tensor<6x7xf32>
}

// -----

// reduce_max over all axes of a graph input into an intermediate: one row
// of 20, one block; the f32 max converted to f16 for GM.
// CHECK-LABEL: dv.kernel @k0_reduce_max
// CHECK-SAME: !dv.gm<1x1xf16>
// CHECK: dv.vcmax %{{.+}} to [[ST:%[0-9]+]] {repeat = 1 : i64}
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 64xf32> to !dv.buf<ub, 64xf16>
// CHECK: dv.copy {{.+}} {burst_bytes = 2 : i64} : !dv.buf<ub, 8xf16> to !dv.gm<1xf16>
func.func @reduce_max_all_f16(%x: tensor<4x5xf32>) -> tensor<1x1xf32> {
  %0 = call @k0_reduce_max(%x) : (tensor<4x5xf32>) -> tensor<1x1xf32>
  %1 = call @k1_neg(%0) : (tensor<1x1xf32>) -> tensor<1x1xf32>
  return %1 : tensor<1x1xf32>
}
func.func private @k0_reduce_max(%arg0: tensor<4x5xf32>) -> tensor<1x1xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/ReduceMax"]} {
  %0 = vg.reduce_max %arg0 : (tensor<4x5xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}
func.func private @k1_neg(%arg0: tensor<1x1xf32>) -> tensor<1x1xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Neg"]} {
  %0 = vg.neg %arg0 : tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// A row of 20000 is 313 repeats, more than 255: one partial sum a repeat
// (chunks of 248 repeats), the partials padded with 0 to 5 repeats, then
// one vcadd across them.
// CHECK-LABEL: dv.kernel @k0_reduce_sum
// CHECK: dv.vcadd {{.+}} {repeat = 248 : i64} : !dv.buf<ub, 15872xf32> to !dv.buf<ub, 248xf32>
// CHECK-NEXT: dv.view
// CHECK-NEXT: dv.view
// CHECK-NEXT: dv.vcadd {{.+}} {repeat = 65 : i64} : !dv.buf<ub, 4160xf32> to !dv.buf<ub, 72xf32>
// CHECK-NEXT: dv.view
// CHECK-NEXT: dv.vdup 0.000000e+00
// CHECK-NEXT: dv.vcadd {{.+}} {across_repeats, repeat = 5 : i64}
func.func @reduce_sum_long_row(%x: tensor<2x20000xf32>) -> tensor<2x1xf32> {
  %0 = call @k0_reduce_sum(%x) : (tensor<2x20000xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
func.func private @k0_reduce_sum(%arg0: tensor<2x20000xf32>) -> tensor<2x1xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/ReduceSum"]} {
  %0 = vg.reduce_sum %arg0 {axes = array<i64: 1>} : (tensor<2x20000xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// Column mode: softmax over a middle axis. Each of the 3 slabs (one a
// block) is 4 sub-rows of 5, loaded with a 236-byte gap so every sub-row
// starts a 64-lane repeat; the max and sum are lane-wise vmax/vadd over the
// sub-rows in an inner dv.loop whose view steps one padded sub-row.
// CHECK-LABEL: dv.kernel @k0_softmax
// CHECK-SAME: attributes {block_dim = 3 : i64
// CHECK: dv.copy %{{.+}} to [[SLAB:%[0-9]+]] {burst_bytes = 20 : i64, bursts = 4 : i64, dst_gap = 236 : i64}
// CHECK: dv.loop [[R:%.+]] trip 4 {
// CHECK-NEXT: [[SUB:%.+]] = dv.view [[SLAB]][[[R]] * 64]
// CHECK-NEXT: dv.vmax [[MAX:%[0-9]+]], [[SUB]] to [[MAX]] {mask = array<i64: 31, 0>, repeat = 1 : i64}
// CHECK: dv.vexp [[SLAB]] to [[SLAB]] {repeat = 4 : i64}
// CHECK: dv.vdiv
// CHECK: dv.copy [[SLAB]] to %{{.+}} {burst_bytes = 20 : i64, bursts = 4 : i64, src_gap = 236 : i64}
func.func @softmax_middle_axis(%x: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %0 = call @k0_softmax(%x) : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}
func.func private @k0_softmax(%arg0: tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Softmax"]} {
  %0 = vg.softmax %arg0 {axis = 1 : i64} : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// -----

// Column mode: reduce_max over the middle axis (ONNX axes = [-2]) of
// 3x2x2, keepdims: one slab of 2 x 2 a block, 2 results a slab.
// CHECK-LABEL: dv.kernel @k0_reduce_max
// CHECK: dv.loop {{.+}} trip 2 {
// CHECK: dv.vmax
// CHECK: dv.copy {{.+}} {burst_bytes = 8 : i64} : !dv.buf<ub, 64xf32> to !dv.gm<2xf32>
func.func @reduce_max_middle_axis(%x: tensor<3x2x2xf32>) -> tensor<3x1x2xf32> {
  %0 = call @k0_reduce_max(%x) : (tensor<3x2x2xf32>) -> tensor<3x1x2xf32>
  return %0 : tensor<3x1x2xf32>
}
func.func private @k0_reduce_max(%arg0: tensor<3x2x2xf32>) -> tensor<3x1x2xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/ReduceMax"]} {
  %0 = vg.reduce_max %arg0 {axes = array<i64: -2>} : (tensor<3x2x2xf32>) -> tensor<3x1x2xf32>
  return %0 : tensor<3x1x2xf32>
}

// -----

// Near-miss: a reduction over dims that are not contiguous.
func.func @reduce_not_contiguous(%x: tensor<3x4x5xf32>) -> tensor<1x4x1xf32> {
  %0 = call @k0_reduce_sum(%x) : (tensor<3x4x5xf32>) -> tensor<1x4x1xf32>
  return %0 : tensor<1x4x1xf32>
}
// expected-error @+1 {{kernel k0_reduce_sum (from /ReduceSum): reduce_sum over dims that are not contiguous in tensor<3x4x5xf32> has no lowering template yet}}
func.func private @k0_reduce_sum(%arg0: tensor<3x4x5xf32>) -> tensor<1x4x1xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/ReduceSum"]} {
  %0 = vg.reduce_sum %arg0 {axes = array<i64: 0, 2>} : (tensor<3x4x5xf32>) -> tensor<1x4x1xf32>
  return %0 : tensor<1x4x1xf32>
}

// -----

// Softmax over axis 0 of 512 x 200: the whole slab (512 sub-rows of 200,
// padded to 256) needs 525 KB of UB; 4 equal lane tiles of 50 (padded to
// 64) fit, one a block.
// CHECK-LABEL: dv.kernel @k0_softmax
// CHECK-SAME: attributes {block_dim = 4 : i64
// CHECK: dv.view %{{.+}}[%{{.+}} * 50] : !dv.gm<512x200xf32> to !dv.gm<102250xf32>
// CHECK-NEXT: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 200 : i64, bursts = 512 : i64, dst_gap = 56 : i64, src_gap = 600 : i64}
// CHECK: dv.loop {{.+}} trip 512 {
func.func @softmax_slab_longer_than_ub(%x: tensor<512x200xf32>) -> tensor<512x200xf32> {
  %0 = call @k0_softmax(%x) : (tensor<512x200xf32>) -> tensor<512x200xf32>
  return %0 : tensor<512x200xf32>
}
func.func private @k0_softmax(%arg0: tensor<512x200xf32>) -> tensor<512x200xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Softmax"]} {
  %0 = vg.softmax %arg0 {axis = 0 : i64} : (tensor<512x200xf32>) -> tensor<512x200xf32>
  return %0 : tensor<512x200xf32>
}

// -----

// A row of 70000 f32 does not fit a tile: segments of 496 repeats (31744
// elements; the last 6512), two buffer sets taking turns, in three passes
// over the row: the max, the sum of exp, the output. Lanes 48..63 of the
// last segment's last repeat are set to the identity (-inf, then 0) before
// each of its reductions.
// CHECK-LABEL: dv.kernel @k0_softmax
// CHECK-SAME: attributes {block_dim = 2 : i64
// CHECK: dv.copy {{.+}} {burst_bytes = 126976 : i64}
// CHECK: dv.vcmax {{.+}} {across_repeats, repeat = 248 : i64}
// CHECK: dv.copy {{.+}} {burst_bytes = 26048 : i64}
// CHECK: dv.vdup 0xFF800000 : f32 to {{.+}} {mask = array<i64: -281474976710656, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcmax {{.+}} {across_repeats, repeat = 102 : i64}
// CHECK: dv.vexp
// CHECK: dv.vdup 0.000000e+00 : f32 to {{.+}} {mask = array<i64: -281474976710656, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcadd {{.+}} {across_repeats, repeat = 102 : i64}
// CHECK: dv.vexp
// CHECK: dv.copy {{.+}} {burst_bytes = 126976 : i64} : !dv.buf<ub, 31744xf32> to !dv.gm<31744xf32>
// CHECK: dv.copy {{.+}} {burst_bytes = 26048 : i64} : !dv.buf<ub, 31744xf32> to !dv.gm<6512xf32>
func.func @softmax_row_longer_than_ub(%x: tensor<2x70000xf32>) -> tensor<2x70000xf32> {
  %0 = call @k0_softmax(%x) : (tensor<2x70000xf32>) -> tensor<2x70000xf32>
  return %0 : tensor<2x70000xf32>
}
func.func private @k0_softmax(%arg0: tensor<2x70000xf32>) -> tensor<2x70000xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Softmax"]} {
  %0 = vg.softmax %arg0 : (tensor<2x70000xf32>) -> tensor<2x70000xf32>
  return %0 : tensor<2x70000xf32>
}

// -----

// reduce_l2 over the last axis: the squares and their sum in f32, sqrt on
// the statistic's lane. 4 rows of 70 (a full repeat and 6 lanes), 4 blocks.
// CHECK-LABEL: dv.kernel @k0_reduce_l2
// CHECK: dv.vmul [[X:%[0-9]+]], [[X]] to [[X]] {repeat = 2 : i64}
// CHECK: dv.vcadd [[X]]
// CHECK: dv.vsqrt
func.func @reduce_l2_last(%x: tensor<4x70xf32>) -> tensor<4xf32> {
  %0 = call @k0_reduce_l2(%x) : (tensor<4x70xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @k0_reduce_l2(%arg0: tensor<4x70xf32>) -> tensor<4xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/ReduceL2"]} {
  %0 = vg.reduce_l2 %arg0 {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<4x70xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// reduce_prod has no in-repeat product: even over the last axis it runs in
// column mode with one-element sub-rows (12 bursts of 4 bytes, each padded
// to a 64-lane repeat) and a lane-wise vmul over them from 1.
// CHECK-LABEL: dv.kernel @k0_reduce_prod
// CHECK: dv.vdup 1.000000e+00 : f32 to [[ACC:%[0-9]+]] {mask = array<i64: 1, 0>
// CHECK: dv.copy %{{.+}} {burst_bytes = 4 : i64, bursts = 12 : i64, dst_gap = 252 : i64}
// CHECK: dv.loop {{.+}} trip 12 {
// CHECK: dv.vmul [[ACC]], %{{.+}} to [[ACC]] {mask = array<i64: 1, 0>
func.func @reduce_prod_last(%x: tensor<6x12xf32>) -> tensor<6x1xf32> {
  %0 = call @k0_reduce_prod(%x) : (tensor<6x12xf32>) -> tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}
func.func private @k0_reduce_prod(%arg0: tensor<6x12xf32>) -> tensor<6x1xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/ReduceProd"]} {
  %0 = vg.reduce_prod %arg0 {axes = array<i64: -1>} : (tensor<6x12xf32>) -> tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}

// -----

// arg_max along the last axis: the row max, broadcast (vbrcb); vcmp eq
// against it selects the element's index from an iota built once (vdup +
// 6 masked vadds of the lane bits + doublings) or C where it differs;
// vcmin of the candidates (padding lanes +inf) is the first index,
// converted to s32.
// CHECK-LABEL: dv.kernel @k0_arg_max
// CHECK: dv.vadds {{.+}}, 3.200000e+01 : f32 to {{.+}} {mask = array<i64: -4294967296, 0>
// CHECK: dv.vdup 1.000000e+02 : f32 to [[NONE:%[0-9]+]]
// CHECK: dv.vcmax
// CHECK: dv.vbrcb
// CHECK: dv.vcmp eq
// CHECK-NEXT: dv.vsel %{{.+}}, [[NONE]], {{.+}} {rep = array<i64: 8, 8, 0>, repeat = 2 : i64}
// CHECK: dv.vdup 0x7F800000
// CHECK: dv.vcmin
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 64xf32> to !dv.buf<ub, 64xi32>
module {
  func.func @graph(%x: tensor<4x100xf32>) -> tensor<4x1xi32> {
    %r = call @k0_arg_max(%x) : (tensor<4x100xf32>) -> tensor<4x1xi32>
    return %r : tensor<4x1xi32>
  }
  func.func private @k0_arg_max(%a: tensor<4x100xf32>) -> tensor<4x1xi32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.arg_max %a {axis = 1 : i64} : (tensor<4x100xf32>) -> tensor<4x1xi32>
    return %r : tensor<4x1xi32>
  }
}

// -----

// arg_min over a middle axis with select_last_index: lane-wise min over the
// sub-rows, then a counter (vadds 1 a sub-row) is the candidate where a
// sub-row equals it, -1 elsewhere; vmax keeps the last.
// CHECK-LABEL: dv.kernel @k0_arg_min
// CHECK: dv.vmin
// CHECK: dv.vdup -1.000000e+00
// CHECK: dv.loop
// CHECK: dv.vcmp eq
// CHECK: dv.vsel
// CHECK: dv.vmax
// CHECK: dv.vadds {{.+}}, 1.000000e+00
module {
  func.func @graph(%x: tensor<2x3x5xf32>) -> tensor<2x5xi32> {
    %r = call @k0_arg_min(%x) : (tensor<2x3x5xf32>) -> tensor<2x5xi32>
    return %r : tensor<2x5xi32>
  }
  func.func private @k0_arg_min(%a: tensor<2x3x5xf32>) -> tensor<2x5xi32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.arg_min %a {axis = 1 : i64, keepdims = 0 : i64, select_last_index = 1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x5xi32>
    return %r : tensor<2x5xi32>
  }
}

// -----

// i64 indices (not narrowed) have no GM form: a clear error.
module {
  func.func @graph(%x: tensor<4x100xf32>) -> tensor<4x1xi64> {
    %r = call @k0_arg_max(%x) : (tensor<4x100xf32>) -> tensor<4x1xi64>
    return %r : tensor<4x1xi64>
  }
  // expected-error @+1 {{kernel k0_arg_max: arg_max to tensor<4x1xi64> has no lowering template (i32 indices: vinci-narrow-int64 narrows i64 ones)}}
  func.func private @k0_arg_max(%a: tensor<4x100xf32>) -> tensor<4x1xi64>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.arg_max %a {axis = 1 : i64} : (tensor<4x100xf32>) -> tensor<4x1xi64>
    return %r : tensor<4x1xi64>
  }
}
