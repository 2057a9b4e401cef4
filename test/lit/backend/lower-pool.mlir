// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Golden: ResNet's stem pool (3x3, stride 2, pad 1) over a 1x16x8x8 f16
// NCHW map. 16 channels on 8 cores are 8 groups of 2 (the lanes above stay
// zero), two bands of 2 output rows (one loads while the other reduces).
// A band's buffer holds the 5 input rows its windows read: band 0's top
// one is the pad, a row of -inf (vdup 0xFF800000: what a max leaves
// unchanged), then input rows 0..3 as NC1HWC0 pixels (one 32-byte block
// each); band 1 loads input rows 3..7 before band 0 reduces. Each output
// row reduces its window's 3 rows into a row of 8 pixels, then its
// columns with a source block stride of 2 (the window's column stride):
// tap 0 skips output column 0 (its input column -1 is pad: 3 pixels, 48
// lanes), taps 1 and 2 cover all 4. A band's 8 positions go out by one
// vtranspose and copy_nz2nd (2 channel rows of 8 positions).
// CHECK-LABEL: dv.kernel @k0_max_pool
// CHECK-SAME: (%[[X:.+]]: !dv.gm<1x16x8x8xf16>, %[[Y:.+]]: !dv.gm<1x16x4x4xf16>)
// CHECK-SAME: block_dim = 8 : i64, kind = "vector"{{.*}}vinci.template = "pool"
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[IN:.+]] = dv.alloc : !dv.buf<ub, 1024xf16>
// CHECK: %[[IN1:.+]] = dv.alloc : !dv.buf<ub, 1024xf16>
// CHECK: %[[ROWS:.+]] = dv.alloc : !dv.buf<ub, 640xf16>
// CHECK: %[[OUT:.+]] = dv.alloc : !dv.buf<ub, 384xf16>
// CHECK: dv.alloc : !dv.buf<ub, 384xf16>
// CHECK: %[[NZ:.+]] = dv.alloc : !dv.buf<ub, 256xf16>
// CHECK: %[[PADROW:.+]] = dv.view %[[IN]][0] : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 128xf16>
// CHECK: dv.vdup 0xFF800000 : f32 to %[[PADROW]] {repeat = 1 : i64}
// CHECK: %[[PIX:.+]] = dv.view %[[IN]][128] : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 32x16xf16, nc1hwc0>
// CHECK: %[[SRC:.+]] = dv.view %[[X]][%[[BID]] * 128] : !dv.gm<1x16x8x8xf16> to !dv.gm<96xf16>
// CHECK: dv.copy_nchw2nc1hwc0 %[[SRC]] to %[[PIX]] {channels = 2 : i64, spatial = 32 : i64, src_channel_stride = 64 : i64}
// CHECK: %[[PIX1:.+]] = dv.view %[[IN1]][0] : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 40x16xf16, nc1hwc0>
// CHECK: %[[SRC1:.+]] = dv.view %[[X]][%[[BID]] * 128 + 24] : !dv.gm<1x16x8x8xf16> to !dv.gm<104xf16>
// CHECK: dv.copy_nchw2nc1hwc0 %[[SRC1]] to %[[PIX1]] {channels = 2 : i64, spatial = 40 : i64, src_channel_stride = 64 : i64}
// CHECK: dv.vdup 0xFF800000 : f32 to %{{.+}} {repeat = 2 : i64} : !dv.buf<ub, 256xf16>
// CHECK: %[[R0:.+]] = dv.view %[[ROWS]][0] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: %[[I0:.+]] = dv.view %[[IN]][0] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: %[[I1:.+]] = dv.view %[[IN]][128] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: dv.vmax %[[I0]], %[[I1]] to %[[R0]] {repeat = 1 : i64}
// CHECK: %[[I2:.+]] = dv.view %[[IN]][256] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: dv.vmax %{{.+}}, %[[I2]] to %{{.+}} {repeat = 1 : i64}
// CHECK: %[[O1:.+]] = dv.view %[[OUT]][16] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: %[[O1B:.+]] = dv.view %[[OUT]][16] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: %[[T0:.+]] = dv.view %[[ROWS]][16] : {{.+}} to !dv.buf<ub, 240xf16>
// CHECK: dv.vmax %[[O1B]], %[[T0]] to %[[O1]] {blk = array<i64: 1, 1, 2>, mask = array<i64: 281474976710655, 0>, rep = array<i64: 8, 8, 16>, repeat = 1 : i64}
// CHECK: %[[T1:.+]] = dv.view %[[ROWS]][0] : {{.+}} to !dv.buf<ub, 240xf16>
// CHECK: dv.vmax %{{.+}}, %[[T1]] to %{{.+}} {blk = array<i64: 1, 1, 2>, mask = array<i64: -1, 0>, rep = array<i64: 8, 8, 16>, repeat = 1 : i64}
// CHECK: %[[T2:.+]] = dv.view %[[ROWS]][16] : {{.+}} to !dv.buf<ub, 240xf16>
// CHECK: dv.vmax %{{.+}}, %[[T2]] to %{{.+}} {blk = array<i64: 1, 1, 2>, mask = array<i64: -1, 0>, rep = array<i64: 8, 8, 16>, repeat = 1 : i64}
// Output row 1 reads band rows 2..4.
// CHECK: dv.view %[[IN]][256] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: dv.view %[[IN]][384] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK: dv.view %[[IN]][512] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK-COUNT-3: dv.vmax {{.+}}blk = array<i64: 1, 1, 2>
// CHECK-NOT: dv.vmax
// CHECK: dv.vtranspose %{{.+}} to %[[NZ]] {tiles = 1 : i64}
// CHECK: %[[DST:.+]] = dv.view %[[Y]][%[[BID]] * 32] : !dv.gm<1x16x4x4xf16> to !dv.gm<24xf16>
// CHECK: dv.copy_nz2nd %{{.+}} to %[[DST]] {cols = 8 : i64, dst_row_stride = 16 : i64, rows = 2 : i64, src_rows = 16 : i64}
// Band 1: no pad row (its windows' rows 3..7 are all real).
// CHECK-NOT: 0xFF800000 : f32 to %{{.+}} {repeat = 1 : i64}
// CHECK-COUNT-4: dv.vmax %{{.+}}, %{{.+}} to %{{.+}} {repeat = 1 : i64}
// CHECK: dv.copy_nz2nd %{{.+}} to %{{.+}} {cols = 8 : i64, dst_row_stride = 16 : i64, rows = 2 : i64, src_rows = 16 : i64}
// CHECK: dv.return
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
// groups of 16, the second of 4 channels static; each group in an even
// number of bands (2 and 1 output rows), so the second group's first band
// loads during the first group's last. The window sums start at 0 and are
// scaled by 1/4 (vmuls).
// CHECK-LABEL: dv.kernel @k0_average_pool
// CHECK-SAME: block_dim = 8 : i64
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 16 : i64, spatial = 32 : i64, src_channel_stride = 48 : i64}
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 16 : i64, spatial = 16 : i64, src_channel_stride = 48 : i64}
// CHECK: dv.vdup 0.000000e+00 : f32
// CHECK: dv.vadd
// CHECK: dv.vmuls %{{.+}}, 2.500000e-01 : f32 to
// CHECK: dv.copy_nz2nd {{.+}} {cols = 8 : i64, dst_row_stride = 12 : i64, rows = 16 : i64, src_rows = 16 : i64}
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 4 : i64, spatial = 32 : i64, src_channel_stride = 48 : i64}
// CHECK: dv.vmuls
// CHECK: dv.copy_nz2nd {{.+}} {cols = 4 : i64, dst_row_stride = 12 : i64, rows = 16 : i64, src_rows = 16 : i64}
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 4 : i64, spatial = 16 : i64, src_channel_stride = 48 : i64}
// CHECK: dv.copy_nz2nd {{.+}} {cols = 8 : i64, dst_row_stride = 12 : i64, rows = 4 : i64, src_rows = 16 : i64}
// CHECK: dv.copy_nz2nd {{.+}} {cols = 4 : i64, dst_row_stride = 12 : i64, rows = 4 : i64, src_rows = 16 : i64}
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

// Row split: 64 channels NC1HWC0 on both sides are 4 channel groups for 8
// cores, so the 32 output rows go over 8 blocks (ConvCommon's
// planRowSplit), each holding all 4 groups: blocks 0..6 own rows 2 + 4 b
// (b mod 7), whose windows read no pad, and block 7 (b floordiv 7) rows
// 0..1 and 30..31. Every block fills buffer row 0 with -inf (the top pad)
// and loads 5 input rows from row 3 + 8 b; the edge block's load is
// shifted one row down (from input row 0, into buffer row 1). A group's
// first band loads during the previous group's last band: a loop of 3
// groups, each loading the next one's top band, then the last static.
// CHECK-LABEL: dv.kernel @k0_max_pool
// CHECK-SAME: block_dim = 8 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[IN:.+]] = dv.alloc : !dv.buf<ub, 6528xf16>
// CHECK: %[[PADROW:.+]] = dv.view %[[IN]][0] : !dv.buf<ub, 6528xf16> to !dv.buf<ub, 1024xf16>
// CHECK: dv.vdup 0xFF800000 : f32 to %[[PADROW]] {repeat = 8 : i64}
// CHECK: %[[ROWS:.+]] = dv.view %[[IN]][(%[[BID]] floordiv 7) * 1024]
// CHECK: %[[SRC:.+]] = dv.view %{{.+}}[(%[[BID]] mod 7) * 8192 - (%[[BID]] floordiv 7) * 3072 + 3072]
// CHECK: dv.copy %[[SRC]] to %[[ROWS]] {burst_bytes = 10240 : i64}
// CHECK: dv.loop %[[G:.+]] trip 3 {
// CHECK: dv.view %{{.+}}[%[[G]] * 65536 + (%[[BID]] mod 7) * 8192 + (%[[BID]] floordiv 7) * 53248 + 7168]
// CHECK: dv.view %{{.+}}[%[[G]] * 16384 + (%[[BID]] mod 7) * 2048 - (%[[BID]] floordiv 7) * 1024 + 1024] : !dv.gm<1x4x32x32x16xf16>
// The next group's top band, before this group's bottom band reduces.
// CHECK: dv.view %{{.+}}[%[[G]] * 65536 + (%[[BID]] mod 7) * 8192 - (%[[BID]] floordiv 7) * 3072 + 68608]
// CHECK: dv.view %{{.+}}[%[[G]] * 16384 + (%[[BID]] mod 7) * 2048 + (%[[BID]] floordiv 7) * 13312 + 2048] : !dv.gm<1x4x32x32x16xf16>
// CHECK: }
// CHECK: dv.view %{{.+}}[(%[[BID]] mod 7) * 8192 + (%[[BID]] floordiv 7) * 53248 + 203776]
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<1x64x64x64xf16>) -> tensor<1x64x32x32xf16> {
    %y = call @k0_max_pool(%x) {vinci.layouts = ["nc1hwc0", "nc1hwc0"]} : (tensor<1x64x64x64xf16>) -> tensor<1x64x32x32xf16>
    return %y : tensor<1x64x32x32xf16>
  }
  func.func private @k0_max_pool(%a: tensor<1x64x64x64xf16>) -> tensor<1x64x32x32xf16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.max_pool %a {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x64x64xf16>) -> tensor<1x64x32x32xf16>
    return %p : tensor<1x64x32x32xf16>
  }
}

// -----

// Near miss: 31 output rows (prime) have no row split; the 4 channel
// groups take 4 blocks.
// CHECK-LABEL: dv.kernel @k0_max_pool
// CHECK-SAME: block_dim = 4 : i64
// CHECK-NOT: floordiv
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<1x64x62x62xf16>) -> tensor<1x64x31x31xf16> {
    %y = call @k0_max_pool(%x) {vinci.layouts = ["nc1hwc0", "nc1hwc0"]} : (tensor<1x64x62x62xf16>) -> tensor<1x64x31x31xf16>
    return %y : tensor<1x64x31x31xf16>
  }
  func.func private @k0_max_pool(%a: tensor<1x64x62x62xf16>) -> tensor<1x64x31x31xf16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.max_pool %a {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x62x62xf16>) -> tensor<1x64x31x31xf16>
    return %p : tensor<1x64x31x31xf16>
  }
}

// -----

// ResNet-18's max pool (112 x 112 x 64, 3x3 stride 2, NC1HWC0): 8 row parts
// of 7 output rows (each reading 15 input rows), where 7 parts of 8 rows
// read 17 (chooseRowParts takes the cheapest split once splitting rows
// pays; it had asked each split to beat the previous one by 10%).
// CHECK-LABEL: dv.kernel @k0_max_pool
// CHECK-SAME: block_dim = 8 : i64
module {
  func.func @graph(%x: tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16> {
    %y = call @k0_max_pool(%x) {vinci.layouts = ["nc1hwc0", "nc1hwc0"]} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
    return %y : tensor<1x64x56x56xf16>
  }
  func.func private @k0_max_pool(%a: tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.max_pool %a {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf16>) -> tensor<1x64x56x56xf16>
    return %p : tensor<1x64x56x56xf16>
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
