// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// An f32 graph input padded into an f16 intermediate (the first conv of a
// convnet): one block a plane; the pad value filled over the plane (vdup,
// one MTE3 store of 10 x 11 elements), then the 8 x 8 interior loaded,
// converted (vconv f32 -> f16) and stored as 8 bursts of 8 elements with a
// gap of 11 - 8 at row 1, column 2 of the plane (1 x 11 + 2 = 13).
// CHECK-LABEL: dv.kernel @k0_pad
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<1x3x8x8xf32>, %[[OUT:.+]]: !dv.gm<1x3x10x11xf16>)
// CHECK-SAME: block_dim = 3 : i64, kind = "vector"
// CHECK: %[[FILL:.+]] = dv.alloc : !dv.buf<ub, 128xf16>
// CHECK: %[[TILE:.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK: %[[HALF:.+]] = dv.alloc : !dv.buf<ub, 64xf16>
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[FILL]] {repeat = 1 : i64}
// CHECK: %[[PLANE:.+]] = dv.view %[[OUT]][%[[BID]] * 110]
// CHECK: dv.copy %[[FILL]] to %[[PLANE]] {burst_bytes = 220 : i64}
// CHECK: %[[SRC:.+]] = dv.view %[[IN]][%[[BID]] * 64]
// CHECK: dv.copy %[[SRC]] to %[[TILE]] {burst_bytes = 256 : i64}
// CHECK: dv.vconv %[[TILE]] to %[[HALF]] {rep = array<i64: 4, 8>, repeat = 1 : i64}
// CHECK: %[[DST:.+]] = dv.view %[[OUT]][%[[BID]] * 110 + 13] : !dv.gm<1x3x10x11xf16> to !dv.gm<85xf16>
// CHECK: dv.copy %[[HALF]] to %[[DST]] {burst_bytes = 16 : i64, bursts = 8 : i64, dst_gap = 6 : i64}
// SYNC-LABEL: dv.kernel @k0_pad
// SYNC: dv.set_flag V -> MTE3
// SYNC: dv.wait_flag V -> MTE3
// SYNC: dv.set_flag MTE2 -> V
// SYNC: dv.wait_flag MTE2 -> V
module {
  func.func @graph(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x10x11xf32> {
    %p = call @k0_pad(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x11xf32>
    %z = call @k1_relu(%p) : (tensor<1x3x10x11xf32>) -> tensor<1x3x10x11xf32>
    return %z : tensor<1x3x10x11xf32>
  }
  func.func private @k0_pad(%a: tensor<1x3x8x8xf32>) -> tensor<1x3x10x11xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.pad %a {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x11xf32>
    return %p : tensor<1x3x10x11xf32>
  }
  func.func private @k1_relu(%a: tensor<1x3x10x11xf32>) -> tensor<1x3x10x11xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x3x10x11xf32>
    return %r : tensor<1x3x10x11xf32>
  }
}

// -----

// An f16 intermediate padded with -inf (max pooling): no conversion; 64
// planes over 8 blocks, a loop over each block's 8 planes.
// CHECK-LABEL: dv.kernel @k1_pad
// CHECK-SAME: block_dim = 8 : i64
// CHECK: dv.vdup 0xFF800000 : f32
// CHECK: dv.loop %[[P:.+]] trip 8 {
// CHECK: dv.copy %{{.+}} to %[[T:.+]] {burst_bytes = 200 : i64}
// CHECK-NOT: dv.vconv
// CHECK: dv.copy %[[T]] to %{{.+}} {burst_bytes = 20 : i64, bursts = 10 : i64, dst_gap = 4 : i64}
module {
  func.func @graph(%x: tensor<1x64x10x10xf32>) -> tensor<1x64x12x12xf32> {
    %a = call @k0_relu(%x) : (tensor<1x64x10x10xf32>) -> tensor<1x64x10x10xf32>
    %p = call @k1_pad(%a) : (tensor<1x64x10x10xf32>) -> tensor<1x64x12x12xf32>
    %z = call @k2_relu(%p) : (tensor<1x64x12x12xf32>) -> tensor<1x64x12x12xf32>
    return %z : tensor<1x64x12x12xf32>
  }
  func.func private @k0_relu(%a: tensor<1x64x10x10xf32>) -> tensor<1x64x10x10xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x64x10x10xf32>
    return %r : tensor<1x64x10x10xf32>
  }
  func.func private @k1_pad(%a: tensor<1x64x10x10xf32>) -> tensor<1x64x12x12xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.pad %a {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, constant_value = 0xFFF0000000000000 : f64} : (tensor<1x64x10x10xf32>) -> tensor<1x64x12x12xf32>
    return %p : tensor<1x64x12x12xf32>
  }
  func.func private @k2_relu(%a: tensor<1x64x12x12xf32>) -> tensor<1x64x12x12xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x64x12x12xf32>
    return %r : tensor<1x64x12x12xf32>
  }
}

// -----

// Swin's pad of H and W in [B, H, W, C] (to a multiple of its window): the
// dims inside the padded two fold into the row, so a row is W x C = 48
// elements, the output's 7 x 8 = 56, and the left pad of one position is 8
// elements: the interior lands at row 1, element 8 (1 x 56 + 8 = 64) as 6
// bursts of 48 elements with a gap of 8.
// CHECK-LABEL: dv.kernel @k1_pad
// CHECK-SAME: !dv.gm<1x6x6x8xf16>, %[[OUT:.+]]: !dv.gm<1x7x7x8xf16>
// CHECK: dv.copy %{{.+}} to %[[T:.+]] {burst_bytes = 576 : i64}
// CHECK: %[[DST:.+]] = dv.view %[[OUT]][64] : !dv.gm<1x7x7x8xf16> to !dv.gm<328xf16>
// CHECK: dv.copy %[[T]] to %[[DST]] {burst_bytes = 96 : i64, bursts = 6 : i64, dst_gap = 16 : i64}
module {
  func.func @graph(%x: tensor<1x6x6x8xf32>) -> tensor<1x7x7x8xf32> {
    %r = call @k0_relu(%x) : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
    %p = call @k1_pad(%r) : (tensor<1x6x6x8xf32>) -> tensor<1x7x7x8xf32>
    %z = call @k2_relu(%p) : (tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
    return %z : tensor<1x7x7x8xf32>
  }
  func.func private @k0_relu(%a: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x6x6x8xf32>
    return %r : tensor<1x6x6x8xf32>
  }
  func.func private @k1_pad(%a: tensor<1x6x6x8xf32>) -> tensor<1x7x7x8xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.pad %a {pads = array<i64: 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<1x6x6x8xf32>) -> tensor<1x7x7x8xf32>
    return %p : tensor<1x7x7x8xf32>
  }
  func.func private @k2_relu(%a: tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x7x7x8xf32>
    return %r : tensor<1x7x7x8xf32>
  }
}

// -----

// Near misses: reflect mode, a crop (negative pad) and a pad of
// two dims apart (channels and width).
module {
  func.func @graph(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x6x6xf32>, tensor<1x2x3x4xf32>, tensor<1x3x4x5xf32>) {
    %a = call @k0_pad(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
    %b = call @k1_pad(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x4xf32>
    %c = call @k2_pad(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x3x4x5xf32>
    return %a, %b, %c : tensor<1x2x6x6xf32>, tensor<1x2x3x4xf32>, tensor<1x3x4x5xf32>
  }
  // expected-error @+1 {{kernel k0_pad: a pad in reflect mode has no lowering template yet}}
  func.func private @k0_pad(%a: tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.pad %a {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
    return %p : tensor<1x2x6x6xf32>
  }
  // expected-error @+1 {{kernel k1_pad: a pad with negative pads (a crop) has no lowering template yet}}
  func.func private @k1_pad(%a: tensor<1x2x4x4xf32>) -> tensor<1x2x3x4xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.pad %a {pads = array<i64: 0, 0, -1, 0, 0, 0, 0, 0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x4xf32>
    return %p : tensor<1x2x3x4xf32>
  }
  // expected-error @+1 {{kernel k2_pad: a pad of more than two dims or of two dims apart has no lowering template yet}}
  func.func private @k2_pad(%a: tensor<1x2x4x4xf32>) -> tensor<1x3x4x5xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %p = vg.pad %a {pads = array<i64: 0, 0, 0, 0, 0, 1, 0, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x3x4x5xf32>
    return %p : tensor<1x3x4x5xf32>
  }
}
