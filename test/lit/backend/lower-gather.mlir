// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// Golden: BERT's word embeddings, indices known at run time. 128 ids over
// 8 blocks, 16 a block; the ids tile comes in first (MTE2), copy_gather
// fetches the 16 rows of 1536 bytes from the whole f16 table, one MTE3 copy
// writes them out.
// CHECK-LABEL: dv.kernel @k0_gather
// CHECK-SAME: (%[[TABLE:.+]]: !dv.gm<30522x768xf16>, %[[IDS:.+]]: !dv.gm<1x128xi32>, %[[OUT:.+]]: !dv.gm<1x128x768xf16>)
// CHECK-SAME: attributes {block_dim = 8 : i64, kind = "vector"
// CHECK-NEXT: %[[BID:.+]] = dv.block_idx
// CHECK-NEXT: %[[RTILE:.+]] = dv.alloc : !dv.buf<ub, 12288xf16>
// CHECK-NEXT: %[[ITILE:.+]] = dv.alloc : !dv.buf<ub, 16xi32>
// CHECK-NEXT: %[[IV:.+]] = dv.view %[[IDS]][%[[BID]] * 16] : !dv.gm<1x128xi32> to !dv.gm<16xi32>
// CHECK-NEXT: dv.copy %[[IV]] to %[[ITILE]] {burst_bytes = 64 : i64}
// CHECK-NEXT: %[[TV:.+]] = dv.view %[[TABLE]][0] : !dv.gm<30522x768xf16> to !dv.gm<23440896xf16>
// CHECK-NEXT: dv.copy_gather %[[TV]][%[[ITILE]]] to %[[RTILE]] {dst_row_stride = 1536 : i64, row_bytes = 1536 : i64, rows = 16 : i64, src_row_stride = 1536 : i64, table_rows = 30522 : i64}
// CHECK-NEXT: %[[OV:.+]] = dv.view %[[OUT]][%[[BID]] * 12288] : !dv.gm<1x128x768xf16> to !dv.gm<12288xf16>
// CHECK-NEXT: dv.copy %[[RTILE]] to %[[OV]] {burst_bytes = 1536 : i64, bursts = 16 : i64}
// CHECK-NEXT: dv.return
// SYNC-LABEL: dv.kernel @k0_gather
// SYNC: dv.copy_gather
// SYNC-NEXT: dv.set_flag MTE2 -> MTE3
// SYNC-NEXT: dv.view
// SYNC-NEXT: dv.wait_flag MTE2 -> MTE3
// SYNC-NEXT: dv.copy
module {
  func.func @graph(%ids: tensor<1x128xi32>) -> tensor<1x128x768xf32> {
    %table = vg.constant dense<1.0> : tensor<30522x768xf32>
    %e = call @k0_gather(%table, %ids) : (tensor<30522x768xf32>, tensor<1x128xi32>) -> tensor<1x128x768xf32>
    %y = call @k1_relu(%e) : (tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
    return %y : tensor<1x128x768xf32>
  }
  func.func private @k0_gather(%t: tensor<30522x768xf32>, %i: tensor<1x128xi32>) -> tensor<1x128x768xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Gather"]} {
    %g = vg.gather %t, %i : (tensor<30522x768xf32>, tensor<1x128xi32>) -> tensor<1x128x768xf32>
    return %g : tensor<1x128x768xf32>
  }
  func.func private @k1_relu(%a: tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x128x768xf32>
    return %r : tensor<1x128x768xf32>
  }
}

// -----

// Along axis 1 at run time: the outer dim is a loop over table slices; the
// 4 indices are one a block, each fetching a row of 6 f32.
// CHECK-LABEL: dv.kernel @k0_gather
// CHECK-SAME: attributes {block_dim = 4 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.loop %[[O:.+]] trip 3 {
// CHECK: %[[TV:.+]] = dv.view %{{.+}}[%[[O]] * 60] : !dv.gm<3x10x6xf32> to !dv.gm<60xf32>
// CHECK: dv.copy_gather %[[TV]][%{{.+}}] to %{{.+}} {dst_row_stride = 24 : i64, row_bytes = 24 : i64, rows = 1 : i64, src_row_stride = 24 : i64, table_rows = 10 : i64}
// CHECK: dv.view %{{.+}}[%[[O]] * 24 + %[[BID]] * 6] : !dv.gm<3x2x2x6xf32> to !dv.gm<6xf32>
module {
  func.func @graph(%x: tensor<3x10x6xf32>, %i: tensor<2x2xi32>) -> tensor<3x2x2x6xf32> {
    %y = call @k0_gather(%x, %i) : (tensor<3x10x6xf32>, tensor<2x2xi32>) -> tensor<3x2x2x6xf32>
    return %y : tensor<3x2x2x6xf32>
  }
  func.func private @k0_gather(%t: tensor<3x10x6xf32>, %i: tensor<2x2xi32>) -> tensor<3x2x2x6xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %g = vg.gather %t, %i {axis = 1 : i64} : (tensor<3x10x6xf32>, tensor<2x2xi32>) -> tensor<3x2x2x6xf32>
    return %g : tensor<3x2x2x6xf32>
  }
}

// -----

// ViT's class token x[:, 0]: a known scalar index is one run, one burst of
// the token's 768 elements in and out (no index tile, no copy_gather).
// CHECK-LABEL: dv.kernel @k0_gather
// CHECK-SAME: (%[[X:.+]]: !dv.gm<1x197x768xf16>, %[[OUT:.+]]: !dv.gm<1x768xf16>)
// CHECK-NOT: copy_gather
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 1536 : i64} : !dv.gm<768xf16> to !dv.buf<ub, 768xf16>
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 1536 : i64} : !dv.buf<ub, 768xf16> to !dv.gm<768xf16>
// CHECK-NEXT: dv.return
module {
  func.func @graph(%x: tensor<1x197x768xf32>) -> tensor<1x768xf32> {
    %r = call @k0_relu(%x) : (tensor<1x197x768xf32>) -> tensor<1x197x768xf32>
    %g = call @k0_gather(%r) : (tensor<1x197x768xf32>) -> tensor<1x768xf32>
    %y = call @k2_relu(%g) : (tensor<1x768xf32>) -> tensor<1x768xf32>
    return %y : tensor<1x768xf32>
  }
  func.func private @k0_relu(%a: tensor<1x197x768xf32>) -> tensor<1x197x768xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x197x768xf32>
    return %r : tensor<1x197x768xf32>
  }
  func.func private @k0_gather(%t: tensor<1x197x768xf32>) -> tensor<1x768xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Gather"]} {
    %i = vg.constant dense<0> : tensor<i32>
    %g = vg.gather %t, %i {axis = 1 : i64} : (tensor<1x197x768xf32>, tensor<i32>) -> tensor<1x768xf32>
    return %g : tensor<1x768xf32>
  }
  func.func private @k2_relu(%a: tensor<1x768xf32>) -> tensor<1x768xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<1x768xf32>
    return %r : tensor<1x768xf32>
  }
}

// -----

// Known indices [5, 1, 2] on axis 1 of [3, 8, 5]: two runs, [5] and [1, 2],
// each a strided copy; the 3 outer positions go to 3 blocks (table stride
// 40 elements, output stride 15).
// CHECK-LABEL: dv.kernel @k0_gather
// CHECK-SAME: block_dim = 3 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.view %{{.+}}[%[[BID]] * 40 + 25] : !dv.gm<3x8x5xf32> to !dv.gm<5xf32>
// CHECK: dv.view %{{.+}}[%[[BID]] * 15] : !dv.gm<3x3x5xf32> to !dv.gm<5xf32>
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 20 : i64}
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 20 : i64}
// CHECK: dv.view %{{.+}}[%[[BID]] * 40 + 5] : !dv.gm<3x8x5xf32> to !dv.gm<10xf32>
// CHECK: dv.view %{{.+}}[%[[BID]] * 15 + 5] : !dv.gm<3x3x5xf32> to !dv.gm<10xf32>
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 40 : i64}
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 40 : i64}
module {
  func.func @graph(%x: tensor<3x8x5xf32>) -> tensor<3x3x5xf32> {
    %y = call @k0_gather(%x) : (tensor<3x8x5xf32>) -> tensor<3x3x5xf32>
    return %y : tensor<3x3x5xf32>
  }
  func.func private @k0_gather(%t: tensor<3x8x5xf32>) -> tensor<3x3x5xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %i = vg.constant dense<[5, 1, 2]> : tensor<3xi32>
    %g = vg.gather %t, %i {axis = 1 : i64} : (tensor<3x8x5xf32>, tensor<3xi32>) -> tensor<3x3x5xf32>
    return %g : tensor<3x3x5xf32>
  }
}

// -----

// An f32 graph input gathered into an f16 intermediate: the rows are
// converted in UB (vconv, whole repeats) before the store.
// CHECK-LABEL: dv.kernel @k0_gather
// CHECK: dv.copy_gather {{.+}} : !dv.gm<80xf32>, !dv.buf<ub, 8xi32> to !dv.buf<ub, 64xf32>
// CHECK-NEXT: dv.view
// CHECK-NEXT: dv.view
// CHECK-NEXT: dv.view
// CHECK-NEXT: dv.vconv {{.+}} {rep = array<i64: 4, 8>, repeat = 1 : i64} : !dv.buf<ub, 64xf32> to !dv.buf<ub, 64xf16>
// CHECK: dv.copy {{.+}} : !dv.buf<ub, 64xf16> to !dv.gm<8xf16>
module {
  func.func @graph(%x: tensor<10x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32> {
    %g = call @k0_gather(%x, %i) : (tensor<10x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
    %y = call @k1_relu(%g) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
  func.func private @k0_gather(%t: tensor<10x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %g = vg.gather %t, %i : (tensor<10x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
    return %g : tensor<4x8xf32>
  }
  func.func private @k1_relu(%a: tensor<4x8xf32>) -> tensor<4x8xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.relu %a : tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }
}

// -----

// Near-miss: int64 indices read at run time must be narrowed first
// (vinci-narrow-int64).
module {
  func.func @graph(%x: tensor<10x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32> {
    %g = call @k0_gather(%x, %i) : (tensor<10x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
    return %g : tensor<4x8xf32>
  }
  // expected-error @+1 {{kernel k0_gather: gather indices of i64 read at run time have no lowering template}}
  func.func private @k0_gather(%t: tensor<10x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %g = vg.gather %t, %i : (tensor<10x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
    return %g : tensor<4x8xf32>
  }
}

// -----

// Near-miss: a known index out of range is a compile-time error.
module {
  func.func @graph(%x: tensor<10x8xf32>) -> tensor<8xf32> {
    %g = call @k0_gather(%x) : (tensor<10x8xf32>) -> tensor<8xf32>
    return %g : tensor<8xf32>
  }
  // expected-error @+1 {{kernel k0_gather: gather index 10 is out of range}}
  func.func private @k0_gather(%t: tensor<10x8xf32>) -> tensor<8xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %i = vg.constant dense<10> : tensor<i32>
    %g = vg.gather %t, %i : (tensor<10x8xf32>, tensor<i32>) -> tensor<8xf32>
    return %g : tensor<8xf32>
  }
}
