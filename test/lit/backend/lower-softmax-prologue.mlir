// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s

// Golden: softmax(300 x) of an f16 intermediate (x from another kernel),
// 16 rows of 256 over 8 blocks, one row a tile. The scale runs in f32 on the
// loaded tile, after the f16 -> f32 conversion and before the saturation,
// which is at f32's range (the logits are f32 values: 300 x may pass 65504).
// CHECK-LABEL: dv.kernel @k1_mul
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<16x256xf16>, [[Y:%[a-z0-9_]+]]: !dv.gm<16x256xf32>)
// CHECK: dv.copy %{{.+}} to [[RAW:%[0-9]+]] {burst_bytes = 512 : i64}
// CHECK-NEXT: dv.vconv [[RAW]] to [[X0:%[0-9]+]] {{.+}}repeat = 4 : i64} : !dv.buf<ub, 256xf16> to !dv.buf<ub, 256xf32>
// CHECK-NEXT: dv.vmuls [[X0]], 3.000000e+02 : f32 to [[X0]] {repeat = 4 : i64}
// CHECK: dv.vmins [[X0]], 3.40282347E+38 : f32 to [[X0]] {repeat = 4 : i64}
// CHECK-NEXT: dv.vmaxs [[X0]], -3.40282347E+38 : f32 to [[X0]] {repeat = 4 : i64}
// CHECK: dv.vcmax
func.func @scaled_softmax(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %0 = call @k0_exp(%x) : (tensor<16x256xf32>) -> tensor<16x256xf32>
  %1 = call @k1_mul(%0) : (tensor<16x256xf32>) -> tensor<16x256xf32>
  return %1 : tensor<16x256xf32>
}
func.func private @k0_exp(%arg0: tensor<16x256xf32>) -> tensor<16x256xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Exp"]} {
  %0 = vg.exp %arg0 : tensor<16x256xf32>
  return %0 : tensor<16x256xf32>
}
func.func private @k1_mul(%arg0: tensor<16x256xf32>) -> tensor<16x256xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Mul", "/Softmax"]} {
  %s = vg.constant dense<300.0> : tensor<f32>
  %0 = vg.mul %arg0, %s : (tensor<16x256xf32>, tensor<f32>) -> tensor<16x256xf32>
  %1 = vg.softmax %0 {axis = -1 : i64} : (tensor<16x256xf32>) -> tensor<16x256xf32>
  return %1 : tensor<16x256xf32>
}

// -----

// A divisor becomes its reciprocal; a mask of the logits' shape is read with
// the logits' own geometry (the same GM offset, bursts and gaps) into a
// buffer of its own and added in f32.
// CHECK-LABEL: dv.kernel @k0_div
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<64x200xf32>, [[M:%[a-z0-9_]+]]: !dv.gm<64x200xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<64x200xf32>)
// CHECK: [[IN:%.+]] = dv.view [[X]][[[OFF:.+]]] : !dv.gm<64x200xf32> to !dv.gm<800xf32>
// CHECK-NEXT: dv.copy [[IN]] to [[X0:%[0-9]+]] {burst_bytes = 800 : i64, bursts = 4 : i64, dst_gap = 224 : i64}
// CHECK-NEXT: dv.vmuls [[X0]], 4.000000e+00 : f32 to [[X0]] {repeat = 16 : i64}
// CHECK-NEXT: [[MIN:%.+]] = dv.view [[M]][[[OFF]]] : !dv.gm<64x200xf32> to !dv.gm<800xf32>
// CHECK-NEXT: dv.copy [[MIN]] to [[M0:%[0-9]+]] {burst_bytes = 800 : i64, bursts = 4 : i64, dst_gap = 224 : i64}
// CHECK-NEXT: dv.vadd [[X0]], [[M0]] to [[X0]] {repeat = 16 : i64}
func.func @masked_softmax(%x: tensor<64x200xf32>, %m: tensor<64x200xf32>) -> tensor<64x200xf32> {
  %0 = call @k0_div(%x, %m) : (tensor<64x200xf32>, tensor<64x200xf32>) -> tensor<64x200xf32>
  return %0 : tensor<64x200xf32>
}
func.func private @k0_div(%arg0: tensor<64x200xf32>, %arg1: tensor<64x200xf32>) -> tensor<64x200xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Div", "/Add", "/Softmax"]} {
  %t = vg.constant dense<0.25> : tensor<f32>
  %0 = vg.div %arg0, %t : (tensor<64x200xf32>, tensor<f32>) -> tensor<64x200xf32>
  %1 = vg.add %0, %arg1 : (tensor<64x200xf32>, tensor<64x200xf32>) -> tensor<64x200xf32>
  %2 = vg.softmax %1 {axis = -1 : i64} : (tensor<64x200xf32>) -> tensor<64x200xf32>
  return %2 : tensor<64x200xf32>
}

// -----

// A row mask of the last dim (a weight: f16 in GM) is loaded once, before
// the tiles, as an f32 row, and added to every row of a tile (src1 repeat
// stride 0 along the row).
// CHECK-LABEL: dv.kernel @k0_add
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<6x320xf32>, [[R:%[a-z0-9_]+]]: !dv.gm<320xf16>, [[Y:%[a-z0-9_]+]]: !dv.gm<6x320xf32>)
// CHECK: dv.copy [[R]] to [[RAW:%[0-9]+]] {burst_bytes = 640 : i64}
// CHECK-NEXT: dv.vconv [[RAW]] to [[ROW:%[0-9]+]]
// CHECK: dv.copy %{{.+}} to [[X0:%[0-9]+]] {burst_bytes = 1280 : i64}
// CHECK-NEXT: dv.vadd [[X0]], [[ROW]] to [[X0]] {repeat = 5 : i64}
// CHECK: dv.vmins [[X0]], 3.40282347E+38
func.func @row_mask(%x: tensor<6x320xf32>) -> tensor<6x320xf32> {
  %r = vg.constant dense<-1.0e4> : tensor<320xf32>
  %0 = call @k0_add(%x, %r) : (tensor<6x320xf32>, tensor<320xf32>) -> tensor<6x320xf32>
  return %0 : tensor<6x320xf32>
}
func.func private @k0_add(%arg0: tensor<6x320xf32>, %arg1: tensor<320xf32>) -> tensor<6x320xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add", "/Softmax"]} {
  %0 = vg.add %arg1, %arg0 : (tensor<320xf32>, tensor<6x320xf32>) -> tensor<6x320xf32>
  %1 = vg.softmax %0 {axis = -1 : i64} : (tensor<6x320xf32>) -> tensor<6x320xf32>
  return %1 : tensor<6x320xf32>
}

// -----

// Near misses, with the template's reasons: an op without a prologue form,
// a mask broadcast over the heads, a reversed subtraction, and a prologue
// in front of a layer norm.
func.func @tanh_prologue(%x: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %0 = call @k0_tanh(%x) : (tensor<8x256xf32>) -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}
// expected-error @+1 {{kernel k0_tanh (from /Tanh, /Softmax): tanh before a softmax has no prologue form (a mul, div, add or sub by a scalar, a row of the last dim or a tensor of the logits' shape)}}
func.func private @k0_tanh(%arg0: tensor<8x256xf32>) -> tensor<8x256xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Tanh", "/Softmax"]} {
  %0 = vg.tanh %arg0 : tensor<8x256xf32>
  %1 = vg.softmax %0 {axis = -1 : i64} : (tensor<8x256xf32>) -> tensor<8x256xf32>
  return %1 : tensor<8x256xf32>
}

// -----

func.func @head_mask(%x: tensor<2x4x16x16xf32>, %m: tensor<2x1x1x16xf32>) -> tensor<2x4x16x16xf32> {
  %0 = call @k0_add(%x, %m) : (tensor<2x4x16x16xf32>, tensor<2x1x1x16xf32>) -> tensor<2x4x16x16xf32>
  return %0 : tensor<2x4x16x16xf32>
}
// expected-error @+1 {{kernel k0_add (from /Add, /Softmax): add before a softmax: an operand tensor<2x1x1x16xf32> broadcast over the logits tensor<2x4x16x16xf32> has no prologue form yet (a scalar constant, a row of the last dim in row mode, or the logits' shape)}}
func.func private @k0_add(%arg0: tensor<2x4x16x16xf32>, %arg1: tensor<2x1x1x16xf32>) -> tensor<2x4x16x16xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add", "/Softmax"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<2x4x16x16xf32>, tensor<2x1x1x16xf32>) -> tensor<2x4x16x16xf32>
  %1 = vg.softmax %0 {axis = -1 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  return %1 : tensor<2x4x16x16xf32>
}

// -----

func.func @reversed_sub(%x: tensor<8x64xf32>, %m: tensor<64xf32>) -> tensor<8x64xf32> {
  %0 = call @k0_sub(%x, %m) : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
// expected-error @+1 {{kernel k0_sub (from /Sub, /Softmax): sub before a softmax: the logits tensor<8x64xf32> must flow through its first operand (or either, for mul and add) unbroadcast}}
func.func private @k0_sub(%arg0: tensor<8x64xf32>, %arg1: tensor<64xf32>) -> tensor<8x64xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Sub", "/Softmax"]} {
  %0 = vg.sub %arg1, %arg0 : (tensor<64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %1 = vg.softmax %0 {axis = -1 : i64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %1 : tensor<8x64xf32>
}

// -----

func.func @scaled_layer_norm(%x: tensor<8x256xf32>, %g: tensor<256xf32>) -> tensor<8x256xf32> {
  %0 = call @k0_mul(%x, %g) : (tensor<8x256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  return %0 : tensor<8x256xf32>
}
// expected-error @+1 {{kernel k0_mul (from /Mul, /LN): mul in a row kernel (with layer_norm) has no lowering template yet: one row op a kernel, ending it; only a softmax takes a prologue}}
func.func private @k0_mul(%arg0: tensor<8x256xf32>, %arg1: tensor<256xf32>) -> tensor<8x256xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Mul", "/LN"]} {
  %s = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.mul %arg0, %s : (tensor<8x256xf32>, tensor<f32>) -> tensor<8x256xf32>
  %1 = vg.layer_norm %0, %arg1 {axis = -1 : i64, epsilon = 1.0e-5 : f32} : (tensor<8x256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  return %1 : tensor<8x256xf32>
}
