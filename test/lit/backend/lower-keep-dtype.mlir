// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels | FileCheck %s

// must_keep_origin_dtype: an fp32 kernel computes in f32 in UB (64 lanes a
// repeat: 400 elements = 6 full repeats + 16 masked lanes) and stores f32,
// with no conversion on either side.
// CHECK-LABEL: dv.kernel @k0_add
// CHECK-NOT: dv.vconv
// CHECK: dv.vadd %{{.+}}, %{{.+}} to %{{.+}} {repeat = 6 : i64} : !dv.buf<ub, 512xf32>, !dv.buf<ub, 512xf32> to !dv.buf<ub, 512xf32>
// CHECK: dv.vadd {{.+}} {mask = array<i64: 65535, 0>, repeat = 1 : i64} : !dv.buf<ub, 64xf32>
// CHECK: dv.vexp {{.+}} : !dv.buf<ub, 512xf32> to !dv.buf<ub, 512xf32>
// CHECK-NOT: dv.vconv
// CHECK: dv.copy %{{.+}} to %{{.+}} {burst_bytes = 1600 : i64} : !dv.buf<ub, 512xf32> to !dv.gm<400xf32>
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @graph(%x: tensor<4x100xf32>, %y: tensor<4x100xf32>) -> tensor<4x100xf32> {
    %r = call @k0_add(%x, %y) : (tensor<4x100xf32>, tensor<4x100xf32>) -> tensor<4x100xf32>
    return %r : tensor<4x100xf32>
  }
  func.func private @k0_add(%a: tensor<4x100xf32>, %b: tensor<4x100xf32>) -> tensor<4x100xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s = vg.add %a, %b : (tensor<4x100xf32>, tensor<4x100xf32>) -> tensor<4x100xf32>
    %t = vg.exp %s : tensor<4x100xf32>
    return %t : tensor<4x100xf32>
  }
}

// -----

// force_fp16 (no precision mode): the same kernel converts to f16, computes
// in f16 (128 lanes a repeat) and converts back.
// CHECK-LABEL: dv.kernel @k0_add
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 512xf32> to !dv.buf<ub, 512xf16>
// CHECK: dv.vadd {{.+}} {repeat = 3 : i64} : !dv.buf<ub, 512xf16>
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 512xf16> to !dv.buf<ub, 512xf32>
module {
  func.func @graph(%x: tensor<4x100xf32>, %y: tensor<4x100xf32>) -> tensor<4x100xf32> {
    %r = call @k0_add(%x, %y) : (tensor<4x100xf32>, tensor<4x100xf32>) -> tensor<4x100xf32>
    return %r : tensor<4x100xf32>
  }
  func.func private @k0_add(%a: tensor<4x100xf32>, %b: tensor<4x100xf32>) -> tensor<4x100xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s = vg.add %a, %b : (tensor<4x100xf32>, tensor<4x100xf32>) -> tensor<4x100xf32>
    return %s : tensor<4x100xf32>
  }
}

// -----

// --keep_dtype on the call: that kernel alone computes in f32; a cast to
// f16 inside it rounds to f16 (vconv there and back), then stays f32.
// CHECK-LABEL: dv.kernel @k0_cast
// CHECK: dv.vmuls {{.+}} : !dv.buf<ub, 256xf32>
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 256xf32> to !dv.buf<ub, 256xf16>
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 256xf16> to !dv.buf<ub, 256xf32>
// CHECK: dv.vadds {{.+}} : !dv.buf<ub, 256xf32>
// CHECK-LABEL: dv.kernel @k1_exp
// CHECK: dv.vexp {{.+}} : !dv.buf<ub, 256xf16>
module {
  func.func @graph(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
    %r = call @k0_cast(%x) {vinci.keep_dtype} : (tensor<256xf32>) -> tensor<256xf32>
    %e = call @k1_exp(%x) : (tensor<256xf32>) -> tensor<256xf32>
    return %r, %e : tensor<256xf32>, tensor<256xf32>
  }
  func.func private @k0_cast(%a: tensor<256xf32>) -> tensor<256xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %c3 = vg.constant dense<3.0> : tensor<f32>
    %c1 = vg.constant dense<1.0> : tensor<f32>
    %m = vg.mul %a, %c3 : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
    %h = vg.cast %m {to = f16} : (tensor<256xf32>) -> tensor<256xf16>
    %w = vg.cast %h {to = f32} : (tensor<256xf16>) -> tensor<256xf32>
    %s = vg.add %w, %c1 : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
    return %s : tensor<256xf32>
  }
  func.func private @k1_exp(%a: tensor<256xf32>) -> tensor<256xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %e = vg.exp %a : tensor<256xf32>
    return %e : tensor<256xf32>
  }
}
