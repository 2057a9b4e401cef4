// RUN: vinci-opt %s --split-input-file --vinci-fuse-gelu | FileCheck %s

// The order a hand-written BERT exports: (x * 0.5) * (erf(x / sqrt 2) + 1).
// CHECK-LABEL: func.func @gelu_erf_bert
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x64xf32>)
// CHECK-NEXT: [[Y:%.+]] = vg.gelu [[X]] : tensor<2x64xf32>
// CHECK-NEXT: return [[Y]]
func.func @gelu_erf_bert(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %half = vg.constant dense<0.5> : tensor<f32>
  %sqrt2 = vg.constant dense<1.41421354> : tensor<f32>
  %one = vg.constant dense<1.0> : tensor<f32>
  %h = vg.mul %x, %half : (tensor<2x64xf32>, tensor<f32>) -> tensor<2x64xf32>
  %q = vg.div %x, %sqrt2 : (tensor<2x64xf32>, tensor<f32>) -> tensor<2x64xf32>
  %e = vg.erf %q : tensor<2x64xf32>
  %p = vg.add %e, %one : (tensor<2x64xf32>, tensor<f32>) -> tensor<2x64xf32>
  %y = vg.mul %h, %p : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  return %y : tensor<2x64xf32>
}

// -----

// torch.nn.functional.gelu's export: ((x * (erf(x * 0.7071) + 1)) * 0.5).
// CHECK-LABEL: func.func @gelu_erf_functional
// CHECK-NEXT: vg.gelu %{{.+}} : tensor<8xf32>
// CHECK-NEXT: return
func.func @gelu_erf_functional(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = vg.constant dense<0.5> : tensor<f32>
  %rsqrt2 = vg.constant dense<0.707106769> : tensor<f32>
  %one = vg.constant dense<1.0> : tensor<f32>
  %q = vg.mul %x, %rsqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = vg.erf %q : tensor<8xf32>
  %p = vg.add %one, %e : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %m = vg.mul %x, %p : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y = vg.mul %m, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// The tanh approximation (GPT-2's gelu_new), with x^3 as Pow 3.
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NEXT: vg.gelu %{{.+}} {approximate = "tanh"} : tensor<8xf32>
// CHECK-NEXT: return
func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = vg.constant dense<0.5> : tensor<f32>
  %three = vg.constant dense<3.0> : tensor<f32>
  %c = vg.constant dense<0.044715> : tensor<f32>
  %k = vg.constant dense<0.797884583> : tensor<f32>
  %one = vg.constant dense<1.0> : tensor<f32>
  %cube = vg.pow %x, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %cc = vg.mul %cube, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %in = vg.add %x, %cc : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %s = vg.mul %in, %k : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %t = vg.tanh %s : tensor<8xf32>
  %p = vg.add %t, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %h = vg.mul %x, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y = vg.mul %h, %p : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Near-miss: the erf term has another user, so the chain stays.
// CHECK-LABEL: func.func @shared_erf
// CHECK-NOT: vg.gelu
// CHECK: vg.erf
func.func @shared_erf(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %half = vg.constant dense<0.5> : tensor<f32>
  %sqrt2 = vg.constant dense<1.41421354> : tensor<f32>
  %one = vg.constant dense<1.0> : tensor<f32>
  %h = vg.mul %x, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %q = vg.div %x, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = vg.erf %q : tensor<8xf32>
  %p = vg.add %e, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y = vg.mul %h, %p : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y, %e : tensor<8xf32>, tensor<8xf32>
}

// -----

// Near-miss: a wrong constant (x / 2 instead of x / sqrt 2) is not GELU.
// CHECK-LABEL: func.func @wrong_constant
// CHECK-NOT: vg.gelu
func.func @wrong_constant(%x: tensor<8xf32>) -> tensor<8xf32> {
  %half = vg.constant dense<0.5> : tensor<f32>
  %two = vg.constant dense<2.0> : tensor<f32>
  %one = vg.constant dense<1.0> : tensor<f32>
  %h = vg.mul %x, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %q = vg.div %x, %two : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = vg.erf %q : tensor<8xf32>
  %p = vg.add %e, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y = vg.mul %h, %p : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Near-miss: the erf is of another tensor than the one scaled by 0.5.
// CHECK-LABEL: func.func @different_inputs
// CHECK-NOT: vg.gelu
func.func @different_inputs(%x: tensor<8xf32>, %z: tensor<8xf32>) -> tensor<8xf32> {
  %half = vg.constant dense<0.5> : tensor<f32>
  %sqrt2 = vg.constant dense<1.41421354> : tensor<f32>
  %one = vg.constant dense<1.0> : tensor<f32>
  %h = vg.mul %x, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %q = vg.div %z, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = vg.erf %q : tensor<8xf32>
  %p = vg.add %e, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %y = vg.mul %h, %p : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
