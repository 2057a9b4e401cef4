// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s

// A comparison is vcmp into a packed bit mask and vsel between 1 and 0 in
// the compute type; its bool result is one byte an element in GM (u8),
// converted by vconv (128 lanes a repeat: 4 u8 blocks, 8 f16 blocks).
// CHECK-LABEL: dv.kernel @k0_less
// CHECK-SAME: !dv.gm<4x64xui8>
// CHECK: dv.vdup 1.000000e+00 : f32 to %[[ONE:[^ ]+]]
// CHECK: dv.vdup 0.000000e+00 : f32 to %[[ZERO:[^ ]+]]
// CHECK: dv.vcmp lt %{{.+}}, %{{.+}} to %[[BITS:[^ ]+]] {repeat = 2 : i64} : !dv.buf<ub, 256xf16>, !dv.buf<ub, 256xf16> to !dv.buf<ub, 32xui8>
// CHECK: dv.vsel %[[ONE]], %[[ZERO]], %[[BITS]] to %[[R:[^ ]+]]
// CHECK: dv.vconv %[[R]] to %[[U8:[^ ]+]] {rep = array<i64: 4, 8>, repeat = 2 : i64} : !dv.buf<ub, 256xf16> to !dv.buf<ub, 256xui8>
// CHECK: dv.copy %[[U8]] to %{{.+}} {burst_bytes = 256 : i64}
module {
  func.func @graph(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xi1> {
    %r = call @k0_less(%x, %y) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xi1>
    return %r : tensor<4x64xi1>
  }
  func.func private @k0_less(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> tensor<4x64xi1>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.less %a, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xi1>
    return %r : tensor<4x64xi1>
  }
}

// -----

// An immediate on the left of a comparison: vcmps with the mirrored
// predicate (2 < x is x > 2). Bool logic on 0/1: and = vmul, not = 1 - x.
// CHECK-LABEL: dv.kernel @k0_less
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 128xui8> to !dv.buf<ub, 128xf16>
// CHECK: dv.vcmps gt %{{.+}}, 2.000000e+00 : f32
// CHECK: dv.vmul
// CHECK: dv.vneg
// CHECK: dv.vadds %{{.+}}, 1.000000e+00
module {
  func.func @graph(%x: tensor<128xf32>, %m: tensor<128xi1>) -> tensor<128xi1> {
    %r = call @k0_less(%x, %m) : (tensor<128xf32>, tensor<128xi1>) -> tensor<128xi1>
    return %r : tensor<128xi1>
  }
  func.func private @k0_less(%a: tensor<128xf32>, %m: tensor<128xi1>) -> tensor<128xi1>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %two = vg.constant dense<2.0> : tensor<f32>
    %l = vg.less %two, %a : (tensor<f32>, tensor<128xf32>) -> tensor<128xi1>
    %both = vg.and %l, %m : (tensor<128xi1>, tensor<128xi1>) -> tensor<128xi1>
    %r = vg.not %both : tensor<128xi1>
    return %r : tensor<128xi1>
  }
}

// -----

// where on i32 (int64 narrowed): the condition's u8 bytes become i32 0/1
// (64 lanes a repeat: 2 u8 blocks, 8 i32 blocks), vcmps ne 0 picks x or y;
// 300 elements = 4 full repeats + a masked one of 44 lanes, whose bits
// start at the mask buffer's beginning again.
// CHECK-LABEL: dv.kernel @k0_where
// CHECK: dv.vconv {{.+}} {rep = array<i64: 8, 2>, repeat = 4 : i64} : !dv.buf<ub, 384xui8> to !dv.buf<ub, 384xi32>
// CHECK: dv.vcmps ne %[[C:[^ ,]+]], 0 : i32 to %[[BITS:[^ ]+]] {repeat = 4 : i64}
// CHECK: dv.vsel %{{.+}}, %{{.+}}, %[[BITS]] to
// CHECK: dv.vcmps ne %{{.+}}, 0 : i32 to %[[BITS]] {mask = array<i64: 17592186044415, 0>, repeat = 1 : i64}
module {
  func.func @graph(%c: tensor<300xi1>, %x: tensor<300xi32>, %y: tensor<300xi32>) -> tensor<300xi32> {
    %r = call @k0_where(%c, %x, %y) : (tensor<300xi1>, tensor<300xi32>, tensor<300xi32>) -> tensor<300xi32>
    return %r : tensor<300xi32>
  }
  func.func private @k0_where(%c: tensor<300xi1>, %a: tensor<300xi32>, %b: tensor<300xi32>) -> tensor<300xi32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.where %c, %a, %b : (tensor<300xi1>, tensor<300xi32>, tensor<300xi32>) -> tensor<300xi32>
    return %r : tensor<300xi32>
  }
}

// -----

// floor in f32 (must_keep_origin_dtype): vconv to s32 rounding down and
// back, kept only where |x| < 2^23 (larger floats are integers already and
// would saturate s32; inf and NaN fail the compare and stay).
// CHECK-LABEL: dv.kernel @k0_floor
// CHECK: dv.vconv %[[X:[^ ]+]] to %[[I:[^ ]+]] round floor {{.+}} : !dv.buf<ub, 128xf32> to !dv.buf<ub, 128xi32>
// CHECK: dv.vconv %[[I]] to %[[BACK:[^ ]+]] {{.+}} : !dv.buf<ub, 128xi32> to !dv.buf<ub, 128xf32>
// CHECK: dv.vabs %[[X]] to %[[A:[^ ]+]]
// CHECK: dv.vcmps lt %[[A]], 0x4B000000 : f32 to %[[BITS:[^ ]+]]
// CHECK: dv.vsel %[[BACK]], %[[X]], %[[BITS]]
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @graph(%x: tensor<128xf32>) -> tensor<128xf32> {
    %r = call @k0_floor(%x) : (tensor<128xf32>) -> tensor<128xf32>
    return %r : tensor<128xf32>
  }
  func.func private @k0_floor(%a: tensor<128xf32>) -> tensor<128xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.floor %a : tensor<128xf32>
    return %r : tensor<128xf32>
  }
}

// -----

// sin: k = rint(x / pi) through s32, r = x - k * pi in three parts
// (3.140625 first: exact products), an odd polynomial in r, the sign
// (-1)^k from floor(k / 2) (rint is vconv's default mode, not printed).
// cos shifts k by 1/2.
// CHECK-LABEL: dv.kernel @k0_sin
// CHECK: dv.vmuls %{{.+}}, 0.318309873 : f32
// CHECK: dv.vconv %{{[^ ]+}} to %{{[^ ]+}} {rep = {{.+}} to !dv.buf<ub, 128xi32>
// CHECK: dv.vmuls %{{.+}}, 3.140625 : f32
// CHECK: dv.vsub
// CHECK: dv.vconv {{.+}} round floor {{.+}} to !dv.buf<ub, 128xi32>
// CHECK: dv.vmul
// CHECK-LABEL: dv.kernel @k1_cos
// CHECK: dv.vmuls %{{.+}}, 0.318309873 : f32
// CHECK: dv.vadds %{{.+}}, 5.000000e-01 : f32
// CHECK: dv.vconv %{{[^ ]+}} to %{{[^ ]+}} {rep = {{.+}} to !dv.buf<ub, 128xi32>
// CHECK: dv.vadds %{{.+}}, -5.000000e-01 : f32
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @graph(%x: tensor<128xf32>) -> (tensor<128xf32>, tensor<128xf32>) {
    %s = call @k0_sin(%x) : (tensor<128xf32>) -> tensor<128xf32>
    %c = call @k1_cos(%x) : (tensor<128xf32>) -> tensor<128xf32>
    return %s, %c : tensor<128xf32>, tensor<128xf32>
  }
  func.func private @k0_sin(%a: tensor<128xf32>) -> tensor<128xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.sin %a : tensor<128xf32>
    return %r : tensor<128xf32>
  }
  func.func private @k1_cos(%a: tensor<128xf32>) -> tensor<128xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.cos %a : tensor<128xf32>
    return %r : tensor<128xf32>
  }
}

// -----

// A standalone erf-form gelu: x * (1 + erf(x / sqrt 2)) / 2, erf from the
// series below |x| = 0.5 and A&S 7.1.26 (tail = poly(t) e^-x^2) above;
// 1 + erf is the tail itself for negative x (no cancellation), 2 - tail
// for positive.
// CHECK-LABEL: dv.kernel @k0_gelu
// CHECK: dv.vmuls %{{.+}}, 0.707106769 : f32
// CHECK: dv.vrec
// CHECK: dv.vexp
// CHECK: dv.vadds %{{.+}}, 2.000000e+00 : f32
// CHECK: dv.vcmps lt %{{.+}}, 0.000000e+00 : f32
// CHECK: dv.vcmps lt %{{.+}}, 5.000000e-01 : f32
// CHECK: dv.vmuls %{{.+}}, 5.000000e-01 : f32
// CHECK: dv.vmul
module attributes {vinci.precision_mode = "must_keep_origin_dtype"} {
  func.func @graph(%x: tensor<128xf32>) -> tensor<128xf32> {
    %r = call @k0_gelu(%x) : (tensor<128xf32>) -> tensor<128xf32>
    return %r : tensor<128xf32>
  }
  func.func private @k0_gelu(%a: tensor<128xf32>) -> tensor<128xf32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.gelu %a : tensor<128xf32>
    return %r : tensor<128xf32>
  }
}

// -----

// 8-bit integers compute in f32 (vconv both ways, exact): u8 in, s8 out.
// CHECK-LABEL: dv.kernel @k0_add
// CHECK: dv.vconv {{.+}} rep = array<i64: 8, 2>{{.+}} : !dv.buf<ub, 64xui8> to !dv.buf<ub, 64xf32>
// CHECK: dv.vadd {{.+}} : !dv.buf<ub, 64xf32>
// CHECK: dv.vconv {{.+}} rep = array<i64: 2, 8>{{.+}} : !dv.buf<ub, 64xf32> to !dv.buf<ub, 64xi8>
module {
  func.func @graph(%x: tensor<16xui8>) -> tensor<16xi8> {
    %r = call @k0_add(%x, %x) : (tensor<16xui8>, tensor<16xui8>) -> tensor<16xi8>
    return %r : tensor<16xi8>
  }
  func.func private @k0_add(%a: tensor<16xui8>, %b: tensor<16xui8>) -> tensor<16xi8>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %s = vg.add %a, %b : (tensor<16xui8>, tensor<16xui8>) -> tensor<16xui8>
    %r = vg.cast %s {to = i8} : (tensor<16xui8>) -> tensor<16xi8>
    return %r : tensor<16xi8>
  }
}

// -----

// Integer division in f32 truncates through s32; mod is a - floor(a / b) b.
// CHECK-LABEL: dv.kernel @k0_div
// CHECK: dv.vdiv
// CHECK: dv.vconv {{.+}} round trunc {{.+}} to !dv.buf<ub, 64xi32>
// CHECK-LABEL: dv.kernel @k1_mod
// CHECK: dv.vdiv
// CHECK: dv.vconv {{.+}} round floor {{.+}} to !dv.buf<ub, 64xi32>
// CHECK: dv.vmul
// CHECK: dv.vsub
module {
  func.func @graph(%x: tensor<16xui8>, %y: tensor<16xi32>) -> (tensor<16xui8>, tensor<16xi32>) {
    %d = call @k0_div(%x, %x) : (tensor<16xui8>, tensor<16xui8>) -> tensor<16xui8>
    %m = call @k1_mod(%y, %y) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    return %d, %m : tensor<16xui8>, tensor<16xi32>
  }
  func.func private @k0_div(%a: tensor<16xui8>, %b: tensor<16xui8>) -> tensor<16xui8>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.div %a, %b : (tensor<16xui8>, tensor<16xui8>) -> tensor<16xui8>
    return %r : tensor<16xui8>
  }
  func.func private @k1_mod(%a: tensor<16xi32>, %b: tensor<16xi32>) -> tensor<16xi32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.mod %a, %b : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    return %r : tensor<16xi32>
  }
}

// -----

// 16-bit integers have no vector type (vconv takes s8/u8/s32 only): a
// clear error, not a crash.
module {
  func.func @graph(%x: tensor<16xui16>) -> tensor<16xui16> {
    %r = call @k0_add(%x, %x) : (tensor<16xui16>, tensor<16xui16>) -> tensor<16xui16>
    return %r : tensor<16xui16>
  }
  // expected-error @+1 {{kernel k0_add: tensors of ui16 have no lowering template yet (f16/f32/bool/i8/u8/i32; the vector unit has no other integer or f64 type)}}
  func.func private @k0_add(%a: tensor<16xui16>, %b: tensor<16xui16>) -> tensor<16xui16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.add %a, %b : (tensor<16xui16>, tensor<16xui16>) -> tensor<16xui16>
    return %r : tensor<16xui16>
  }
}

// -----

// bf16 where the SoC has it (Ascend910B): computed in f32, vconv both ways.
// CHECK-LABEL: dv.kernel @k0_cast
// CHECK: dv.vconv {{.+}} : !dv.buf<ub, 64xf32> to !dv.buf<ub, 64xbf16>
module attributes {dv.soc = "Ascend910B"} {
  func.func @graph(%x: tensor<12xf32>) -> tensor<12xbf16> {
    %r = call @k0_cast(%x) : (tensor<12xf32>) -> tensor<12xbf16>
    return %r : tensor<12xbf16>
  }
  func.func private @k0_cast(%a: tensor<12xf32>) -> tensor<12xbf16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.cast %a {to = bf16} : (tensor<12xf32>) -> tensor<12xbf16>
    return %r : tensor<12xbf16>
  }
}

// -----

// The 310P has no bf16: the error says which SoC has it.
module {
  func.func @graph(%x: tensor<12xf32>) -> tensor<12xbf16> {
    %r = call @k0_cast(%x) : (tensor<12xf32>) -> tensor<12xbf16>
    return %r : tensor<12xbf16>
  }
  // expected-error @+1 {{kernel k0_cast: results of bf16: Ascend310P3 has no bf16 (Ascend910B-class targets do: --soc_version Ascend910B)}}
  func.func private @k0_cast(%a: tensor<12xf32>) -> tensor<12xbf16>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %r = vg.cast %a {to = bf16} : (tensor<12xf32>) -> tensor<12xbf16>
    return %r : tensor<12xbf16>
  }
}

// -----

// i32 immediates (a negative index made positive: where(i < 0, i + 5, i)):
// vcmps and vadds take s32 scalars.
// CHECK-LABEL: dv.kernel @k0_where
// CHECK: dv.vcmps lt %{{.+}}, 0 : i32
// CHECK: dv.vadds %{{.+}}, 5 : i32
module {
  func.func @graph(%i: tensor<64xi32>) -> tensor<64xi32> {
    %r = call @k0_where(%i) : (tensor<64xi32>) -> tensor<64xi32>
    return %r : tensor<64xi32>
  }
  func.func private @k0_where(%i: tensor<64xi32>) -> tensor<64xi32>
      attributes {vinci.kernel = "vector", vinci.source_nodes = []} {
    %zero = vg.constant dense<0> : tensor<i32>
    %five = vg.constant dense<5> : tensor<i32>
    %neg = vg.less %i, %zero : (tensor<64xi32>, tensor<i32>) -> tensor<64xi1>
    %up = vg.add %i, %five : (tensor<64xi32>, tensor<i32>) -> tensor<64xi32>
    %r = vg.where %neg, %up, %i : (tensor<64xi1>, tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
    return %r : tensor<64xi32>
  }
}
