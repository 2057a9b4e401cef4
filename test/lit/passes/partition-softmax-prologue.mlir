// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels=softmax-prologues=false | FileCheck %s --check-prefix=OFF
// RUN: vinci-opt %s --split-input-file --vinci-partition-kernels=elementwise-chains=false | FileCheck %s --check-prefix=NO-CHAIN

// softmax(x * s) -> one Vector kernel: the scale is the softmax's prologue,
// computed in f32 in its tiles (its immediate cloned in).
// CHECK-LABEL: func.func @scaled_softmax
// CHECK: call @k0_mul
// CHECK-NOT: call
// CHECK: func.func private @k0_mul{{.+}}vinci.kernel = "vector", vinci.output_nodes = ["/Softmax:0"], vinci.source_nodes = ["/Mul", "/Softmax"]
// CHECK: vg.constant dense<3.000000e+02>
// CHECK-NEXT: vg.mul
// CHECK-NEXT: vg.softmax
// Off (SoftmaxPrologueFusion): the scale is a kernel of its own.
// OFF-LABEL: func.func @scaled_softmax
// OFF: call @k0_mul
// OFF-NEXT: call @k1_softmax
// The prologue is a fusion of its own: without elementwise chains too.
// NO-CHAIN-LABEL: func.func @scaled_softmax
// NO-CHAIN: call @k0_mul
// NO-CHAIN-NEXT: return
func.func @scaled_softmax(%x: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %s = vg.constant dense<300.0> : tensor<f32>
  %0 = vg.mul %x, %s : (tensor<8x256xf32>, tensor<f32>) -> tensor<8x256xf32> loc("/Mul")
  %1 = vg.softmax %0 {axis = -1 : i64} : (tensor<8x256xf32>) -> tensor<8x256xf32> loc("/Softmax")
  return %1 : tensor<8x256xf32>
}

// -----

// A temperature and a mask of the logits' shape, then log_softmax: the
// whole chain is the prologue; the mask is a kernel argument.
// CHECK-LABEL: func.func @masked_log_softmax
// CHECK: call @k0_div(%{{.+}}, %{{.+}})
// CHECK-NOT: call
// CHECK: func.func private @k0_div{{.+}}vinci.source_nodes = ["/Div", "/Add", "/LogSoftmax"]
func.func @masked_log_softmax(%x: tensor<4x8x64xf32>, %m: tensor<4x8x64xf32>) -> tensor<4x8x64xf32> {
  %t = vg.constant dense<0.5> : tensor<f32>
  %0 = vg.div %x, %t : (tensor<4x8x64xf32>, tensor<f32>) -> tensor<4x8x64xf32> loc("/Div")
  %1 = vg.add %0, %m : (tensor<4x8x64xf32>, tensor<4x8x64xf32>) -> tensor<4x8x64xf32> loc("/Add")
  %2 = vg.log_softmax %1 {axis = -1 : i64} : (tensor<4x8x64xf32>) -> tensor<4x8x64xf32> loc("/LogSoftmax")
  return %2 : tensor<4x8x64xf32>
}

// -----

// A row mask (the last dim) as the first operand of the add joins too.
// CHECK-LABEL: func.func @row_mask_first
// CHECK: call @k0_add
// CHECK-NOT: call
func.func @row_mask_first(%x: tensor<6x320xf32>) -> tensor<6x320xf32> {
  %r = vg.constant dense<-1.0e4> : tensor<320xf32>
  %0 = vg.add %r, %x : (tensor<320xf32>, tensor<6x320xf32>) -> tensor<6x320xf32> loc("/Add")
  %1 = vg.softmax %0 {axis = -1 : i64} : (tensor<6x320xf32>) -> tensor<6x320xf32> loc("/Softmax")
  return %1 : tensor<6x320xf32>
}

// -----

// Near misses, each refused by the row template, so the softmax stays a
// kernel of its own: a tanh in the elementwise kernel (no prologue form),
// a mask that broadcasts over the heads ([B, 1, 1, S] over [B, H, S, S]),
// and a layer norm (only a softmax takes a prologue).
// CHECK-LABEL: func.func @tanh_softcap
// CHECK: call @k0_tanh
// CHECK-NEXT: call @k1_softmax
func.func @tanh_softcap(%x: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %s = vg.constant dense<30.0> : tensor<f32>
  %0 = vg.tanh %x : tensor<8x256xf32> loc("/Tanh")
  %1 = vg.mul %0, %s : (tensor<8x256xf32>, tensor<f32>) -> tensor<8x256xf32> loc("/Mul")
  %2 = vg.softmax %1 {axis = -1 : i64} : (tensor<8x256xf32>) -> tensor<8x256xf32> loc("/Softmax")
  return %2 : tensor<8x256xf32>
}

// -----

// CHECK-LABEL: func.func @head_broadcast_mask
// CHECK: call @k0_add
// CHECK-NEXT: call @k1_softmax
func.func @head_broadcast_mask(%x: tensor<2x4x16x16xf32>, %m: tensor<2x1x1x16xf32>) -> tensor<2x4x16x16xf32> {
  %0 = vg.add %x, %m : (tensor<2x4x16x16xf32>, tensor<2x1x1x16xf32>) -> tensor<2x4x16x16xf32> loc("/Add")
  %1 = vg.softmax %0 {axis = -1 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32> loc("/Softmax")
  return %1 : tensor<2x4x16x16xf32>
}

// -----

// CHECK-LABEL: func.func @scaled_layer_norm
// CHECK: call @k0_mul
// CHECK-NEXT: call @k1_layer_norm
func.func @scaled_layer_norm(%x: tensor<8x256xf32>, %g: tensor<256xf32>) -> tensor<8x256xf32> {
  %s = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.mul %x, %s : (tensor<8x256xf32>, tensor<f32>) -> tensor<8x256xf32> loc("/Mul")
  %1 = vg.layer_norm %0, %g {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<8x256xf32>, tensor<256xf32>) -> tensor<8x256xf32> loc("/LN")
  return %1 : tensor<8x256xf32>
}
