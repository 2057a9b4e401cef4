// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// BERT's word embeddings: 128 ids over 8 blocks, 16 a block; the ids tile
// comes in first (MTE2), copy_gather fetches the 16 rows of 1536 bytes
// from the whole f16 table, one MTE3 copy writes them out.
// CHECK-LABEL: dv.kernel @k0_gather
// CHECK-SAME: (%[[TABLE:.+]]: !dv.gm<30522x768xf16>, %[[IDS:.+]]: !dv.gm<1x128xi32>, %[[OUT:.+]]: !dv.gm<1x128x768xf16>)
// CHECK-SAME: attributes {block_dim = 8 : i64, kind = "vector"
// CHECK: %[[ITILE:.+]] = dv.alloc : !dv.buf<ub, 16xi32>
// CHECK: %[[RTILE:.+]] = dv.alloc : !dv.buf<ub, 12288xf16>
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: %[[IV:.+]] = dv.view %[[IDS]][%[[BID]] * 16] : !dv.gm<1x128xi32> to !dv.gm<16xi32>
// CHECK: %[[TV:.+]] = dv.view %[[TABLE]][0] : !dv.gm<30522x768xf16> to !dv.gm<23440896xf16>
// CHECK: %[[OV:.+]] = dv.view %[[OUT]][%[[BID]] * 12288] : !dv.gm<1x128x768xf16> to !dv.gm<12288xf16>
// CHECK: dv.copy %[[IV]] to %[[ITILE]] {burst_bytes = 64 : i64}
// CHECK: dv.copy_gather %[[TV]][%[[ITILE]]] to %[[RTILE]] {dst_row_stride = 1536 : i64, row_bytes = 1536 : i64, rows = 16 : i64, src_row_stride = 1536 : i64, table_rows = 30522 : i64}
// CHECK: dv.copy %[[RTILE]] to %[[OV]] {burst_bytes = 24576 : i64}
// SYNC-LABEL: dv.kernel @k0_gather
// SYNC: dv.copy_gather
// SYNC-NEXT: dv.set_flag MTE2 -> MTE3
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

// Gather along axis 1: the outer dim is a loop over table slices; the 4
// indices are one a block, each fetching a row of 6 f32.
// CHECK-LABEL: dv.kernel @k0_gather
// CHECK-SAME: attributes {block_dim = 4 : i64
// CHECK: %[[BID:.+]] = dv.block_idx
// CHECK: dv.loop %[[O:.+]] trip 3 {
// CHECK: %[[TV:.+]] = dv.view %{{.+}}[%[[O]] * 60] : !dv.gm<3x10x6xf32> to !dv.gm<60xf32>
// CHECK: %[[OV:.+]] = dv.view %{{.+}}[%[[O]] * 24 + %[[BID]] * 6] : !dv.gm<3x2x2x6xf32> to !dv.gm<6xf32>
// CHECK: dv.copy_gather %[[TV]][%{{.+}}] to %{{.+}} {dst_row_stride = 24 : i64, row_bytes = 24 : i64, rows = 1 : i64, src_row_stride = 24 : i64, table_rows = 10 : i64}
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

// Near-miss: an f32 graph input gathered into an f16 intermediate would
// need a conversion this template does not do.
module {
  func.func @graph(%x: tensor<10x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32> {
    %g = call @k0_gather(%x, %i) : (tensor<10x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
    %y = call @k1_relu(%g) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %y : tensor<4x8xf32>
  }
  // expected-error @+1 {{kernel k0_gather: a gather that also converts (f32 to f16) has no lowering template yet}}
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

// Near-miss: int64 indices must be narrowed first (vinci-narrow-int64).
module {
  func.func @graph(%x: tensor<10x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32> {
    %g = call @k0_gather(%x, %i) : (tensor<10x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
    return %g : tensor<4x8xf32>
  }
  // expected-error @+1 {{kernel k0_gather: gather indices of i64 have no lowering template (i32 after vinci-narrow-int64)}}
  func.func private @k0_gather(%t: tensor<10x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %g = vg.gather %t, %i : (tensor<10x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
    return %g : tensor<4x8xf32>
  }
}
