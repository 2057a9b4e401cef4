// RUN: vinci-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// The graph launches kernels on tensors; an f32 tensor may be stored as f16.
// CHECK-LABEL: func.func @graph
// CHECK: [[Y:%.+]] = dv.launch @k0_add(%{{.+}}, %{{.+}}) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
// CHECK: return [[Y]]
module {
  func.func @graph(%x: tensor<8x128xf32>, %w: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %y = dv.launch @k0_add(%x, %w) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
    return %y : tensor<8x128xf32>
  }
  dv.kernel @k0_add(%a: !dv.gm<1024xf32>, %b: !dv.gm<1024xf16>, %c: !dv.gm<8x128xf32>)
      attributes {block_dim = 1 : i64, kind = "vector"} {
    dv.return
  }
}

// -----

module {
  func.func @not_a_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'dv.launch' op 'missing' is not a dv.kernel}}
    %y = dv.launch @missing(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

module {
  func.func @arity(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'dv.launch' op kernel 'k' takes 1 GM buffers but the launch passes 2 tensors (operands, then results)}}
    %y = dv.launch @k(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
  dv.kernel @k(%a: !dv.gm<4xf32>) attributes {block_dim = 1 : i64, kind = "vector"} {
    dv.return
  }
}

// -----

module {
  func.func @element_count(%x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'dv.launch' op tensor 1 ('tensor<4xf32>') and kernel argument 1 ('!dv.gm<8xf32>') differ in element count}}
    %y = dv.launch @k(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
  dv.kernel @k(%a: !dv.gm<4xf32>, %b: !dv.gm<8xf32>) attributes {block_dim = 1 : i64, kind = "vector"} {
    dv.return
  }
}
