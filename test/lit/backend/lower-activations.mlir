// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels | FileCheck %s

// elu(x) = relu(x) + alpha * (e^min(x, 0) - 1): no branch, and e^x never
// sees a positive argument.
// CHECK-LABEL: dv.kernel @k0_elu
// CHECK: dv.vconv %{{.+}} to %[[X:.+]] {rep = array<i64: 4, 8>
// CHECK: dv.vmins %[[X]], 0.000000e+00 : f32 to %[[NEG:[^ ]+]]
// CHECK: dv.vexp %[[NEG]] to %[[E:[^ ]+]]
// CHECK: dv.vadds %[[E]], -1.000000e+00 : f32 to %[[EM1:[^ ]+]]
// CHECK: dv.vmuls %[[EM1]], 2.000000e+00 : f32 to %[[TAIL:[^ ]+]]
// CHECK: dv.vrelu %[[X]] to %[[POS:[^ ]+]]
// CHECK: dv.vadd %[[POS]], %[[TAIL]]
module {
  func.func @graph(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
    %y = call @k0_elu(%x) : (tensor<4x64xf32>) -> tensor<4x64xf32>
    return %y : tensor<4x64xf32>
  }
  func.func private @k0_elu(%a: tensor<4x64xf32>) -> tensor<4x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.elu %a {alpha = 2.0 : f32} : tensor<4x64xf32>
    return %r : tensor<4x64xf32>
  }
}

// -----

// softplus(x) = max(x, 0) + ln(1 + e^-|x|): e^x cannot overflow fp16.
// CHECK-LABEL: dv.kernel @k0_softplus
// CHECK: dv.vabs
// CHECK: dv.vneg
// CHECK: dv.vexp
// CHECK: dv.vadds %{{.+}}, 1.000000e+00
// CHECK: dv.vln
// CHECK: dv.vrelu
// CHECK: dv.vadd
module {
  func.func @graph(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
    %y = call @k0_softplus(%x) : (tensor<4x64xf32>) -> tensor<4x64xf32>
    return %y : tensor<4x64xf32>
  }
  func.func private @k0_softplus(%a: tensor<4x64xf32>) -> tensor<4x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.softplus %a : tensor<4x64xf32>
    return %r : tensor<4x64xf32>
  }
}

// -----

// pow by a scalar 2 is a product; by a tensor, e^(b ln a).
// CHECK-LABEL: dv.kernel @k0_pow
// CHECK-NOT: dv.vln
// CHECK: dv.vmul %[[A:[^ ,]+]], %[[A]]
// CHECK-LABEL: dv.kernel @k1_pow
// CHECK: dv.vln
// CHECK: dv.vmul
// CHECK: dv.vexp
module {
  func.func @graph(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
    %a = call @k0_pow(%x) : (tensor<4x64xf32>) -> tensor<4x64xf32>
    %b = call @k1_pow(%x, %y) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    return %a, %b : tensor<4x64xf32>, tensor<4x64xf32>
  }
  func.func private @k0_pow(%a: tensor<4x64xf32>) -> tensor<4x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %two = vg.constant dense<2.0> : tensor<f32>
    %r = vg.pow %a, %two : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
    return %r : tensor<4x64xf32>
  }
  func.func private @k1_pow(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> tensor<4x64xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.pow %a, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    return %r : tensor<4x64xf32>
  }
}
