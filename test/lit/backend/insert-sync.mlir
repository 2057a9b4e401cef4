// RUN: vinci-opt %s --vinci-insert-sync --split-input-file | FileCheck %s

// Copy-in (MTE2) -> vector op (V) -> copy-out (MTE3): exactly two pairs.
// CHECK-LABEL: dv.kernel @in_vec_out
// CHECK: %[[A:.*]] = dv.alloc offset 0
// CHECK: %[[B:.*]] = dv.alloc offset 4096
// CHECK-NOT: _flag
// CHECK: dv.copy %{{.*}} to %[[A]]
// CHECK-NEXT: dv.set_flag MTE2 -> V event 0
// CHECK-NEXT: dv.wait_flag MTE2 -> V event 0
// CHECK-NEXT: dv.vexp %[[A]] to %[[B]]
// CHECK-NEXT: dv.set_flag V -> MTE3 event 0
// CHECK-NEXT: dv.wait_flag V -> MTE3 event 0
// CHECK-NEXT: dv.copy %[[B]] to
// CHECK-NEXT: dv.return

dv.kernel @in_vec_out(%in: !dv.gm<2048xf16>, %out: !dv.gm<2048xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %a = dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
  %b = dv.alloc offset 4096 : !dv.buf<ub, 2048xf16>
  dv.copy %in to %a {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
  dv.vexp %a to %b {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
  dv.copy %b to %out {burst_bytes = 4096} : !dv.buf<ub, 2048xf16> to !dv.gm<2048xf16>
  dv.return
}

// -----

// A UB tile reused every iteration: MTE2 refills in iteration i+1 what MTE3
// drained (and V rewrote) in iteration i. One back-edge pair MTE3 -> MTE2
// (V -> MTE2 is ordered through V -> MTE3 -> MTE2): set before the loop,
// wait at the top of the body, set at its end, the last wait after it.
// CHECK-LABEL: dv.kernel @loop_reuse
// CHECK: %[[UB:.*]] = dv.alloc offset 0
// CHECK-NEXT: dv.set_flag MTE3 -> MTE2 event [[E:[0-7]]]
// CHECK-NEXT: dv.loop
// CHECK: dv.wait_flag MTE3 -> MTE2 event [[E]]
// CHECK-NEXT: dv.copy %{{.*}} to %[[UB]]
// CHECK-NEXT: dv.set_flag MTE2 -> V event [[F:[0-7]]]
// CHECK-NEXT: dv.wait_flag MTE2 -> V event [[F]]
// CHECK-NEXT: dv.vexp
// CHECK-NEXT: dv.set_flag V -> MTE3 event [[G:[0-7]]]
// CHECK-NEXT: dv.wait_flag V -> MTE3 event [[G]]
// CHECK-NEXT: dv.copy %[[UB]] to
// CHECK-NEXT: dv.set_flag MTE3 -> MTE2 event [[E]]
// CHECK-NEXT: }
// CHECK-NEXT: dv.wait_flag MTE3 -> MTE2 event [[E]]
// CHECK-NEXT: dv.return

dv.kernel @loop_reuse(%in: !dv.gm<8192xf16>, %out: !dv.gm<8192xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %ub = dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
  dv.loop %i trip 4 {
    %x = dv.view %in[%i * 2048] : !dv.gm<8192xf16> to !dv.gm<2048xf16>
    %y = dv.view %out[%i * 2048] : !dv.gm<8192xf16> to !dv.gm<2048xf16>
    dv.copy %x to %ub {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
    dv.vexp %ub to %ub {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
    dv.copy %ub to %y {burst_bytes = 4096} : !dv.buf<ub, 2048xf16> to !dv.gm<2048xf16>
  }
  dv.return
}

// -----

// The Cube chain MTE2 -> MTE1 -> M -> V -> MTE3. The two L1 loads each get
// their pair (live at once, so two event ids), so MTE1 can start on A while
// MTE2 still loads B.
// CHECK-LABEL: dv.kernel @cube_chain
// CHECK: dv.copy_nd2nz
// CHECK-NEXT: dv.set_flag MTE2 -> MTE1 event [[EA:[0-7]]]
// CHECK-NEXT: dv.copy_nd2nz
// CHECK-NEXT: dv.set_flag MTE2 -> MTE1 event [[EB:[0-7]]]
// CHECK-NEXT: dv.wait_flag MTE2 -> MTE1 event [[EA]]
// CHECK-NEXT: dv.load_fractals
// CHECK-NEXT: dv.wait_flag MTE2 -> MTE1 event [[EB]]
// CHECK-NEXT: dv.load_fractals
// CHECK-NEXT: dv.set_flag MTE1 -> M event [[E1:[0-7]]]
// CHECK-NEXT: dv.wait_flag MTE1 -> M event [[E1]]
// CHECK-NEXT: dv.mmad
// CHECK-NEXT: dv.set_flag M -> V event [[E2:[0-7]]]
// CHECK-NEXT: dv.wait_flag M -> V event [[E2]]
// CHECK-NEXT: dv.move_l0c_ub
// CHECK-NEXT: dv.set_flag V -> MTE3 event [[E3:[0-7]]]
// CHECK-NEXT: dv.wait_flag V -> MTE3 event [[E3]]
// CHECK-NEXT: dv.copy_nz2nd
// CHECK-NEXT: dv.return

dv.kernel @cube_chain(%a: !dv.gm<64x64xf16>, %b: !dv.gm<64x64xf16>, %c: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "cube"} {
  %l1a = dv.alloc offset 0 : !dv.buf<l1, 64x64xf16, nz>
  %l1b = dv.alloc offset 8192 : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc offset 0 : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc offset 0 : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc offset 0 : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc offset 0 : !dv.buf<ub, 64x64xf16, nz>
  dv.copy_nd2nz %a to %l1a {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<l1, 64x64xf16, nz>
  dv.copy_nd2nz %b to %l1b {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<l1, 64x64xf16, nz>
  dv.load_fractals %l1a to %l0a {outer = 4, inner = 4, src_outer_stride = 1, src_inner_stride = 4, dst_outer_stride = 4, dst_inner_stride = 1} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0a, 64x64xf16, nz>
  dv.load_fractals %l1b to %l0b {outer = 4, inner = 4, src_outer_stride = 1, src_inner_stride = 4, dst_outer_stride = 4, dst_inner_stride = 1} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0b, 64x64xf16, nz>
  dv.mmad %l0a, %l0b to %l0c {m = 64, n = 64, k = 64, init} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  dv.move_l0c_ub %l0c to %ub {burst_elems = 4096} : !dv.buf<l0c, 64x64xf32, nz> to !dv.buf<ub, 64x64xf16, nz>
  dv.copy_nz2nd %ub to %c {rows = 64, cols = 64, dst_row_stride = 64, src_rows = 64} : !dv.buf<ub, 64x64xf16, nz> to !dv.gm<64x64xf16>
  dv.return
}

// -----

// Near-misses, no flag at all: disjoint buffers, two ops on one pipe,
// read after read, disjoint halves of one buffer.
// CHECK-LABEL: dv.kernel @near_misses
// CHECK-NOT: dv.set_flag
// CHECK-NOT: dv.wait_flag
// CHECK: dv.return

dv.kernel @near_misses(%in: !dv.gm<2048xf16>, %out: !dv.gm<2048xf16>, %out2: !dv.gm<2048xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %a = dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
  %b = dv.alloc offset 4096 : !dv.buf<ub, 2048xf16>
  %c = dv.alloc offset 8192 : !dv.buf<ub, 2048xf16>
  %d = dv.alloc offset 12288 : !dv.buf<ub, 2048xf16>
  %lo = dv.view %d[0] : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 1024xf16>
  %hi = dv.view %d[1024] : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 1024xf16>
  %in_lo = dv.view %in[0] : !dv.gm<2048xf16> to !dv.gm<1024xf16>
  %out_lo = dv.view %out2[0] : !dv.gm<2048xf16> to !dv.gm<1024xf16>
  // Disjoint buffers: MTE2 fills a, V works on b, MTE3 drains c.
  dv.copy %in to %a {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
  dv.vexp %b to %b {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
  dv.copy %c to %out {burst_bytes = 4096} : !dv.buf<ub, 2048xf16> to !dv.gm<2048xf16>
  // Same pipe: two V ops on one buffer.
  dv.vrelu %b to %b {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
  // Read after read: MTE3 and V both read c.
  dv.vexp %c to %b {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
  // Disjoint halves of one buffer: MTE2 fills the low half, V the high one.
  dv.copy %in_lo to %lo {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
  dv.vdup 1.0 : f32 to %hi {repeat = 8} : !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

// MTE3 reading the copied-in tile again is ordered by MTE2 -> V -> MTE3
// already: no MTE2 -> MTE3 pair.
// CHECK-LABEL: dv.kernel @transitive
// CHECK-NOT: MTE2 -> MTE3
// CHECK: dv.set_flag MTE2 -> V
// CHECK-NOT: MTE2 -> MTE3
// CHECK: dv.set_flag V -> MTE3
// CHECK-NEXT: dv.wait_flag V -> MTE3
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.return

dv.kernel @transitive(%in: !dv.gm<2048xf16>, %out: !dv.gm<2048xf16>, %out2: !dv.gm<2048xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %a = dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
  %b = dv.alloc offset 4096 : !dv.buf<ub, 2048xf16>
  dv.copy %in to %a {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
  dv.vexp %a to %b {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
  dv.copy %b to %out {burst_bytes = 4096} : !dv.buf<ub, 2048xf16> to !dv.gm<2048xf16>
  dv.copy %a to %out2 {burst_bytes = 4096} : !dv.buf<ub, 2048xf16> to !dv.gm<2048xf16>
  dv.return
}

// -----

// Event ids per (src, dst) pair: two live MTE2 -> V pairs take 0 and 1, a
// later one reuses 0.
// CHECK-LABEL: dv.kernel @event_ids
// CHECK: dv.copy
// CHECK-NEXT: dv.set_flag MTE2 -> V event 0
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.set_flag MTE2 -> V event 1
// CHECK-NEXT: dv.wait_flag MTE2 -> V event 0
// CHECK-NEXT: dv.vexp
// CHECK-NEXT: dv.wait_flag MTE2 -> V event 1
// CHECK-NEXT: dv.vexp
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.set_flag MTE2 -> V event 0
// CHECK-NEXT: dv.wait_flag MTE2 -> V event 0
// CHECK-NEXT: dv.vexp
// CHECK-NEXT: dv.return

dv.kernel @event_ids(%in: !dv.gm<2048xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %a = dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
  %b = dv.alloc offset 4096 : !dv.buf<ub, 2048xf16>
  %c = dv.alloc offset 8192 : !dv.buf<ub, 2048xf16>
  dv.copy %in to %a {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
  dv.copy %in to %b {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
  dv.vexp %a to %a {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
  dv.vexp %b to %b {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
  dv.copy %in to %c {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
  dv.vexp %c to %c {repeat = 16} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
  dv.return
}

// -----

// Nested loops: the inner back edge (MTE2 refills %t that vadd read) is
// closed around the inner loop, the outer one (vdup rewrites %acc that MTE3
// drained) around the outer loop; the forward V -> MTE3 pair follows the
// inner loop's trailing wait.
// CHECK-LABEL: dv.kernel @nested
// CHECK: dv.set_flag MTE3 -> V event [[O:[0-7]]]
// CHECK-NEXT: dv.loop
// CHECK-NEXT: dv.wait_flag MTE3 -> V event [[O]]
// CHECK-NEXT: dv.vdup
// CHECK-NEXT: dv.set_flag V -> MTE2 event [[I:[0-7]]]
// CHECK-NEXT: dv.loop
// CHECK: dv.wait_flag V -> MTE2 event [[I]]
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.set_flag MTE2 -> V event [[F:[0-7]]]
// CHECK-NEXT: dv.wait_flag MTE2 -> V event [[F]]
// CHECK-NEXT: dv.vadd
// CHECK-NEXT: dv.set_flag V -> MTE2 event [[I]]
// CHECK-NEXT: }
// CHECK-NEXT: dv.wait_flag V -> MTE2 event [[I]]
// CHECK-NEXT: dv.set_flag V -> MTE3 event [[G:[0-7]]]
// CHECK-NEXT: dv.view
// CHECK-NEXT: dv.wait_flag V -> MTE3 event [[G]]
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.set_flag MTE3 -> V event [[O]]
// CHECK-NEXT: }
// CHECK-NEXT: dv.wait_flag MTE3 -> V event [[O]]
// CHECK-NEXT: dv.return

dv.kernel @nested(%in: !dv.gm<16384xf16>, %out: !dv.gm<16384xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %acc = dv.alloc offset 0 : !dv.buf<ub, 1024xf16>
  %t = dv.alloc offset 2048 : !dv.buf<ub, 1024xf16>
  dv.loop %i trip 4 {
    dv.vdup 0.0 : f32 to %acc {repeat = 8} : !dv.buf<ub, 1024xf16>
    dv.loop %j trip 4 {
      %x = dv.view %in[%i * 4096 + %j * 1024] : !dv.gm<16384xf16> to !dv.gm<1024xf16>
      dv.copy %x to %t {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
      dv.vadd %acc, %t to %acc {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    }
    %y = dv.view %out[%i * 1024] : !dv.gm<16384xf16> to !dv.gm<1024xf16>
    dv.copy %acc to %y {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
  }
  dv.return
}

// -----

// Two halves of one UB buffer (ping, pong) in one loop, indexed by block:
// each half gets its own MTE2 -> V pair; the halves never order each other;
// each refill waits for the store of its own half in the previous iteration
// (its own back-edge MTE3 -> MTE2 pair), not for the later store of the
// other half, so the ping refill overlaps the pong store.
// CHECK-LABEL: dv.kernel @ping_pong
// CHECK: dv.set_flag MTE3 -> MTE2 event [[E0:[0-7]]]
// CHECK-NEXT: dv.set_flag MTE3 -> MTE2 event [[E1:[0-7]]]
// CHECK-NEXT: dv.loop
// CHECK: dv.wait_flag MTE3 -> MTE2 event [[PING:[0-7]]]
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.set_flag MTE2 -> V event [[P:[0-7]]]
// CHECK-NEXT: dv.wait_flag MTE3 -> MTE2 event [[PONG:[0-7]]]
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.set_flag MTE2 -> V event [[Q:[0-7]]]
// CHECK-NEXT: dv.wait_flag MTE2 -> V event [[P]]
// CHECK-NEXT: dv.vexp
// CHECK-NEXT: dv.set_flag V -> MTE3
// CHECK-NEXT: dv.wait_flag V -> MTE3
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.set_flag MTE3 -> MTE2 event [[PING]]
// CHECK-NEXT: dv.wait_flag MTE2 -> V event [[Q]]
// CHECK-NEXT: dv.vexp
// CHECK-NEXT: dv.set_flag V -> MTE3
// CHECK-NEXT: dv.wait_flag V -> MTE3
// CHECK-NEXT: dv.copy
// CHECK-NEXT: dv.set_flag MTE3 -> MTE2 event [[PONG]]
// CHECK-NEXT: }
// CHECK-NEXT: dv.wait_flag MTE3 -> MTE2 event [[E0]]
// CHECK-NEXT: dv.wait_flag MTE3 -> MTE2 event [[E1]]

dv.kernel @ping_pong(%in: !dv.gm<8192xf16>, %out: !dv.gm<8192xf16>) attributes {block_dim = 2 : i64, kind = "vector"} {
  %ub = dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
  %bid = dv.block_idx
  dv.loop %i trip 2 {
    %x0 = dv.view %in[%i * 2048 + %bid * 4096] : !dv.gm<8192xf16> to !dv.gm<1024xf16>
    %x1 = dv.view %in[%i * 2048 + %bid * 4096 + 1024] : !dv.gm<8192xf16> to !dv.gm<1024xf16>
    %y0 = dv.view %out[%i * 2048 + %bid * 4096] : !dv.gm<8192xf16> to !dv.gm<1024xf16>
    %y1 = dv.view %out[%i * 2048 + %bid * 4096 + 1024] : !dv.gm<8192xf16> to !dv.gm<1024xf16>
    %p = dv.view %ub[0] : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 1024xf16>
    %q = dv.view %ub[1024] : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x0 to %p {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x1 to %q {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.vexp %p to %p {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %p to %y0 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %q to %q {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %q to %y1 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
  }
  dv.return
}

// -----

// Nine slots in one loop, each refilled after its own store: nine carried
// MTE3 -> MTE2 pairs would need nine event ids (there are eight), so the
// carried pairs merge into one: every refill of the next iteration waits
// for the last store of this one.
// CHECK-LABEL: dv.kernel @nine_slots
// CHECK: dv.set_flag MTE3 -> MTE2 event [[E:[0-7]]]
// CHECK-NEXT: dv.loop
// CHECK: dv.wait_flag MTE3 -> MTE2 event [[E]]
// CHECK-NEXT: dv.copy
// CHECK-NOT: dv.wait_flag MTE3 -> MTE2
// CHECK: dv.set_flag MTE3 -> MTE2 event [[E]]
// CHECK-NEXT: }
// CHECK-NEXT: dv.wait_flag MTE3 -> MTE2 event [[E]]
// CHECK-NEXT: dv.return

dv.kernel @nine_slots(%in: !dv.gm<18432xf16>, %out: !dv.gm<18432xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %ub = dv.alloc offset 0 : !dv.buf<ub, 9216xf16>
  dv.loop %i trip 2 {
    %x0 = dv.view %in[%i * 9216 + 0] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u0 = dv.view %ub[0] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y0 = dv.view %out[%i * 9216 + 0] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %x1 = dv.view %in[%i * 9216 + 1024] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u1 = dv.view %ub[1024] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y1 = dv.view %out[%i * 9216 + 1024] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %x2 = dv.view %in[%i * 9216 + 2048] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u2 = dv.view %ub[2048] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y2 = dv.view %out[%i * 9216 + 2048] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %x3 = dv.view %in[%i * 9216 + 3072] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u3 = dv.view %ub[3072] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y3 = dv.view %out[%i * 9216 + 3072] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %x4 = dv.view %in[%i * 9216 + 4096] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u4 = dv.view %ub[4096] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y4 = dv.view %out[%i * 9216 + 4096] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %x5 = dv.view %in[%i * 9216 + 5120] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u5 = dv.view %ub[5120] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y5 = dv.view %out[%i * 9216 + 5120] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %x6 = dv.view %in[%i * 9216 + 6144] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u6 = dv.view %ub[6144] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y6 = dv.view %out[%i * 9216 + 6144] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %x7 = dv.view %in[%i * 9216 + 7168] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u7 = dv.view %ub[7168] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y7 = dv.view %out[%i * 9216 + 7168] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %x8 = dv.view %in[%i * 9216 + 8192] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    %u8 = dv.view %ub[8192] : !dv.buf<ub, 9216xf16> to !dv.buf<ub, 1024xf16>
    %y8 = dv.view %out[%i * 9216 + 8192] : !dv.gm<18432xf16> to !dv.gm<1024xf16>
    dv.copy %x0 to %u0 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x1 to %u1 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x2 to %u2 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x3 to %u3 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x4 to %u4 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x5 to %u5 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x6 to %u6 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x7 to %u7 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %x8 to %u8 {burst_bytes = 2048} : !dv.gm<1024xf16> to !dv.buf<ub, 1024xf16>
    dv.vexp %u0 to %u0 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u0 to %y0 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %u1 to %u1 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u1 to %y1 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %u2 to %u2 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u2 to %y2 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %u3 to %u3 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u3 to %y3 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %u4 to %u4 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u4 to %y4 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %u5 to %u5 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u5 to %y5 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %u6 to %u6 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u6 to %y6 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %u7 to %u7 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u7 to %y7 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
    dv.vexp %u8 to %u8 {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
    dv.copy %u8 to %y8 {burst_bytes = 2048} : !dv.buf<ub, 1024xf16> to !dv.gm<1024xf16>
  }
  dv.return
}
