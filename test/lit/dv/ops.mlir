// RUN: vinci-opt %s --split-input-file | vinci-opt --split-input-file | FileCheck %s
// RUN: vinci-opt %s --split-input-file --mlir-print-op-generic | vinci-opt --split-input-file | FileCheck %s

// Round trip of every dv op: parse, print, parse the printed form again (and
// the generic form). Each kernel is a small but legal program for the
// Ascend310P3 table; the near-misses (buffers ending exactly at a space's
// size, views ending exactly at their source, repeat 255, event 7) must verify.

//===----------------------------------------------------------------------===//
// Structure: kernel, block_idx, loop, alloc, view
//===----------------------------------------------------------------------===//

// CHECK-LABEL: dv.kernel @structure
// CHECK-SAME: (%[[A:.*]]: !dv.gm<256x256xf16>, %[[C:.*]]: !dv.gm<256x256xf32>)
// CHECK-SAME: attributes {block_dim = 2 : i64, kind = "cube"}
module attributes {dv.soc = "Ascend310P3"} {
  dv.kernel @structure(%a: !dv.gm<256x256xf16>, %c: !dv.gm<256x256xf32>)
      attributes {block_dim = 2 : i64, kind = "cube"} {
    // CHECK: %[[BID:.*]] = dv.block_idx
    %bid = dv.block_idx
    // CHECK: dv.alloc offset 0 : !dv.buf<l1, 32x256xf16, nz>
    %l1 = dv.alloc offset 0 : !dv.buf<l1, 32x256xf16, nz>
    // CHECK: dv.alloc : !dv.buf<ub, 1024xf32>
    %u = dv.alloc : !dv.buf<ub, 1024xf32>
    // CHECK: dv.loop %[[I:.*]] trip 4 {
    dv.loop %i trip 4 {
      // Ends exactly at the source: 3 * 8192 + 1 * 32768 + 8192 = 65536 elements.
      // CHECK: dv.view %[[A]][%[[I]] * 8192 + %[[BID]] * 32768] : !dv.gm<256x256xf16> to !dv.gm<32x256xf16>
      %va = dv.view %a[%i * 8192 + %bid * 32768] : !dv.gm<256x256xf16> to !dv.gm<32x256xf16>
      // CHECK: dv.loop %[[J:.*]] trip 2 {
      dv.loop %j trip 2 {
        // CHECK: dv.view %{{.*}}[%[[J]] * 4096] : !dv.buf<l1, 32x256xf16, nz> to !dv.buf<l1, 16x256xf16, nz>
        %half = dv.view %l1[%j * 4096] : !dv.buf<l1, 32x256xf16, nz> to !dv.buf<l1, 16x256xf16, nz>
      }
    }
    // CHECK: dv.return
    dv.return
  }
}

// -----

// A 2 x 4 grid of blocks: column block_idx mod 4, row block_idx floordiv 4
// (the first row of each 128 x 64 tile; the last ends at 32960 + 64 elements).
// CHECK-LABEL: dv.kernel @block_grid
// CHECK: dv.view %{{.*}}[(%[[B:.*]] mod 4) * 64 + (%[[B]] floordiv 4) * 32768]
dv.kernel @block_grid(%c: !dv.gm<256x256xf16>) attributes {block_dim = 8 : i64, kind = "vector"} {
  %bid = dv.block_idx
  %tile = dv.view %c[(%bid mod 4) * 64 + (%bid floordiv 4) * 32768] : !dv.gm<256x256xf16> to !dv.gm<64xf16>
  dv.return
}

// -----

// A conv's row split (8 blocks, G = 7): blocks 0-6 at 256 b + 96, block 7
// (b mod 7 = 0, b floordiv 7 = 1) at 1856. The block terms are bounded
// together over the blocks: block 6's 1632 and block 7's 1856 (+ 192) fit
// the 2048 elements, their independent maxima 1536 + 1760 + 96 would not.
// CHECK-LABEL: dv.kernel @row_split_edge_block
// CHECK: dv.view %{{.*}}[(%[[B:.*]] mod 7) * 256 + (%[[B]] floordiv 7) * 1760 + 96]
dv.kernel @row_split_edge_block(%x: !dv.gm<2048xf16>) attributes {block_dim = 8 : i64, kind = "cube"} {
  %bid = dv.block_idx
  %rows = dv.view %x[(%bid mod 7) * 256 + (%bid floordiv 7) * 1760 + 96] : !dv.gm<2048xf16> to !dv.gm<192xf16>
  dv.return
}

// -----

// Buffers that end exactly at each space's size (Ascend310P3).
// CHECK-LABEL: dv.kernel @full_spaces
// CHECK: dv.alloc offset 0 : !dv.buf<l1, 524288xf16>
// CHECK: dv.alloc offset 32768 : !dv.buf<l0a, 16384xf16>
// CHECK: dv.alloc offset 0 : !dv.buf<l0b, 32768xf16>
// CHECK: dv.alloc offset 262080 : !dv.buf<l0c, 16xf32>
// CHECK: dv.alloc offset 131072 : !dv.buf<ub, 65536xf16>
dv.kernel @full_spaces() attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc offset 0 : !dv.buf<l1, 524288xf16>
  %a = dv.alloc offset 32768 : !dv.buf<l0a, 16384xf16>
  %b = dv.alloc offset 0 : !dv.buf<l0b, 32768xf16>
  %c = dv.alloc offset 262080 : !dv.buf<l0c, 16xf32>
  %u = dv.alloc offset 131072 : !dv.buf<ub, 65536xf16>
  dv.return
}

// -----

// The 910B-class table has bigger buffers and takes bf16 on the Cube.
// CHECK-LABEL: dv.kernel @soc_910b
// CHECK: dv.mmad {{.*}} : !dv.buf<l0a, 16x16xbf16, nz>, !dv.buf<l0b, 16x16xbf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
module attributes {dv.soc = "Ascend910B"} {
  dv.kernel @soc_910b() attributes {block_dim = 24 : i64, kind = "cube"} {
    %a = dv.alloc : !dv.buf<l0a, 16x16xbf16, nz>
    %b = dv.alloc : !dv.buf<l0b, 16x16xbf16, nz>
    %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
    dv.mmad %a, %b to %c {m = 16, n = 16, k = 16, init} : !dv.buf<l0a, 16x16xbf16, nz>, !dv.buf<l0b, 16x16xbf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
    dv.return
  }
}

// -----

//===----------------------------------------------------------------------===//
// Sync
//===----------------------------------------------------------------------===//

// CHECK-LABEL: dv.kernel @sync
// CHECK: dv.set_flag MTE2 -> M event 0
// CHECK: dv.wait_flag MTE2 -> M event 0
// CHECK: dv.set_flag V -> MTE3 event 7
// CHECK: dv.wait_flag V -> MTE3 event 7
// CHECK: dv.pipe_barrier V
// CHECK: dv.pipe_barrier ALL
dv.kernel @sync() attributes {block_dim = 1 : i64, kind = "mix"} {
  dv.set_flag MTE2 -> M event 0
  dv.wait_flag MTE2 -> M event 0
  dv.set_flag V -> MTE3 event 7
  dv.wait_flag V -> MTE3 event 7
  dv.pipe_barrier V
  dv.pipe_barrier ALL
  dv.return
}

// -----

//===----------------------------------------------------------------------===//
// Data movement and the Cube
//===----------------------------------------------------------------------===//

// CHECK-LABEL: dv.kernel @matmul_tile
dv.kernel @matmul_tile(%a: !dv.gm<64x64xf16>, %b: !dv.gm<64x64xf16>, %c: !dv.gm<64x64xf16>, %x: !dv.gm<1x3x8x8xf16>)
    attributes {block_dim = 1 : i64, kind = "cube"} {
  %l1a = dv.alloc offset 0 : !dv.buf<l1, 64x64xf16, nz>
  %l1b = dv.alloc offset 8192 : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc offset 0 : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc offset 0 : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc offset 0 : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc offset 0 : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc offset 8192 : !dv.buf<ub, 4096xf16>
  %l1f = dv.alloc offset 16384 : !dv.buf<l1, 1x1x8x8x16xf16, nc1hwc0>
  // CHECK: dv.copy_nd2nz %{{.*}} to %{{.*}} {cols = 64 : i64, dst_cols = 64 : i64, dst_rows = 64 : i64, rows = 64 : i64, src_row_stride = 64 : i64} : !dv.gm<64x64xf16> to !dv.buf<l1, 64x64xf16, nz>
  dv.copy_nd2nz %a to %l1a {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<l1, 64x64xf16, nz>
  dv.copy_nd2nz %b to %l1b {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<l1, 64x64xf16, nz>
  // CHECK: dv.copy_nchw2nc1hwc0 %{{.*}} to %{{.*}} {channels = 3 : i64, spatial = 64 : i64, src_channel_stride = 64 : i64}
  dv.copy_nchw2nc1hwc0 %x to %l1f {channels = 3, spatial = 64, src_channel_stride = 64} : !dv.gm<1x3x8x8xf16> to !dv.buf<l1, 1x1x8x8x16xf16, nc1hwc0>
  %ids = dv.alloc offset 24576 : !dv.buf<ub, 8xi32>
  // CHECK: dv.copy_gather %{{.*}}[%{{.*}}] to %{{.*}} {dst_row_stride = 128 : i64, row_bytes = 128 : i64, rows = 8 : i64, src_row_stride = 128 : i64, table_rows = 64 : i64} : !dv.gm<64x64xf16>, !dv.buf<ub, 8xi32> to !dv.buf<ub, 4096xf16>
  dv.copy_gather %a[%ids] to %ubnd {rows = 8, row_bytes = 128, src_row_stride = 128, dst_row_stride = 128, table_rows = 64} : !dv.gm<64x64xf16>, !dv.buf<ub, 8xi32> to !dv.buf<ub, 4096xf16>
  dv.set_flag MTE2 -> MTE1 event 0
  dv.wait_flag MTE2 -> MTE1 event 0
  // CHECK: dv.load_fractals %{{.*}} to %{{.*}} {dst_inner_stride = 1 : i64, dst_outer_stride = 4 : i64, inner = 4 : i64, outer = 4 : i64, src_inner_stride = 4 : i64, src_outer_stride = 1 : i64} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0a, 64x64xf16, nz>
  dv.load_fractals %l1a to %l0a {outer = 4, inner = 4, src_outer_stride = 1, src_inner_stride = 4, dst_outer_stride = 4, dst_inner_stride = 1} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0a, 64x64xf16, nz>
  // CHECK: dv.load_fractals {{.*}}transpose{{.*}} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0b, 64x64xf16, nz>
  dv.load_fractals %l1b to %l0b {outer = 4, inner = 4, src_outer_stride = 4, src_inner_stride = 1, dst_outer_stride = 4, dst_inner_stride = 1, transpose} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0b, 64x64xf16, nz>
  dv.set_flag MTE1 -> M event 0
  dv.wait_flag MTE1 -> M event 0
  // CHECK: dv.mmad %{{.*}}, %{{.*}} to %{{.*}} {init, k = 64 : i64, m = 64 : i64, n = 64 : i64} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  dv.mmad %l0a, %l0b to %l0c {m = 64, n = 64, k = 64, init} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  // CHECK: dv.mmad {{.*}} {k = 64 : i64, m = 64 : i64, n = 64 : i64}
  dv.mmad %l0a, %l0b to %l0c {m = 64, n = 64, k = 64} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  dv.set_flag M -> V event 0
  dv.wait_flag M -> V event 0
  // CHECK: dv.move_l0c_ub %{{.*}} to %{{.*}} {burst_elems = 4096 : i64, relu, scale = 5.000000e-01 : f32} : !dv.buf<l0c, 64x64xf32, nz> to !dv.buf<ub, 64x64xf16, nz>
  dv.move_l0c_ub %l0c to %ub {burst_elems = 4096, relu, scale = 0.5 : f32} : !dv.buf<l0c, 64x64xf32, nz> to !dv.buf<ub, 64x64xf16, nz>
  dv.set_flag V -> MTE3 event 0
  dv.wait_flag V -> MTE3 event 0
  // CHECK: dv.copy_nz2nd %{{.*}} to %{{.*}} {cols = 64 : i64, dst_row_stride = 64 : i64, rows = 64 : i64, src_rows = 64 : i64} : !dv.buf<ub, 64x64xf16, nz> to !dv.gm<64x64xf16>
  dv.copy_nz2nd %ub to %c {rows = 64, cols = 64, dst_row_stride = 64, src_rows = 64} : !dv.buf<ub, 64x64xf16, nz> to !dv.gm<64x64xf16>
  dv.return
}

// -----

// img2col: a 3x3 conv's window over an 8x8 map of two planes, both repeat
// modes, a pad value, an int8 map (C0 = 32) into L0B.
// CHECK-LABEL: dv.kernel @load_3d
dv.kernel @load_3d(%x: !dv.gm<2x8x8x16xf16>, %q: !dv.gm<1x8x8x32xi8>)
    attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc offset 0 : !dv.buf<l1, 2x8x8x16xf16, nc1hwc0>
  %qmap = dv.alloc offset 4096 : !dv.buf<l1, 1x8x8x32xi8, nc1hwc0>
  %a = dv.alloc offset 0 : !dv.buf<l0a, 64x288xf16, nz>
  %b = dv.alloc offset 0 : !dv.buf<l0b, 32x288xi8, nz>
  dv.copy %x to %map {burst_bytes = 4096} : !dv.gm<2x8x8x16xf16> to !dv.buf<l1, 2x8x8x16xf16, nc1hwc0>
  dv.copy %q to %qmap {burst_bytes = 2048} : !dv.gm<1x8x8x32xi8> to !dv.buf<l1, 1x8x8x32xi8, nc1hwc0>
  dv.set_flag MTE2 -> MTE1 event 0
  dv.wait_flag MTE2 -> MTE1 event 0
  // One tap, the 64 positions as 4 fractals 18 apart (a column of the [4][18] tile).
  // CHECK: dv.load_3d positions %{{.*}} to %{{.*}} {dilations = array<i64: 1, 1>, filter = array<i64: 3, 3>, first_tap = array<i64: 0, 0>, fmap_h = 8 : i64, fmap_w = 8 : i64, jump_stride = 18 : i64, left_top = array<i64: -1, -1>, pads = array<i64: 1, 1, 1, 1>, repeat = 4 : i64, strides = array<i64: 1, 1>} : !dv.buf<l1, 2x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x288xf16, nz>
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>,  repeat = 4, jump_stride = 18} : !dv.buf<l1, 2x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x288xf16, nz>
  // 16 positions, all 18 taps of both planes (a row of the tile), padded with -1.
  // CHECK: dv.load_3d taps {{.*}} pad_value = -1.000000e+00 : f32{{.*}}repeat = 18
  dv.load_3d taps %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>,  repeat = 18, pad_value = -1.0 : f32} : !dv.buf<l1, 2x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x288xf16, nz>
  // CHECK: dv.load_3d positions {{.*}}pad_value = 5 : i32{{.*}} : !dv.buf<l1, 1x8x8x32xi8, nc1hwc0> to !dv.buf<l0b, 32x288xi8, nz>
  dv.load_3d positions %qmap to %b {fmap_h = 8, fmap_w = 8, pads = array<i64: 0, 0, 0, 0>, c1_index = 0, filter = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, first_tap = array<i64: 1, 1>, left_top = array<i64: 0, 0>,  repeat = 1, pad_value = 5 : i32} : !dv.buf<l1, 1x8x8x32xi8, nc1hwc0> to !dv.buf<l0b, 32x288xi8, nz>
  dv.return
}

// -----

// Every path of the burst copy, with gaps; the pipe follows the spaces.
// CHECK-LABEL: dv.kernel @copies
dv.kernel @copies(%g: !dv.gm<8192xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %l1 = dv.alloc offset 0 : !dv.buf<l1, 8192xf16>
  %l0a = dv.alloc offset 0 : !dv.buf<l0a, 256xf16>
  %l0b = dv.alloc offset 0 : !dv.buf<l0b, 256xf16>
  %ub = dv.alloc offset 0 : !dv.buf<ub, 8192xf16>
  %ub2 = dv.alloc offset 16384 : !dv.buf<ub, 8192xf16>
  // CHECK: dv.copy %{{.*}} to %{{.*}} {burst_bytes = 16384 : i64} : !dv.gm<8192xf16> to !dv.buf<l1, 8192xf16>
  dv.copy %g to %l1 {burst_bytes = 16384} : !dv.gm<8192xf16> to !dv.buf<l1, 8192xf16>
  // Gapped: 4 bursts of 1024 bytes, 3072 between them in GM (envelope 13312).
  // CHECK: dv.copy {{.*}} {burst_bytes = 1024 : i64, bursts = 4 : i64, src_gap = 3072 : i64} : !dv.gm<8192xf16> to !dv.buf<ub, 8192xf16>
  dv.copy %g to %ub {bursts = 4, burst_bytes = 1024, src_gap = 3072} : !dv.gm<8192xf16> to !dv.buf<ub, 8192xf16>
  dv.copy %g to %l0a {burst_bytes = 512} : !dv.gm<8192xf16> to !dv.buf<l0a, 256xf16>
  dv.copy %g to %l0b {burst_bytes = 512} : !dv.gm<8192xf16> to !dv.buf<l0b, 256xf16>
  dv.copy %l1 to %l0a {burst_bytes = 512} : !dv.buf<l1, 8192xf16> to !dv.buf<l0a, 256xf16>
  dv.copy %l1 to %l0b {burst_bytes = 512} : !dv.buf<l1, 8192xf16> to !dv.buf<l0b, 256xf16>
  dv.copy %l1 to %ub {burst_bytes = 16384} : !dv.buf<l1, 8192xf16> to !dv.buf<ub, 8192xf16>
  dv.copy %ub to %ub2 {burst_bytes = 16384} : !dv.buf<ub, 8192xf16> to !dv.buf<ub, 8192xf16>
  dv.copy %ub to %l1 {burst_bytes = 16384} : !dv.buf<ub, 8192xf16> to !dv.buf<l1, 8192xf16>
  // CHECK: dv.copy {{.*}} {burst_bytes = 512 : i64, bursts = 2 : i64, dst_gap = 15360 : i64} : !dv.buf<ub, 8192xf16> to !dv.gm<8192xf16>
  dv.copy %ub to %g {bursts = 2, burst_bytes = 512, dst_gap = 15360} : !dv.buf<ub, 8192xf16> to !dv.gm<8192xf16>
  dv.return
}

// -----

//===----------------------------------------------------------------------===//
// Vector
//===----------------------------------------------------------------------===//

// CHECK-LABEL: dv.kernel @vector
dv.kernel @vector() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc offset 0 : !dv.buf<ub, 1024xf16>
  %y = dv.alloc offset 2048 : !dv.buf<ub, 1024xf16>
  %z = dv.alloc offset 4096 : !dv.buf<ub, 1024xf16>
  %f = dv.alloc offset 6144 : !dv.buf<ub, 1024xf32>
  %i = dv.alloc offset 10240 : !dv.buf<ub, 1024xi32>
  %m = dv.alloc offset 14336 : !dv.buf<ub, 128xui8>
  %r = dv.alloc offset 14464 : !dv.buf<ub, 16xf16>
  // CHECK: dv.vadd %[[X:.*]], %[[Y:.*]] to %[[Z:.*]] {repeat = 8 : i64} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.vadd %x, %y to %z {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // Half-repeat strides: the envelope ends exactly at 2048 bytes.
  // CHECK: dv.vsub {{.*}} {blk = array<i64: 1, 1, 1>, mask = array<i64: -1, 0>, rep = array<i64: 4, 4, 4>, repeat = 15 : i64}
  dv.vsub %x, %y to %z {repeat = 15, blk = array<i64: 1, 1, 1>, rep = array<i64: 4, 4, 4>, mask = array<i64: -1, 0>} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vmul
  dv.vmul %x, %y to %z {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vdiv
  dv.vdiv %x, %y to %z {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vmax
  dv.vmax %x, %y to %z {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vmin {{.*}} : !dv.buf<ub, 1024xi32>, !dv.buf<ub, 1024xi32> to !dv.buf<ub, 1024xi32>
  dv.vmin %i, %i to %i {repeat = 16} : !dv.buf<ub, 1024xi32>, !dv.buf<ub, 1024xi32> to !dv.buf<ub, 1024xi32>
  // CHECK: dv.vmla
  dv.vmla %x, %y to %z {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vadds %{{.*}}, 1.000000e+00 : f32 to %{{.*}} {repeat = 8 : i64} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.vadds %x, 1.0 : f32 to %z {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vmuls %{{.*}}, 3 : i32 to
  dv.vmuls %i, 3 : i32 to %i {repeat = 16} : !dv.buf<ub, 1024xi32> to !dv.buf<ub, 1024xi32>
  // CHECK: dv.vmaxs
  dv.vmaxs %x, 0.0 : f32 to %z {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vmins
  dv.vmins %x, 6.0 : f32 to %z {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vlrelu %{{.*}}, 1.000000e-01 : f32
  dv.vlrelu %x, 0.1 : f32 to %z {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vaxpy
  dv.vaxpy %f, 2.0 : f32 to %f {repeat = 16} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf32>
  // CHECK: dv.vexp
  dv.vexp %x to %z {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vln
  dv.vln %x to %z {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vsqrt
  dv.vsqrt %f to %f {repeat = 16} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf32>
  // CHECK: dv.vrsqrt
  dv.vrsqrt %f to %f {repeat = 16} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf32>
  // CHECK: dv.vrec
  dv.vrec %f to %f {repeat = 16} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf32>
  // CHECK: dv.vabs
  dv.vabs %x to %z {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vrelu
  dv.vrelu %x to %z {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vneg
  dv.vneg %i to %i {repeat = 16} : !dv.buf<ub, 1024xi32> to !dv.buf<ub, 1024xi32>
  // CHECK: dv.vcopy {{.*}} {mask = array<i64: 65535, 0>, repeat = 8 : i64}
  dv.vcopy %x to %z {repeat = 8, mask = array<i64: 65535, 0>} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // vbrcb: element r of src0 to every lane of repeat r (16 elements, 16 repeats of dst).
  // CHECK: dv.vbrcb {{.*}} {blk = array<i64: 0>, rep = array<i64: 1>, repeat = 16 : i64} : !dv.buf<ub, 16xf16> to !dv.buf<ub, 1024xf16>
  dv.vbrcb %r to %z {repeat = 16, rep = array<i64: 1>, blk = array<i64: 0>} : !dv.buf<ub, 16xf16> to !dv.buf<ub, 1024xf16>
  // f32 -> f16 halves the destination's repeat stride.
  // CHECK: dv.vconv {{.*}} {rep = array<i64: 4, 8>, repeat = 16 : i64} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf16>
  dv.vconv %f to %z {repeat = 16, rep = array<i64: 4, 8>} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vconv %{{.*}} to %{{.*}} round floor {repeat = 16 : i64} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xi32>
  dv.vconv %f to %i round floor {repeat = 16} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xi32>
  // 8 repeats x 128 lanes / 8 = 128 mask bytes.
  // CHECK: dv.vcmp lt %{{.*}}, %{{.*}} to %{{.*}} {repeat = 8 : i64} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 128xui8>
  dv.vcmp lt %x, %y to %m {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 128xui8>
  // CHECK: dv.vcmps ge %{{.*}}, 0.000000e+00 : f32 to
  dv.vcmps ge %x, 0.0 : f32 to %m {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 128xui8>
  // CHECK: dv.vsel %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}} {repeat = 8 : i64} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16>, !dv.buf<ub, 128xui8> to !dv.buf<ub, 1024xf16>
  dv.vsel %x, %y, %m to %z {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16>, !dv.buf<ub, 128xui8> to !dv.buf<ub, 1024xf16>
  // CHECK: dv.vcadd {{.*}} {repeat = 8 : i64} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 16xf16>
  dv.vcadd %x to %r {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 16xf16>
  // CHECK: dv.vcmax {{.*}} {across_repeats, repeat = 8 : i64}
  dv.vcmax %x to %r {repeat = 8, across_repeats} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 16xf16>
  // CHECK: dv.vcmin
  dv.vcmin %x to %r {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 16xf16>
  // CHECK: dv.vdup 0.000000e+00 : f32 to %{{.*}} {repeat = 8 : i64} : !dv.buf<ub, 1024xf16>
  dv.vdup 0.0 : f32 to %z {repeat = 8} : !dv.buf<ub, 1024xf16>
  // CHECK: dv.vtranspose {{.*}} {tiles = 4 : i64} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.vtranspose %x to %z {tiles = 4} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  // repeat 0 touches nothing.
  // CHECK: dv.vadd {{.*}} {repeat = 0 : i64}
  dv.vadd %r, %r to %r {repeat = 0} : !dv.buf<ub, 16xf16>, !dv.buf<ub, 16xf16> to !dv.buf<ub, 16xf16>
  dv.return
}

// -----

// repeat 255 over a buffer of exactly 255 x 256 bytes.
// CHECK-LABEL: dv.kernel @max_repeat
// CHECK: dv.vexp {{.*}} {repeat = 255 : i64} : !dv.buf<ub, 32640xf16> to !dv.buf<ub, 32640xf16>
dv.kernel @max_repeat() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc offset 0 : !dv.buf<ub, 32640xf16>
  dv.vexp %x to %x {repeat = 255} : !dv.buf<ub, 32640xf16> to !dv.buf<ub, 32640xf16>
  dv.return
}
