// RUN: vinci-opt %s --split-input-file --verify-diagnostics | vinci-opt --split-input-file | FileCheck %s

// The ops the graph rewrites recompose: round trip.
// CHECK-LABEL: func.func @roundtrip
// CHECK: vg.gelu %{{.+}} : tensor<2x8xf32>
// CHECK: vg.gelu %{{.+}} {approximate = "tanh"} : tensor<2x8xf16>
// CHECK: vg.rms_norm %{{.+}}, %{{.+}} {epsilon = 9.99999997E-7 : f32} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
func.func @roundtrip(%x: tensor<2x8xf32>, %h: tensor<2x8xf16>, %s: tensor<8xf32>)
    -> (tensor<2x8xf32>, tensor<2x8xf16>, tensor<2x8xf32>) {
  %0 = vg.gelu %x : tensor<2x8xf32>
  %1 = vg.gelu %h {approximate = "tanh"} : tensor<2x8xf16>
  %2 = vg.rms_norm %x, %s {epsilon = 1.0e-6 : f32} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0, %1, %2 : tensor<2x8xf32>, tensor<2x8xf16>, tensor<2x8xf32>
}

// -----

func.func @bad_approximate(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{approximate must be "none" or "tanh", got "fast"}}
  %0 = vg.gelu %x {approximate = "fast"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rms_scale_mismatch(%x: tensor<2x8xf32>, %s: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{vg.rms_norm: scale and bias must broadcast to the normalised dims [8], got 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = vg.rms_norm %x, %s : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
