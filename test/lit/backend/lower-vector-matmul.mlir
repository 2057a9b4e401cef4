// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// The Vector matmul template (passes/lower/VectorMatmul.cpp): fp32 matmuls
// that keep fp32 run on the Vector unit, since the 310P Cube takes no fp32.

// must_keep_origin_dtype, [8,64] x [64,32]: one row a block (8 blocks);
// vbrcb spreads A's row over 64 repeats, one vmla adds repeat k's
// A[m,k] * B[k, 0:64] into the same 64 output lanes (repeat stride 0), the
// 32 valid columns are stored.
// CHECK-LABEL: func.func @mm
// CHECK: dv.launch @k0_matmul(%{{.+}}) {vinci.keep_dtype}
// CHECK-LABEL: dv.kernel @k0_matmul
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: !dv.gm<8x64xf32>, [[B:%[a-z0-9_]+]]: !dv.gm<64x32xf32>, [[C:%[a-z0-9_]+]]: !dv.gm<8x32xf32>)
// CHECK-SAME: block_dim = 8 : i64, kind = "vector"
// CHECK-SAME: vinci.template = "vector_matmul"
// CHECK-NOT: dv.mmad
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK: [[UA:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[OUT:%.+]] = dv.alloc : !dv.buf<ub, 64xf32>
// CHECK-NEXT: [[UB:%.+]] = dv.alloc : !dv.buf<ub, 4096xf32>
// CHECK-NEXT: [[BC:%.+]] = dv.alloc : !dv.buf<ub, 4096xf32>
// CHECK: dv.vdup 0.000000e+00 : f32 to %{{.+}} {repeat = 1 : i64}
// CHECK: dv.view [[A]][[[BID]] * 64] : !dv.gm<8x64xf32> to !dv.gm<64xf32>
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 128 : i64, bursts = 64 : i64, dst_gap = 128 : i64} : !dv.gm<2048xf32> to !dv.buf<ub, 4064xf32>
// CHECK: [[SPREAD:%.+]] = dv.view [[BC]][0] : !dv.buf<ub, 4096xf32> to !dv.buf<ub, 4096xf32>
// CHECK: dv.vbrcb %{{.+}} to [[SPREAD]] {repeat = 64 : i64}
// CHECK: dv.vmla %{{.+}}, %{{.+}} to %{{.+}} {blk = array<i64: 1, 1, 1>, rep = array<i64: 0, 8, 8>, repeat = 64 : i64}
// CHECK: [[GC:%.+]] = dv.view [[C]][[[BID]] * 32]
// CHECK: dv.copy %{{.+}} to [[GC]] {burst_bytes = 128 : i64, src_gap = 128 : i64}
// CHECK-NEXT: dv.return
// After allocation and sync: the broadcast waits for A's load, the store
// for the Vector unit.
// SYNC-LABEL: dv.kernel @k0_matmul
// SYNC: dv.wait_flag MTE2 -> V
// SYNC: dv.vbrcb
// SYNC: dv.vmla
// SYNC: dv.wait_flag V -> MTE3
// SYNC-NEXT: dv.copy
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @mm(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
    %0 = call @k0_matmul(%x, %w) : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
  func.func private @k0_matmul(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %0 = vg.matmul %a, %b : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
}

// -----

// --keep_dtype on the matmul alone (force_fp16 module), transpose_b with
// a bias row and relu (Gemm): 8 blocks of 12 columns (12 B rows each; 4
// row parts would each read all 96). Dot products per B row, K = 100 zero
// padded to 128 (two 64-lane chunks: vmul then vmla), vcadd folds each B
// row's lanes, vadd adds the sums to the output row; the bias row is added
// to every row with repeat stride 0 on it.
// CHECK-LABEL: func.func @gemm
// CHECK: dv.launch @k0_matmul(%{{.+}}) {vinci.keep_dtype}
// CHECK-LABEL: dv.kernel @k0_matmul
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: !dv.gm<4x100xf32>, [[B:%[a-z0-9_]+]]: !dv.gm<96x100xf32>, [[BIAS:%[a-z0-9_]+]]: !dv.gm<96xf32>, [[C:%[a-z0-9_]+]]: !dv.gm<4x96xf32>)
// CHECK-SAME: block_dim = 8 : i64, kind = "vector"
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK: dv.view [[B]][[[BID]] * 1200] : !dv.gm<96x100xf32> to !dv.gm<1200xf32>
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 400 : i64, bursts = 12 : i64, dst_gap = 112 : i64}
// CHECK: dv.loop [[M:%.+]] trip 4 {
// CHECK: [[PART:%.+]] = dv.view %{{.+}}[0] : !dv.buf<ub, 4096xf32> to !dv.buf<ub, 768xf32>
// CHECK: dv.vmul %{{.+}}, %{{.+}} to [[PART]] {blk = array<i64: 1, 1, 1>, rep = array<i64: 8, 0, 16>, repeat = 12 : i64}
// CHECK: dv.vmla %{{.+}}, %{{.+}} to [[PART]] {blk = array<i64: 1, 1, 1>, rep = array<i64: 8, 0, 16>, repeat = 12 : i64}
// CHECK: dv.vcadd [[PART]] to [[SUMS:%.+]] {repeat = 12 : i64}
// CHECK: dv.vadd [[ROW:%.+]], %{{.+}} to [[ROW]] {repeat = 1 : i64}
// CHECK: }
// CHECK: dv.view [[BIAS]][[[BID]] * 12] : !dv.gm<96xf32> to !dv.gm<12xf32>
// CHECK: dv.vadd [[T:%.+]], %{{.+}} to [[T]] {blk = array<i64: 1, 1, 1>, rep = array<i64: 8, 8, 0>, repeat = 4 : i64}
// CHECK: dv.vrelu
// CHECK: [[GC:%.+]] = dv.view [[C]][[[BID]] * 12]
// CHECK: dv.copy %{{.+}} to [[GC]] {burst_bytes = 48 : i64, bursts = 4 : i64, dst_gap = 336 : i64, src_gap = 208 : i64}
module {
  func.func @gemm(%x: tensor<4x100xf32>, %w: tensor<96x100xf32>, %bias: tensor<96xf32>) -> tensor<4x96xf32> {
    %0 = call @k0_matmul(%x, %w, %bias) : (tensor<4x100xf32>, tensor<96x100xf32>, tensor<96xf32>) -> tensor<4x96xf32>
    return %0 : tensor<4x96xf32>
  }
  func.func private @k0_matmul(%a: tensor<4x100xf32>, %b: tensor<96x100xf32>, %c: tensor<96xf32>) -> tensor<4x96xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %0 = vg.matmul %a, %b {transpose_b = true, vinci.keep_dtype} : (tensor<4x100xf32>, tensor<96x100xf32>) -> tensor<4x96xf32>
    %1 = vg.add %0, %c : (tensor<4x96xf32>, tensor<96xf32>) -> tensor<4x96xf32>
    %2 = vg.relu %1 : tensor<4x96xf32>
    return %2 : tensor<4x96xf32>
  }
}

// -----

// Batched [2,3,8,16] x [2,3,16,24]: 6 blocks of one batch each (8 row
// parts would each read all 6 B matrices), a loop over the 8 rows.
// CHECK-LABEL: dv.kernel @k0_matmul
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: !dv.gm<2x3x8x16xf32>, [[B:%[a-z0-9_]+]]: !dv.gm<2x3x16x24xf32>, [[C:%[a-z0-9_]+]]: !dv.gm<2x3x8x24xf32>)
// CHECK-SAME: block_dim = 6 : i64, kind = "vector"
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK: dv.view [[A]][[[BID]] * 128]
// CHECK: dv.view [[B]][[[BID]] * 384]
// CHECK: dv.loop [[I:%.+]] trip 8 {
// CHECK: dv.vbrcb %{{.+}} to %{{.+}} {repeat = 16 : i64}
// CHECK: dv.vmla {{.+}} {blk = array<i64: 1, 1, 1>, rep = array<i64: 0, 8, 8>, repeat = 16 : i64}
// CHECK: }
// CHECK: dv.view [[C]][[[BID]] * 192]
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @bmm(%x: tensor<2x3x8x16xf32>, %w: tensor<2x3x16x24xf32>) -> tensor<2x3x8x24xf32> {
    %0 = call @k0_matmul(%x, %w) : (tensor<2x3x8x16xf32>, tensor<2x3x16x24xf32>) -> tensor<2x3x8x24xf32>
    return %0 : tensor<2x3x8x24xf32>
  }
  func.func private @k0_matmul(%a: tensor<2x3x8x16xf32>, %b: tensor<2x3x16x24xf32>) -> tensor<2x3x8x24xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %0 = vg.matmul %a, %b : (tensor<2x3x8x16xf32>, tensor<2x3x16x24xf32>) -> tensor<2x3x8x24xf32>
    return %0 : tensor<2x3x8x24xf32>
  }
}

// -----

// Near miss: the matmul is kept but its input comes f16 from a kernel that
// is not: the Cube template takes it (f16 in, f32 accumulation).
// CHECK-LABEL: func.func @f16_input
// CHECK-LABEL: dv.kernel @k1_matmul
// CHECK-SAME: (%{{.+}}: !dv.gm<8x64xf16>, %{{.+}}: !dv.gm<64x32xf32>, %{{.+}}: !dv.gm<8x32xf32>)
// CHECK-SAME: kind = "cube"
// CHECK-SAME: vinci.template = "matmul"
// CHECK-NOT: dv.vbrcb
// CHECK: dv.mmad
module {
  func.func @f16_input(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
    %0 = call @k0_relu(%x) : (tensor<8x64xf32>) -> tensor<8x64xf32>
    %1 = call @k1_matmul(%0, %w) : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %1 : tensor<8x32xf32>
  }
  func.func private @k0_relu(%a: tensor<8x64xf32>) -> tensor<8x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %0 = vg.relu %a : tensor<8x64xf32>
    return %0 : tensor<8x64xf32>
  }
  func.func private @k1_matmul(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %0 = vg.matmul %a, %b {vinci.keep_dtype} : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
}

// -----

// Near miss: force_fp16 (no mode, nothing kept): the Cube template.
// CHECK-LABEL: func.func @fp16_mode
// CHECK-LABEL: dv.kernel @k0_matmul
// CHECK-SAME: vinci.template = "matmul"
// CHECK: dv.mmad
module {
  func.func @fp16_mode(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
    %0 = call @k0_matmul(%x, %w) : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
  func.func private @k0_matmul(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %0 = vg.matmul %a, %b : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
}

// -----

// Near miss: must_keep_origin_dtype with transpose_a (no Vector form yet)
// and with a gelu epilogue (none on the Vector matmul): both stay on the
// Cube, which converts the f32 operands to f16.
// CHECK-LABEL: func.func @transposed_a
// CHECK-LABEL: dv.kernel @k0_matmul
// CHECK-SAME: vinci.template = "matmul"
// CHECK: dv.mmad
// CHECK-LABEL: dv.kernel @k1_matmul
// CHECK-SAME: vinci.template = "matmul"
// CHECK: dv.mmad
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @transposed_a(%x: tensor<64x8xf32>, %w: tensor<64x32xf32>) -> tensor<8x64xf32> {
    %0 = call @k0_matmul(%x, %w) : (tensor<64x8xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %1 = call @k1_matmul(%0, %w) : (tensor<8x32xf32>, tensor<64x32xf32>) -> tensor<8x64xf32>
    return %1 : tensor<8x64xf32>
  }
  func.func private @k0_matmul(%a: tensor<64x8xf32>, %b: tensor<64x32xf32>) -> tensor<8x32xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %0 = vg.matmul %a, %b {transpose_a = true} : (tensor<64x8xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
  func.func private @k1_matmul(%a: tensor<8x32xf32>, %b: tensor<64x32xf32>) -> tensor<8x64xf32>
      attributes {vinci.kernel = "cube", vinci.source_nodes = []} {
    %0 = vg.matmul %a, %b {transpose_b = true} : (tensor<8x32xf32>, tensor<64x32xf32>) -> tensor<8x64xf32>
    %1 = vg.gelu %0 : tensor<8x64xf32>
    return %1 : tensor<8x64xf32>
  }
}
