// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// The K third of a fused QKV projection (f16 intermediate): a slice of the
// last dim is a gather of rows of 768 elements with the source row stride
// as the burst gap ((2304 - 768) x 2 = 3072 bytes), stored contiguously;
// 128 rows over 8 blocks, one tile of 16 rows each.
// CHECK-LABEL: dv.kernel @k1_slice
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<1x128x2304xf16>, %[[OUT:.+]]: !dv.gm<1x128x768xf16>)
// CHECK-SAME: attributes {block_dim = 8 : i64, kind = "vector"
// CHECK: %[[TILE:.+]] = dv.alloc : !dv.buf<ub, 12288xf16>
// CHECK: dv.alloc : !dv.buf<ub, 12288xf16>
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[SRC:.+]] = dv.view %[[IN]][%[[BID]] * 36864 + 768] : !dv.gm<1x128x2304xf16> to !dv.gm<35328xf16>
// CHECK: dv.copy %[[SRC]] to %[[TILE]] {burst_bytes = 1536 : i64, bursts = 16 : i64, src_gap = 3072 : i64}
// CHECK: %[[DST:.+]] = dv.view %[[OUT]][%[[BID]] * 12288] : !dv.gm<1x128x768xf16> to !dv.gm<12288xf16>
// CHECK: dv.copy %[[TILE]] to %[[DST]] {burst_bytes = 24576 : i64}
// SYNC-LABEL: dv.kernel @k1_slice
// SYNC: dv.alloc offset 0 : !dv.buf<ub, 12288xf16>
// SYNC: dv.set_flag MTE2 -> MTE3
// SYNC: dv.wait_flag MTE2 -> MTE3
module {
  func.func @graph(%x: tensor<1x128x2304xf32>) -> tensor<1x128x768xf32> {
    %a = call @k0_relu(%x) : (tensor<1x128x2304xf32>) -> tensor<1x128x2304xf32>
    %s = call @k1_slice(%a) : (tensor<1x128x2304xf32>) -> tensor<1x128x768xf32>
    %z = call @k2_relu(%s) : (tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
    return %z : tensor<1x128x768xf32>
  }
  func.func private @k0_relu(%a: tensor<1x128x2304xf32>) -> tensor<1x128x2304xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x128x2304xf32>
    return %r : tensor<1x128x2304xf32>
  }
  func.func private @k1_slice(%a: tensor<1x128x2304xf32>) -> tensor<1x128x768xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s = vg.slice %a {starts = array<i64: 768>, ends = array<i64: 1536>, axes = array<i64: -1>, steps = array<i64: 1>} : (tensor<1x128x2304xf32>) -> tensor<1x128x768xf32>
    return %s : tensor<1x128x768xf32>
  }
  func.func private @k2_relu(%a: tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x128x768xf32>
    return %r : tensor<1x128x768xf32>
  }
}

// -----

// i32, step 2 on dim 0 and one element of the innermost dim: rows of one
// element (4-byte bursts, each padded to 32 B in UB) along the longest dim
// (150 bursts, source stride 2 x 50 elements), the other dim's 10 tiles
// software-pipelined over two UB tiles: tile 0 loaded first, the loop loads
// tiles 2i+1 and 2i+2 behind the stores of 2i and 2i+1, then tile 9.
// CHECK-LABEL: dv.kernel @k0_slice
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<300x10x5xi32>, %[[OUT:.+]]: !dv.gm<150x10x1xi32>)
// CHECK-SAME: attributes {block_dim = 1 : i64, kind = "vector"
// CHECK: %[[PING:.+]] = dv.alloc : !dv.buf<ub, 1200xi32>
// CHECK: %[[PONG:.+]] = dv.alloc : !dv.buf<ub, 1200xi32>
// CHECK: %[[S0:.+]] = dv.view %[[IN]][53] : !dv.gm<300x10x5xi32> to !dv.gm<14901xi32>
// CHECK: dv.copy %[[S0]] to %[[PING]] {burst_bytes = 4 : i64, bursts = 150 : i64, dst_gap = 28 : i64, src_gap = 396 : i64}
// CHECK: dv.loop %[[I:.+]] trip 4 {
// CHECK: %[[S1:.+]] = dv.view %[[IN]][%[[I]] * 10 + 58]
// CHECK: dv.copy %[[S1]] to %[[PONG]]
// CHECK: %[[D0:.+]] = dv.view %[[OUT]][%[[I]] * 2] : !dv.gm<150x10x1xi32> to !dv.gm<1491xi32>
// CHECK: dv.copy %[[PING]] to %[[D0]] {burst_bytes = 4 : i64, bursts = 150 : i64, dst_gap = 36 : i64, src_gap = 28 : i64}
// CHECK: %[[S2:.+]] = dv.view %[[IN]][%[[I]] * 10 + 63]
// CHECK: dv.copy %[[S2]] to %[[PING]]
// CHECK: %[[D1:.+]] = dv.view %[[OUT]][%[[I]] * 2 + 1]
// CHECK: dv.copy %[[PONG]] to %[[D1]]
// CHECK: {{^ *}$}}
// CHECK: %[[S9:.+]] = dv.view %[[IN]][98]
// CHECK: dv.copy %[[S9]] to %[[PONG]]
// CHECK: %[[D8:.+]] = dv.view %[[OUT]][8]
// CHECK: dv.copy %[[PING]] to %[[D8]]
// CHECK: %[[D9:.+]] = dv.view %[[OUT]][9]
// CHECK: dv.copy %[[PONG]] to %[[D9]]
// Each tile's refill waits for its own store, the loop's first one for the
// previous iteration's last store (carried), the tail for the loop's.
// SYNC-LABEL: dv.kernel @k0_slice
// SYNC: dv.loop
// SYNC: dv.wait_flag MTE3 -> MTE2
// SYNC: dv.set_flag MTE3 -> MTE2
// SYNC: dv.set_flag MTE3 -> MTE2
// SYNC-NEXT: {{^ *}$}}
// SYNC-NEXT: dv.wait_flag MTE3 -> MTE2
module {
  func.func @graph(%x: tensor<300x10x5xi32>) -> tensor<150x10x1xi32> {
    %c = call @k0_slice(%x) : (tensor<300x10x5xi32>) -> tensor<150x10x1xi32>
    return %c : tensor<150x10x1xi32>
  }
  func.func private @k0_slice(%a: tensor<300x10x5xi32>) -> tensor<150x10x1xi32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %c = vg.slice %a {starts = array<i64: 1, 3>, ends = array<i64: 1000, 4>, axes = array<i64: 0, -1>, steps = array<i64: 2, 1>} : (tensor<300x10x5xi32>) -> tensor<150x10x1xi32>
    return %c : tensor<150x10x1xi32>
  }
}

// -----

// A split along dim 0 moves contiguous pieces: each result is one run,
// shared by 8 blocks, one burst each way. The two pieces use the two UB
// tiles, and the first store waits behind the second load.
// CHECK-LABEL: dv.kernel @k0_split
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<4x40000xf32>, %[[A:.+]]: !dv.gm<1x40000xf32>, %[[B:.+]]: !dv.gm<3x40000xf32>)
// CHECK-SAME: attributes {block_dim = 8 : i64, kind = "vector"
// CHECK: %[[PING:.+]] = dv.alloc : !dv.buf<ub, 15000xf32>
// CHECK: %[[PONG:.+]] = dv.alloc : !dv.buf<ub, 15000xf32>
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[S0:.+]] = dv.view %[[IN]][%[[BID]] * 5000] : !dv.gm<4x40000xf32> to !dv.gm<5000xf32>
// CHECK: dv.copy %[[S0]] to %[[PING]] {burst_bytes = 20000 : i64}
// CHECK: %[[S1:.+]] = dv.view %[[IN]][%[[BID]] * 15000 + 40000] : !dv.gm<4x40000xf32> to !dv.gm<15000xf32>
// CHECK: dv.copy %[[S1]] to %[[PONG]] {burst_bytes = 60000 : i64}
// CHECK: %[[D0:.+]] = dv.view %[[A]][%[[BID]] * 5000]
// CHECK: dv.copy %[[PING]] to %[[D0]] {burst_bytes = 20000 : i64}
// CHECK: %[[D1:.+]] = dv.view %[[B]][%[[BID]] * 15000]
// CHECK: dv.copy %[[PONG]] to %[[D1]] {burst_bytes = 60000 : i64}
module {
  func.func @graph(%x: tensor<4x40000xf32>) -> (tensor<1x40000xf32>, tensor<3x40000xf32>) {
    %a:2 = call @k0_split(%x) : (tensor<4x40000xf32>) -> (tensor<1x40000xf32>, tensor<3x40000xf32>)
    return %a#0, %a#1 : tensor<1x40000xf32>, tensor<3x40000xf32>
  }
  func.func private @k0_split(%a: tensor<4x40000xf32>) -> (tensor<1x40000xf32>, tensor<3x40000xf32>)
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s:2 = vg.split %a {axis = 0 : i64, split = array<i64: 1, 3>} : (tensor<4x40000xf32>) -> (tensor<1x40000xf32>, tensor<3x40000xf32>)
    return %s#0, %s#1 : tensor<1x40000xf32>, tensor<3x40000xf32>
  }
}

// -----

// A split whose first piece is unused copies only the second.
// CHECK-LABEL: dv.kernel @k0_split
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<8x6xf32>, %[[OUT:.+]]: !dv.gm<8x4xf32>)
// CHECK: %[[SRC:.+]] = dv.view %[[IN]][2] : !dv.gm<8x6xf32> to !dv.gm<46xf32>
// CHECK: dv.copy %[[SRC]] to %{{.+}} {burst_bytes = 16 : i64, bursts = 8 : i64, dst_gap = 16 : i64, src_gap = 8 : i64}
// CHECK-NOT: dv.copy %[[IN]]
module {
  func.func @graph(%x: tensor<8x6xf32>) -> tensor<8x4xf32> {
    %b = call @k0_split(%x) : (tensor<8x6xf32>) -> tensor<8x4xf32>
    return %b : tensor<8x4xf32>
  }
  func.func private @k0_split(%a: tensor<8x6xf32>) -> tensor<8x4xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s:2 = vg.split %a {axis = -1 : i64, split = array<i64: 2, 4>} : (tensor<8x6xf32>) -> (tensor<8x2xf32>, tensor<8x4xf32>)
    return %s#1 : tensor<8x4xf32>
  }
}

// -----

// A concat along the last dim writes each input's rows with the output's
// row stride as the destination gap; rows over 4 blocks (16 KiB in all).
// CHECK-LABEL: dv.kernel @k0_concat
// CHECK-SAME: (%[[X:.+]]: !dv.gm<64x48xf32>, %[[Y:.+]]: !dv.gm<64x16xf32>, %[[OUT:.+]]: !dv.gm<64x64xf32>)
// CHECK-SAME: attributes {block_dim = 4 : i64, kind = "vector"
// CHECK: %[[PING:.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK: %[[PONG:.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[SX:.+]] = dv.view %[[X]][%[[BID]] * 768] : !dv.gm<64x48xf32> to !dv.gm<768xf32>
// CHECK: dv.copy %[[SX]] to %[[PING]] {burst_bytes = 3072 : i64}
// CHECK: %[[SY:.+]] = dv.view %[[Y]][%[[BID]] * 256] : !dv.gm<64x16xf32> to !dv.gm<256xf32>
// CHECK: dv.copy %[[SY]] to %[[PONG]] {burst_bytes = 1024 : i64}
// CHECK: %[[DX:.+]] = dv.view %[[OUT]][%[[BID]] * 1024] : !dv.gm<64x64xf32> to !dv.gm<1008xf32>
// CHECK: dv.copy %[[PING]] to %[[DX]] {burst_bytes = 192 : i64, bursts = 16 : i64, dst_gap = 64 : i64}
// CHECK: %[[DY:.+]] = dv.view %[[OUT]][%[[BID]] * 1024 + 48] : !dv.gm<64x64xf32> to !dv.gm<976xf32>
// CHECK: dv.copy %[[PONG]] to %[[DY]] {burst_bytes = 64 : i64, bursts = 16 : i64, dst_gap = 192 : i64}
// SYNC-LABEL: dv.kernel @k0_concat
// SYNC: dv.wait_flag MTE2 -> MTE3
// SYNC: dv.wait_flag MTE2 -> MTE3
module {
  func.func @graph(%x: tensor<64x48xf32>, %y: tensor<64x16xf32>) -> tensor<64x64xf32> {
    %c = call @k0_concat(%x, %y) : (tensor<64x48xf32>, tensor<64x16xf32>) -> tensor<64x64xf32>
    return %c : tensor<64x64xf32>
  }
  func.func private @k0_concat(%a: tensor<64x48xf32>, %b: tensor<64x16xf32>) -> tensor<64x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %c = vg.concat %a, %b {axis = -1 : i64} : (tensor<64x48xf32>, tensor<64x16xf32>) -> tensor<64x64xf32>
    return %c : tensor<64x64xf32>
  }
}

// -----

// A concat of a graph input (f32) and an intermediate (stored f16) into a
// graph output (f32): one pair of UB tiles per element type; the f16 box is
// widened by vconv (whole repeats of 64 lanes) between its load and store.
// CHECK-LABEL: dv.kernel @k1_concat
// CHECK-SAME: (%[[X:.+]]: !dv.gm<2x40x50xf32>, %[[R:.+]]: !dv.gm<2x24x50xf16>, %[[OUT:.+]]: !dv.gm<2x64x50xf32>)
// CHECK-SAME: attributes {block_dim = 5 : i64, kind = "vector"
// CHECK: %[[F32A:.+]] = dv.alloc : !dv.buf<ub, 800xf32>
// CHECK: %[[F32B:.+]] = dv.alloc : !dv.buf<ub, 800xf32>
// CHECK: dv.alloc : !dv.buf<ub, 512xf16>
// CHECK: %[[F16B:.+]] = dv.alloc : !dv.buf<ub, 512xf16>
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[SX:.+]] = dv.view %[[X]][%[[BID]] * 400]
// CHECK: dv.copy %[[SX]] to %[[F32A]] {burst_bytes = 1600 : i64, bursts = 2 : i64, src_gap = 6400 : i64}
// CHECK: %[[SR:.+]] = dv.view %[[R]][%[[BID]] * 240] : !dv.gm<2x24x50xf16> to !dv.gm<1440xf16>
// CHECK: dv.copy %[[SR]] to %[[F16B]] {burst_bytes = 480 : i64, bursts = 2 : i64, src_gap = 1920 : i64}
// CHECK: %[[DX:.+]] = dv.view %[[OUT]][%[[BID]] * 400]
// CHECK: dv.copy %[[F32A]] to %[[DX]] {burst_bytes = 1600 : i64, bursts = 2 : i64, dst_gap = 11200 : i64}
// CHECK: %[[WIDE:.+]] = dv.view %[[F32B]][0] : !dv.buf<ub, 800xf32> to !dv.buf<ub, 512xf32>
// CHECK: dv.vconv %[[F16B]] to %[[WIDE]] {rep = array<i64: 8, 4>, repeat = 8 : i64}
// CHECK: %[[DR:.+]] = dv.view %[[OUT]][%[[BID]] * 240 + 2000]
// CHECK: dv.copy %[[F32B]] to %[[DR]] {burst_bytes = 960 : i64, bursts = 2 : i64, dst_gap = 11840 : i64}
// SYNC-LABEL: dv.kernel @k1_concat
// SYNC: dv.wait_flag MTE2 -> V
// SYNC-NEXT: dv.vconv
// SYNC-NEXT: dv.set_flag V -> MTE3
module {
  func.func @graph(%x: tensor<2x40x50xf32>, %y: tensor<2x24x50xf32>) -> tensor<2x64x50xf32> {
    %r = call @k0_relu(%y) : (tensor<2x24x50xf32>) -> tensor<2x24x50xf32>
    %c = call @k1_concat(%x, %r) : (tensor<2x40x50xf32>, tensor<2x24x50xf32>) -> tensor<2x64x50xf32>
    return %c : tensor<2x64x50xf32>
  }
  func.func private @k0_relu(%a: tensor<2x24x50xf32>) -> tensor<2x24x50xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<2x24x50xf32>
    return %r : tensor<2x24x50xf32>
  }
  func.func private @k1_concat(%a: tensor<2x40x50xf32>, %b: tensor<2x24x50xf32>) -> tensor<2x64x50xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %c = vg.concat %a, %b {axis = 1 : i64} : (tensor<2x40x50xf32>, tensor<2x24x50xf32>) -> tensor<2x64x50xf32>
    return %c : tensor<2x64x50xf32>
  }
}

// -----

// A negative step reads backwards: the source offsets step down (a negative
// loop coefficient); the other dim is gathered forwards, one burst a row.
// CHECK-LABEL: dv.kernel @k0_slice
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<20x10xf32>, %[[OUT:.+]]: !dv.gm<20x5xf32>)
// CHECK: %[[S0:.+]] = dv.view %[[IN]][9] : !dv.gm<20x10xf32> to !dv.gm<191xf32>
// CHECK: dv.copy %[[S0]] to %{{.+}} {burst_bytes = 4 : i64, bursts = 20 : i64, dst_gap = 28 : i64, src_gap = 36 : i64}
// CHECK: dv.loop %[[I:.+]] trip 2 {
// CHECK: dv.view %[[IN]][%[[I]] * -4 + 7] : !dv.gm<20x10xf32> to !dv.gm<191xf32>
// CHECK: dv.view %[[OUT]][%[[I]] * 2] : !dv.gm<20x5xf32> to !dv.gm<96xf32>
module {
  func.func @graph(%x: tensor<20x10xf32>) -> tensor<20x5xf32> {
    %y = call @k0_slice(%x) : (tensor<20x10xf32>) -> tensor<20x5xf32>
    return %y : tensor<20x5xf32>
  }
  func.func private @k0_slice(%a: tensor<20x10xf32>) -> tensor<20x5xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s = vg.slice %a {starts = array<i64: -1>, ends = array<i64: -100>, axes = array<i64: 1>, steps = array<i64: -2>} : (tensor<20x10xf32>) -> tensor<20x5xf32>
    return %s : tensor<20x5xf32>
  }
}

// -----

// A small constant the partition cloned into the kernel becomes an
// argument (cloned before the launch, stored f16 like a weight) and is
// widened to the f32 output in UB.
// CHECK-LABEL: func.func @graph
// CHECK: %[[C:.+]] = vg.constant dense<1.000000e+00> : tensor<2x1xf32>
// CHECK: dv.launch @k0_concat(%{{.+}}, %[[C]])
// CHECK-LABEL: dv.kernel @k0_concat
// CHECK-SAME: (%[[X:.+]]: !dv.gm<2x3xf32>, %[[K:.+]]: !dv.gm<2x1xf16>, %[[OUT:.+]]: !dv.gm<2x4xf32>)
// CHECK: dv.view %[[K]][0] : !dv.gm<2x1xf16> to !dv.gm<2xf16>
// CHECK: dv.vconv
module {
  func.func @graph(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
    %y = call @k0_concat(%x) : (tensor<2x3xf32>) -> tensor<2x4xf32>
    return %y : tensor<2x4xf32>
  }
  func.func private @k0_concat(%a: tensor<2x3xf32>) -> tensor<2x4xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %c = vg.constant dense<1.0> : tensor<2x1xf32>
    %r = vg.concat %a, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
    return %r : tensor<2x4xf32>
  }
}

// -----

// Near-miss: i64 has no ISA copy type (i64 tensors are stored as i32 by the
// narrowing pass before lowering).
module {
  func.func @graph(%x: tensor<4x6xi64>) -> tensor<4x3xi64> {
    %y = call @k0_slice(%x) : (tensor<4x6xi64>) -> tensor<4x3xi64>
    return %y : tensor<4x3xi64>
  }
  // expected-error @+1 {{kernel k0_slice: slice on i64 has no lowering template yet}}
  func.func private @k0_slice(%a: tensor<4x6xi64>) -> tensor<4x3xi64>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s = vg.slice %a {starts = array<i64: 3>, ends = array<i64: 6>, axes = array<i64: 1>, steps = array<i64: 1>} : (tensor<4x6xi64>) -> tensor<4x3xi64>
    return %s : tensor<4x3xi64>
  }
}

// -----

// A transpose that moves the innermost dim, from an f16 intermediate to an
// f32 graph output: rows of one element (2-byte bursts, each padded to
// 32 B in UB), read contiguously along the output's dim 0 (source stride 1)
// and written at the output's row stride ((32 - 1) x 4 = 124 bytes apart),
// converted by vconv in between.
// CHECK-LABEL: dv.kernel @k1_transpose
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<32x48xf16>, %[[OUT:.+]]: !dv.gm<48x32xf32>)
// CHECK-SAME: vinci.template = "data movement"
// CHECK: %[[H0:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK: %[[H1:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK: %[[F0:.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK: %[[S0:.+]] = dv.view %[[IN]][0] : !dv.gm<32x48xf16> to !dv.gm<48xf16>
// CHECK: dv.copy %[[S0]] to %[[H0]] {burst_bytes = 2 : i64, bursts = 48 : i64, dst_gap = 30 : i64}
// CHECK: dv.loop %[[I:.+]] trip 15 {
// CHECK: dv.vconv %[[H0]] to %[[F0]] {rep = array<i64: 8, 4>, repeat = 12 : i64}
// CHECK: %[[D0:.+]] = dv.view %[[OUT]][%[[I]] * 2] : !dv.gm<48x32xf32> to !dv.gm<1505xf32>
// CHECK: dv.copy %[[F0]] to %[[D0]] {burst_bytes = 4 : i64, bursts = 48 : i64, dst_gap = 124 : i64, src_gap = 60 : i64}
module {
  func.func @graph(%x: tensor<32x48xf32>) -> tensor<48x32xf32> {
    %a = call @k0_relu(%x) : (tensor<32x48xf32>) -> tensor<32x48xf32>
    %y = call @k1_transpose(%a) : (tensor<32x48xf32>) -> tensor<48x32xf32>
    return %y : tensor<48x32xf32>
  }
  func.func private @k0_relu(%a: tensor<32x48xf32>) -> tensor<32x48xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<32x48xf32>
    return %r : tensor<32x48xf32>
  }
  func.func private @k1_transpose(%a: tensor<32x48xf32>) -> tensor<48x32xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.transpose %a {perm = array<i64: 1, 0>} : (tensor<32x48xf32>) -> tensor<48x32xf32>
    return %t : tensor<48x32xf32>
  }
}

// -----

// Expand [3, 1, 40] -> [2, 3, 8, 40]: the broadcast dims (0 and 2) read
// the source at stride 0, so each tile is the whole source (3 rows of 40,
// 80-byte bursts) stored at the output's row stride (8 x 40 elements:
// gap (320 - 40) x 4 = 1120 bytes); dim 0 a loop, dim 2 the pipelined
// sequence (tiles 40 elements apart in the output, 0 in the source).
// CHECK-LABEL: dv.kernel @k1_expand
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<3x1x40xf16>, %[[OUT:.+]]: !dv.gm<2x3x8x40xf32>)
// CHECK: dv.loop %[[B:.+]] trip 2 {
// CHECK: %[[S0:.+]] = dv.view %[[IN]][0] : !dv.gm<3x1x40xf16> to !dv.gm<120xf16>
// CHECK: dv.copy %[[S0]] to %{{.+}} {burst_bytes = 80 : i64, bursts = 3 : i64, dst_gap = 16 : i64}
// CHECK: dv.loop %[[J:.+]] trip 3 {
// CHECK: %[[S1:.+]] = dv.view %[[IN]][0] : !dv.gm<3x1x40xf16> to !dv.gm<120xf16>
// CHECK: %[[D0:.+]] = dv.view %[[OUT]][%[[B]] * 960 + %[[J]] * 80] : !dv.gm<2x3x8x40xf32> to !dv.gm<680xf32>
// CHECK: dv.copy %{{.+}} to %[[D0]] {burst_bytes = 160 : i64, bursts = 3 : i64, dst_gap = 1120 : i64, src_gap = 32 : i64}
// CHECK: %[[D1:.+]] = dv.view %[[OUT]][%[[B]] * 960 + %[[J]] * 80 + 40]
module {
  func.func @graph(%x: tensor<3x1x40xf32>) -> tensor<2x3x8x40xf32> {
    %a = call @k0_relu(%x) : (tensor<3x1x40xf32>) -> tensor<3x1x40xf32>
    %y = call @k1_expand(%a) : (tensor<3x1x40xf32>) -> tensor<2x3x8x40xf32>
    return %y : tensor<2x3x8x40xf32>
  }
  func.func private @k0_relu(%a: tensor<3x1x40xf32>) -> tensor<3x1x40xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<3x1x40xf32>
    return %r : tensor<3x1x40xf32>
  }
  func.func private @k1_expand(%a: tensor<3x1x40xf32>) -> tensor<2x3x8x40xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.expand %a {shape = array<i64: 2, 1, 8, 1>} : (tensor<3x1x40xf32>) -> tensor<2x3x8x40xf32>
    return %t : tensor<2x3x8x40xf32>
  }
}

// -----

// Tile [3, 3, 3, 1] x [3, 3, 3, 3]: each output dim d is (repeat, input
// dim d) with source strides (0, stride of d), 7 dims besides the row of
// one element; too small for more than one block, the loop nest needs 5
// levels, so the outermost (dim 0's repeat, 729 output elements apart) is
// unrolled into 3 straight-line copies of a 4-deep nest.
// CHECK-LABEL: dv.kernel @k0_tile
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<3x3x3x1xf32>, %[[OUT:.+]]: !dv.gm<9x9x9x3xf32>)
// CHECK-SAME: block_dim = 1 : i64
// CHECK-COUNT-4: dv.loop
// CHECK: %[[D0:.+]] = dv.view %[[OUT]][%[[A:.+]] * 81 + %[[B:.+]] * 27 + %[[C:.+]] * 9 + %[[D:.+]] * 3] : !dv.gm<9x9x9x3xf32>
// CHECK: dv.copy %{{.+}} to %[[D0]] {burst_bytes = 4 : i64, bursts = 3 : i64, dst_gap = 968 : i64, src_gap = 28 : i64}
// CHECK-COUNT-4: dv.loop
// CHECK: dv.view %[[OUT]][%{{.+}} * 81 + %{{.+}} * 27 + %{{.+}} * 9 + %{{.+}} * 3 + 729]
// CHECK-COUNT-4: dv.loop
// CHECK: dv.view %[[OUT]][%{{.+}} * 81 + %{{.+}} * 27 + %{{.+}} * 9 + %{{.+}} * 3 + 1458]
// CHECK-NOT: dv.loop
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<3x3x3x1xf32>) -> tensor<9x9x9x3xf32> {
    %y = call @k0_tile(%x) : (tensor<3x3x3x1xf32>) -> tensor<9x9x9x3xf32>
    return %y : tensor<9x9x9x3xf32>
  }
  func.func private @k0_tile(%a: tensor<3x3x3x1xf32>) -> tensor<9x9x9x3xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.tile %a {repeats = array<i64: 3, 3, 3, 3>} : (tensor<3x3x3x1xf32>) -> tensor<9x9x9x3xf32>
    return %t : tensor<9x9x9x3xf32>
  }
}

// -----

// Near-miss: the ISA has no 64-bit copies (vinci-narrow-int64 leaves this
// i64 tile because it is a graph input and output).
module {
  func.func @graph(%x: tensor<2x3xi64>) -> tensor<4x3xi64> {
    %y = call @k0_tile(%x) : (tensor<2x3xi64>) -> tensor<4x3xi64>
    return %y : tensor<4x3xi64>
  }
  // expected-error @+1 {{kernel k0_tile: tile on i64 has no lowering template yet}}
  func.func private @k0_tile(%a: tensor<2x3xi64>) -> tensor<4x3xi64>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %t = vg.tile %a {repeats = array<i64: 2, 1>} : (tensor<2x3xi64>) -> tensor<4x3xi64>
    return %t : tensor<4x3xi64>
  }
}

// -----

// Bools (i1) are one byte an element in GM, as the elementwise template
// stores them: the slice copies them as ui8 (8-byte bursts, source row
// stride 40 bytes: gap 32; each row padded to 32 B in UB).
// CHECK-LABEL: dv.kernel @k0_slice
// CHECK-SAME: (%[[IN:.+]]: !dv.gm<4x40xui8>, %[[OUT:.+]]: !dv.gm<4x8xui8>)
// CHECK: %[[TILE:.+]] = dv.alloc : !dv.buf<ub, 128xui8>
// CHECK: %[[SRC:.+]] = dv.view %[[IN]][8] : !dv.gm<4x40xui8> to !dv.gm<128xui8>
// CHECK: dv.copy %[[SRC]] to %[[TILE]] {burst_bytes = 8 : i64, bursts = 4 : i64, dst_gap = 24 : i64, src_gap = 32 : i64}
// CHECK: %[[DST:.+]] = dv.view %[[OUT]][0] : !dv.gm<4x8xui8> to !dv.gm<32xui8>
// CHECK: dv.copy %[[TILE]] to %[[DST]] {burst_bytes = 8 : i64, bursts = 4 : i64, src_gap = 24 : i64}
module {
  func.func @graph(%x: tensor<4x40xi1>) -> tensor<4x8xi1> {
    %y = call @k0_slice(%x) : (tensor<4x40xi1>) -> tensor<4x8xi1>
    return %y : tensor<4x8xi1>
  }
  func.func private @k0_slice(%a: tensor<4x40xi1>) -> tensor<4x8xi1>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s = vg.slice %a {starts = array<i64: 8>, ends = array<i64: 16>, axes = array<i64: 1>, steps = array<i64: 1>} : (tensor<4x40xi1>) -> tensor<4x8xi1>
    return %s : tensor<4x8xi1>
  }
}
