// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Safe softmax of 64 rows of 200 f32 (graph input and output: f32 in GM,
// loaded straight into the f32 tile buffer). 8 blocks of 8 rows; a tile of
// 8 rows is one copy in (rows padded to 256 elements: a 224-byte gap) and
// one copy out, and the rows' vector work is an inner dv.loop whose view
// steps one padded row. A row is 3 full repeats of 64 lanes and a masked
// one of 8.
// CHECK-LABEL: dv.kernel @k0_softmax
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<64x200xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<64x200xf32>)
// CHECK-SAME: attributes {block_dim = 8 : i64, kind = "vector"
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK-NEXT: [[TILE:%.+]] = dv.alloc : !dv.buf<ub, 2048xf32>
// CHECK-NEXT: [[ST:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[BC:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[LIVE:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: dv.loop [[I:%.+]] trip 1 {
// CHECK-NEXT: [[VX:%.+]] = dv.view [[X]][[[I]] * 1600 + [[BID]] * 1600] : !dv.gm<64x200xf32> to !dv.gm<1600xf32>
// CHECK-NEXT: dv.copy [[VX]] to [[TILE]] {burst_bytes = 800 : i64, bursts = 8 : i64, dst_gap = 224 : i64}
// CHECK-NEXT: dv.loop [[K:%.+]] trip 8 {
// CHECK-NEXT: [[ROW:%.+]] = dv.view [[TILE]][[[K]] * 256] : !dv.buf<ub, 2048xf32> to !dv.buf<ub, 256xf32>
// Non-finite logits saturate to the f32 range.
// CHECK-NEXT: [[FULL:%.+]] = dv.view [[ROW]][0] : !dv.buf<ub, 256xf32> to !dv.buf<ub, 192xf32>
// CHECK-NEXT: dv.vmins [[FULL]], 3.40282347E+38 : f32 to [[FULL]] {repeat = 3 : i64}
// CHECK-NEXT: [[TAIL:%.+]] = dv.view [[ROW]][192] : !dv.buf<ub, 256xf32> to !dv.buf<ub, 64xf32>
// CHECK-NEXT: dv.vmins [[TAIL]], 3.40282347E+38 : f32 to [[TAIL]] {mask = array<i64: 255, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vmaxs [[FULL]], -3.40282347E+38
// CHECK-NEXT: dv.vmaxs [[TAIL]], -3.40282347E+38
// The row max: lanes 8..63 of the last repeat set to -inf, then one vcmax
// across the 4 repeats, broadcast to 64 lanes read with repeat stride 0.
// CHECK-NEXT: dv.vdup 0xFF800000 : f32 to [[TAIL]] {mask = array<i64: -256, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcmax [[ROW]] to [[ST]] {across_repeats, repeat = 4 : i64}
// live = min(max(max + FLT_MAX, 0), 1): 0 only for a row of -inf.
// CHECK-NEXT: dv.vadds [[ST]], 3.40282347E+38 : f32 to [[LIVE]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vmaxs [[LIVE]], 0.000000e+00 : f32 to [[LIVE]] {mask = array<i64: 1, 0>
// CHECK-NEXT: dv.vmins [[LIVE]], 1.000000e+00 : f32 to [[LIVE]] {mask = array<i64: 1, 0>
// CHECK-NEXT: dv.vbrcb [[ST]] to [[BC]] {repeat = 1 : i64}
// CHECK-NEXT: dv.vsub [[FULL]], [[BC]] to [[FULL]] {rep = array<i64: 8, 8, 0>, repeat = 3 : i64}
// CHECK-NEXT: dv.vsub [[TAIL]], [[BC]] to [[TAIL]] {mask = array<i64: 255, 0>, rep = array<i64: 8, 8, 0>, repeat = 1 : i64}
// Shifted logits clipped to [-50, 0] before exp; the sum in f32.
// CHECK-NEXT: dv.vmaxs [[FULL]], -5.000000e+01 : f32 to [[FULL]]
// CHECK-NEXT: dv.vmaxs [[TAIL]], -5.000000e+01 : f32 to [[TAIL]]
// CHECK-NEXT: dv.vexp [[FULL]] to [[FULL]] {repeat = 3 : i64}
// CHECK-NEXT: dv.vexp [[TAIL]] to [[TAIL]] {mask = array<i64: 255, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[TAIL]] {mask = array<i64: -256, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcadd [[ROW]] to [[ST]] {across_repeats, repeat = 4 : i64}
// The sum divided by live: +inf for a fully masked row, whose output is 0.
// CHECK-NEXT: dv.vdiv [[ST]], [[LIVE]] to [[ST]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vbrcb [[ST]] to [[BC]]
// CHECK-NEXT: dv.vdiv [[FULL]], [[BC]] to [[FULL]] {rep = array<i64: 8, 8, 0>, repeat = 3 : i64}
// CHECK-NEXT: dv.vdiv [[TAIL]], [[BC]] to [[TAIL]] {mask = array<i64: 255, 0>, rep = array<i64: 8, 8, 0>, repeat = 1 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: [[VY:%.+]] = dv.view [[Y]][[[I]] * 1600 + [[BID]] * 1600] : !dv.gm<64x200xf32> to !dv.gm<1600xf32>
// CHECK-NEXT: dv.copy [[TILE]] to [[VY]] {burst_bytes = 800 : i64, bursts = 8 : i64, src_gap = 224 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: dv.return
// The kernel pipeline (lower, allocate, sync) accepts it: the next row's
// load waits for the previous row's store.
// SYNC-LABEL: dv.kernel @k0_softmax
// SYNC: dv.alloc offset 0 : !dv.buf<ub, 2048xf32>
// SYNC: dv.loop
// SYNC: dv.wait_flag MTE3 -> MTE2
// SYNC-NEXT: dv.copy
// SYNC-NEXT: dv.set_flag MTE2 -> V
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

// log_softmax whose result feeds another kernel: f16 in GM, converted from
// the f32 tile before the store. 12 rows of 100 over 6 blocks (12 = 6 x 2):
// one tile of 2 rows a block. ln(sum) is subtracted from the unclipped
// shifted logits.
// CHECK-LABEL: dv.kernel @k0_log_softmax
// CHECK-SAME: !dv.gm<4x3x100xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<4x3x100xf16>)
// CHECK-SAME: attributes {block_dim = 6 : i64, kind = "vector"
// CHECK: [[TILE:%.+]] = dv.alloc : !dv.buf<ub, 256xf32>
// CHECK-NEXT: [[T:%.+]] = dv.alloc : !dv.buf<ub, 128xf32>
// CHECK-NEXT: [[H:%.+]] = dv.alloc : !dv.buf<ub, 256xf16>
// CHECK-NEXT: [[ST:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[BC:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK: dv.loop [[I:%.+]] trip 1 {
// CHECK: dv.copy {{%.+}} to [[TILE]] {burst_bytes = 400 : i64, bursts = 2 : i64, dst_gap = 112 : i64}
// CHECK-NEXT: dv.loop [[K:%.+]] trip 2 {
// CHECK-NEXT: [[ROW:%.+]] = dv.view [[TILE]][[[K]] * 128] : !dv.buf<ub, 256xf32> to !dv.buf<ub, 128xf32>
// CHECK: dv.vcmax [[ROW]] to [[ST]] {across_repeats, repeat = 2 : i64}
// CHECK: dv.vsub [[X0:%.+]], [[BC]] to [[X0]]
// CHECK: dv.vmaxs [[X0]], -5.000000e+01 : f32 to [[T0:%[0-9]+]]
// CHECK: dv.vexp [[T0]] to [[T0]]
// CHECK: dv.vcadd [[T]] to [[ST]] {across_repeats, repeat = 2 : i64}
// CHECK-NEXT: dv.vln [[ST]] to [[ST]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vbrcb [[ST]] to [[BC]]
// CHECK-NEXT: dv.vsub [[X0]], [[BC]] to [[X0]]
// CHECK: {{^ *}}}
// CHECK-NEXT: dv.vconv [[TILE]] to [[H]] {rep = array<i64: 4, 8>, repeat = 4 : i64} : !dv.buf<ub, 256xf32> to !dv.buf<ub, 256xf16>
// CHECK-NEXT: [[VY:%.+]] = dv.view [[Y]][[[I]] * 200 + {{%.+}} * 200] : !dv.gm<4x3x100xf16> to !dv.gm<200xf16>
// CHECK-NEXT: dv.copy [[H]] to [[VY]] {burst_bytes = 200 : i64, bursts = 2 : i64, src_gap = 56 : i64}
// SYNC-LABEL: dv.kernel @k0_log_softmax
// SYNC: dv.return
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
// weight: f16 in GM) and a graph-input bias (f32). 16 rows of 768 = 12
// repeats, no tail, over 8 blocks: one tile of 2 rows a block. Scale and
// bias are loaded once, before the loop; mean, then the variance of the
// centred row, in f32.
// CHECK-LABEL: dv.kernel @k1_layer_norm
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<2x8x768xf16>, [[S:%[a-z0-9_]+]]: !dv.gm<768xf16>, [[B:%[a-z0-9_]+]]: !dv.gm<768xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<2x8x768xf32>)
// CHECK-SAME: attributes {block_dim = 8 : i64, kind = "vector"
// CHECK: [[RAW:%.+]] = dv.alloc : !dv.buf<ub, 1536xf16>
// CHECK-NEXT: [[TILE:%.+]] = dv.alloc : !dv.buf<ub, 1536xf32>
// CHECK-NEXT: [[T:%.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK-NEXT: [[ST:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[BC:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[SC:%.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK-NEXT: [[SH:%.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK-NEXT: dv.copy [[S]] to [[SH]] {burst_bytes = 1536 : i64}
// CHECK-NEXT: dv.vconv [[SH]] to [[SC]] {rep = array<i64: 8, 4>, repeat = 12 : i64}
// CHECK-NEXT: [[BI:%.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK-NEXT: dv.copy [[B]] to [[BI]] {burst_bytes = 3072 : i64}
// CHECK-NEXT: dv.loop [[I:%.+]] trip 1 {
// CHECK-NEXT: [[VX:%.+]] = dv.view [[X]][[[I]] * 1536 + {{%.+}} * 1536] : !dv.gm<2x8x768xf16> to !dv.gm<1536xf16>
// CHECK-NEXT: dv.copy [[VX]] to [[RAW]] {burst_bytes = 1536 : i64, bursts = 2 : i64}
// CHECK-NEXT: dv.vconv [[RAW]] to [[TILE]] {rep = array<i64: 8, 4>, repeat = 24 : i64}
// CHECK-NEXT: dv.loop [[K:%.+]] trip 2 {
// CHECK-NEXT: [[ROW:%.+]] = dv.view [[TILE]][[[K]] * 768] : !dv.buf<ub, 1536xf32> to !dv.buf<ub, 768xf32>
// CHECK-NEXT: dv.vcadd [[ROW]] to [[ST]] {across_repeats, repeat = 12 : i64}
// CHECK-NEXT: dv.vmuls [[ST]], 0.00130208337 : f32 to [[ST]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vbrcb [[ST]] to [[BC]]
// CHECK-NEXT: dv.vsub [[ROW]], [[BC]] to [[ROW]] {rep = array<i64: 8, 8, 0>, repeat = 12 : i64}
// CHECK-NEXT: dv.vmul [[ROW]], [[ROW]] to [[T]] {repeat = 12 : i64}
// CHECK-NEXT: dv.vcadd [[T]] to [[ST]] {across_repeats, repeat = 12 : i64}
// CHECK-NEXT: dv.vmuls [[ST]], 0.00130208337
// CHECK-NEXT: dv.vadds [[ST]], 9.99999974E-6
// CHECK-NEXT: dv.vrsqrt [[ST]] to [[ST]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vbrcb [[ST]] to [[BC]]
// CHECK-NEXT: dv.vmul [[ROW]], [[BC]] to [[ROW]] {rep = array<i64: 8, 8, 0>, repeat = 12 : i64}
// CHECK-NEXT: dv.vmul [[ROW]], [[SC]] to [[ROW]] {repeat = 12 : i64}
// CHECK-NEXT: dv.vadd [[ROW]], [[BI]] to [[ROW]] {repeat = 12 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: [[VY:%.+]] = dv.view [[Y]]
// CHECK-NEXT: dv.copy [[TILE]] to [[VY]] {burst_bytes = 3072 : i64, bursts = 2 : i64}
// SYNC-LABEL: dv.kernel @k1_layer_norm
// SYNC: dv.return
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

// RMS norm: 3 rows of 1000 (15 repeats and 40 lanes) over 3 blocks.
// CHECK-LABEL: dv.kernel @k0_rms_norm
// CHECK-SAME: attributes {block_dim = 3 : i64, kind = "vector"
// CHECK: dv.loop {{%.+}} trip 1 {
// CHECK: dv.vmul [[XF:%.+]], [[XF]] to [[TF:%[0-9]+]] {repeat = 15 : i64}
// CHECK: dv.vmul [[XT:%.+]], [[XT]] to [[TT:%[0-9]+]] {mask = array<i64: 1099511627775, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[TT]] {mask = array<i64: -1099511627776, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcadd [[T:%.+]] to [[ST:%.+]] {across_repeats, repeat = 16 : i64}
// CHECK-NEXT: dv.vmuls [[ST]], 1.000000e-03
// CHECK-NEXT: dv.vadds [[ST]], 9.99999997E-7
// CHECK-NEXT: dv.vrsqrt [[ST]]
// CHECK-NEXT: dv.vbrcb [[ST]]
// CHECK-NOT: dv.vsub
// CHECK: dv.return
// SYNC-LABEL: dv.kernel @k0_rms_norm
// SYNC: dv.return
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

// reduce_mean over the last axis without keepdims: 42 rows of 10, over 7
// blocks (42 does not divide by 8); one f32 result a row, stored alone.
// CHECK-LABEL: dv.kernel @k0_reduce_mean
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<6x7x10xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<6x7xf32>)
// CHECK-SAME: attributes {block_dim = 7 : i64, kind = "vector"
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK-NEXT: [[ROW:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[ST:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK: dv.loop [[I:%.+]] trip 6 {
// CHECK-NEXT: [[VX:%.+]] = dv.view [[X]][[[I]] * 10 + [[BID]] * 60]
// CHECK-NEXT: dv.copy [[VX]] to [[ROW]] {burst_bytes = 40 : i64}
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[ROW]] {mask = array<i64: -1024, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcadd [[ROW]] to [[ST]] {across_repeats, repeat = 1 : i64}
// CHECK-NEXT: dv.vmuls [[ST]], 1.000000e-01 : f32 to [[ST]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: [[VY:%.+]] = dv.view [[Y]][[[I]] + [[BID]] * 6] : !dv.gm<6x7xf32> to !dv.gm<1xf32>
// CHECK-NEXT: dv.copy [[ST]] to [[VY]] {burst_bytes = 4 : i64}
// SYNC-LABEL: dv.kernel @k0_reduce_mean
// SYNC: dv.return
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
// CHECK-SAME: !dv.gm<4x5xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<1x1xf16>)
// CHECK-SAME: attributes {block_dim = 1 : i64, kind = "vector"
// CHECK-NOT: dv.block_idx
// CHECK: dv.vdup 0xFF800000 : f32 to [[ROW:%.+]] {mask = array<i64: -1048576, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcmax [[ROW]] to [[ST:%.+]] {across_repeats, repeat = 1 : i64}
// CHECK-NEXT: dv.vconv [[ST]] to [[H:%.+]] {mask = array<i64: 1, 0>, rep = array<i64: 4, 8>, repeat = 1 : i64} : !dv.buf<ub, 64xf32> to !dv.buf<ub, 64xf16>
// CHECK-NEXT: [[VY:%.+]] = dv.view [[Y]][{{%.+}}] : !dv.gm<1x1xf16> to !dv.gm<1xf16>
// CHECK-NEXT: dv.copy [[H]] to [[VY]] {burst_bytes = 2 : i64}
// SYNC-LABEL: dv.kernel @k0_reduce_max
// SYNC: dv.return
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
// CHECK-SAME: attributes {block_dim = 2 : i64, kind = "vector"
// CHECK: [[ROW:%.+]] = dv.alloc : !dv.buf<ub, 20032xf32>
// CHECK-NEXT: [[ST:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[P:%.+]] = dv.alloc : !dv.buf<ub, 320xf32>
// CHECK: dv.copy {{%.+}} to [[ROW]] {burst_bytes = 80000 : i64}
// CHECK-NEXT: [[RT:%.+]] = dv.view [[ROW]][19968]
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[RT]] {mask = array<i64: -4294967296, 0>, repeat = 1 : i64}
// CHECK-NEXT: [[P0:%.+]] = dv.view [[P]][0] : !dv.buf<ub, 320xf32> to !dv.buf<ub, 248xf32>
// CHECK-NEXT: [[R0:%.+]] = dv.view [[ROW]][0] : !dv.buf<ub, 20032xf32> to !dv.buf<ub, 15872xf32>
// CHECK-NEXT: dv.vcadd [[R0]] to [[P0]] {repeat = 248 : i64}
// CHECK-NEXT: [[P1:%.+]] = dv.view [[P]][248] : !dv.buf<ub, 320xf32> to !dv.buf<ub, 65xf32>
// CHECK-NEXT: [[R1:%.+]] = dv.view [[ROW]][15872] : !dv.buf<ub, 20032xf32> to !dv.buf<ub, 4160xf32>
// CHECK-NEXT: dv.vcadd [[R1]] to [[P1]] {repeat = 65 : i64}
// CHECK-NEXT: [[PT:%.+]] = dv.view [[P]][256]
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[PT]] {mask = array<i64: -144115188075855872, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcadd [[P]] to [[ST]] {across_repeats, repeat = 5 : i64}
// SYNC-LABEL: dv.kernel @k0_reduce_sum
// SYNC: dv.return
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
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<3x4x5xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<3x4x5xf32>)
// CHECK-SAME: attributes {block_dim = 3 : i64, kind = "vector"
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK-NEXT: [[SLAB:%.+]] = dv.alloc : !dv.buf<ub, 256xf32>
// CHECK-NEXT: [[ACC:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[LIVE:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: dv.loop [[I:%.+]] trip 1 {
// CHECK-NEXT: [[VX:%.+]] = dv.view [[X]][[[I]] * 20 + [[BID]] * 20] : !dv.gm<3x4x5xf32> to !dv.gm<20xf32>
// CHECK-NEXT: dv.copy [[VX]] to [[SLAB]] {burst_bytes = 20 : i64, bursts = 4 : i64, dst_gap = 236 : i64}
// CHECK-NEXT: dv.vmins [[SLAB]], 3.40282347E+38 : f32 to [[SLAB]] {repeat = 4 : i64}
// CHECK-NEXT: dv.vmaxs [[SLAB]], -3.40282347E+38 : f32 to [[SLAB]] {repeat = 4 : i64}
// CHECK-NEXT: dv.vdup 0xFF800000 : f32 to [[ACC]] {mask = array<i64: 31, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.loop [[R:%.+]] trip 4 {
// CHECK-NEXT: [[SR:%.+]] = dv.view [[SLAB]][[[R]] * 64] : !dv.buf<ub, 256xf32> to !dv.buf<ub, 64xf32>
// CHECK-NEXT: dv.vmax [[ACC]], [[SR]] to [[ACC]] {mask = array<i64: 31, 0>, repeat = 1 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: dv.vadds [[ACC]], 3.40282347E+38 : f32 to [[LIVE]] {mask = array<i64: 31, 0>
// CHECK-NEXT: dv.vmaxs [[LIVE]], 0.000000e+00
// CHECK-NEXT: dv.vmins [[LIVE]], 1.000000e+00
// CHECK-NEXT: dv.loop [[R:%.+]] trip 4 {
// CHECK-NEXT: [[SR:%.+]] = dv.view [[SLAB]][[[R]] * 64]
// CHECK-NEXT: dv.vsub [[SR]], [[ACC]] to [[SR]] {mask = array<i64: 31, 0>, repeat = 1 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: dv.vmaxs [[SLAB]], -5.000000e+01 : f32 to [[SLAB]] {repeat = 4 : i64}
// CHECK-NEXT: dv.vexp [[SLAB]] to [[SLAB]] {repeat = 4 : i64}
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[ACC]] {mask = array<i64: 31, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.loop [[R:%.+]] trip 4 {
// CHECK-NEXT: [[SR:%.+]] = dv.view [[SLAB]][[[R]] * 64]
// CHECK-NEXT: dv.vadd [[ACC]], [[SR]] to [[ACC]]
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: dv.vdiv [[ACC]], [[LIVE]] to [[ACC]]
// CHECK-NEXT: dv.loop [[R:%.+]] trip 4 {
// CHECK-NEXT: [[SR:%.+]] = dv.view [[SLAB]][[[R]] * 64]
// CHECK-NEXT: dv.vdiv [[SR]], [[ACC]] to [[SR]]
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: [[VY:%.+]] = dv.view [[Y]][[[I]] * 20 + [[BID]] * 20]
// CHECK-NEXT: dv.copy [[SLAB]] to [[VY]] {burst_bytes = 20 : i64, bursts = 4 : i64, src_gap = 236 : i64}
// SYNC-LABEL: dv.kernel @k0_softmax
// SYNC: dv.return
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
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<3x2x2xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<3x1x2xf32>)
// CHECK-SAME: attributes {block_dim = 3 : i64, kind = "vector"
// CHECK: [[SLAB:%.+]] = dv.alloc : !dv.buf<ub, 128xf32>
// CHECK-NEXT: [[ACC:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK: dv.copy {{%.+}} to [[SLAB]] {burst_bytes = 8 : i64, bursts = 2 : i64, dst_gap = 248 : i64}
// CHECK-NEXT: dv.vdup 0xFF800000 : f32 to [[ACC]] {mask = array<i64: 3, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.loop [[R:%.+]] trip 2 {
// CHECK-NEXT: [[SR:%.+]] = dv.view [[SLAB]][[[R]] * 64]
// CHECK-NEXT: dv.vmax [[ACC]], [[SR]] to [[ACC]] {mask = array<i64: 3, 0>, repeat = 1 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: [[VY:%.+]] = dv.view [[Y]][{{%.+}} * 2 + {{%.+}} * 2] : !dv.gm<3x1x2xf32> to !dv.gm<2xf32>
// CHECK-NEXT: dv.copy [[ACC]] to [[VY]] {burst_bytes = 8 : i64}
// SYNC-LABEL: dv.kernel @k0_reduce_max
// SYNC: dv.return
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
// SYNC-LABEL: func.func @reduce_not_contiguous
// SYNC: call @k0_reduce_sum
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

// Near-miss: softmax over a non-last axis whose slab (512 x 200, sub-rows
// padded to 256) does not fit UB.
// SYNC-LABEL: func.func @softmax_slab_longer_than_ub
// SYNC: call @k0_softmax
func.func @softmax_slab_longer_than_ub(%x: tensor<512x200xf32>) -> tensor<512x200xf32> {
  %0 = call @k0_softmax(%x) : (tensor<512x200xf32>) -> tensor<512x200xf32>
  return %0 : tensor<512x200xf32>
}
// expected-error @+1 {{kernel k0_softmax (from /Softmax): softmax: a slab of 512 x 200 elements (the reduced axis by the dims after it) needs 525312 UB bytes, more than the 262144 bytes of UB on Ascend310P3}}
func.func private @k0_softmax(%arg0: tensor<512x200xf32>) -> tensor<512x200xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Softmax"]} {
  %0 = vg.softmax %arg0 {axis = 0 : i64} : (tensor<512x200xf32>) -> tensor<512x200xf32>
  return %0 : tensor<512x200xf32>
}

// -----

// Near-miss: a row longer than UB.
// SYNC-LABEL: func.func @softmax_row_longer_than_ub
// SYNC: call @k0_softmax
func.func @softmax_row_longer_than_ub(%x: tensor<2x70000xf32>) -> tensor<2x70000xf32> {
  %0 = call @k0_softmax(%x) : (tensor<2x70000xf32>) -> tensor<2x70000xf32>
  return %0 : tensor<2x70000xf32>
}
// expected-error @+1 {{kernel k0_softmax (from /Softmax): softmax: a row of 70000 elements needs 285696 UB bytes, more than the 262144 bytes of UB on Ascend310P3}}
func.func private @k0_softmax(%arg0: tensor<2x70000xf32>) -> tensor<2x70000xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Softmax"]} {
  %0 = vg.softmax %arg0 : (tensor<2x70000xf32>) -> tensor<2x70000xf32>
  return %0 : tensor<2x70000xf32>
}

// -----

// reduce_l2 over the last axis: the squares and their sum in f32, sqrt on
// the statistic's lane. 4 rows of 70 (a full repeat and 6 lanes), 4 blocks.
// CHECK-LABEL: dv.kernel @k0_reduce_l2
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<4x70xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<4xf32>)
// CHECK-SAME: attributes {block_dim = 4 : i64, kind = "vector"
// CHECK: [[ROW:%.+]] = dv.alloc : !dv.buf<ub, 128xf32>
// CHECK-NEXT: [[ST:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK: dv.copy {{%.+}} to [[ROW]] {burst_bytes = 280 : i64}
// CHECK-NEXT: [[FULL:%.+]] = dv.view [[ROW]][0]
// CHECK-NEXT: dv.vmul [[FULL]], [[FULL]] to [[FULL]] {repeat = 1 : i64}
// CHECK-NEXT: [[TAIL:%.+]] = dv.view [[ROW]][64]
// CHECK-NEXT: dv.vmul [[TAIL]], [[TAIL]] to [[TAIL]] {mask = array<i64: 63, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vdup 0.000000e+00 : f32 to [[TAIL]] {mask = array<i64: -64, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.vcadd [[ROW]] to [[ST]] {across_repeats, repeat = 2 : i64}
// CHECK-NEXT: dv.vsqrt [[ST]] to [[ST]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: [[VY:%.+]] = dv.view [[Y]][{{%.+}} + {{%.+}}] : !dv.gm<4xf32> to !dv.gm<1xf32>
// CHECK-NEXT: dv.copy [[ST]] to [[VY]] {burst_bytes = 4 : i64}
// SYNC-LABEL: dv.kernel @k0_reduce_l2
// SYNC: dv.return
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
// CHECK-SAME: attributes {block_dim = 6 : i64, kind = "vector"
// CHECK: [[SLAB:%.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK-NEXT: [[ACC:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK: dv.copy {{%.+}} to [[SLAB]] {burst_bytes = 4 : i64, bursts = 12 : i64, dst_gap = 252 : i64}
// CHECK-NEXT: dv.vdup 1.000000e+00 : f32 to [[ACC]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: dv.loop [[R:%.+]] trip 12 {
// CHECK-NEXT: [[SR:%.+]] = dv.view [[SLAB]][[[R]] * 64]
// CHECK-NEXT: dv.vmul [[ACC]], [[SR]] to [[ACC]] {mask = array<i64: 1, 0>, repeat = 1 : i64}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: [[VY:%.+]] = dv.view {{%.+}}[{{%.+}} + {{%.+}}] : !dv.gm<6x1xf32> to !dv.gm<1xf32>
// CHECK-NEXT: dv.copy [[ACC]] to [[VY]] {burst_bytes = 4 : i64}
// SYNC-LABEL: dv.kernel @k0_reduce_prod
// SYNC: dv.return
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

// arg_max along the last axis: the row max (vcmax), broadcast (vbrcb);
// vcmp eq against it selects the element's index from an iota built once
// (vdup + 6 masked vadds of the lane bits + doublings) or C where it
// differs; vcmin of the candidates is the first index, converted to s32.
// CHECK-LABEL: dv.kernel @k0_arg_max
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[FIRST:[^ ]+]] {repeat = 1 : i64}
// CHECK: dv.vadds %[[FIRST]], 1.000000e+00 : f32 to %[[FIRST]] {mask = array<i64: -6148914691236517206, 0>
// CHECK: dv.vadds %[[FIRST]], 3.200000e+01 : f32 to %[[FIRST]] {mask = array<i64: -4294967296, 0>
// CHECK: dv.vadds %{{.+}}, 6.400000e+01 : f32
// CHECK: dv.vdup 1.000000e+02 : f32 to %[[NONE:[^ ]+]]
// CHECK: dv.loop
// CHECK: dv.vcmax
// CHECK: dv.vbrcb %{{.+}} to %[[BC:[^ ]+]]
// CHECK: dv.vcmp eq %{{.+}}, %[[BC]] to %[[BITS:[^ ]+]] {rep = array<i64: 8, 8, 0>
// CHECK: dv.vsel %{{.+}}, %[[NONE]], %[[BITS]]
// CHECK: dv.vcmin
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 64xf32> to !dv.buf<ub, 64xi32>
// CHECK: dv.copy {{.+}} {burst_bytes = 4 : i64} : !dv.buf<ub, 64xi32> to !dv.gm<1xi32>
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
// CHECK: dv.loop
// CHECK: dv.vmin
// CHECK: dv.vdup -1.000000e+00
// CHECK: dv.vdup 0.000000e+00
// CHECK: dv.loop
// CHECK: dv.vcmp eq
// CHECK: dv.vsel
// CHECK: dv.vmax
// CHECK: dv.vadds %{{.+}}, 1.000000e+00
// CHECK: dv.vconv {{.+}} to !dv.buf<ub, 64xi32>
// CHECK: dv.copy {{.+}} {burst_bytes = 20 : i64} : !dv.buf<ub, 64xi32> to !dv.gm<5xi32>
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
