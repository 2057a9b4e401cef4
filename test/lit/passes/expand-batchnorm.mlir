// RUN: vinci-opt %s --split-input-file --vinci-expand-batchnorm | FileCheck %s

// Constant statistics: x * s + t with s = gamma / sqrt(var + eps) and
// t = beta - mean * s computed at compile time, [1, C, 1, 1] (C = 32 > 16).
// gamma 2, var 3, eps 1: s = 1; beta 1, mean 4: t = -3.
// CHECK-LABEL: func.func @constant_stats
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x32x4x4xf32>)
// CHECK-DAG: [[S:%.+]] = vg.constant dense<1.000000e+00> : tensor<1x32x1x1xf32>
// CHECK-DAG: [[T:%.+]] = vg.constant dense<-3.000000e+00> : tensor<1x32x1x1xf32>
// CHECK: [[M:%.+]] = vg.mul [[X]], [[S]]
// CHECK: [[Y:%.+]] = vg.add [[M]], [[T]]
// CHECK-NOT: vg.batch_norm
// CHECK: return [[Y]]
func.func @constant_stats(%x: tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32> {
  %gamma = vg.constant dense<2.0> : tensor<32xf32>
  %beta = vg.constant dense<1.0> : tensor<32xf32>
  %mean = vg.constant dense<4.0> : tensor<32xf32>
  %var = vg.constant dense<3.0> : tensor<32xf32>
  %y = vg.batch_norm %x, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32} : (tensor<2x32x4x4xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x32x4x4xf32>
  return %y : tensor<2x32x4x4xf32>
}

// -----

// Two channels: the factors are stored at the input's shape (a [1, 2, 1, 1]
// constant would be cloned into the kernel as an immediate).
// CHECK-LABEL: func.func @few_channels
// CHECK: vg.constant dense<{{.*}}> : tensor<1x2x2x2xf32>
// CHECK: vg.mul %{{.+}}, %{{.+}} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>)
func.func @few_channels(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %gamma = vg.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = vg.constant dense<0.0> : tensor<2xf32>
  %mean = vg.constant dense<0.0> : tensor<2xf32>
  %var = vg.constant dense<1.0> : tensor<2xf32>
  %y = vg.batch_norm %x, %gamma, %beta, %mean, %var : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Statistics that are graph inputs (the ONNX node tests): the ops compute
// the factors on [1, C, 1, 1] views.
// CHECK-LABEL: func.func @input_stats
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<2x3x4x5xf32>, [[G:%[a-z0-9_]+]]: tensor<3xf32>, [[B:%[a-z0-9_]+]]: tensor<3xf32>, [[MEAN:%[a-z0-9_]+]]: tensor<3xf32>, [[VAR:%[a-z0-9_]+]]: tensor<3xf32>)
// CHECK: [[V:%.+]] = vg.reshape [[VAR]] {shape = array<i64: 1, 3, 1, 1>}
// CHECK: [[VE:%.+]] = vg.add [[V]], %{{.+}}
// CHECK: [[R:%.+]] = vg.sqrt [[VE]]
// CHECK: [[G4:%.+]] = vg.reshape [[G]] {shape = array<i64: 1, 3, 1, 1>}
// CHECK: [[S:%.+]] = vg.div [[G4]], [[R]]
// CHECK: [[M4:%.+]] = vg.reshape [[MEAN]] {shape = array<i64: 1, 3, 1, 1>}
// CHECK: [[C:%.+]] = vg.sub [[X]], [[M4]]
// CHECK: [[P:%.+]] = vg.mul [[C]], [[S]]
// CHECK: [[B4:%.+]] = vg.reshape [[B]] {shape = array<i64: 1, 3, 1, 1>}
// CHECK: vg.add [[P]], [[B4]]
func.func @input_stats(%x: tensor<2x3x4x5xf32>, %gamma: tensor<3xf32>, %beta: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
  %y = vg.batch_norm %x, %gamma, %beta, %mean, %var : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  return %y : tensor<2x3x4x5xf32>
}
