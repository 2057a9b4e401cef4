// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Golden: a 3x3 pad-1 conv of 16 channels to 32 (f16 NCHW in and out) with
// a bias, a residual add and a ReLU (a ResNet basic block's second conv).
// Four blocks: two channel parts, one per 16-channel fractal (block_idx
// mod 2 picks the bias, the weight's fractal column and the output
// planes), by two row parts of 4 output rows (block_idx floordiv 2,
// ConvCommon's RowSplit: the edge block's loads shift past the pad's zero
// rows); the weight arrives as FRACTAL_Z [C1 kh kw = 9][OC1 = 2][16][16]
// (the .om writer packs it). The ones tile (column 0 of each fractal) and
// the bias row go to L0A / L0B once; a block's rows come in two bands (3
// output rows, then 1), each band's input rows into L1 as NC1HWC0 beside a
// zero row (the vertical pad), the second loading while the first
// computes; the first mmad (init) starts L0C at the bias; load_3d builds
// the A tile, 16 positions (two output rows) a call, all nine taps of the
// plane (repeat 9) with the horizontal pads its own; one mmad of K = 144
// accumulates; out of L0C the residual (loaded before the K steps' last
// part, here their only one) is added in f32, ReLU, converted,
// each 16 x 16 block transposed and stored NCHW by copy_nz2nd.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: (%[[X:.+]]: !dv.gm<1x16x8x8xf16>, %[[W:.+]]: !dv.gm<9x2x16x16xf16>, %[[B:.+]]: !dv.gm<32xf16>, %[[R:.+]]: !dv.gm<1x32x8x8xf16>, %[[Y:.+]]: !dv.gm<1x32x8x8xf16>)
// CHECK-SAME: block_dim = 4 : i64, dv.fractal_z_weights = array<i64: 1>, kind = "cube"
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[BAND:.+]] = dv.alloc : !dv.buf<l1, 1024xf16>
// CHECK: %[[PANEL:.+]] = dv.alloc : !dv.buf<l1, 2304xf16>
// CHECK: %[[L0A:.+]] = dv.alloc : !dv.buf<l0a, 4608xf16>
// CHECK: %[[L0B:.+]] = dv.alloc : !dv.buf<l0b, 2304xf16>
// CHECK: %[[ONES:.+]] = dv.alloc : !dv.buf<l0a, 512xf16>
// CHECK: %[[BIASROW:.+]] = dv.alloc : !dv.buf<l0b, 256xf16>
// CHECK: %[[ACC:.+]] = dv.alloc : !dv.buf<l0c, 512xf32>
// CHECK: dv.vdup 1.000000e+00 : f32 to %{{.+}} {mask = array<i64: 281479271743489, 281479271743489>, repeat = 4 : i64}
// CHECK: dv.view %[[B]][(%[[BID]] mod 2) * 16] : !dv.gm<32xf16> to !dv.gm<16xf16>
// CHECK: dv.vtranspose
// CHECK: %[[WSLICE:.+]] = dv.view %[[W]][(%[[BID]] mod 2) * 256] : !dv.gm<9x2x16x16xf16> to !dv.gm<4352xf16>
// CHECK: dv.copy %[[WSLICE]] to %[[PANEL]] {burst_bytes = 512 : i64, bursts = 9 : i64, src_gap = 512 : i64}
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 256 : i64} : !dv.buf<ub, 128xf16> to !dv.buf<l1, 128xf16>
// CHECK: %[[ROWS:.+]] = dv.view %[[BAND]][(%[[BID]] floordiv 2) * 128 + 128] : !dv.buf<l1, 1024xf16> to !dv.buf<l1, 40x16xf16, nc1hwc0>
// CHECK: dv.copy_nchw2nc1hwc0 %{{.+}} to %[[ROWS]] {channels = 16 : i64, spatial = 40 : i64, src_channel_stride = 64 : i64}
// CHECK: dv.copy_nchw2nc1hwc0 %{{.+}} to %{{.+}} {channels = 16 : i64, spatial = 24 : i64, src_channel_stride = 64 : i64}
// CHECK: dv.mmad %[[ONES]], %[[BIASROW]] to %[[ACC]] {init, k = 16 : i64, m = 32 : i64, n = 16 : i64}
// CHECK: dv.view %[[R]][(%[[BID]] mod 2) * 1024 - (%[[BID]] floordiv 2) * 24 + 24]
// CHECK: %[[A:.+]] = dv.view %[[BAND]][128] : !dv.buf<l1, 1024xf16> to !dv.buf<l1, 896xf16>
// CHECK: dv.load_3d taps %[[A]] to %{{.+}} {dilations = array<i64: 1, 1>, filter = array<i64: 3, 3>, first_tap = array<i64: 0, 0>, fmap_h = 7 : i64, fmap_w = 8 : i64, left_top = array<i64: -1, 0>, pads = array<i64: 1, 1, 0, 0>, repeat = 9 : i64, strides = array<i64: 1, 1>}
// CHECK: dv.load_3d taps %[[A]] to %{{.+}} {{{.*}}left_top = array<i64: -1, 2>
// CHECK: dv.load_fractals %[[PANEL]] to %[[L0B]] {{{.*}}outer = 9 : i64
// CHECK: dv.mmad %[[L0A]], %[[L0B]] to %[[ACC]] {k = 144 : i64, m = 32 : i64, n = 16 : i64}
// CHECK: dv.move_l0c_ub %[[ACC]] to %[[F32:.+]] {burst_elems = 512 : i64}
// CHECK: dv.vadd %[[F32]], %{{.+}} to %[[F32]] {repeat = 8 : i64}
// CHECK: dv.vrelu
// CHECK: dv.vtranspose %{{.+}} to %{{.+}} {tiles = 2 : i64}
// CHECK: %[[OUT:.+]] = dv.view %[[Y]][(%[[BID]] mod 2) * 1024 - (%[[BID]] floordiv 2) * 24 + 24]
// CHECK: dv.copy_nz2nd %{{.+}} to %[[OUT]] {cols = 24 : i64, dst_row_stride = 64 : i64, rows = 16 : i64, src_rows = 16 : i64}
// CHECK: dv.mmad %{{.+}}, %[[L0B]] to %{{.+}} {k = 144 : i64, m = 16 : i64, n = 16 : i64}
// CHECK: %[[OUT1:.+]] = dv.view %[[Y]][(%[[BID]] mod 2) * 1024 + (%[[BID]] floordiv 2) * 8 + 48]
// CHECK: dv.copy_nz2nd %{{.+}} to %[[OUT1]] {cols = 8 : i64, dst_row_stride = 64 : i64, rows = 16 : i64, src_rows = 16 : i64}
// SYNC-LABEL: dv.kernel @k0_conv
// SYNC: dv.set_flag MTE2 -> MTE1
// SYNC: dv.wait_flag MTE2 -> MTE1
// SYNC: dv.load_3d
// SYNC: dv.set_flag MTE1 -> M
// SYNC: dv.wait_flag MTE1 -> M
// SYNC: dv.mmad
// SYNC: dv.set_flag M -> V
// SYNC: dv.wait_flag M -> V
// SYNC: dv.move_l0c_ub
module {
  func.func @graph(%x: tensor<1x16x8x8xf16>, %r: tensor<1x32x8x8xf16>) -> tensor<1x32x8x8xf16> {
    %w = vg.constant dense<0.5> : tensor<32x16x3x3xf16>
    %b = vg.constant dense<0.25> : tensor<32xf16>
    %y = call @k0_conv(%x, %w, %b, %r) : (tensor<1x16x8x8xf16>, tensor<32x16x3x3xf16>, tensor<32xf16>, tensor<1x32x8x8xf16>) -> tensor<1x32x8x8xf16>
    return %y : tensor<1x32x8x8xf16>
  }
  func.func private @k0_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<32x16x3x3xf16>, %b: tensor<32xf16>, %r: tensor<1x32x8x8xf16>) -> tensor<1x32x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<32x16x3x3xf16>, tensor<32xf16>) -> tensor<1x32x8x8xf16>
    %s = vg.add %c, %r : (tensor<1x32x8x8xf16>, tensor<1x32x8x8xf16>) -> tensor<1x32x8x8xf16>
    %y = vg.relu %s : tensor<1x32x8x8xf16>
    return %y : tensor<1x32x8x8xf16>
  }
}

// -----

// Batch 2, an f32 graph input of 3 channels, stride 2, a ReLU alone: one
// image a block; rows stacked into channels (3 channels x 3 window rows in
// one plane: K = 3 fractals, not 9): the weight becomes [16, 16, 1, 3]
// (lane 3 c + dy of the plane is channel c, window row dy), each channel's
// input rows go to UB as plain rows 16 elements apart (9-element bursts),
// converted to f16; a map row's three vcopies gather each channel's 3 rows
// (blocks 1 row apart, 48 lanes) into a 16 x 16 tile a 16 pixels, a
// vtranspose makes them NC1HWC0 pixels, a copy takes them to L1, and
// load_3d reads the map as a 1 x 3 window of stride (2, 1); the ReLU rides
// on move_l0c_ub (no f32 tile in UB); the f32 graph output is widened
// before copy_nz2nd.
// CHECK: %[[WS:.+]] = vg.constant dense_resource<k0_conv_rows_stacked_weight> : tensor<16x16x1x3xf32>
// CHECK: dv.launch @k0_conv(%{{.+}}, %[[WS]])
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: (%[[X:.+]]: !dv.gm<2x3x9x9xf32>, %{{.+}}: !dv.gm<3x1x16x16xf16>, %{{.+}}: !dv.gm<2x16x5x5xf32>)
// CHECK-SAME: block_dim = 2 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.view %[[X]][%[[BID]] * 243]
// CHECK: dv.copy {{.+}} {burst_bytes = 36 : i64, bursts = 9 : i64, dst_gap = 28 : i64} : !dv.gm<81xf32> to !dv.buf<ub,
// CHECK: dv.view %[[X]][%[[BID]] * 243 + 162]
// CHECK: dv.vconv
// CHECK: dv.loop
// CHECK: dv.vcopy {{.+}} {blk = array<i64: 1, 1>, mask = array<i64: 281474976710655, 0>, rep = array<i64: 16, 1>, repeat = 1 : i64}
// CHECK: dv.vtranspose
// CHECK: dv.copy {{.+}} {burst_bytes = 288 : i64} : !dv.buf<ub, 144xf16> to !dv.buf<l1, 144xf16>
// CHECK: dv.load_3d {{.+}}filter = array<i64: 3, 1>{{.+}}strides = array<i64: 2, 1>
// CHECK: dv.move_l0c_ub {{.+}}relu
// CHECK-NOT: dv.vrelu
// CHECK: dv.vconv {{.+}} to !dv.buf<ub, 512xf32>
// CHECK: dv.copy_nz2nd
module {
  func.func @graph(%x: tensor<2x3x9x9xf32>) -> tensor<2x16x5x5xf32> {
    %w = vg.constant dense<0.5> : tensor<16x3x3x3xf32>
    %y = call @k0_conv(%x, %w) : (tensor<2x3x9x9xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x5x5xf32>
    return %y : tensor<2x16x5x5xf32>
  }
  func.func private @k0_conv(%a: tensor<2x3x9x9xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<2x16x5x5xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x9x9xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x5x5xf32>
    %y = vg.relu %c : tensor<2x16x5x5xf32>
    return %y : tensor<2x16x5x5xf32>
  }
}

// -----

// Near miss of row stacking: 11 channels of a 3 x 3 window would take 3
// planes of 5 channels, as many K fractals as unstacked, so the map goes
// to L1 as it is.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: (%{{.+}}: !dv.gm<1x11x9x9xf32>, %{{.+}}: !dv.gm<9x1x16x16xf16>, %{{.+}}: !dv.gm<1x16x9x9xf32>)
// CHECK-NOT: dv.vcopy
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 11 : i64
// CHECK-NOT: dv.vcopy
// CHECK: dv.load_3d {{.+}}filter = array<i64: 3, 3>
module {
  func.func @graph(%x: tensor<1x11x9x9xf32>) -> tensor<1x16x9x9xf32> {
    %w = vg.constant dense<0.5> : tensor<16x11x3x3xf32>
    %y = call @k0_conv(%x, %w) : (tensor<1x11x9x9xf32>, tensor<16x11x3x3xf32>) -> tensor<1x16x9x9xf32>
    return %y : tensor<1x16x9x9xf32>
  }
  func.func private @k0_conv(%a: tensor<1x11x9x9xf32>, %w: tensor<16x11x3x3xf32>) -> tensor<1x16x9x9xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x11x9x9xf32>, tensor<16x11x3x3xf32>) -> tensor<1x16x9x9xf32>
    return %c : tensor<1x16x9x9xf32>
  }
}

// -----

// One output channel: its bias is a one-element constant inside the
// kernel, which the conv still reads from GM (not as an epilogue scalar),
// so it becomes an argument like the weight; before, the bias row was read
// from the kernel's first argument, the feature map.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: (%{{.+}}: !dv.gm<1x16x8x8xf16>, %{{.+}}: !dv.gm<1x1x16x16xf16>, %[[B:.+]]: !dv.gm<1xf16>, %{{.+}}: !dv.gm<1x1x8x8xf16>)
// CHECK: dv.copy %[[B]] to %{{.+}} {burst_bytes = 2 : i64} : !dv.gm<1xf16> to !dv.buf<ub, 1xf16>
module {
  func.func @graph(%x: tensor<1x16x8x8xf16>) -> tensor<1x1x8x8xf16> {
    %y = call @k0_conv(%x) : (tensor<1x16x8x8xf16>) -> tensor<1x1x8x8xf16>
    return %y : tensor<1x1x8x8xf16>
  }
  func.func private @k0_conv(%a: tensor<1x16x8x8xf16>) -> tensor<1x1x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %w = vg.constant dense<0.5> : tensor<1x16x1x1xf16>
    %b = vg.constant dense<-1.0> : tensor<1xf16>
    %c = vg.conv %a, %w, %b : (tensor<1x16x8x8xf16>, tensor<1x16x1x1xf16>, tensor<1xf16>) -> tensor<1x1x8x8xf16>
    return %c : tensor<1x1x8x8xf16>
  }
}

// -----

// Batch 1 and one channel fractal: the 64 output rows split over 8 blocks
// (8 rows each, two bands of 4). Blocks 0-6 own rows 4 + 8 b .. and read no
// pad; block 7 (b floordiv 7 = 1) owns rows 0-3 and 60-63. Every block
// writes one zero row at buffer row 1 (top band) and row 6 (bottom band),
// then loads all 6 input rows: block 7's top load reads rows 0-5 into
// buffer rows 2-7 (past the zero row), its bottom load rows 58-63 into
// rows 0-5, the others' overwrite the zeros. load_3d reads from buffer row
// 1 with fmap_h = 8 (the margins) in every block. The bottom band loads
// before the top band's tiles (one band ahead), so that its zero row on
// MTE3 does not wait behind the top band's store.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 8 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[BAND0:.+]] = dv.alloc : !dv.buf<l1, 4608xf16>
// CHECK: %[[BAND1:.+]] = dv.alloc : !dv.buf<l1, 4608xf16>
// CHECK: dv.view %[[BAND0]][512] : !dv.buf<l1, 4608xf16> to !dv.buf<l1, 512xf16>
// CHECK: %[[TOPDST:.+]] = dv.view %[[BAND0]][(%[[BID]] floordiv 7) * 512 + 512] : !dv.buf<l1, 4608xf16> to !dv.buf<l1, 192x16xf16, nc1hwc0>
// CHECK: %[[TOPSRC:.+]] = dv.view %arg0[(%[[BID]] mod 7) * 256 - (%[[BID]] floordiv 7) * 96 + 96]
// CHECK: dv.copy_nchw2nc1hwc0 %[[TOPSRC]] to %[[TOPDST]] {channels = 16 : i64, spatial = 192 : i64, src_channel_stride = 2048 : i64}
// CHECK-NOT: dv.load_3d
// CHECK: dv.view %[[BAND1]][3072] : !dv.buf<l1, 4608xf16> to !dv.buf<l1, 512xf16>
// CHECK: %[[BOTDST:.+]] = dv.view %[[BAND1]][(%[[BID]] floordiv 7) * -512 + 512]
// CHECK: %[[BOTSRC:.+]] = dv.view %arg0[(%[[BID]] mod 7) * 256 + (%[[BID]] floordiv 7) * 1632 + 224]
// CHECK: dv.copy_nchw2nc1hwc0 %[[BOTSRC]] to %[[BOTDST]]
// CHECK: dv.view %[[BAND0]][512] : !dv.buf<l1, 4608xf16> to !dv.buf<l1, 4096xf16>
// CHECK: dv.load_3d positions {{.+}}fmap_h = 8 : i64, fmap_w = 32 : i64, {{.*}}left_top = array<i64: -1, 0>
// CHECK: %[[OUT0:.+]] = dv.view %arg3[(%[[BID]] mod 7) * 256 - (%[[BID]] floordiv 7) * 128 + 128]
// CHECK: dv.copy_nz2nd %{{.+}} to %[[OUT0]]
// CHECK-NOT: dv.copy_nchw2nc1hwc0
// CHECK: %[[OUT1:.+]] = dv.view %arg3[(%[[BID]] mod 7) * 256 + (%[[BID]] floordiv 7) * 1664 + 256]
// CHECK: dv.copy_nz2nd %{{.+}} to %[[OUT1]]
module {
  func.func @graph(%x: tensor<1x16x64x32xf16>) -> tensor<1x16x64x32xf16> {
    %w = vg.constant dense<0.5> : tensor<16x16x3x3xf16>
    %b = vg.constant dense<0.25> : tensor<16xf16>
    %y = call @k0_conv(%x, %w, %b) : (tensor<1x16x64x32xf16>, tensor<16x16x3x3xf16>, tensor<16xf16>) -> tensor<1x16x64x32xf16>
    return %y : tensor<1x16x64x32xf16>
  }
  func.func private @k0_conv(%a: tensor<1x16x64x32xf16>, %w: tensor<16x16x3x3xf16>, %b: tensor<16xf16>) -> tensor<1x16x64x32xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x64x32xf16>, tensor<16x16x3x3xf16>, tensor<16xf16>) -> tensor<1x16x64x32xf16>
    %y = vg.relu %c : tensor<1x16x64x32xf16>
    return %y : tensor<1x16x64x32xf16>
  }
}

// -----

// Near miss of the row split: the same conv at batch 8 splits the batch
// (one image a block, no block_idx floordiv in any offset). A block of
// one image starts with a band of one M tile (8 output rows, 9 input
// rows), so that the Cube starts before a whole band has loaded; the next
// band's input rows start at row 7.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: (%[[X:[^:]+]]: !dv.gm<8x16x64x32xf16>
// CHECK-SAME: block_dim = 8 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK-NOT: floordiv
// CHECK: dv.view %[[X]][%[[BID]] * 32768] : !dv.gm<8x16x64x32xf16> to !dv.gm<{{[0-9]+}}xf16>
// CHECK-NEXT: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 16 : i64, spatial = 288 : i64
// CHECK-NOT: floordiv
// CHECK: dv.view %[[X]][%[[BID]] * 32768 + 224]
module {
  func.func @graph(%x: tensor<8x16x64x32xf16>) -> tensor<8x16x64x32xf16> {
    %w = vg.constant dense<0.5> : tensor<16x16x3x3xf16>
    %y = call @k0_conv(%x, %w) : (tensor<8x16x64x32xf16>, tensor<16x16x3x3xf16>) -> tensor<8x16x64x32xf16>
    return %y : tensor<8x16x64x32xf16>
  }
  func.func private @k0_conv(%a: tensor<8x16x64x32xf16>, %w: tensor<16x16x3x3xf16>) -> tensor<8x16x64x32xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x16x64x32xf16>, tensor<16x16x3x3xf16>) -> tensor<8x16x64x32xf16>
    return %c : tensor<8x16x64x32xf16>
  }
}

// -----

// Near misses: groups (depthwise is the Vector unit's), a weight computed
// at run time (no FRACTAL_Z at compile time), an epilogue step the template
// has no form for.
module {
  func.func @graph(%x: tensor<1x16x8x8xf16>, %wx: tensor<16x16x3x3xf16>) -> (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) {
    %w = vg.constant dense<0.5> : tensor<16x8x3x3xf16>
    %w2 = vg.constant dense<0.5> : tensor<16x16x3x3xf16>
    %a = call @k0_conv(%x, %w) : (tensor<1x16x8x8xf16>, tensor<16x8x3x3xf16>) -> tensor<1x16x8x8xf16>
    %b = call @k1_conv(%x, %wx) : (tensor<1x16x8x8xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
    %c = call @k2_conv(%x, %w2) : (tensor<1x16x8x8xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
    return %a, %b, %c : tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>
  }
  // expected-error @+1 {{kernel k0_conv: grouped convs (groups 2) have no Cube conv template}}
  func.func private @k0_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<16x8x3x3xf16>) -> tensor<1x16x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x8x3x3xf16>) -> tensor<1x16x8x8xf16>
    return %c : tensor<1x16x8x8xf16>
  }
  // expected-error @+1 {{kernel k1_conv: the weight is computed at run time}}
  func.func private @k1_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
    return %c : tensor<1x16x8x8xf16>
  }
  // expected-error @+1 {{kernel k2_conv: gelu has no conv epilogue yet}}
  func.func private @k2_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x16x3x3xf16>) -> tensor<1x16x8x8xf16>
    %g = vg.gelu %c : tensor<1x16x8x8xf16>
    return %g : tensor<1x16x8x8xf16>
  }
}

// -----

// A weight panel in eight K parts (512 input channels to 128, one
// channel fractal a block: 288 fractals of K in steps of 12, periods of 6
// steps or 8 planes; four periods are fewer than eight, so the parts are
// steps, three each): MTE2 runs its transfers in order, and K part p reads
// planes 4p .. 4p+3 of the band, so each part's weights are followed by its
// 4 planes of the first band; the first tile's K steps start once the
// first part and its planes have arrived. The parts after the first are
// issued one part ahead of the first tile's K steps (part p + 1 before
// part p's steps), not all before them: the Scalar unit stalls on a full
// MTE2 queue.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 8 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[P0:.+]] = dv.view %{{.+}}[%[[BID]] * 256] : !dv.gm<288x8x16x16xf16> to !dv.gm<71936xf16>
// CHECK: dv.copy %[[P0]] to %{{.+}} {burst_bytes = 512 : i64, bursts = 36 : i64, src_gap = 3584 : i64}
// CHECK: %[[X0:.+]] = dv.view %{{.+}}[0] : !dv.gm<1x32x8x8x16xf16> to !dv.gm<4096xf16>
// CHECK: dv.copy %[[X0]] to %{{.+}} {burst_bytes = 2048 : i64, bursts = 4 : i64, dst_gap = 512 : i64}
// CHECK: dv.mmad {{.+}} {init,
// CHECK: %[[P1:.+]] = dv.view %{{.+}}[%[[BID]] * 256 + 73728]
// CHECK: dv.copy %[[P1]] to %{{.+}} {burst_bytes = 512 : i64, bursts = 36 : i64, src_gap = 3584 : i64}
// CHECK: dv.view %{{.+}}[4096] : !dv.gm<1x32x8x8x16xf16> to !dv.gm<4096xf16>
// CHECK-NOT: dv.view %{{.+}}[%[[BID]] * 256 + 147456]
// CHECK: dv.load_3d
// CHECK: dv.mmad
// CHECK: dv.view %{{.+}}[%[[BID]] * 256 + 147456]
// CHECK: dv.view %{{.+}}[8192] : !dv.gm<1x32x8x8x16xf16> to !dv.gm<4096xf16>
// CHECK-NOT: dv.view %{{.+}}[%[[BID]] * 256 + 221184]
// CHECK: dv.load_3d
// CHECK: dv.view %{{.+}}[%[[BID]] * 256 + 221184]
// CHECK: dv.view %{{.+}}[%[[BID]] * 256 + 516096]
// CHECK: dv.view %{{.+}}[28672] : !dv.gm<1x32x8x8x16xf16> to !dv.gm<4096xf16>
// CHECK: dv.load_3d
// CHECK: dv.mmad
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<1x512x8x8xf16>) -> tensor<1x128x8x8xf16> {
    %w = vg.constant dense<0.01> : tensor<128x512x3x3xf16>
    %y = call @k0_conv(%x, %w) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]} : (tensor<1x512x8x8xf16>, tensor<128x512x3x3xf16>) -> tensor<1x128x8x8xf16>
    return %y : tensor<1x128x8x8xf16>
  }
  func.func private @k0_conv(%a: tensor<1x512x8x8xf16>, %w: tensor<128x512x3x3xf16>) -> tensor<1x128x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x8x8xf16>, tensor<128x512x3x3xf16>) -> tensor<1x128x8x8xf16>
    return %c : tensor<1x128x8x8xf16>
  }
}

// -----

// load_3d's positions mode: a 14 x 14 map of 32 channels to 128 (one
// channel fractal a block) in M tiles of 10 and 4 output rows (mp 144, 9
// fractal rows) and K steps of 6 fractals,
// so each step loads with 6 instructions of 9 repeats (one fractal of K
// each: its plane and tap fixed, the repeats the tile's 16-position
// groups, jump_stride 6 apart in the [9][6] L0A tile) instead of 9 of 6.
// The step crossing a plane boundary moves c1_index. The near miss: the
// 4-row tile (4 fractal rows, fewer than a step's 6 fractals) stays in
// taps mode, as does the golden case above.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK: %[[A0:.+]] = dv.alloc : !dv.buf<l0a, 13824xf16>
// CHECK: dv.mmad {{.+}} {init, k = 16 : i64, m = 144 : i64, n = 16 : i64}
// CHECK: %[[D0:.+]] = dv.view %[[A0]][0] : !dv.buf<l0a, 13824xf16> to !dv.buf<l0a, 12544xf16>
// CHECK-NEXT: dv.load_3d positions %[[SRC:.+]] to %[[D0]] {dilations = array<i64: 1, 1>, filter = array<i64: 3, 3>, first_tap = array<i64: 0, 0>, fmap_h = 12 : i64, fmap_w = 14 : i64, jump_stride = 6 : i64, left_top = array<i64: -1, 0>, pads = array<i64: 1, 1, 0, 0>, repeat = 9 : i64, strides = array<i64: 1, 1>}
// CHECK-NEXT: %[[D1:.+]] = dv.view %[[A0]][256] : !dv.buf<l0a, 13824xf16> to !dv.buf<l0a, 12544xf16>
// CHECK-NEXT: dv.load_3d positions %[[SRC]] to %[[D1]] {{{.*}}first_tap = array<i64: 1, 0>{{.*}}jump_stride = 6 : i64{{.*}}repeat = 9 : i64
// CHECK-NOT: dv.load_3d taps
// CHECK: dv.mmad %[[A0]], {{.+}} {k = 96 : i64, m = 144 : i64, n = 16 : i64}
// CHECK: dv.load_3d positions {{.+}} {c1_index = 1 : i64, {{.*}}first_tap = array<i64: 0, 0>
// CHECK-NOT: dv.load_3d taps
// CHECK: dv.mmad {{.+}} {init, k = 16 : i64, m = 64 : i64, n = 16 : i64}
// CHECK-NOT: dv.load_3d positions
// CHECK: dv.load_3d taps {{.+}}repeat = 6 : i64
// CHECK: dv.mmad {{.+}} {k = 96 : i64, m = 64 : i64, n = 16 : i64}
module {
  func.func @graph(%x: tensor<1x32x14x14xf16>) -> tensor<1x128x14x14xf16> {
    %w = vg.constant dense<0.5> : tensor<128x32x3x3xf16>
    %y = call @k0_conv(%x, %w) : (tensor<1x32x14x14xf16>, tensor<128x32x3x3xf16>) -> tensor<1x128x14x14xf16>
    return %y : tensor<1x128x14x14xf16>
  }
  func.func private @k0_conv(%a: tensor<1x32x14x14xf16>, %w: tensor<128x32x3x3xf16>) -> tensor<1x128x14x14xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %y = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x14x14xf16>, tensor<128x32x3x3xf16>) -> tensor<1x128x14x14xf16>
    return %y : tensor<1x128x14x14xf16>
  }
}

// -----

// Rows and channel parts together: a 28 x 28 map of 128 channels to 128 on
// 8 blocks as 2 row parts x 4 channel parts (a row split alone would read
// all 295 KB of weights on every block). The channel part is b mod 4 (the
// weight slice, the output planes), the row part b floordiv 4: the edge
// block of each channel part owns output rows 0-6 and 21-27, the middle one
// rows 7-20 (the row split above with G = 4 instead of P - 1).
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 8 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.view %arg1[(%[[BID]] mod 4) * 512] : !dv.gm<72x8x16x16xf16>
// CHECK: dv.view %{{.+}}[%{{.+}} * 4928 + (%[[BID]] floordiv 4) * 448 + 448]
// CHECK: dv.view %arg0[%{{.+}} * 12544 - (%[[BID]] floordiv 4) * 168 + 168]
// CHECK: dv.view %arg2[(%[[BID]] mod 4) * 25088 - (%[[BID]] floordiv 4) * 196 + 196]
// CHECK: dv.view %arg2[(%[[BID]] mod 4) * 25088 + (%[[BID]] floordiv 4) * 196 + 392]
module {
  func.func @graph(%x: tensor<1x128x28x28xf16>) -> tensor<1x128x28x28xf16> {
    %w = vg.constant dense<0.5> : tensor<128x128x3x3xf16>
    %y = call @k0_conv(%x, %w) : (tensor<1x128x28x28xf16>, tensor<128x128x3x3xf16>) -> tensor<1x128x28x28xf16>
    return %y : tensor<1x128x28x28xf16>
  }
  func.func private @k0_conv(%a: tensor<1x128x28x28xf16>, %w: tensor<128x128x3x3xf16>) -> tensor<1x128x28x28xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %y = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x128x28x28xf16>, tensor<128x128x3x3xf16>) -> tensor<1x128x28x28xf16>
    return %y : tensor<1x128x28x28xf16>
  }
}

// -----

// K parts at step boundaries, fed to both of a block's M tiles: 64 input
// channels in steps of 7 fractals (36 of K: 6 steps, less than one period
// of 18, so the parts are steps 0, 1-2, 3, 4-5), a block's 64 output
// channels making a 72 KB panel (parts of at least 16 KB), and two bands
// of one 8-row tile each. Each part loads the band planes its steps reach
// that are not loaded yet, of both bands (planes 0, 1-2, 3, none), parts
// two ahead of the Cube; L0C holds both tiles' accumulators, each part runs
// on tile 0 then tile 1 (the L0A / L0B buffers alternating across them),
// and tile 0's epilogue and store come before tile 1's last part. Near
// misses: a panel under 16 KB is one part (the golden case); tiles that
// store for long against their compute stay tile by tile (next case).
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 8 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[ACC:.+]] = dv.alloc : !dv.buf<l0c, 16384xf32>
// CHECK: dv.view %arg1[%[[BID]] * 1024] : !dv.gm<36x32x16x16xf16> to !dv.gm<50176xf16>
// CHECK-NEXT: dv.copy {{.+}} {burst_bytes = 2048 : i64, bursts = 7 : i64, src_gap = 14336 : i64}
// CHECK: dv.view %arg0[0] : !dv.gm<1x4x16x16x16xf16> to !dv.gm<2304xf16>
// CHECK-NEXT: dv.copy {{.+}} {burst_bytes = 4608 : i64, dst_gap = 512 : i64, src_gap = 3584 : i64}
// CHECK: dv.view %arg0[1792] : !dv.gm<1x4x16x16x16xf16> to !dv.gm<2304xf16>
// CHECK: dv.view %arg1[%[[BID]] * 1024 + 57344] : !dv.gm<36x32x16x16xf16> to !dv.gm<107520xf16>
// CHECK-NEXT: dv.copy {{.+}} {burst_bytes = 2048 : i64, bursts = 14 : i64, src_gap = 14336 : i64}
// CHECK: dv.view %arg0[4096] : !dv.gm<1x4x16x16x16xf16> to !dv.gm<6400xf16>
// CHECK-NEXT: dv.copy {{.+}} {burst_bytes = 4608 : i64, bursts = 2 : i64, dst_gap = 512 : i64, src_gap = 3584 : i64}
// CHECK: dv.view %arg0[5888] : !dv.gm<1x4x16x16x16xf16> to !dv.gm<6400xf16>
// CHECK: dv.view %arg1[%[[BID]] * 1024 + 172032] : !dv.gm<36x32x16x16xf16> to !dv.gm<50176xf16>
// CHECK: dv.view %arg0[12288] : !dv.gm<1x4x16x16x16xf16> to !dv.gm<2304xf16>
// CHECK: dv.view %arg0[14080] : !dv.gm<1x4x16x16x16xf16> to !dv.gm<2304xf16>
// CHECK: %[[T0:.+]] = dv.view %[[ACC]][0] : !dv.buf<l0c, 16384xf32> to !dv.buf<l0c, 8192xf32>
// CHECK-NEXT: dv.mmad {{.+}} to %[[T0]] {init, k = 16 : i64, m = 128 : i64, n = 64 : i64}
// CHECK: dv.load_3d
// CHECK: dv.mmad %[[A0:.+]], %[[B0:.+]] to %[[T0]] {k = 112 : i64, m = 128 : i64, n = 64 : i64}
// CHECK: %[[T1:.+]] = dv.view %[[ACC]][8192] : !dv.buf<l0c, 16384xf32> to !dv.buf<l0c, 8192xf32>
// CHECK-NEXT: dv.mmad {{.+}} to %[[T1]] {init, k = 16 : i64, m = 128 : i64, n = 64 : i64}
// CHECK-NOT: dv.mmad %[[A0]]
// CHECK: dv.mmad %[[A1:.+]], %[[B1:.+]] to %[[T1]] {k = 112 : i64, m = 128 : i64, n = 64 : i64}
// CHECK: dv.view %arg1[%[[BID]] * 1024 + 229376] : !dv.gm<36x32x16x16xf16> to !dv.gm<58368xf16>
// CHECK-NOT: dv.view %arg0
// CHECK: dv.mmad %[[A0]], %[[B0]] to %{{.+}} {k = 112 : i64, m = 128 : i64, n = 64 : i64}
// CHECK: dv.mmad %{{.+}} {k = 16 : i64, m = 128 : i64, n = 64 : i64}
// CHECK-NEXT: dv.move_l0c_ub
// CHECK: dv.view %arg2[%[[BID]] * 16384] : !dv.gm<1x32x16x16x16xf16> to !dv.gm<14336xf16>
// CHECK: dv.mmad %[[A0]], %[[B0]] to %{{.+}} {k = 112 : i64, m = 128 : i64, n = 64 : i64}
// CHECK: dv.mmad %{{.+}} {k = 16 : i64, m = 128 : i64, n = 64 : i64}
// CHECK-NEXT: dv.move_l0c_ub
// CHECK: dv.view %arg2[%[[BID]] * 16384 + 2048] : !dv.gm<1x32x16x16x16xf16> to !dv.gm<14336xf16>
module {
  func.func @graph(%x: tensor<1x64x16x16xf16>) -> tensor<1x512x16x16xf16> {
    %w = vg.constant dense<0.01> : tensor<512x64x3x3xf16>
    %y = call @k0_conv(%x, %w) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]} : (tensor<1x64x16x16xf16>, tensor<512x64x3x3xf16>) -> tensor<1x512x16x16xf16>
    return %y : tensor<1x512x16x16xf16>
  }
  func.func private @k0_conv(%a: tensor<1x64x16x16xf16>, %w: tensor<512x64x3x3xf16>) -> tensor<1x512x16x16xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x16x16xf16>, tensor<512x64x3x3xf16>) -> tensor<1x512x16x16xf16>
    return %c : tensor<1x512x16x16xf16>
  }
}

// -----

// Near miss of the fed tiles: a 56 x 56 map of 64 channels to 64 (ResNet-18's
// layer1) on 8 row parts, two tiles of 4 and 3 rows a block, whose tile
// stores take over a quarter of its compute: tile 0 runs all the K parts as
// they arrive and goes out while tile 1 (its band loaded after the last
// part) computes, one accumulator in L0C.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 8 : i64
// CHECK: dv.alloc : !dv.buf<l0c, 14336xf32>
// CHECK: dv.mmad {{.+}} {init, k = 16 : i64, m = 224 : i64, n = 64 : i64}
// CHECK-NOT: dv.mmad {{.+}} {init
// CHECK: dv.move_l0c_ub
// CHECK: dv.mmad {{.+}} {init, k = 16 : i64, m = 176 : i64, n = 64 : i64}
// CHECK-NOT: dv.mmad {{.+}} {init
// CHECK: dv.move_l0c_ub
module {
  func.func @graph(%x: tensor<1x64x56x56xf16>) -> tensor<1x64x56x56xf16> {
    %w = vg.constant dense<0.01> : tensor<64x64x3x3xf16>
    %y = call @k0_conv(%x, %w) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16>
    return %y : tensor<1x64x56x56xf16>
  }
  func.func private @k0_conv(%a: tensor<1x64x56x56xf16>, %w: tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf16>, tensor<64x64x3x3xf16>) -> tensor<1x64x56x56xf16>
    %r = vg.relu %c : tensor<1x64x56x56xf16>
    return %r : tensor<1x64x56x56xf16>
  }
}

// -----

// Several images of one band a block (a 7 x 7 x 512 conv at batch 3: 8
// channel parts, each block all three images): image i + 1's band loads
// into the other band buffer before image i's epilogue, not after its
// store.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: (%[[X:[^:]+]]: !dv.gm<3x32x7x7x16xf16>, %{{.+}}: !dv.gm<288x32x16x16xf16>, %[[Y:[^:]+]]: !dv.gm<3x32x7x7x16xf16>)
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.view %[[X]][0]
// CHECK: dv.view %[[X]][25088]
// CHECK: dv.move_l0c_ub
// CHECK-NEXT: dv.view %[[Y]][%[[BID]] * 3136]
// CHECK: dv.view %[[X]][50176]
// CHECK: dv.move_l0c_ub
// CHECK-NEXT: dv.view %[[Y]][%[[BID]] * 3136 + 25088]
// CHECK-NOT: dv.view %[[X]]
// CHECK: dv.view %[[Y]][%[[BID]] * 3136 + 50176]
module {
  func.func @graph(%x: tensor<3x512x7x7xf16>) -> tensor<3x512x7x7xf16> {
    %w = vg.constant dense<0.01> : tensor<512x512x3x3xf16>
    %y = call @k0_conv(%x, %w) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]} : (tensor<3x512x7x7xf16>, tensor<512x512x3x3xf16>) -> tensor<3x512x7x7xf16>
    return %y : tensor<3x512x7x7xf16>
  }
  func.func private @k0_conv(%a: tensor<3x512x7x7xf16>, %w: tensor<512x512x3x3xf16>) -> tensor<3x512x7x7xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<3x512x7x7xf16>, tensor<512x512x3x3xf16>) -> tensor<3x512x7x7xf16>
    return %c : tensor<3x512x7x7xf16>
  }
}
