// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Golden: an RGB888 image, B, G, R read (rbuv swap), cropped to 4 x 16 from
// column 2, into an f16 intermediate. One block a row; the 16 pixels' 48
// bytes load at (row * 20 + 2) * 3 and widen to f16 (6 repeats of 128);
// three UB -> UB gathers (blocks k, k + 3, ..., 64-byte gaps) make the
// tiles, vtranspose turns them, three more gathers and a second vtranspose
// leave the planes; plane 2 (B) widens to f32 first. Channel 0 subtracts
// min 123.5 and halves; channels 1 and 2 are converted untouched; each
// stores its 16 pixels at channel * 4 rows + row.
// CHECK-LABEL: dv.kernel @k0_aipp
// CHECK-SAME: (%[[IMG:.+]]: !dv.gm<1x4x20x3xui8>, %[[OUT:.+]]: !dv.gm<1x3x4x16xf16>)
// CHECK-SAME: block_dim = 4 : i64, kind = "vector"
// CHECK: %[[RAW:.+]] = dv.alloc : !dv.buf<ub, 768xui8>
// CHECK-NEXT: %[[PACKED:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK-NEXT: %[[SCRATCH:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK-NEXT: %[[PLANES:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK-NEXT: %[[X:.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK-NEXT: %[[Z:.+]] = dv.alloc : !dv.buf<ub, 768xf32>
// CHECK-NEXT: %[[O:.+]] = dv.alloc : !dv.buf<ub, 768xf16>
// CHECK-NEXT: %[[BID:.+]] = dv.block_idx
// CHECK-NEXT: %[[LOADED:.+]] = dv.view %[[RAW]][0] : !dv.buf<ub, 768xui8> to !dv.buf<ub, 48xui8>
// CHECK-NEXT: %[[ROW:.+]] = dv.view %[[IMG]][(%[[BID]] * 20 + 2) * 3] : !dv.gm<1x4x20x3xui8> to !dv.gm<48xui8>
// CHECK-NEXT: dv.copy %[[ROW]] to %[[LOADED]] {burst_bytes = 48 : i64}
// CHECK-NEXT: dv.vconv %[[RAW]] to %[[PACKED]] {rep = array<i64: 8, 4>, repeat = 6 : i64} : !dv.buf<ub, 768xui8> to !dv.buf<ub, 768xf16>
// CHECK-NEXT: %[[S0:.+]] = dv.view %[[PACKED]][0] : !dv.buf<ub, 768xf16> to !dv.buf<ub, 736xf16>
// CHECK-NEXT: %[[T0:.+]] = dv.view %[[SCRATCH]][0] : !dv.buf<ub, 768xf16> to !dv.buf<ub, 256xf16>
// CHECK-NEXT: dv.copy %[[S0]] to %[[T0]] {burst_bytes = 32 : i64, bursts = 16 : i64, src_gap = 64 : i64}
// CHECK-NEXT: %[[S1:.+]] = dv.view %[[PACKED]][16]
// CHECK-NEXT: %[[T1:.+]] = dv.view %[[SCRATCH]][256]
// CHECK-NEXT: dv.copy %[[S1]] to %[[T1]] {burst_bytes = 32 : i64, bursts = 16 : i64, src_gap = 64 : i64}
// CHECK-NEXT: %[[S2:.+]] = dv.view %[[PACKED]][32]
// CHECK-NEXT: %[[T2:.+]] = dv.view %[[SCRATCH]][512]
// CHECK-NEXT: dv.copy %[[S2]] to %[[T2]] {burst_bytes = 32 : i64, bursts = 16 : i64, src_gap = 64 : i64}
// CHECK-NEXT: dv.vtranspose %[[SCRATCH]] to %[[PLANES]] {tiles = 3 : i64}
// CHECK-COUNT-3: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 32 : i64, bursts = 16 : i64, src_gap = 64 : i64}
// CHECK-NEXT: dv.vtranspose %[[SCRATCH]] to %[[PLANES]] {tiles = 3 : i64}
// CHECK-NEXT: %[[X0:.+]] = dv.view %[[X]][0] : !dv.buf<ub, 768xf32> to !dv.buf<ub, 256xf32>
// CHECK-NEXT: %[[B:.+]] = dv.view %[[PLANES]][512] : !dv.buf<ub, 768xf16> to !dv.buf<ub, 256xf16>
// CHECK-NEXT: dv.vconv %[[B]] to %[[X0]] {rep = array<i64: 8, 4>, repeat = 4 : i64}
// CHECK: %[[Z0:.+]] = dv.view %[[Z]][0] : !dv.buf<ub, 768xf32> to !dv.buf<ub, 256xf32>
// CHECK-NEXT: %[[X0B:.+]] = dv.view %[[X]][0]
// CHECK-NEXT: dv.vadds %[[X0B]], -1.235000e+02 : f32 to %[[Z0]] {repeat = 4 : i64}
// CHECK-NEXT: %[[Z0B:.+]] = dv.view %[[Z]][0]
// CHECK-NEXT: dv.vmuls %[[Z0]], 5.000000e-01 : f32 to %[[Z0B]] {repeat = 4 : i64}
// CHECK-NEXT: %[[O0:.+]] = dv.view %[[O]][0] : !dv.buf<ub, 768xf16> to !dv.buf<ub, 256xf16>
// CHECK-NEXT: dv.vconv %[[Z0B]] to %[[O0]] {rep = array<i64: 4, 8>, repeat = 4 : i64}
// CHECK-NEXT: %[[DST0:.+]] = dv.view %[[OUT]][%[[BID]] * 16] : !dv.gm<1x3x4x16xf16> to !dv.gm<16xf16>
// CHECK-NEXT: %[[RUN0:.+]] = dv.view %[[O0]][0] : !dv.buf<ub, 256xf16> to !dv.buf<ub, 16xf16>
// CHECK-NEXT: dv.copy %[[RUN0]] to %[[DST0]] {burst_bytes = 32 : i64}
// CHECK-NOT: dv.vadds
// CHECK: dv.view %[[OUT]][(%[[BID]] + 4) * 16]
// CHECK-NOT: dv.vadds
// CHECK: dv.view %[[OUT]][(%[[BID]] + 8) * 16]
// CHECK: dv.return
// SYNC-LABEL: dv.kernel @k0_aipp
// SYNC: dv.set_flag MTE2 -> V
// SYNC: dv.wait_flag MTE2 -> V
// SYNC: dv.set_flag V -> MTE3
// SYNC: dv.wait_flag V -> MTE3
module {
  func.func @graph(%img: tensor<1x4x20x3xui8>) -> tensor<1x3x4x16xf32> {
    %x = call @k0_aipp(%img) : (tensor<1x4x20x3xui8>) -> tensor<1x3x4x16xf32>
    %y = call @k1_relu(%x) : (tensor<1x3x4x16xf32>) -> tensor<1x3x4x16xf32>
    return %y : tensor<1x3x4x16xf32>
  }
  func.func private @k0_aipp(%a: tensor<1x4x20x3xui8>) -> tensor<1x3x4x16xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %x = vg.aipp %a {channels = array<i64: 2, 1, 0>, crop = array<i64: 0, 2, 4, 16>, csc_input_bias = array<i64: 0, 0, 0>, csc_output_bias = array<i64: 0, 0, 0>, input_format = "RGB888_U8", mean = array<f32: 0.0, 0.0, 0.0>, min = array<f32: 123.5, 0.0, 0.0>, padding = array<i64: 0, 0, 0, 0>, padding_value = 0.0 : f32, to = f32, var_reci = array<f32: 0.5, 1.0, 1.0>} : (tensor<1x4x20x3xui8>) -> tensor<1x3x4x16xf32>
    return %x : tensor<1x3x4x16xf32>
  }
  func.func private @k1_relu(%a: tensor<1x3x4x16xf32>) -> tensor<1x3x4x16xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x3x4x16xf32>
    return %r : tensor<1x3x4x16xf32>
  }
}

// -----

// NV12 with ATC's JPEG matrix, padded (2, 2, 1, 1) with -1 into a graph
// output (f32). A block a row pair: its share of the top and bottom
// padding (one row of 10 per channel and side) first, then per pair the UV
// row (at the Y plane's end, 4 x 8 = 32) split into U and V and each
// doubled by two transposes and scatters (32-byte gaps), then for each of
// the two Y rows the matrix rows as vmuls / vaxpy (zero entries skipped),
// the input bias folded (R: -359 * 128 = -45952), / 256, floor, clamp, and
// the 8 pixels stored at row 2 + 2 b (+ 1) of each channel, column 1; the
// left and right padding of both rows last.
// CHECK-LABEL: dv.kernel @k0_aipp
// CHECK-SAME: (%[[IMG:.+]]: !dv.gm<1x6x8x1xui8>, %[[OUT:.+]]: !dv.gm<1x3x8x10xf32>)
// CHECK-SAME: block_dim = 2 : i64
// CHECK: %[[FLOOR:.+]] = dv.alloc : !dv.buf<ub, 512xi32>
// CHECK-NEXT: %[[FILL:.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: dv.vdup -1.000000e+00 : f32 to %[[FILL]] {repeat = 1 : i64}
// CHECK-NEXT: %[[BID:.+]] = dv.block_idx
// CHECK-NEXT: dv.view %[[OUT]][%[[BID]] * 10] : !dv.gm<1x3x8x10xf32> to !dv.gm<10xf32>
// CHECK: dv.view %[[OUT]][%[[BID]] * 10 + 60]
// CHECK: dv.view %[[OUT]][%[[BID]] * 10 + 220]
// CHECK: %[[UV:.+]] = dv.view %[[IMG]][%[[BID]] * 8 + 32] : !dv.gm<1x6x8x1xui8> to !dv.gm<8xui8>
// CHECK-NEXT: dv.copy %[[UV]] to %{{.+}} {burst_bytes = 8 : i64}
// CHECK-COUNT-2: {burst_bytes = 32 : i64, bursts = 16 : i64, src_gap = 32 : i64}
// CHECK: dv.vtranspose {{.+}} {tiles = 2 : i64}
// CHECK-COUNT-2: {burst_bytes = 32 : i64, bursts = 16 : i64, src_gap = 32 : i64}
// CHECK: dv.vtranspose {{.+}} {tiles = 2 : i64}
// CHECK: dv.vtranspose {{.+}} {tiles = 1 : i64}
// CHECK-COUNT-2: {burst_bytes = 32 : i64, bursts = 16 : i64, dst_gap = 32 : i64}
// CHECK: dv.view %[[IMG]][%[[BID]] * 16] : !dv.gm<1x6x8x1xui8> to !dv.gm<8xui8>
// CHECK: dv.vmuls %{{.+}}, 2.560000e+02 : f32 to %[[R:[^ ]+]]
// CHECK-NEXT: dv.view
// CHECK-NEXT: dv.vaxpy %{{.+}}, 3.590000e+02 : f32 to %[[R]]
// CHECK-NEXT: dv.vadds %[[R]], -4.595200e+04 : f32 to %[[R]]
// CHECK-NEXT: dv.vmuls %[[R]], 3.906250e-03 : f32 to %[[R]]
// CHECK-NEXT: dv.vconv %[[R]] to %[[FLOOR]] round floor {repeat = 8 : i64}
// CHECK-NEXT: dv.vconv %[[FLOOR]] to %[[R]] {repeat = 8 : i64}
// CHECK-NEXT: dv.vmaxs %[[R]], 0.000000e+00 : f32 to %[[R]]
// CHECK-NEXT: dv.vmins %[[R]], 2.550000e+02 : f32 to %[[R]]
// CHECK-NEXT: dv.view %[[OUT]][(%[[BID]] * 2 + 2) * 10 + 1] : !dv.gm<1x3x8x10xf32> to !dv.gm<8xf32>
// CHECK: dv.view %[[IMG]][(%[[BID]] * 2 + 1) * 8]
// CHECK: dv.view %[[OUT]][(%[[BID]] * 2 + 19) * 10 + 1]
// CHECK: dv.view %[[OUT]][(%[[BID]] * 2 + 2) * 10] : !dv.gm<1x3x8x10xf32> to !dv.gm<1xf32>
// CHECK: dv.view %[[OUT]][(%[[BID]] * 2 + 2) * 10 + 9] : !dv.gm<1x3x8x10xf32> to !dv.gm<1xf32>
// CHECK: dv.return
module {
  func.func @graph(%img: tensor<1x6x8x1xui8>) -> tensor<1x3x8x10xf32> {
    %x = call @k0_aipp(%img) : (tensor<1x6x8x1xui8>) -> tensor<1x3x8x10xf32>
    return %x : tensor<1x3x8x10xf32>
  }
  func.func private @k0_aipp(%a: tensor<1x6x8x1xui8>) -> tensor<1x3x8x10xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %x = vg.aipp %a {channels = array<i64: 0, 1, 2>, crop = array<i64: 0, 0, 4, 8>, csc_input_bias = array<i64: 0, 128, 128>, csc_matrix = array<i64: 256, 0, 359, 256, -88, -183, 256, 454, 0>, csc_output_bias = array<i64: 0, 0, 0>, input_format = "YUV420SP_U8", mean = array<f32: 0.0, 0.0, 0.0>, min = array<f32: 0.0, 0.0, 0.0>, padding = array<i64: 2, 2, 1, 1>, padding_value = -1.0 : f32, to = f32, var_reci = array<f32: 1.0, 1.0, 1.0>} : (tensor<1x6x8x1xui8>) -> tensor<1x3x8x10xf32>
    return %x : tensor<1x3x8x10xf32>
  }
}
