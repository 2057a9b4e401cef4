// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Attention's head split on an f16 intermediate: one slab of 128 rows a
// head, gathered with the source row stride as the burst gap (12 x 64 - 64
// elements = 1408 bytes), written back contiguously; heads over 6 blocks.
// CHECK-LABEL: dv.kernel @k1_transpose
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<1x128x12x64xf16>, %[[OUT:.+]]: !dv.gm<1x12x128x64xf16>)
// CHECK-SAME: attributes {block_dim = 6 : i64, kind = "vector"
// CHECK: %[[SLAB:.+]] = dv.alloc : !dv.buf<ub, 8192xf16>
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.loop %[[H:.+]] trip 2 {
// CHECK: %[[SRC:.+]] = dv.view %[[IN]][%[[BID]] * 128 + %[[H]] * 64] : !dv.gm<1x128x12x64xf16> to !dv.gm<97600xf16>
// CHECK: %[[DST:.+]] = dv.view %[[OUT]][%[[BID]] * 16384 + %[[H]] * 8192] : !dv.gm<1x12x128x64xf16> to !dv.gm<8192xf16>
// CHECK: dv.copy %[[SRC]] to %[[SLAB]] {burst_bytes = 128 : i64, bursts = 128 : i64, src_gap = 1408 : i64}
// CHECK: dv.copy %[[SLAB]] to %[[DST]] {burst_bytes = 16384 : i64}
// SYNC-LABEL: dv.kernel @k1_transpose
// SYNC: dv.alloc offset 0 : !dv.buf<ub, 8192xf16>
// SYNC: dv.set_flag MTE2 -> MTE3
// SYNC: dv.wait_flag MTE2 -> MTE3
module {
  func.func @graph(%x: tensor<1x128x768xf32>) -> tensor<1x12x128x64xf32> {
    %a = call @k0_relu(%x) : (tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
    %r = vg.reshape %a {shape = array<i64: 1, 128, 12, 64>} : (tensor<1x128x768xf32>) -> tensor<1x128x12x64xf32>
    %y = call @k1_transpose(%r) : (tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32>
    %z = call @k2_relu(%y) : (tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32>
    return %z : tensor<1x12x128x64xf32>
  }
  func.func private @k0_relu(%a: tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x128x768xf32>
    return %r : tensor<1x128x768xf32>
  }
  func.func private @k1_transpose(%a: tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32>
    return %t : tensor<1x12x128x64xf32>
  }
  func.func private @k2_relu(%a: tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x12x128x64xf32>
    return %r : tensor<1x12x128x64xf32>
  }
}

// -----

// Near-miss: moving the innermost dim is not a row move; the data-movement
// template copies it element by element (4-byte bursts).
// CHECK-LABEL: dv.kernel @k0_transpose
// CHECK-SAME: vinci.template = "data movement"
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 4 : i64
module {
  func.func @graph(%x: tensor<64x32xf32>) -> tensor<32x64xf32> {
    %y = call @k0_transpose(%x) : (tensor<64x32xf32>) -> tensor<32x64xf32>
    return %y : tensor<32x64xf32>
  }
  func.func private @k0_transpose(%a: tensor<64x32xf32>) -> tensor<32x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.transpose %a {perm = array<i64: 1, 0>} : (tensor<64x32xf32>) -> tensor<32x64xf32>
    return %t : tensor<32x64xf32>
  }
}

// -----

// Near-miss: rows of 8 bytes do not start 32-byte aligned in a slab; the
// data-movement template pads each row to 32 B in UB (dst_gap 24).
// CHECK-LABEL: dv.kernel @k0_transpose
// CHECK-SAME: vinci.template = "data movement"
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 8 : i64, bursts = {{[0-9]+}} : i64, dst_gap = 24 : i64
module {
  func.func @graph(%x: tensor<8x6x2xf32>) -> tensor<6x8x2xf32> {
    %y = call @k0_transpose(%x) : (tensor<8x6x2xf32>) -> tensor<6x8x2xf32>
    return %y : tensor<6x8x2xf32>
  }
  func.func private @k0_transpose(%a: tensor<8x6x2xf32>) -> tensor<6x8x2xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<8x6x2xf32>) -> tensor<6x8x2xf32>
    return %t : tensor<6x8x2xf32>
  }
}

// -----

// An f32 graph input transposed into an f16 intermediate: the slab is
// converted in UB (vconv, 8 f32 blocks to 4 f16 blocks a repeat) between
// the strided load and the contiguous store.
// CHECK-LABEL: dv.kernel @k0_transpose
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<1x16x4x16xf32>, %[[OUT:.+]]: !dv.gm<1x4x16x16xf16>)
// CHECK: %[[SLAB:.+]] = dv.alloc : !dv.buf<ub, 256xf32>
// CHECK: %[[HALF:.+]] = dv.alloc : !dv.buf<ub, 256xf16>
// CHECK: dv.copy %{{.+}} to %[[SLAB]] {burst_bytes = 64 : i64, bursts = 16 : i64, src_gap = 192 : i64}
// CHECK: dv.vconv %{{.+}} to %{{.+}} {rep = array<i64: 4, 8>, repeat = 4 : i64} : !dv.buf<ub, 256xf32> to !dv.buf<ub, 256xf16>
// CHECK: dv.copy %[[HALF]] to %{{.+}} {burst_bytes = 512 : i64}
module {
  func.func @graph(%x: tensor<1x16x4x16xf32>) -> tensor<1x4x16x16xf32> {
    %t = call @k0_transpose(%x) : (tensor<1x16x4x16xf32>) -> tensor<1x4x16x16xf32>
    %y = call @k1_relu(%t) : (tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
    return %y : tensor<1x4x16x16xf32>
  }
  func.func private @k0_transpose(%a: tensor<1x16x4x16xf32>) -> tensor<1x4x16x16xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x16x4x16xf32>) -> tensor<1x4x16x16xf32>
    return %t : tensor<1x4x16x16xf32>
  }
  func.func private @k1_relu(%a: tensor<1x4x16x16xf32>) -> tensor<1x4x16x16xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x4x16x16xf32>
    return %r : tensor<1x4x16x16xf32>
  }
}

// -----

// An f16 transpose that moves the innermost dim (X = 64, the input's
// innermost, becomes the output's rows; Y = 48): per strip of 16 X, one
// MTE2 copy gathers 48 rows of 16 elements (32-byte bursts, source stride
// 64: gap 96 B) as 3 tiles, vtranspose turns them, 16 UB -> UB copies
// regroup output row x (one 32-byte burst from each tile, 480 B apart) at
// x * 48 in the freed first buffer, and one MTE3 copy stores the strip's
// 16 rows. Batches over 2 blocks, strips in a loop.
// CHECK-LABEL: dv.kernel @k1_transpose
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<2x48x64xf16>, %[[OUT:.+]]: !dv.gm<2x64x48xf16>)
// CHECK-SAME: attributes {block_dim = 2 : i64, kind = "vector"{{.*}}vinci.template = "transpose"
// CHECK: %[[ROWS:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK: %[[COLS:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.loop %[[T:.+]] trip 4 {
// CHECK: %[[SRC:.+]] = dv.view %[[IN]][%[[BID]] * 3072 + %[[T]] * 16] : !dv.gm<2x48x64xf16> to !dv.gm<3024xf16>
// CHECK: dv.copy %[[SRC]] to %[[ROWS]] {burst_bytes = 32 : i64, bursts = 48 : i64, src_gap = 96 : i64}
// CHECK: dv.vtranspose %[[ROWS]] to %[[COLS]] {tiles = 3 : i64}
// CHECK: dv.loop %[[X:.+]] trip 16 {
// CHECK: %[[FROM:.+]] = dv.view %[[COLS]][%[[X]] * 16] : !dv.buf<ub, 768xf16> to !dv.buf<ub, 528xf16>
// CHECK: %[[TO:.+]] = dv.view %[[ROWS]][%[[X]] * 48] : !dv.buf<ub, 768xf16> to !dv.buf<ub, 48xf16>
// CHECK: dv.copy %[[FROM]] to %[[TO]] {burst_bytes = 32 : i64, bursts = 3 : i64, src_gap = 480 : i64}
// CHECK: }
// CHECK: %[[DST:.+]] = dv.view %[[OUT]][%[[BID]] * 3072 + %[[T]] * 768] : !dv.gm<2x64x48xf16> to !dv.gm<768xf16>
// CHECK: dv.copy %[[ROWS]] to %[[DST]] {burst_bytes = 96 : i64, bursts = 16 : i64}
// SYNC-LABEL: dv.kernel @k1_transpose
// SYNC: dv.wait_flag MTE2 -> V
// SYNC: dv.vtranspose
// SYNC: dv.wait_flag V -> MTE3
module {
  func.func @graph(%x: tensor<2x48x64xf32>) -> tensor<2x64x48xf32> {
    %a = call @k0_relu(%x) : (tensor<2x48x64xf32>) -> tensor<2x48x64xf32>
    %t = call @k1_transpose(%a) : (tensor<2x48x64xf32>) -> tensor<2x64x48xf32>
    %y = call @k2_relu(%t) : (tensor<2x64x48xf32>) -> tensor<2x64x48xf32>
    return %y : tensor<2x64x48xf32>
  }
  func.func private @k0_relu(%a: tensor<2x48x64xf32>) -> tensor<2x48x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<2x48x64xf32>
    return %r : tensor<2x48x64xf32>
  }
  func.func private @k1_transpose(%a: tensor<2x48x64xf32>) -> tensor<2x64x48xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.transpose %a {perm = array<i64: 0, 2, 1>} : (tensor<2x48x64xf32>) -> tensor<2x64x48xf32>
    return %t : tensor<2x64x48xf32>
  }
  func.func private @k2_relu(%a: tensor<2x64x48xf32>) -> tensor<2x64x48xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<2x64x48xf32>
    return %r : tensor<2x64x48xf32>
  }
}

// -----

// Near-miss of the tile transpose: Y = 24 is not a multiple of 16, so the
// data-movement template copies element by element.
// CHECK-LABEL: dv.kernel @k1_transpose
// CHECK-SAME: vinci.template = "data movement"
// CHECK-NOT: dv.vtranspose
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 2 : i64
module {
  func.func @graph(%x: tensor<24x64xf32>) -> tensor<64x24xf32> {
    %a = call @k0_relu(%x) : (tensor<24x64xf32>) -> tensor<24x64xf32>
    %t = call @k1_transpose(%a) : (tensor<24x64xf32>) -> tensor<64x24xf32>
    %y = call @k2_relu(%t) : (tensor<64x24xf32>) -> tensor<64x24xf32>
    return %y : tensor<64x24xf32>
  }
  func.func private @k0_relu(%a: tensor<24x64xf32>) -> tensor<24x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<24x64xf32>
    return %r : tensor<24x64xf32>
  }
  func.func private @k1_transpose(%a: tensor<24x64xf32>) -> tensor<64x24xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.transpose %a {perm = array<i64: 1, 0>} : (tensor<24x64xf32>) -> tensor<64x24xf32>
    return %t : tensor<64x24xf32>
  }
  func.func private @k2_relu(%a: tensor<64x24xf32>) -> tensor<64x24xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<64x24xf32>
    return %r : tensor<64x24xf32>
  }
}
