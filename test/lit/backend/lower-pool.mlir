// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Golden: ResNet's stem pool (3x3, stride 2, pad 1) over a 1x16x8x8 f16
// NCHW map. 16 channels on 8 cores are 8 groups of 2 (the lanes above stay
// zero), one band of all 4 output rows; the 8 input rows come into UB as
// NC1HWC0 pixels (one 32-byte block each), the output starts at -inf. Each
// output row reduces its window's real rows into a row of 8 pixels (row 0:
// input rows 0 and 1, the row above is pad), then its columns with a source
// block stride of 2 (the window's column stride): tap 0 skips output column
// 0 (its input column -1 is pad: 3 pixels, 48 lanes), taps 1 and 2 cover
// all 4; rows 1 to 3 reduce three input rows each. The 16 positions go out by one vtranspose and copy_nz2nd (2
// channel rows of 16 positions).
// CHECK-LABEL: dv.kernel @k0_max_pool
// CHECK-SAME: (%[[X:.+]]: !dv.gm<1x16x8x8xf16>, %[[Y:.+]]: !dv.gm<1x16x4x4xf16>)
// CHECK-SAME: block_dim = 8 : i64, kind = "vector"{{.*}}vinci.template = "pool"
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[IN:.+]] = dv.alloc : !dv.buf<ub, 1280xf16>
// CHECK: %[[ROWS:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK: %[[OUT:.+]] = dv.alloc : !dv.buf<ub, 384xf16>
// CHECK: %[[NZ:.+]] = dv.alloc : !dv.buf<ub, 256xf16>
// CHECK: %[[PIX:.+]] = dv.view %[[IN]][0] : !dv.buf<ub, 1280xf16> to !dv.buf<ub, 64x16xf16, nc1hwc0>
// CHECK: %[[SRC:.+]] = dv.view %[[X]][%[[BID]] * 128] : !dv.gm<1x16x8x8xf16> to !dv.gm<128xf16>
// CHECK: dv.copy_nchw2nc1hwc0 %[[SRC]] to %[[PIX]] {channels = 2 : i64, spatial = 64 : i64, src_channel_stride = 64 : i64}
// CHECK: dv.vdup 0xFF800000 : f32 to %{{.+}} {repeat = 2 : i64} : !dv.buf<ub, 256xf16>
// CHECK: %[[R0:.+]] = dv.view %[[ROWS]][0] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: %[[I0:.+]] = dv.view %[[IN]][0] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: %[[I1:.+]] = dv.view %[[IN]][128] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: dv.vmax %[[I0]], %[[I1]] to %[[R0]] {repeat = 1 : i64}
// CHECK: %[[O1:.+]] = dv.view %[[OUT]][16] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: %[[O1B:.+]] = dv.view %[[OUT]][16] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: %[[T0:.+]] = dv.view %[[ROWS]][16] : {{.+}} to !dv.buf<ub, 240xf16>
// CHECK: dv.vmax %[[O1B]], %[[T0]] to %[[O1]] {blk = array<i64: 1, 1, 2>, mask = array<i64: 281474976710655, 0>, rep = array<i64: 8, 8, 16>, repeat = 1 : i64}
// CHECK: %[[T1:.+]] = dv.view %[[ROWS]][0] : {{.+}} to !dv.buf<ub, 240xf16>
// CHECK: dv.vmax %{{.+}}, %[[T1]] to %{{.+}} {blk = array<i64: 1, 1, 2>, mask = array<i64: -1, 0>, rep = array<i64: 8, 8, 16>, repeat = 1 : i64}
// CHECK: %[[T2:.+]] = dv.view %[[ROWS]][16] : {{.+}} to !dv.buf<ub, 240xf16>
// CHECK: dv.vmax %{{.+}}, %[[T2]] to %{{.+}} {blk = array<i64: 1, 1, 2>, mask = array<i64: -1, 0>, rep = array<i64: 8, 8, 16>, repeat = 1 : i64}
// CHECK: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK-NOT: blk =
// CHECK: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK-NOT: {repeat = 1 : i64}
// CHECK-COUNT-3: dv.vmax {{.+}}blk = array<i64: 1, 1, 2>
// CHECK: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK-NOT: blk =
// CHECK: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK-NOT: {repeat = 1 : i64}
// CHECK-COUNT-3: dv.vmax {{.+}}blk = array<i64: 1, 1, 2>
// CHECK: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK-NOT: blk =
// CHECK: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK-NOT: {repeat = 1 : i64}
// CHECK-COUNT-3: dv.vmax {{.+}}blk = array<i64: 1, 1, 2>
// CHECK-NOT: dv.vmax
// CHECK: dv.vtranspose %{{.+}} to %[[NZ]] {tiles = 1 : i64}
// CHECK: %[[DST:.+]] = dv.view %[[Y]][%[[BID]] * 32] : !dv.gm<1x16x4x4xf16> to !dv.gm<32xf16>
// CHECK: dv.copy_nz2nd %{{.+}} to %[[DST]] {cols = 16 : i64, dst_row_stride = 16 : i64, rows = 2 : i64, src_rows = 16 : i64}
// SYNC-LABEL: dv.kernel @k0_max_pool
// SYNC: dv.copy_nchw2nc1hwc0
// SYNC: dv.set_flag MTE2 -> V
// SYNC: dv.wait_flag MTE2 -> V
// SYNC: dv.vmax
// SYNC: dv.vtranspose
// SYNC: dv.set_flag V -> MTE3
// SYNC: dv.wait_flag V -> MTE3
// SYNC: dv.copy_nz2nd
module {
  func.func @graph(%x: tensor<1x16x8x8xf16>) -> tensor<1x16x4x4xf16> {
    %y = call @k0_max_pool(%x) : (tensor<1x16x8x8xf16>) -> tensor<1x16x4x4xf16>
    return %y : tensor<1x16x4x4xf16>
  }
  func.func private @k0_max_pool(%a: tensor<1x16x8x8xf16>) -> tensor<1x16x4x4xf16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.max_pool %a {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf16>) -> tensor<1x16x4x4xf16>
    return %p : tensor<1x16x4x4xf16>
  }
}

// -----

// An average pool 2x2 stride 2 without pads, batch 8 of 20 channels: one
// image a block (20 channels are no multiple of a smaller group), two
// groups of 16, the second of 4 channels static after a loop of one; the
// window sums start at 0 and are scaled by 1/4 (vmuls).
// CHECK-LABEL: dv.kernel @k0_average_pool
// CHECK-SAME: block_dim = 8 : i64
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 16 : i64, spatial = 48 : i64, src_channel_stride = 48 : i64}
// CHECK: dv.vdup 0.000000e+00 : f32
// CHECK: dv.vadd
// CHECK: dv.vmuls %{{.+}}, 2.500000e-01 : f32 to
// CHECK: dv.copy_nz2nd {{.+}} {cols = 12 : i64, dst_row_stride = 12 : i64, rows = 16 : i64, src_rows = 16 : i64}
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 4 : i64, spatial = 48 : i64, src_channel_stride = 48 : i64}
// CHECK: dv.vmuls
// CHECK: dv.copy_nz2nd {{.+}} {cols = 12 : i64, dst_row_stride = 12 : i64, rows = 4 : i64, src_rows = 16 : i64}
module {
  func.func @graph(%x: tensor<8x20x6x8xf16>) -> tensor<8x20x3x4xf16> {
    %y = call @k0_average_pool(%x) : (tensor<8x20x6x8xf16>) -> tensor<8x20x3x4xf16>
    return %y : tensor<8x20x3x4xf16>
  }
  func.func private @k0_average_pool(%a: tensor<8x20x6x8xf16>) -> tensor<8x20x3x4xf16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.average_pool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x20x6x8xf16>) -> tensor<8x20x3x4xf16>
    return %p : tensor<8x20x3x4xf16>
  }
}

// -----

// Near misses: an average whose divisor differs at the edges (pads it does
// not count), an f32 graph input (the template reads f16), a max pool
// with indices.
module {
  func.func @graph(%x: tensor<1x16x8x8xf16>, %x32: tensor<1x16x8x8xf32>) -> (tensor<1x16x8x8xf16>, tensor<1x16x4x4xf32>) {
    %a = call @k0_average_pool(%x) : (tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
    %b = call @k1_max_pool(%x32) : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
    return %a, %b : tensor<1x16x8x8xf16>, tensor<1x16x4x4xf32>
  }
  // expected-error @+1 {{kernel k0_average_pool: an average pool whose divisor differs between positions}}
  func.func private @k0_average_pool(%a: tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.average_pool %a {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
    return %p : tensor<1x16x8x8xf16>
  }
  // expected-error @+1 {{kernel k1_max_pool: the pooling template reads and writes f16 in GM}}
  func.func private @k1_max_pool(%a: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.max_pool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
    return %p : tensor<1x16x4x4xf32>
  }
}
