// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels --verify-diagnostics | FileCheck %s
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true | FileCheck %s --check-prefix=KEEP
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers | FileCheck %s --check-prefix=ALLOC
// RUN: vinci-opt %s --split-input-file --vinci-lower-kernels=allow-unlowered=true --vinci-allocate-buffers --vinci-insert-sync | FileCheck %s --check-prefix=SYNC

// A binary add of two graph inputs: f32 in GM, converted to f16 in UB after
// loading and back to f32 before storing. 262144 elements: 8 blocks of 32768
// (tile 7168 = 56 x 128 for 18 UB bytes an element, two buffer sets in
// 128 KiB each), a loop over 2 pairs of tiles (ping-pong), then a tail of
// 4096 elements.
// CHECK: module attributes {dv.soc = "Ascend310P3"}
// CHECK-LABEL: func.func @add_graph_inputs
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<256x1024xf32>, [[Y:%[a-z0-9_]+]]: tensor<256x1024xf32>)
// CHECK: [[R:%.+]] = dv.launch @k0_add([[X]], [[Y]]) : (tensor<256x1024xf32>, tensor<256x1024xf32>) -> tensor<256x1024xf32>
// CHECK-NEXT: return [[R]]
// CHECK-NOT: func.func private
// CHECK-LABEL: dv.kernel @k0_add
// CHECK-SAME: ([[A:%[a-z0-9_]+]]: !dv.gm<256x1024xf32>, [[B:%[a-z0-9_]+]]: !dv.gm<256x1024xf32>, [[C:%[a-z0-9_]+]]: !dv.gm<256x1024xf32>)
// CHECK-SAME: attributes {block_dim = 8 : i64, kind = "vector"
// Both buffer sets are created before the loop: live for all of it, they
// never share bytes, so one tile's copies can overlap the other's vector work.
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK-NEXT: [[UA:%.+]] = dv.alloc : !dv.buf<ub, 7168xf32>
// CHECK-NEXT: [[HA:%.+]] = dv.alloc : !dv.buf<ub, 7168xf16>
// CHECK-NEXT: [[UB:%.+]] = dv.alloc : !dv.buf<ub, 7168xf32>
// CHECK-NEXT: [[HB:%.+]] = dv.alloc : !dv.buf<ub, 7168xf16>
// CHECK-NEXT: [[S:%.+]] = dv.alloc : !dv.buf<ub, 7168xf16>
// CHECK-NEXT: [[O:%.+]] = dv.alloc : !dv.buf<ub, 7168xf32>
// CHECK-COUNT-6: dv.alloc : !dv.buf<ub, 7168xf
// CHECK-NEXT: dv.loop [[I:%.+]] trip 2 {
// CHECK-NEXT: [[VA:%.+]] = dv.view [[A]][[[I]] * 14336 + [[BID]] * 32768] : !dv.gm<256x1024xf32> to !dv.gm<7168xf32>
// CHECK-NEXT: dv.copy [[VA]] to [[UA]] {burst_bytes = 28672 : i64}
// CHECK-NEXT: dv.vconv [[UA]] to [[HA]] {rep = array<i64: 4, 8>, repeat = 112 : i64} : !dv.buf<ub, 7168xf32> to !dv.buf<ub, 7168xf16>
// CHECK-NEXT: [[VB:%.+]] = dv.view [[B]][[[I]] * 14336 + [[BID]] * 32768]
// CHECK-NEXT: dv.copy [[VB]] to [[UB]]
// CHECK-NEXT: dv.vconv [[UB]] to [[HB]]
// CHECK-NEXT: dv.vadd [[HA]], [[HB]] to [[S]] {repeat = 56 : i64}
// CHECK-NEXT: dv.vconv [[S]] to [[O]] {rep = array<i64: 8, 4>, repeat = 112 : i64}
// CHECK-NEXT: [[VC:%.+]] = dv.view [[C]][[[I]] * 14336 + [[BID]] * 32768] : !dv.gm<256x1024xf32> to !dv.gm<7168xf32>
// CHECK-NEXT: dv.copy [[O]] to [[VC]] {burst_bytes = 28672 : i64}
// The second tile of the pair, 7168 elements further, in the other set.
// CHECK-NEXT: dv.view [[A]][[[I]] * 14336 + [[BID]] * 32768 + 7168]
// CHECK-NOT: [[UA]]{{[^0-9]}}
// CHECK: dv.vadd
// CHECK-NOT: [[S]]{{[^0-9]}}
// CHECK: dv.view [[C]][[[I]] * 14336 + [[BID]] * 32768 + 7168]
// CHECK-NEXT: dv.copy
// CHECK-NEXT: {{^ *}}}
// The tail: 32768 - 4 x 7168 = 4096 elements.
// CHECK: dv.view [[A]][[[BID]] * 32768 + 28672] : !dv.gm<256x1024xf32> to !dv.gm<4096xf32>
// CHECK: dv.copy {{.*}} {burst_bytes = 16384 : i64}
// CHECK: dv.vadd {{.*}} {repeat = 32 : i64} : !dv.buf<ub, 4096xf16>
// CHECK: dv.return
// ALLOC-LABEL: dv.kernel @k0_add
// The kernel pipeline of vinci-compile (lower, allocate, sync) accepts it.
// SYNC-LABEL: dv.kernel @k0_add
// SYNC: dv.loop
// SYNC: dv.wait_flag V -> MTE2
// SYNC-NEXT: dv.copy
// SYNC-NEXT: dv.set_flag MTE2 -> V
// ALLOC-COUNT-12: dv.alloc offset {{[0-9]+}} : !dv.buf<ub, 7168xf
// ALLOC-NEXT: dv.loop
// ALLOC-NOT: dv.alloc :
// ALLOC: dv.return
func.func @add_graph_inputs(%x: tensor<256x1024xf32>, %y: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = call @k0_add(%x, %y) : (tensor<256x1024xf32>, tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}
func.func private @k0_add(%arg0: tensor<256x1024xf32>, %arg1: tensor<256x1024xf32>) -> tensor<256x1024xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<256x1024xf32>, tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}

// -----

// An elementwise chain with scalar immediates: x * 0.5 - 1 (vmuls, then
// vadds of -1), clip to [0, 6] (vmaxs, vmins), c / x (vrec, vmuls), tanh
// (2 / (1 + e^-2x) - 1). One block: 8 x 128 elements fit one tile.
// CHECK-LABEL: func.func @chain_with_immediates
// CHECK: dv.launch @k0_mul
// CHECK-LABEL: dv.kernel @k0_mul
// CHECK-SAME: (%{{.+}}: !dv.gm<8x128xf32>, %{{.+}}: !dv.gm<8x128xf32>)
// CHECK-SAME: block_dim = 1 : i64
// CHECK-NOT: dv.block_idx
// CHECK-NOT: dv.loop
// CHECK: dv.vconv {{.*}} {rep = array<i64: 4, 8>, repeat = 16 : i64}
// CHECK: dv.vmuls {{.*}}, 5.000000e-01 : f32 to {{.*}} {repeat = 8 : i64}
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vadds {{.*}}, -1.000000e+00 : f32 to
// CHECK: dv.vmaxs {{.*}}, 0.000000e+00 : f32 to
// CHECK: dv.vmins {{.*}}, 6.000000e+00 : f32 to
// CHECK: dv.vrec
// CHECK: dv.vmuls {{.*}}, 3.000000e+00 : f32 to
// CHECK: dv.vmuls {{.*}}, -2.000000e+00 : f32 to
// CHECK: dv.vexp
// CHECK: dv.vadds {{.*}}, 1.000000e+00 : f32 to
// CHECK: dv.vrec
// CHECK: dv.vmuls {{.*}}, 2.000000e+00 : f32 to
// CHECK: dv.vadds {{.*}}, -1.000000e+00 : f32 to
// CHECK: dv.vconv {{.*}} {rep = array<i64: 8, 4>, repeat = 16 : i64}
// CHECK: dv.copy
// CHECK-NEXT: dv.return
func.func @chain_with_immediates(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %0 = call @k0_mul(%x) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}
func.func private @k0_mul(%arg0: tensor<8x128xf32>) -> tensor<8x128xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Mul", "/Sub", "/Clip", "/Div", "/Tanh"]} {
  %half = vg.constant dense<0.5> : tensor<f32>
  %0 = vg.mul %arg0, %half : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xf32>
  %one = vg.constant dense<1.0> : tensor<1xf32>
  %1 = vg.sub %0, %one : (tensor<8x128xf32>, tensor<1xf32>) -> tensor<8x128xf32>
  %2 = vg.clip %1 {min = 0.0 : f64, max = 6.0 : f64} : tensor<8x128xf32>
  %three = vg.constant dense<3.0> : tensor<f32>
  %3 = vg.div %three, %2 : (tensor<f32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %4 = vg.tanh %3 : tensor<8x128xf32>
  return %4 : tensor<8x128xf32>
}

// -----

// 50000 elements: not a multiple of 128, and 7 blocks (ceil(50000 / 8192))
// do not divide it, so 5 blocks of 10000: one full tile of 8192 (no pair,
// so no loop), then a tail of 1808 = 14 x 128 + 16 elements: a copy of
// exactly 1808 elements, full repeats, and one repeat masked to 16 lanes
// on a view at element 1792 (f32 conversions: 28 x 64 + 16).
// CHECK-LABEL: func.func @tail_not_divisible
// CHECK-LABEL: dv.kernel @k0_relu
// CHECK-SAME: block_dim = 5 : i64
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK-NOT: dv.loop
// CHECK: dv.view %{{.+}}[[[BID]] * 10000] : !dv.gm<2x25000xf32> to !dv.gm<8192xf32>
// CHECK: dv.vrelu {{.*}} {repeat = 64 : i64}
// CHECK: [[IN:%.+]] = dv.view [[SRC:%[a-z0-9_]+]][[[BID]] * 10000 + 8192] : !dv.gm<2x25000xf32> to !dv.gm<1808xf32>
// CHECK: [[U:%.+]] = dv.alloc : !dv.buf<ub, 1920xf32>
// CHECK: dv.copy [[IN]] to [[U]] {burst_bytes = 7232 : i64}
// CHECK: [[H:%.+]] = dv.alloc : !dv.buf<ub, 1920xf16>
// CHECK: dv.vconv [[U]] to [[H]] {rep = array<i64: 4, 8>, repeat = 28 : i64}
// CHECK: [[UT:%.+]] = dv.view [[U]][1792] : !dv.buf<ub, 1920xf32> to !dv.buf<ub, 64xf32>
// CHECK: [[HT:%.+]] = dv.view [[H]][1792] : !dv.buf<ub, 1920xf16> to !dv.buf<ub, 64xf16>
// CHECK: dv.vconv [[UT]] to [[HT]] {mask = array<i64: 65535, 0>, rep = array<i64: 4, 8>, repeat = 1 : i64}
// CHECK: [[R:%.+]] = dv.alloc : !dv.buf<ub, 1920xf16>
// CHECK: dv.vrelu [[H]] to [[R]] {repeat = 14 : i64}
// CHECK: [[HT2:%.+]] = dv.view [[H]][1792] : !dv.buf<ub, 1920xf16> to !dv.buf<ub, 128xf16>
// CHECK: [[RT:%.+]] = dv.view [[R]][1792] : !dv.buf<ub, 1920xf16> to !dv.buf<ub, 128xf16>
// CHECK: dv.vrelu [[HT2]] to [[RT]] {mask = array<i64: 65535, 0>, repeat = 1 : i64}
// CHECK: dv.vconv {{.*}} {rep = array<i64: 8, 4>, repeat = 28 : i64}
// CHECK: dv.vconv {{.*}} {mask = array<i64: 65535, 0>, rep = array<i64: 8, 4>, repeat = 1 : i64}
// CHECK: [[OUT:%.+]] = dv.view %{{.+}}[[[BID]] * 10000 + 8192] : !dv.gm<2x25000xf32> to !dv.gm<1808xf32>
// CHECK: dv.copy %{{.+}} to [[OUT]] {burst_bytes = 7232 : i64}
// CHECK-NEXT: dv.return
func.func @tail_not_divisible(%x: tensor<2x25000xf32>) -> tensor<2x25000xf32> {
  %0 = call @k0_relu(%x) : (tensor<2x25000xf32>) -> tensor<2x25000xf32>
  return %0 : tensor<2x25000xf32>
}
func.func private @k0_relu(%arg0: tensor<2x25000xf32>) -> tensor<2x25000xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Relu"]} {
  %0 = vg.relu %arg0 : tensor<2x25000xf32>
  return %0 : tensor<2x25000xf32>
}

// -----

// Between two kernels the intermediate is f16 in GM (no conversion on
// either side); the weight is f16 in GM too, passed as-is from the graph;
// the graph's input and output stay f32. A sigmoid is vneg, vexp, vadds 1,
// vrec.
// CHECK-LABEL: func.func @f16_intermediate
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: tensor<4x256xf32>)
// CHECK: [[W:%.+]] = vg.constant dense_resource<w> : tensor<4x256xf32>
// CHECK: [[T:%.+]] = dv.launch @k0_add([[X]], [[W]]) : (tensor<4x256xf32>, tensor<4x256xf32>) -> tensor<4x256xf32>
// CHECK: [[R:%.+]] = dv.launch @k1_sigmoid([[T]]) : (tensor<4x256xf32>) -> tensor<4x256xf32>
// CHECK: return [[R]]
// CHECK-LABEL: dv.kernel @k0_add
// CHECK-SAME: (%{{.+}}: !dv.gm<4x256xf32>, [[WG:%[a-z0-9_]+]]: !dv.gm<4x256xf16>, [[TG:%[a-z0-9_]+]]: !dv.gm<4x256xf16>)
// CHECK: [[VW:%.+]] = dv.view [[WG]][0] : !dv.gm<4x256xf16> to !dv.gm<1024xf16>
// CHECK-NEXT: [[UW:%.+]] = dv.alloc : !dv.buf<ub, 1024xf16>
// CHECK-NEXT: dv.copy [[VW]] to [[UW]] {burst_bytes = 2048 : i64}
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vadd
// CHECK-NEXT: dv.view [[TG]][0] : !dv.gm<4x256xf16> to !dv.gm<1024xf16>
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.return
// CHECK-LABEL: dv.kernel @k1_sigmoid
// CHECK-SAME: ([[TI:%[a-z0-9_]+]]: !dv.gm<4x256xf16>, %{{.+}}: !dv.gm<4x256xf32>)
// CHECK: dv.view [[TI]][0] : !dv.gm<4x256xf16> to !dv.gm<1024xf16>
// CHECK-NEXT: dv.alloc : !dv.buf<ub, 1024xf16>
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vneg
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vexp
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vadds {{.*}}, 1.000000e+00 : f32
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vrec
// CHECK-NEXT: dv.alloc : !dv.buf<ub, 1024xf32>
// CHECK-NEXT: dv.vconv
func.func @f16_intermediate(%x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %w = vg.constant dense_resource<w> : tensor<4x256xf32>
  %0 = call @k0_add(%x, %w) : (tensor<4x256xf32>, tensor<4x256xf32>) -> tensor<4x256xf32>
  %1 = call @k1_sigmoid(%0) : (tensor<4x256xf32>) -> tensor<4x256xf32>
  return %1 : tensor<4x256xf32>
}
func.func private @k0_add(%arg0: tensor<4x256xf32>, %arg1: tensor<4x256xf32>) -> tensor<4x256xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<4x256xf32>, tensor<4x256xf32>) -> tensor<4x256xf32>
  return %0 : tensor<4x256xf32>
}
func.func private @k1_sigmoid(%arg0: tensor<4x256xf32>) -> tensor<4x256xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Sigmoid"]} {
  %0 = vg.sigmoid %arg0 : tensor<4x256xf32>
  return %0 : tensor<4x256xf32>
}

// -----

// Near-miss: a softmax kernel with an elementwise op after it has no
// template yet. By default that is an error that names the kernel and its
// source nodes; with allow-unlowered=true the call stays, and the
// elementwise kernel beside it is still lowered.
// KEEP-LABEL: func.func @softmax_stays
// KEEP: [[S:%.+]] = call @k0_softmax
// KEEP: dv.launch @k1_mul([[S]])
// KEEP: func.func private @k0_softmax
// KEEP-SAME: vinci.kernel = "vector"
// KEEP: vg.softmax
// KEEP: dv.kernel @k1_mul
// ALLOC-LABEL: func.func @softmax_stays
// ALLOC: dv.kernel @k1_mul
// ALLOC: dv.alloc offset
func.func @softmax_stays(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = call @k0_softmax(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = call @k1_mul(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}
// expected-error @+1 {{kernel k0_softmax (from /Softmax): relu in a row kernel (with softmax) has no lowering template yet: one row op a kernel, ending it}}
func.func private @k0_softmax(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Softmax"]} {
  %0 = vg.softmax %arg0 {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = vg.relu %0 : tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}
func.func private @k1_mul(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Mul"]} {
  %two = vg.constant dense<2.0> : tensor<f32>
  %0 = vg.mul %arg0, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Near-misses: a broadcast inside an elementwise kernel, a Cube kernel with
// an epilogue the matmul template does not take and an integer kernel have
// no template yet.
// KEEP-LABEL: func.func @near_misses
// KEEP: call @k0_matmul
// KEEP: call @k1_add
// KEEP: call @k2_add
// KEEP-NOT: dv.kernel
func.func @near_misses(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>, %i: tensor<4xi32>)
    -> (tensor<8x32xf32>, tensor<4xi32>) {
  %0 = call @k0_matmul(%x, %w) : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %1 = call @k1_add(%0, %b) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %2 = call @k2_add(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %1, %2 : tensor<8x32xf32>, tensor<4xi32>
}
// expected-error @+1 {{kernel k0_matmul (from /MatMul): sin has no epilogue form}}
func.func private @k0_matmul(%arg0: tensor<8x64xf32>, %arg1: tensor<64x32xf32>) -> tensor<8x32xf32>
    attributes {vinci.kernel = "cube", vinci.source_nodes = ["/MatMul"]} {
  %0 = vg.matmul %arg0, %arg1 : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %1 = vg.sin %0 : tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}
// A tensor constant (not a scalar immediate) on a broadcast operand.
// expected-error @+1 {{kernel k1_add (from /Add): a constant of more than one element inside the kernel has no lowering template yet}}
func.func private @k1_add(%arg0: tensor<8x32xf32>, %arg1: tensor<32xf32>) -> tensor<8x32xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %c = vg.constant dense<2.0> : tensor<32xf32>
  %n = vg.mul %arg1, %c : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xf32>
  %0 = vg.add %arg0, %n : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
// i32 kernels take the vector unit's i32 ops (add/sub/mul/max/min/abs/neg/
// relu, compares, where, sign) on tensors and scalar immediates; a tensor
// constant has no form.
// expected-error @+1 {{kernel k2_add (from /AddInt): an i32 constant of more than one element inside the kernel has no lowering template yet}}
func.func private @k2_add(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/AddInt"]} {
  %c = vg.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = vg.add %arg0, %c : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Broadcasts. The result is viewed as [rows, rowLen] (its dims split where
// every operand is either the whole tensor, constant along the rows (a row
// broadcast: the trailing dims), constant along each row (a column
// broadcast: the leading dims) or one element); each row is padded to a
// multiple of 16 elements in UB so that rows start 32-byte aligned, and
// tiles hold whole rows.

// Row broadcast, a [32] bias over [8, 32]: loaded once before any tile,
// converted to f16 and repeated over the tile's 8 rows by one vcopy whose
// source repeat stride is 0 (dst repeat stride 2 blocks = one 32-element row,
// 32 lanes).
// KEEP-LABEL: func.func @bcast_row
// KEEP: dv.launch @k0_add
// CHECK-LABEL: dv.kernel @k0_add
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<8x32xf32>, [[B:%[a-z0-9_]+]]: !dv.gm<32xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<8x32xf32>)
// CHECK-SAME: block_dim = 1
// CHECK-NEXT: [[LINE32:%.+]] = dv.alloc : !dv.buf<ub, 128xf32>
// CHECK-NEXT: dv.copy [[B]] to [[LINE32]] {burst_bytes = 128 : i64}
// CHECK-NEXT: [[LINE:%.+]] = dv.alloc : !dv.buf<ub, 128xf16>
// CHECK: dv.vconv {{.*}} {mask = array<i64: 4294967295, 0>, rep = array<i64: 4, 8>, repeat = 1 : i64}
// CHECK-NEXT: [[TILED:%.+]] = dv.alloc : !dv.buf<ub, 384xf16>
// CHECK-NEXT: [[TV:%.+]] = dv.view [[TILED]][0] : !dv.buf<ub, 384xf16> to !dv.buf<ub, 352xf16>
// CHECK-NEXT: dv.vcopy [[LINE]] to [[TV]] {mask = array<i64: 4294967295, 0>, rep = array<i64: 2, 0>, repeat = 8 : i64}
// CHECK-NEXT: [[XV:%.+]] = dv.view [[X]][0] : !dv.gm<8x32xf32> to !dv.gm<256xf32>
// CHECK: dv.copy [[XV]] to {{.*}} {burst_bytes = 1024 : i64}
// CHECK: dv.vadd [[XH:%.+]], [[TILED]] to {{.*}} {repeat = 2 : i64} : !dv.buf<ub, 256xf16>, !dv.buf<ub, 384xf16> to !dv.buf<ub, 256xf16>
// CHECK-NOT: dv.vcopy
// CHECK: dv.return
func.func @bcast_row(%x: tensor<8x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = call @k0_add(%x, %b) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
func.func private @k0_add(%arg0: tensor<8x32xf32>, %arg1: tensor<32xf32>) -> tensor<8x32xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// Row broadcast with padded rows (ONNX test_sub_bcast's shapes, operands
// swapped): rows of 5 are 16 apart in UB, so the full operand is copied in
// 12 bursts of 20 bytes with 44-byte destination gaps and stored back with
// 44-byte source gaps; GM is read and written contiguously, never past the
// tensors.
// CHECK-LABEL: dv.kernel @k1_sub
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<3x4x5xf32>, [[B:%[a-z0-9_]+]]: !dv.gm<5xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<3x4x5xf32>)
// CHECK: dv.copy [[B]] to {{.*}} {burst_bytes = 20 : i64}
// CHECK: dv.vcopy {{.*}} {mask = array<i64: 65535, 0>, rep = array<i64: 1, 0>, repeat = 12 : i64} : !dv.buf<ub, 128xf16> to !dv.buf<ub, 304xf16>
// CHECK: [[XV:%.+]] = dv.view [[X]][0] : !dv.gm<3x4x5xf32> to !dv.gm<60xf32>
// CHECK: dv.copy [[XV]] to {{.*}} {burst_bytes = 20 : i64, bursts = 12 : i64, dst_gap = 44 : i64} : !dv.gm<60xf32> to !dv.buf<ub, 256xf32>
// CHECK: dv.vsub [[T:%.+]], {{.*}} {repeat = 1 : i64} : !dv.buf<ub, 384xf16>, !dv.buf<ub, 256xf16> to !dv.buf<ub, 256xf16>
// CHECK: dv.vsub {{.*}} {mask = array<i64: -1, 0>, repeat = 1 : i64}
// CHECK: [[YV:%.+]] = dv.view [[Y]][0] : !dv.gm<3x4x5xf32> to !dv.gm<60xf32>
// CHECK-NEXT: dv.copy {{.*}} to [[YV]] {burst_bytes = 20 : i64, bursts = 12 : i64, src_gap = 44 : i64}
func.func @bcast_row_padded(%x: tensor<3x4x5xf32>, %b: tensor<5xf32>) -> tensor<3x4x5xf32> {
  %0 = call @k1_sub(%x, %b) : (tensor<3x4x5xf32>, tensor<5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}
func.func private @k1_sub(%arg0: tensor<3x4x5xf32>, %arg1: tensor<5xf32>) -> tensor<3x4x5xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Sub"]} {
  %0 = vg.sub %arg1, %arg0 : (tensor<5xf32>, tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// Column broadcast, one value a row ([2, 4, 1] over [2, 4, 8], as a
// LayerNorm-like scaling): per tile the tile's 8 values are copied
// (8 x 4 bytes), converted, and vbrcb writes value r to the 16 lanes of row r
// (dst repeat stride 1 block = one padded row).
// CHECK-LABEL: dv.kernel @k2_mul
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<2x4x8xf32>, [[S:%[a-z0-9_]+]]: !dv.gm<2x4x1xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<2x4x8xf32>)
// CHECK: dv.copy {{.*}} {burst_bytes = 32 : i64, bursts = 8 : i64, dst_gap = 32 : i64} : !dv.gm<64xf32> to !dv.buf<ub, 128xf32>
// CHECK: [[SV:%.+]] = dv.view [[S]][0] : !dv.gm<2x4x1xf32> to !dv.gm<8xf32>
// CHECK-NEXT: dv.copy [[SV]] to {{.*}} {burst_bytes = 32 : i64}
// CHECK: dv.vconv {{.*}} {mask = array<i64: 255, 0>, rep = array<i64: 4, 8>, repeat = 1 : i64}
// CHECK-NEXT: [[COL:%.+]] = dv.alloc : !dv.buf<ub, 256xf16>
// CHECK: dv.vbrcb {{.*}} {mask = array<i64: 65535, 0>, rep = array<i64: 1>, repeat = 8 : i64} : !dv.buf<ub, 8xf16> to !dv.buf<ub, 240xf16>
// CHECK: dv.vmul {{.*}}, [[COL]] to
func.func @bcast_column(%x: tensor<2x4x8xf32>, %s: tensor<2x4x1xf32>) -> tensor<2x4x8xf32> {
  %0 = call @k2_mul(%x, %s) : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
func.func private @k2_mul(%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Mul"]} {
  %0 = vg.mul %arg0, %arg1 : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// Per-channel [1, 32, 1, 1] over NCHW [1, 32, 20, 20]: a column broadcast
// with rows of 400 (no padding), 2 blocks of 16 rows; the channel values
// follow the block (%bid * 16) and one vbrcb a 128-lane chunk of the rows
// (the last chunk 16 lanes), dst repeat stride 25 blocks = 400 elements.
// CHECK-LABEL: dv.kernel @k3_mul
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<1x32x20x20xf16>, [[S:%[a-z0-9_]+]]: !dv.gm<1x32x1x1xf16>, [[Y:%[a-z0-9_]+]]: !dv.gm<1x32x20x20xf16>)
// CHECK-SAME: block_dim = 2
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK: dv.view [[X]][[[BID]] * 6400] : !dv.gm<1x32x20x20xf16> to !dv.gm<6400xf16>
// CHECK: dv.copy {{.*}} {burst_bytes = 12800 : i64}
// CHECK: [[SV:%.+]] = dv.view [[S]][[[BID]] * 16] : !dv.gm<1x32x1x1xf16> to !dv.gm<16xf16>
// CHECK-NEXT: dv.copy [[SV]] to {{.*}} {burst_bytes = 32 : i64}
// CHECK-NEXT: [[COL:%.+]] = dv.alloc : !dv.buf<ub, 6528xf16>
// CHECK: dv.vbrcb {{.*}} {rep = array<i64: 25>, repeat = 16 : i64}
// CHECK: dv.view [[COL]][128]
// CHECK: dv.vbrcb {{.*}} {rep = array<i64: 25>, repeat = 16 : i64}
// CHECK: dv.view [[COL]][256]
// CHECK: dv.vbrcb {{.*}} {rep = array<i64: 25>, repeat = 16 : i64}
// CHECK: dv.view [[COL]][384]
// CHECK: dv.vbrcb {{.*}} {mask = array<i64: 65535, 0>, rep = array<i64: 25>, repeat = 16 : i64}
// CHECK: dv.vmul {{.*}}, [[COL]] to {{.*}} {repeat = 50 : i64}
func.func @bcast_per_channel(%x: tensor<1x32x20x20xf16>, %s: tensor<1x32x1x1xf16>) -> tensor<1x32x20x20xf16> {
  %0 = call @k3_mul(%x, %s) : (tensor<1x32x20x20xf16>, tensor<1x32x1x1xf16>) -> tensor<1x32x20x20xf16>
  return %0 : tensor<1x32x20x20xf16>
}
func.func private @k3_mul(%arg0: tensor<1x32x20x20xf16>, %arg1: tensor<1x32x1x1xf16>) -> tensor<1x32x20x20xf16>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Mul"]} {
  %0 = vg.mul %arg0, %arg1 : (tensor<1x32x20x20xf16>, tensor<1x32x1x1xf16>) -> tensor<1x32x20x20xf16>
  return %0 : tensor<1x32x20x20xf16>
}

// Attention-mask-like [1, 1, 1, 200] over [1, 8, 100, 200]: rows of 200
// padded to 208, 8 blocks of 100 rows, tiles of 33 rows (a loop over one
// pair, one more tile, a tail of one row). The mask is tiled once, before
// the loop, in two vcopy chunks (128 lanes, then 80); GM offsets are rows
// times 200.
// CHECK-LABEL: dv.kernel @k4_add
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<1x8x100x200xf32>, [[M:%[a-z0-9_]+]]: !dv.gm<1x1x1x200xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<1x8x100x200xf32>)
// CHECK-SAME: block_dim = 8
// CHECK: dv.copy [[M]] to {{.*}} {burst_bytes = 800 : i64}
// CHECK: dv.vcopy {{.*}} {rep = array<i64: 13, 0>, repeat = 33 : i64}
// CHECK: dv.vcopy {{.*}} {mask = array<i64: -1, 65535>, rep = array<i64: 13, 0>, repeat = 33 : i64}
// CHECK: dv.loop [[I:%.+]] trip 1 {
// CHECK: dv.view [[X]][([[I]] * 66 + [[BID:%.+]] * 100) * 200] : !dv.gm<1x8x100x200xf32> to !dv.gm<6600xf32>
// CHECK-NEXT: dv.copy {{.*}} {burst_bytes = 800 : i64, bursts = 33 : i64, dst_gap = 32 : i64}
// CHECK: dv.view [[Y]][([[I]] * 66 + [[BID]] * 100) * 200]
// CHECK-NEXT: dv.copy {{.*}} {burst_bytes = 800 : i64, bursts = 33 : i64, src_gap = 32 : i64}
// CHECK: dv.view [[X]][([[I]] * 66 + [[BID]] * 100 + 33) * 200]
// CHECK: }
// CHECK: dv.view [[X]][([[BID]] * 100 + 66) * 200]
// CHECK: dv.view [[X]][([[BID]] * 100 + 99) * 200] : !dv.gm<1x8x100x200xf32> to !dv.gm<200xf32>
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.copy {{.*}} {burst_bytes = 800 : i64, dst_gap = 32 : i64} : !dv.gm<200xf32> to !dv.buf<ub, 256xf32>
// CHECK-NOT: dv.vcopy
// CHECK: dv.return
func.func @bcast_mask_tiled(%x: tensor<1x8x100x200xf32>, %m: tensor<1x1x1x200xf32>) -> tensor<1x8x100x200xf32> {
  %0 = call @k4_add(%x, %m) : (tensor<1x8x100x200xf32>, tensor<1x1x1x200xf32>) -> tensor<1x8x100x200xf32>
  return %0 : tensor<1x8x100x200xf32>
}
func.func private @k4_add(%arg0: tensor<1x8x100x200xf32>, %arg1: tensor<1x1x1x200xf32>) -> tensor<1x8x100x200xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<1x8x100x200xf32>, tensor<1x1x1x200xf32>) -> tensor<1x8x100x200xf32>
  return %0 : tensor<1x8x100x200xf32>
}

// A one-element tensor that is not a constant: loaded once, vbrcb to 128
// lanes, vcopy (source repeat stride 0) over the tile.
// CHECK-LABEL: dv.kernel @k5_max
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<4x32xf32>, [[S:%[a-z0-9_]+]]: !dv.gm<1xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<4x32xf32>)
// CHECK: dv.copy [[S]] to {{.*}} {burst_bytes = 4 : i64}
// CHECK: dv.vconv {{.*}} {mask = array<i64: 1, 0>
// CHECK: [[TILED:%.+]] = dv.alloc : !dv.buf<ub, 256xf16>
// CHECK-NEXT: [[LANES:%.+]] = dv.alloc : !dv.buf<ub, 128xf16>
// CHECK-NEXT: dv.vbrcb {{.*}} to [[LANES]] {repeat = 1 : i64}
// CHECK: dv.vcopy [[LANES]] to {{.*}} {rep = array<i64: 8, 0>, repeat = 1 : i64}
// CHECK: dv.vmax {{.*}}, [[TILED]] to
func.func @bcast_scalar_tensor(%x: tensor<4x32xf32>, %s: tensor<1xf32>) -> tensor<4x32xf32> {
  %0 = call @k5_max(%x, %s) : (tensor<4x32xf32>, tensor<1xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}
func.func private @k5_max(%arg0: tensor<4x32xf32>, %arg1: tensor<1xf32>) -> tensor<4x32xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Max"]} {
  %0 = vg.max %arg0, %arg1 : (tensor<4x32xf32>, tensor<1xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// Both kinds at once, an outer sum [8, 1] + [1, 32]: the row operand tiled
// once, the column operand spread per tile.
// CHECK-LABEL: dv.kernel @k6_add
// CHECK-SAME: ([[C:%[a-z0-9_]+]]: !dv.gm<8x1xf32>, [[R:%[a-z0-9_]+]]: !dv.gm<1x32xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<8x32xf32>)
// CHECK: dv.copy [[R]] to
// CHECK: dv.vcopy {{.*}} {mask = array<i64: 4294967295, 0>, rep = array<i64: 2, 0>, repeat = 8 : i64}
// CHECK: dv.view [[C]][0] : !dv.gm<8x1xf32> to !dv.gm<8xf32>
// CHECK: dv.vbrcb {{.*}} {mask = array<i64: 4294967295, 0>, rep = array<i64: 2>, repeat = 8 : i64}
// CHECK: dv.vadd
// CHECK: dv.copy {{.*}} to {{.*}} {burst_bytes = 1024 : i64} : !dv.buf<ub, 256xf32> to !dv.gm<256xf32>
func.func @bcast_outer(%c: tensor<8x1xf32>, %r: tensor<1x32xf32>) -> tensor<8x32xf32> {
  %0 = call @k6_add(%c, %r) : (tensor<8x1xf32>, tensor<1x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
func.func private @k6_add(%arg0: tensor<8x1xf32>, %arg1: tensor<1x32xf32>) -> tensor<8x32xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<8x1xf32>, tensor<1x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// PRelu with a row-broadcast slope: max(x, 0) + slope * min(x, 0) (x exact
// where x >= 0); f16 rows of 30 padded to 32 (4-byte gaps).
// CHECK-LABEL: dv.kernel @k7_prelu
// CHECK: dv.copy {{.*}} {burst_bytes = 60 : i64} : !dv.gm<30xf16> to !dv.buf<ub, 128xf16>
// CHECK: dv.vcopy {{.*}} {mask = array<i64: 4294967295, 0>, rep = array<i64: 2, 0>, repeat = 4 : i64}
// CHECK: dv.copy {{.*}} {burst_bytes = 60 : i64, bursts = 4 : i64, dst_gap = 4 : i64}
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vmins [[X:%.+]], 0.000000e+00 : f32 to [[NEG:%.+]] {repeat = 1 : i64}
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vmul [[NEG]], [[SLOPE:%.+]] to [[T:%.+]] {repeat = 1 : i64} : !dv.buf<ub, 128xf16>, !dv.buf<ub, 256xf16>
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vrelu [[X]] to [[POS:%.+]] {repeat = 1 : i64}
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vadd [[POS]], [[T]] to
func.func @bcast_prelu(%x: tensor<4x30xf16>, %a: tensor<30xf16>) -> tensor<4x30xf16> {
  %0 = call @k7_prelu(%x, %a) : (tensor<4x30xf16>, tensor<30xf16>) -> tensor<4x30xf16>
  return %0 : tensor<4x30xf16>
}
func.func private @k7_prelu(%arg0: tensor<4x30xf16>, %arg1: tensor<30xf16>) -> tensor<4x30xf16>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/PRelu"]} {
  %0 = vg.prelu %arg0, %arg1 : (tensor<4x30xf16>, tensor<30xf16>) -> tensor<4x30xf16>
  return %0 : tensor<4x30xf16>
}

// Slabs: the result as [outer][mid rows][rowLen] when an operand is
// constant along the outer dims and each row (Mid: per-channel [16, 1, 1]
// over a batch of 4 NCHW images) or along the rows of a slab (OuterInner: a
// batched mask [16, 1, 1, 16] over [16, 4, 16, 16]). Tiles stay within a
// slab, blocks take whole slabs. Mid values are loaded at the tile's row
// within its slab (%i * 14, + 7, then the tail at 14) and spread by vbrcb;
// the mask row is loaded at the slab index and tiled by vcopy (stride 0).
// CHECK-LABEL: dv.kernel @k8_add
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<4x16x30x30xf32>, [[C:%[a-z0-9_]+]]: !dv.gm<16x1x1xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<4x16x30x30xf32>)
// CHECK-SAME: block_dim = 4
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK: dv.loop [[I:%.+]] trip 1 {
// CHECK: dv.view [[X]][([[I]] * 14 + [[BID]] * 16) * 900] : !dv.gm<4x16x30x30xf32> to !dv.gm<6300xf32>
// CHECK-NEXT: dv.copy {{.*}} {burst_bytes = 3600 : i64, bursts = 7 : i64, dst_gap = 48 : i64}
// CHECK: dv.view [[C]][[[I]] * 14] : !dv.gm<16x1x1xf32> to !dv.gm<7xf32>
// CHECK-NEXT: dv.copy {{.*}} {burst_bytes = 28 : i64}
// CHECK-COUNT-7: dv.vbrcb {{.*}} {rep = array<i64: 57>, repeat = 7 : i64}
// CHECK: dv.vbrcb {{.*}} {mask = array<i64: 65535, 0>, rep = array<i64: 57>, repeat = 7 : i64}
// CHECK: dv.view [[C]][[[I]] * 14 + 7] : !dv.gm<16x1x1xf32> to !dv.gm<7xf32>
// CHECK: }
// CHECK: dv.view [[X]][([[BID]] * 16 + 14) * 900] : !dv.gm<4x16x30x30xf32> to !dv.gm<1800xf32>
// CHECK: dv.view [[C]][14] : !dv.gm<16x1x1xf32> to !dv.gm<2xf32>
func.func @bcast_channel_batch(%x: tensor<4x16x30x30xf32>, %c: tensor<16x1x1xf32>) -> tensor<4x16x30x30xf32> {
  %0 = call @k8_add(%x, %c) : (tensor<4x16x30x30xf32>, tensor<16x1x1xf32>) -> tensor<4x16x30x30xf32>
  return %0 : tensor<4x16x30x30xf32>
}
func.func private @k8_add(%arg0: tensor<4x16x30x30xf32>, %arg1: tensor<16x1x1xf32>) -> tensor<4x16x30x30xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<4x16x30x30xf32>, tensor<16x1x1xf32>) -> tensor<4x16x30x30xf32>
  return %0 : tensor<4x16x30x30xf32>
}

// CHECK-LABEL: dv.kernel @k9_add
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<16x4x16x16xf16>, [[M:%[a-z0-9_]+]]: !dv.gm<16x1x1x16xf16>, [[Y:%[a-z0-9_]+]]: !dv.gm<16x4x16x16xf16>)
// CHECK-SAME: block_dim = 8
// CHECK: [[BID:%.+]] = dv.block_idx
// CHECK-NEXT: dv.loop [[S:%.+]] trip 2 {
// CHECK-NEXT: dv.view [[X]][([[S]] * 64 + [[BID]] * 128) * 16] : !dv.gm<16x4x16x16xf16> to !dv.gm<1024xf16>
// CHECK: dv.view [[M]][([[S]] + [[BID]] * 2) * 16] : !dv.gm<16x1x1x16xf16> to !dv.gm<16xf16>
// CHECK-NEXT: dv.copy {{.*}} {burst_bytes = 32 : i64}
// CHECK: dv.vcopy {{.*}} {mask = array<i64: 65535, 0>, rep = array<i64: 1, 0>, repeat = 64 : i64}
// CHECK: dv.vadd
// CHECK: dv.view [[Y]][([[S]] * 64 + [[BID]] * 128) * 16]
func.func @bcast_mask_batched(%x: tensor<16x4x16x16xf16>, %m: tensor<16x1x1x16xf16>) -> tensor<16x4x16x16xf16> {
  %0 = call @k9_add(%x, %m) : (tensor<16x4x16x16xf16>, tensor<16x1x1x16xf16>) -> tensor<16x4x16x16xf16>
  return %0 : tensor<16x4x16x16xf16>
}
func.func private @k9_add(%arg0: tensor<16x4x16x16xf16>, %arg1: tensor<16x1x1x16xf16>) -> tensor<16x4x16x16xf16>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<16x4x16x16xf16>, tensor<16x1x1x16xf16>) -> tensor<16x4x16x16xf16>
  return %0 : tensor<16x4x16x16xf16>
}

// Ops on broadcast values inside the kernel (the tail of an expanded
// LogSoftmax: x - max - log(sum) with [4, 1] statistics): every value is
// held broadcast to the kernel's shape, so log runs on the spread column.
// CHECK-LABEL: dv.kernel @k10_sub
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<4x40xf32>, [[M:%[a-z0-9_]+]]: !dv.gm<4x1xf32>, [[S:%[a-z0-9_]+]]: !dv.gm<4x1xf32>, [[Y:%[a-z0-9_]+]]: !dv.gm<4x40xf32>)
// CHECK: dv.vbrcb
// CHECK: dv.vbrcb
// CHECK: dv.vsub
// CHECK: dv.vln [[SPREAD:%.+]] to [[LOG:%.+]] {repeat = 1 : i64} : !dv.buf<ub, 384xf16> to !dv.buf<ub, 256xf16>
// CHECK: dv.vsub {{.*}}, [[LOG]] to
func.func @bcast_ops_on_broadcasts(%x: tensor<4x40xf32>, %m: tensor<4x1xf32>, %s: tensor<4x1xf32>) -> tensor<4x40xf32> {
  %0 = call @k10_sub(%x, %m, %s) : (tensor<4x40xf32>, tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x40xf32>
  return %0 : tensor<4x40xf32>
}
func.func private @k10_sub(%arg0: tensor<4x40xf32>, %arg1: tensor<4x1xf32>, %arg2: tensor<4x1xf32>) -> tensor<4x40xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Sub", "/Log", "/Sub_1"]} {
  %0 = vg.sub %arg0, %arg1 : (tensor<4x40xf32>, tensor<4x1xf32>) -> tensor<4x40xf32>
  %1 = vg.log %arg2 : tensor<4x1xf32>
  %2 = vg.sub %0, %1 : (tensor<4x40xf32>, tensor<4x1xf32>) -> tensor<4x40xf32>
  return %2 : tensor<4x40xf32>
}

// An i32 kernel computes in i32 (64 lanes a repeat): a row broadcast of
// [20] over [4, 20], rows padded to 32 (128 bytes: dst repeat stride 4
// blocks), no conversions.
// CHECK-LABEL: dv.kernel @k11_add
// CHECK-SAME: ([[X:%[a-z0-9_]+]]: !dv.gm<4x20xi32>, [[B:%[a-z0-9_]+]]: !dv.gm<20xi32>, [[Y:%[a-z0-9_]+]]: !dv.gm<4x20xi32>)
// CHECK: dv.copy [[B]] to [[LINE:%.+]] {burst_bytes = 80 : i64} : !dv.gm<20xi32> to !dv.buf<ub, 64xi32>
// CHECK: dv.vcopy [[LINE]] to {{.*}} {mask = array<i64: 4294967295, 0>, rep = array<i64: 4, 0>, repeat = 4 : i64} : !dv.buf<ub, 64xi32> to !dv.buf<ub, 160xi32>
// CHECK: dv.copy {{.*}} {burst_bytes = 80 : i64, bursts = 4 : i64, dst_gap = 48 : i64} : !dv.gm<80xi32> to !dv.buf<ub, 128xi32>
// CHECK-NOT: dv.vconv
// CHECK: dv.vadd {{.*}} {repeat = 2 : i64} : !dv.buf<ub, 128xi32>, !dv.buf<ub, 192xi32> to !dv.buf<ub, 128xi32>
// CHECK-NEXT: dv.alloc
// CHECK-NEXT: dv.vabs {{.*}} {repeat = 2 : i64} : !dv.buf<ub, 128xi32> to !dv.buf<ub, 128xi32>
// CHECK: dv.copy {{.*}} {burst_bytes = 80 : i64, bursts = 4 : i64, src_gap = 48 : i64} : !dv.buf<ub, 128xi32> to !dv.gm<80xi32>
func.func @bcast_int_row(%x: tensor<4x20xi32>, %b: tensor<20xi32>) -> tensor<4x20xi32> {
  %0 = call @k11_add(%x, %b) : (tensor<4x20xi32>, tensor<20xi32>) -> tensor<4x20xi32>
  return %0 : tensor<4x20xi32>
}
func.func private @k11_add(%arg0: tensor<4x20xi32>, %arg1: tensor<20xi32>) -> tensor<4x20xi32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<4x20xi32>, tensor<20xi32>) -> tensor<4x20xi32>
  %1 = vg.abs %0 : tensor<4x20xi32>
  return %1 : tensor<4x20xi32>
}

// -----

// Broadcast near-misses keep a reason: an operand constant along two
// separate groups of dims ([2, 1, 4, 1] over [2, 3, 4, 5]), and a batched
// row operand whose rows are longer than 8192 elements (kMaxTile).
// KEEP-LABEL: func.func @bcast_near_misses
// KEEP: call @k0_mul
// KEEP: call @k1_add
// KEEP-NOT: dv.kernel
func.func @bcast_near_misses(%x: tensor<2x3x4x5xf32>, %c: tensor<2x1x4x1xf32>, %l: tensor<2x3x9000xf32>,
                             %b: tensor<2x1x9000xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x9000xf32>) {
  %0 = call @k0_mul(%x, %c) : (tensor<2x3x4x5xf32>, tensor<2x1x4x1xf32>) -> tensor<2x3x4x5xf32>
  %1 = call @k1_add(%l, %b) : (tensor<2x3x9000xf32>, tensor<2x1x9000xf32>) -> tensor<2x3x9000xf32>
  return %0, %1 : tensor<2x3x4x5xf32>, tensor<2x3x9000xf32>
}
// expected-error @+1 {{kernel k0_mul (from /Mul): broadcast of tensor<2x1x4x1xf32> to tensor<2x3x4x5xf32> is not supported yet}}
func.func private @k0_mul(%arg0: tensor<2x3x4x5xf32>, %arg1: tensor<2x1x4x1xf32>) -> tensor<2x3x4x5xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Mul"]} {
  %0 = vg.mul %arg0, %arg1 : (tensor<2x3x4x5xf32>, tensor<2x1x4x1xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}
// expected-error @+1 {{kernel k1_add (from /Add): broadcast of tensor<2x1x9000xf32> to tensor<2x3x9000xf32> is not supported yet (with the kernel's other operands: rows of at most 8192 elements whose tiles fit UB, each operand constant along the rows or along each row)}}
func.func private @k1_add(%arg0: tensor<2x3x9000xf32>, %arg1: tensor<2x1x9000xf32>) -> tensor<2x3x9000xf32>
    attributes {vinci.kernel = "vector", vinci.source_nodes = ["/Add"]} {
  %0 = vg.add %arg0, %arg1 : (tensor<2x3x9000xf32>, tensor<2x1x9000xf32>) -> tensor<2x3x9000xf32>
  return %0 : tensor<2x3x9000xf32>
}
