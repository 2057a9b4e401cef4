// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Golden: a 3x3 depthwise conv (pad 1, bias, ReLU) over a 1x16x8x8 f16
// NCHW map. 16 channels at batch 1 are 8 groups of 2 on 8 cores (the fewest
// (image, group) pairs a block, then the most blocks; a row split is no
// clear gain at this size); 2 bands of 4 output rows. The group's weights
// come in as 9 NC1HWC0 pixels and its bias (2 of 16 lanes: zeroed first)
// beside its first band, and then each tap's 16 channel weights are
// repeated over the 8 blocks of a repeat (vmuls by 1, source block stride
// 0); the bias likewise. A band's 5 real input rows (the top one is pad)
// come in as NC1HWC0 pixels, one band ahead of the taps, and go into rows
// of pitch
// 10 (the pad columns stay zero; the pad row is a vdup) with a 64-byte gap;
// tap (ki, kj) is one vmul / vmla of 40 output pixels (4 rows of pitch 10)
// from padded pixel 10 ki + kj (x 16 elements), the weight read with repeat
// stride 0; then the bias (vadd), the 8 valid columns of each row compacted
// (src_gap 64 bytes), ReLU, one vtranspose of the 2 blocks and copy_nz2nd.
// The template places its buffers itself: the accumulator at 0, the
// spread weights and bias after it, the padded buffers (the taps'
// sources) from the second 64 KiB bank, out of the accumulator's.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: (%[[X:.+]]: !dv.gm<1x16x8x8xf16>, %[[W:.+]]: !dv.gm<16x1x3x3xf16>, %[[B:.+]]: !dv.gm<16xf16>, %[[Y:.+]]: !dv.gm<1x16x8x8xf16>)
// CHECK-SAME: block_dim = 8 : i64, kind = "vector"{{.*}}vinci.template = "depthwise"
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[STAGE:.+]] = dv.alloc offset {{[0-9]+}} : !dv.buf<ub, 640xf16>
// CHECK: dv.alloc offset {{[0-9]+}} : !dv.buf<ub, 640xf16>
// CHECK: %[[PAD:.+]] = dv.alloc offset 65536 : !dv.buf<ub, 1152xf16>
// CHECK: dv.alloc offset 67840 : !dv.buf<ub, 1152xf16>
// CHECK: %[[ACC:.+]] = dv.alloc offset 0 : !dv.buf<ub, 640xf16>
// CHECK: %[[TILE:.+]] = dv.alloc offset {{[0-9]+}} : !dv.buf<ub, 512xf16>
// CHECK: %[[NZ:.+]] = dv.alloc offset {{[0-9]+}} : !dv.buf<ub, 512xf16>
// CHECK: dv.alloc offset {{[0-9]+}} : !dv.buf<ub, 512xf16>
// CHECK: dv.alloc offset {{[0-9]+}} : !dv.buf<ub, 192xf16>
// CHECK: %[[WB:.+]] = dv.alloc offset 1280 : !dv.buf<ub, 1152xf16>
// CHECK: %[[RAWB:.+]] = dv.alloc offset {{[0-9]+}} : !dv.buf<ub, 128xf16>
// CHECK: %[[BB:.+]] = dv.alloc offset 3584 : !dv.buf<ub, 128xf16>
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[PAD]] {repeat = 9 : i64}
// CHECK: %[[WSRC:.+]] = dv.view %[[W]][%[[BID]] * 18]
// CHECK: dv.copy_nchw2nc1hwc0 %[[WSRC]] to %{{.+}} {channels = 2 : i64, spatial = 9 : i64, src_channel_stride = 9 : i64}
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[RAWB]] {repeat = 1 : i64}
// CHECK: %[[BSRC:.+]] = dv.view %[[B]][%[[BID]] * 2]
// CHECK: dv.copy %[[BSRC]] to %{{.+}} {burst_bytes = 4 : i64}
// CHECK: %[[TOP:.+]] = dv.view %[[PAD]][0] : {{.+}} to !dv.buf<ub, 256xf16>
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[TOP]] {repeat = 2 : i64}
// CHECK: %[[XSRC:.+]] = dv.view %[[X]][%[[BID]] * 128] : !dv.gm<1x16x8x8xf16> to !dv.gm<104xf16>
// CHECK: dv.copy_nchw2nc1hwc0 %[[XSRC]] to %{{.+}} {channels = 2 : i64, spatial = 40 : i64, src_channel_stride = 64 : i64}
// CHECK: dv.vmuls %{{.+}}, 1.000000e+00 : f32 to %[[WB]] {blk = array<i64: 1, 0>, rep = array<i64: 8, 1>, repeat = 9 : i64}
// CHECK: dv.vmuls %{{.+}}, 1.000000e+00 : f32 to %[[BB]] {blk = array<i64: 1, 0>, rep = array<i64: 8, 1>, repeat = 1 : i64}
// The second band loads before the first computes (into the other
// buffers): its bottom pad row is a vdup at row 5 (element 800), its rows
// come from input row 3.
// CHECK: %[[BOT:.+]] = dv.view %{{.+}}[800] : {{.+}} to !dv.buf<ub, 256xf16>
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[BOT]]
// CHECK: dv.view %[[X]][%[[BID]] * 128 + 24]
// CHECK: dv.copy_nchw2nc1hwc0
// CHECK: %[[ROW1:.+]] = dv.view %[[PAD]][176]
// CHECK: dv.copy %[[STAGE]] to %[[ROW1]] {burst_bytes = 256 : i64, bursts = 5 : i64, dst_gap = 64 : i64}
// CHECK: %[[T0:.+]] = dv.view %[[PAD]][0] : {{.+}} to !dv.buf<ub, 640xf16>
// CHECK: %[[W0:.+]] = dv.view %[[WB]][0] : {{.+}} to !dv.buf<ub, 128xf16>
// CHECK: dv.vmul %[[T0]], %[[W0]] to %[[ACC]] {blk = array<i64: 1, 1, 1>, rep = array<i64: 8, 8, 0>, repeat = 5 : i64}
// CHECK: %[[T1:.+]] = dv.view %[[PAD]][16]
// CHECK: %[[W1:.+]] = dv.view %[[WB]][128]
// CHECK: dv.vmla %[[T1]], %[[W1]] to %[[ACC]] {blk = array<i64: 1, 1, 1>, rep = array<i64: 8, 8, 0>, repeat = 5 : i64}
// CHECK: dv.view %[[PAD]][32]
// CHECK: dv.vmla
// CHECK: dv.view %[[PAD]][160]
// CHECK: dv.vmla
// CHECK: dv.view %[[PAD]][176]
// CHECK: dv.vmla
// CHECK: dv.view %[[PAD]][192]
// CHECK: dv.vmla
// CHECK: dv.view %[[PAD]][320]
// CHECK: dv.vmla
// CHECK: dv.view %[[PAD]][336]
// CHECK: dv.vmla
// CHECK: %[[T8:.+]] = dv.view %[[PAD]][352]
// CHECK: %[[W8:.+]] = dv.view %[[WB]][1024]
// CHECK: dv.vmla %[[T8]], %[[W8]] to %[[ACC]]
// CHECK-NOT: dv.vmla
// CHECK: dv.vadd %[[ACC]], %[[BB]] to %[[ACC]] {blk = array<i64: 1, 1, 1>, rep = array<i64: 8, 8, 0>, repeat = 5 : i64}
// CHECK: dv.copy %{{.+}} to %[[TILE]] {burst_bytes = 256 : i64, bursts = 4 : i64, src_gap = 64 : i64}
// CHECK: dv.vrelu
// CHECK: dv.vtranspose %[[TILE]] to %[[NZ]] {tiles = 2 : i64}
// CHECK: %[[OUT:.+]] = dv.view %[[Y]][%[[BID]] * 128] : !dv.gm<1x16x8x8xf16> to !dv.gm<96xf16>
// CHECK: dv.copy_nz2nd %{{.+}} to %[[OUT]] {cols = 32 : i64, dst_row_stride = 64 : i64, rows = 2 : i64, src_rows = 16 : i64}
// CHECK: dv.vmul
// CHECK: dv.view %[[Y]][%[[BID]] * 128 + 32]
// CHECK: dv.return
// SYNC-LABEL: dv.kernel @k0_conv
// SYNC: dv.copy_nchw2nc1hwc0
// SYNC: dv.set_flag MTE2 -> V
// SYNC: dv.wait_flag MTE2 -> V
// SYNC: dv.vmul
// SYNC: dv.vtranspose
// SYNC: dv.set_flag V -> MTE3
// SYNC: dv.wait_flag V -> MTE3
// SYNC: dv.copy_nz2nd
module {
  func.func @graph(%x: tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16> {
    %w = vg.constant dense<0.5> : tensor<16x1x3x3xf16>
    %b = vg.constant dense<0.25> : tensor<16xf16>
    %y = call @k0_conv(%x, %w, %b) : (tensor<1x16x8x8xf16>, tensor<16x1x3x3xf16>, tensor<16xf16>) -> tensor<1x16x8x8xf16>
    return %y : tensor<1x16x8x8xf16>
  }
  func.func private @k0_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<16x1x3x3xf16>, %b: tensor<16xf16>) -> tensor<1x16x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w, %b {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x1x3x3xf16>, tensor<16xf16>) -> tensor<1x16x8x8xf16>
    %y = vg.relu %c : tensor<1x16x8x8xf16>
    return %y : tensor<1x16x8x8xf16>
  }
}

// -----

// Stride 2 (MobileNetV2's downsampling depthwise, ReLU6 as clip): output
// position q reads padded pixel 2 q + tap, so the source's block stride is
// 2 and its repeat stride 16; the output pitch is 2 x 10 / 2 = 10 pixels
// for 4 output columns (6 dropped). Clip stays in f16 (vmaxs, vmins).
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 8 : i64
// CHECK: dv.vmul {{.+}} {blk = array<i64: 1, 2, 1>, rep = array<i64: 8, 16, 0>, repeat = 3 : i64}
// CHECK-COUNT-8: dv.vmla {{.+}} {blk = array<i64: 1, 2, 1>, rep = array<i64: 8, 16, 0>, repeat = 3 : i64}
// CHECK-NOT: dv.vadd
// CHECK: dv.copy {{.+}} {burst_bytes = 128 : i64, bursts = 2 : i64, src_gap = 192 : i64}
// CHECK-NOT: dv.vconv
// CHECK: dv.vmaxs %{{.+}}, 0.000000e+00 : f32
// CHECK: dv.vmins %{{.+}}, 6.000000e+00 : f32
module {
  func.func @graph(%x: tensor<1x32x8x8xf16>) -> tensor<1x32x4x4xf16> {
    %w = vg.constant dense<0.5> : tensor<32x1x3x3xf16>
    %y = call @k0_conv(%x, %w) : (tensor<1x32x8x8xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x4x4xf16>
    return %y : tensor<1x32x4x4xf16>
  }
  func.func private @k0_conv(%a: tensor<1x32x8x8xf16>, %w: tensor<32x1x3x3xf16>) -> tensor<1x32x4x4xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 32 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x8x8xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x4x4xf16>
    %y = vg.clip %c {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x32x4x4xf16>
    return %y : tensor<1x32x4x4xf16>
  }
}

// -----

// Batch 2, 18 channels (a partial group), dilation 2 with pads 2, a
// sigmoid epilogue. Whole 16-channel groups, one image a block: 2 blocks
// of 2 (image, group) pairs (groups of 2 channels would give 6 blocks of
// 3 pairs each: more vector work a block). A group's whole map (6 rows)
// is one band, so the block runs its groups as 2 steps of one group
// (chooseSteps: one load and one store a group, the second group's load
// issued before the first group's taps). The first step's load comes
// first, then both groups' weights, which stay in UB (one
// copy_nchw2nc1hwc0 of the 18 channels); the second step (2 channels) is
// static. Sigmoid runs in f32 (vconv, vneg, vexp, vadds, vrec, vconv
// back). The taps start at padded pixel 2 x (10 ki + kj), 8 repeats each.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 2 : i64
// CHECK: dv.view %{{.+}}[%{{.+}} * 648] : {{.+}} to !dv.gm<576xf16>
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 16 : i64, spatial = 36 : i64, src_channel_stride = 36 : i64}
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 18 : i64, spatial = 9 : i64, src_channel_stride = 9 : i64}
// CHECK: dv.view %{{.+}}[%{{.+}} * 648 + 576] : {{.+}} to !dv.gm<72xf16>
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 2 : i64, spatial = 36 : i64, src_channel_stride = 36 : i64}
// CHECK: dv.copy {{.+}} {burst_bytes = 192 : i64, bursts = 6 : i64, dst_gap = 128 : i64}
// CHECK: dv.view %{{.+}}[32] : {{.+}} to !dv.buf<ub, 1024xf16>
// CHECK: dv.vmla {{.+}} {blk = array<i64: 1, 1, 1>, rep = array<i64: 8, 8, 0>, repeat = 8 : i64}
// CHECK: dv.view %{{.+}}[704] : {{.+}} to !dv.buf<ub, 1024xf16>
// CHECK: dv.vmla
// CHECK: dv.vconv
// CHECK: dv.vneg
// CHECK: dv.vexp
// CHECK: dv.vrec
// CHECK: dv.vconv
// CHECK: dv.copy_nz2nd {{.+}} {cols = 36 : i64, dst_row_stride = 36 : i64, rows = 16 : i64, src_rows = 16 : i64}
// CHECK: dv.copy_nz2nd {{.+}} {cols = 36 : i64, dst_row_stride = 36 : i64, rows = 2 : i64, src_rows = 16 : i64}
// CHECK-NOT: dv.copy_nchw2nc1hwc0
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<2x18x6x6xf16>) -> tensor<2x18x6x6xf16> {
    %w = vg.constant dense<0.5> : tensor<18x1x3x3xf16>
    %y = call @k0_conv(%x, %w) : (tensor<2x18x6x6xf16>, tensor<18x1x3x3xf16>) -> tensor<2x18x6x6xf16>
    return %y : tensor<2x18x6x6xf16>
  }
  func.func private @k0_conv(%a: tensor<2x18x6x6xf16>, %w: tensor<18x1x3x3xf16>) -> tensor<2x18x6x6xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 18 : i64, dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>} : (tensor<2x18x6x6xf16>, tensor<18x1x3x3xf16>) -> tensor<2x18x6x6xf16>
    %y = vg.sigmoid %c : tensor<2x18x6x6xf16>
    return %y : tensor<2x18x6x6xf16>
  }
}

// -----

// An f32 graph input and output (torch's own depthwise tests): the input
// rows come into UB as f32 pixels and are narrowed (vconv) where the f16
// ones go, here straight into the padded rows (no pad columns); the second
// band's 3 rows x 5 pixels (240 elements) end in a masked repeat (48
// lanes), so nothing past them is written. The NZ tile is widened before copy_nz2nd.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: (%{{.+}}: !dv.gm<1x2x5x5xf32>, %{{.+}}: !dv.gm<2x1x3x3xf16>, %{{.+}}: !dv.gm<2xf16>, %{{.+}}: !dv.gm<1x2x3x3xf32>)
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 1 : i64, spatial = 20 : i64, src_channel_stride = 25 : i64} : !dv.gm<20xf32> to !dv.buf<ub, 20x16xf32, nc1hwc0>
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 1 : i64, spatial = 15 : i64, src_channel_stride = 25 : i64}
// CHECK: dv.vconv {{.+}} {rep = array<i64: 4, 8>, repeat = 5 : i64} : !dv.buf<ub, 320xf32> to !dv.buf<ub, 320xf16>
// CHECK: dv.vmul
// CHECK: dv.vtranspose
// CHECK: dv.vconv {{.+}} {rep = array<i64: 8, 4>, repeat = 4 : i64} : !dv.buf<ub, 256xf16> to !dv.buf<ub, 256xf32>
// CHECK: dv.copy_nz2nd {{.+}} {cols = 6 : i64, dst_row_stride = 9 : i64, rows = 1 : i64, src_rows = 16 : i64} : !dv.buf<ub, 16x16xf32, nz> to !dv.gm<6xf32>
// CHECK: dv.vconv {{.+}} {rep = array<i64: 4, 8>, repeat = 3 : i64}
// CHECK: dv.vconv {{.+}} {mask = array<i64: 281474976710655, 0>, rep = array<i64: 4, 8>, repeat = 1 : i64}
module {
  func.func @graph(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
    %w = vg.constant dense<0.5> : tensor<2x1x3x3xf32>
    %y = call @k0_conv(%x, %w) : (tensor<1x2x5x5xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x3x3xf32>
    return %y : tensor<1x2x3x3xf32>
  }
  func.func private @k0_conv(%a: tensor<1x2x5x5xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x3x3xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %b = vg.constant dense<[0.5, -0.5]> : tensor<2xf32>
    %c = vg.conv %a, %w, %b {group = 2 : i64} : (tensor<1x2x5x5xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
    return %c : tensor<1x2x3x3xf32>
  }
}

// -----

// Near misses: a channel multiplier of 2 (groups 16, 32 output channels) is
// no depthwise conv (the Cube conv's reason: grouped); a weight computed at
// run time; a residual add in the epilogue; gelu (no epilogue form).
module {
  func.func @graph(%x: tensor<1x16x8x8xf16>, %wx: tensor<16x1x3x3xf16>, %r: tensor<1x16x8x8xf16>) -> (tensor<1x32x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) {
    %w2 = vg.constant dense<0.5> : tensor<32x1x3x3xf16>
    %w = vg.constant dense<0.5> : tensor<16x1x3x3xf16>
    %a = call @k0_conv(%x, %w2) : (tensor<1x16x8x8xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x8x8xf16>
    %b = call @k1_conv(%x, %wx) : (tensor<1x16x8x8xf16>, tensor<16x1x3x3xf16>) -> tensor<1x16x8x8xf16>
    %c = call @k2_conv(%x, %w, %r) : (tensor<1x16x8x8xf16>, tensor<16x1x3x3xf16>, tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
    %d = call @k3_conv(%x, %w) : (tensor<1x16x8x8xf16>, tensor<16x1x3x3xf16>) -> tensor<1x16x8x8xf16>
    return %a, %b, %c, %d : tensor<1x32x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>
  }
  // expected-error @+1 {{kernel k0_conv: grouped convs (groups 16) have no Cube conv template}}
  func.func private @k0_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<32x1x3x3xf16>) -> tensor<1x32x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x8x8xf16>
    return %c : tensor<1x32x8x8xf16>
  }
  // expected-error @+1 {{kernel k1_conv: the weight is computed at run time: the depthwise template reads a constant weight}}
  func.func private @k1_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<16x1x3x3xf16>) -> tensor<1x16x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x1x3x3xf16>) -> tensor<1x16x8x8xf16>
    return %c : tensor<1x16x8x8xf16>
  }
  // expected-error @+1 {{kernel k2_conv: add with a tensor operand has no depthwise epilogue}}
  func.func private @k2_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<16x1x3x3xf16>, %r: tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x1x3x3xf16>) -> tensor<1x16x8x8xf16>
    %s = vg.add %c, %r : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
    return %s : tensor<1x16x8x8xf16>
  }
  // expected-error @+1 {{kernel k3_conv: gelu has no depthwise epilogue}}
  func.func private @k3_conv(%a: tensor<1x16x8x8xf16>, %w: tensor<16x1x3x3xf16>) -> tensor<1x16x8x8xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf16>, tensor<16x1x3x3xf16>) -> tensor<1x16x8x8xf16>
    %y = vg.gelu %c : tensor<1x16x8x8xf16>
    return %y : tensor<1x16x8x8xf16>
  }
}

// -----

// Row split: 32 channels NC1HWC0 on both sides are 2 channel groups for 8
// cores, so the 64 output rows go over 8 blocks instead (ConvCommon's
// planRowSplit), each holding both groups: blocks 0..6 own rows 4 + 8 b ..
// (b mod 7), which read no pad, and block 7 (b floordiv 7) owns rows 0..3
// and 60..63. Every block zeroes the top pad row at padded row 1 (the
// buffer's margin, 66 pixels = 1056 elements) and loads 6 input rows from
// row 3 + 8 b, shifted by one row on the edge block (from row 0, into
// padded row 2); the bottom band zeroes padded row 6 and the edge block
// loads from row 58 into padded row 0. The NC1HWC0 rows come straight
// into the padded rows, a burst a row (the pad columns the gap): no
// staging buffer. Both groups' weights are loaded
// once (32 channels), and the second group's first band loads during the
// first group's last band.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 8 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[PAD0:.+]] = dv.alloc offset 65536 : !dv.buf<ub, 8704xf16>
// CHECK: %[[PAD1:.+]] = dv.alloc offset 82944 : !dv.buf<ub, 8704xf16>
// CHECK-NOT: dv.alloc {{.+}} 6144xf16
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 32 : i64, spatial = 9 : i64, src_channel_stride = 9 : i64}
// CHECK: %[[TOPZ:.+]] = dv.view %[[PAD0]][1056]
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[TOPZ]]
// CHECK: %[[ROWS0:.+]] = dv.view %[[PAD0]][(%[[BID]] floordiv 7) * 1056 + 1072]
// CHECK: %[[TOPX:.+]] = dv.view %{{.+}}[(%[[BID]] mod 7) * 8192 - (%[[BID]] floordiv 7) * 3072 + 3072]
// CHECK: dv.copy %[[TOPX]] to %[[ROWS0]] {burst_bytes = 2048 : i64, bursts = 6 : i64, dst_gap = 64 : i64}
// CHECK: %[[BOTZ:.+]] = dv.view %[[PAD1]][6336]
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[BOTZ]]
// CHECK: %[[ROWS1:.+]] = dv.view %[[PAD1]][(%[[BID]] floordiv 7) * -1056 + 1072]
// CHECK: %[[BOTX:.+]] = dv.view %{{.+}}[(%[[BID]] mod 7) * 8192 + (%[[BID]] floordiv 7) * 52224 + 7168]
// CHECK: dv.copy %[[BOTX]] to %[[ROWS1]]
// CHECK: dv.view %[[PAD0]][1056] : {{.+}} to !dv.buf<ub, 4224xf16>
// CHECK: dv.vmul
// CHECK: dv.view %{{.+}}[(%[[BID]] mod 7) * 8192 - (%[[BID]] floordiv 7) * 4096 + 4096] : !dv.gm<1x2x64x64x16xf16> to !dv.gm<4096xf16>
// The second group's first band, before the first group's bottom band computes.
// CHECK: dv.view %[[PAD0]][(%[[BID]] floordiv 7) * 1056 + 1072]
// CHECK: dv.view %{{.+}}[(%[[BID]] mod 7) * 8192 - (%[[BID]] floordiv 7) * 3072 + 68608]
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<1x32x64x64xf16>) -> tensor<1x32x64x64xf16> {
    %w = vg.constant dense<0.5> : tensor<32x1x3x3xf16>
    %y = call @k0_conv(%x, %w) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]} : (tensor<1x32x64x64xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x64x64xf16>
    return %y : tensor<1x32x64x64xf16>
  }
  func.func private @k0_conv(%a: tensor<1x32x64x64xf16>, %w: tensor<32x1x3x3xf16>) -> tensor<1x32x64x64xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x64x64xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x64x64xf16>
    %y = vg.relu %c : tensor<1x32x64x64xf16>
    return %y : tensor<1x32x64x64xf16>
  }
}

// -----

// Near miss: 61 output rows (prime) have no row split; the 2 channel
// groups take 2 blocks.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 2 : i64
// CHECK-NOT: floordiv
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<1x32x61x61xf16>) -> tensor<1x32x61x61xf16> {
    %w = vg.constant dense<0.5> : tensor<32x1x3x3xf16>
    %y = call @k0_conv(%x, %w) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]} : (tensor<1x32x61x61xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x61x61xf16>
    return %y : tensor<1x32x61x61xf16>
  }
  func.func private @k0_conv(%a: tensor<1x32x61x61xf16>, %w: tensor<32x1x3x3xf16>) -> tensor<1x32x61x61xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x61x61xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x61x61xf16>
    %y = vg.relu %c : tensor<1x32x61x61xf16>
    return %y : tensor<1x32x61x61xf16>
  }
}

// -----

// Steps (MobileNetV2's 7 x 7 x 960 depthwise): 60 channel groups whose
// maps each fit one band. An even split would give 6 blocks of 10 groups;
// ragged steps give 8 blocks of 8 (the fewest groups a block over all the
// cores): blocks 0..6 own groups 8 (b mod 7) .., block 7 (the edge, b
// floordiv 7) the last 4, its window the last 8 (groups 52..59, so that
// its resident weights stay in bounds). A step is 2 groups: one load of
// their 2 NC1HWC0 planes (2 bursts of 49 pixels, to a staging pitch of 52),
// each plane into its padded rows, the taps interleaving the 2 planes
// (tap-major: no tap waits for the last one's result), one store of the
// 2 compacted planes. The 4 steps are static: the edge block's steps 0..2
// are all its group 56 (its first own step, written again), step 3 its
// group 58. The first step loads before the weights and bias; the bias is
// spread before its vadd.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 8 : i64
// CHECK: dv.alloc offset 65536 : !dv.buf<ub, 3072xf16>
// CHECK: %[[ACC:.+]] = dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
// CHECK: %[[X0:.+]] = dv.view %arg0[(%[[BID:.+]] mod 7) * 6272 + (%[[BID]] floordiv 7) * 43904]
// CHECK: dv.copy %[[X0]] to %{{.+}} {burst_bytes = 1568 : i64, bursts = 2 : i64, dst_gap = 96 : i64}
// CHECK: dv.view %arg1[(%[[BID]] mod 7) * 1152 + (%[[BID]] floordiv 7) * 7488]
// CHECK: dv.copy_nchw2nc1hwc0 {{.+}} {channels = 128 : i64, spatial = 9 : i64, src_channel_stride = 9 : i64}
// CHECK: dv.view %arg2[(%[[BID]] mod 7) * 128 + (%[[BID]] floordiv 7) * 832]
// CHECK: dv.view %arg0[(%[[BID]] mod 7) * 6272 + (%[[BID]] floordiv 7) * 42336 + 1568]
// CHECK: dv.view %{{.+}}[(%[[BID]] floordiv 7) * 576] : !dv.buf<ub, 1152xf16> to !dv.buf<ub, 288xf16>
// CHECK: dv.vmuls {{.+}} {blk = array<i64: 1, 0>, rep = array<i64: 8, 1>, repeat = 18 : i64}
// CHECK: dv.copy {{.+}} {burst_bytes = 224 : i64, bursts = 7 : i64, dst_gap = 64 : i64}
// CHECK: dv.copy {{.+}} {burst_bytes = 224 : i64, bursts = 7 : i64, dst_gap = 64 : i64}
// CHECK: %[[ACC0:.+]] = dv.view %[[ACC]][0]
// CHECK: dv.vmul {{.+}} to %[[ACC0]] {blk = array<i64: 1, 1, 1>, rep = array<i64: 8, 8, 0>, repeat = 8 : i64}
// CHECK: %[[ACC1:.+]] = dv.view %[[ACC]][1024]
// CHECK: dv.vmul {{.+}} to %[[ACC1]]
// CHECK-COUNT-16: dv.vmla
// CHECK: dv.vmuls {{.+}} {blk = array<i64: 1, 0>, rep = array<i64: 8, 1>, repeat = 2 : i64}
// CHECK-COUNT-2: dv.vadd
// CHECK: dv.vmaxs {{.+}} {repeat = 14 : i64}
// CHECK: dv.vmins {{.+}} {repeat = 14 : i64}
// CHECK: %[[Y0:.+]] = dv.view %arg3[(%[[BID]] mod 7) * 6272 + (%[[BID]] floordiv 7) * 43904]
// CHECK: dv.copy %{{.+}} to %[[Y0]] {burst_bytes = 3136 : i64}
// CHECK: dv.view %arg3[(%[[BID]] mod 7) * 6272 + (%[[BID]] floordiv 7) * 42336 + 1568]
// CHECK: dv.view %arg3[(%[[BID]] mod 7) * 6272 + (%[[BID]] floordiv 7) * 40768 + 3136]
// CHECK: dv.view %arg3[(%[[BID]] mod 7) * 6272 + (%[[BID]] floordiv 7) * 40768 + 4704]
// CHECK-NOT: dv.loop
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<1x960x7x7xf16>) -> tensor<1x960x7x7xf16> {
    %w = vg.constant dense<0.5> : tensor<960x1x3x3xf16>
    %b = vg.constant dense<0.25> : tensor<960xf16>
    %y = call @k0_conv(%x, %w, %b) {vinci.layouts = ["nc1hwc0", "nd", "nd", "nc1hwc0"]} : (tensor<1x960x7x7xf16>, tensor<960x1x3x3xf16>, tensor<960xf16>) -> tensor<1x960x7x7xf16>
    return %y : tensor<1x960x7x7xf16>
  }
  func.func private @k0_conv(%a: tensor<1x960x7x7xf16>, %w: tensor<960x1x3x3xf16>, %b: tensor<960xf16>) -> tensor<1x960x7x7xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w, %b {group = 960 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x960x7x7xf16>, tensor<960x1x3x3xf16>, tensor<960xf16>) -> tensor<1x960x7x7xf16>
    %y = vg.clip %c {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x960x7x7xf16>
    return %y : tensor<1x960x7x7xf16>
  }
}

// -----

// Near miss: 952 channels (the last group of 8) have no ragged steps (the
// edge block's weights would be a partial group, its program another),
// and NC1HWC0 groups split only when whole: one block.
// CHECK-LABEL: dv.kernel @k0_conv
// CHECK-SAME: block_dim = 1 : i64
// CHECK-NOT: floordiv
// CHECK: dv.return
module {
  func.func @graph(%x: tensor<1x952x7x7xf16>) -> tensor<1x952x7x7xf16> {
    %w = vg.constant dense<0.5> : tensor<952x1x3x3xf16>
    %y = call @k0_conv(%x, %w) {vinci.layouts = ["nc1hwc0", "nd", "nc1hwc0"]} : (tensor<1x952x7x7xf16>, tensor<952x1x3x3xf16>) -> tensor<1x952x7x7xf16>
    return %y : tensor<1x952x7x7xf16>
  }
  func.func private @k0_conv(%a: tensor<1x952x7x7xf16>, %w: tensor<952x1x3x3xf16>) -> tensor<1x952x7x7xf16>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %c = vg.conv %a, %w {group = 952 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x952x7x7xf16>, tensor<952x1x3x3xf16>) -> tensor<1x952x7x7xf16>
    %y = vg.relu %c : tensor<1x952x7x7xf16>
    return %y : tensor<1x952x7x7xf16>
  }
}
