// RUN: vinci-opt %s --split-input-file --vinci-allocate-buffers --verify-diagnostics | FileCheck %s

// Two UB buffers that are never live at once share their bytes.
// CHECK-LABEL: dv.kernel @disjoint_lifetimes_share
// CHECK: dv.alloc offset 0 : !dv.buf<ub, 4096xf16>
// CHECK: dv.alloc offset 0 : !dv.buf<ub, 4096xf16>
dv.kernel @disjoint_lifetimes_share(%in: !dv.gm<4096xf16>, %out: !dv.gm<4096xf16>)
    attributes {block_dim = 1 : i64, kind = "vector"} {
  %a = dv.alloc : !dv.buf<ub, 4096xf16>
  dv.copy %in to %a {burst_bytes = 8192} : !dv.gm<4096xf16> to !dv.buf<ub, 4096xf16>
  dv.copy %a to %out {burst_bytes = 8192} : !dv.buf<ub, 4096xf16> to !dv.gm<4096xf16>
  %b = dv.alloc : !dv.buf<ub, 4096xf16>
  dv.copy %in to %b {burst_bytes = 8192} : !dv.gm<4096xf16> to !dv.buf<ub, 4096xf16>
  dv.copy %b to %out {burst_bytes = 8192} : !dv.buf<ub, 4096xf16> to !dv.gm<4096xf16>
  dv.return
}

// -----

// Buffers live at the same time get disjoint, aligned ranges (UB: 32 B);
// the larger one is placed first.
// CHECK-LABEL: dv.kernel @overlapping_lifetimes
// CHECK: dv.alloc offset 8192 : !dv.buf<ub, 1000xf16>
// CHECK: dv.alloc offset 0 : !dv.buf<ub, 4096xf16>
// CHECK: dv.alloc offset 10208 : !dv.buf<ub, 16xf16>
dv.kernel @overlapping_lifetimes(%in: !dv.gm<4096xf16>, %out: !dv.gm<4096xf16>)
    attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1000xf16>
  %y = dv.alloc : !dv.buf<ub, 4096xf16>
  %z = dv.alloc : !dv.buf<ub, 16xf16>
  dv.copy %in to %y {burst_bytes = 8192} : !dv.gm<4096xf16> to !dv.buf<ub, 4096xf16>
  dv.copy %in to %x {burst_bytes = 2000} : !dv.gm<4096xf16> to !dv.buf<ub, 1000xf16>
  dv.copy %in to %z {burst_bytes = 32} : !dv.gm<4096xf16> to !dv.buf<ub, 16xf16>
  dv.copy %x to %out {burst_bytes = 2000} : !dv.buf<ub, 1000xf16> to !dv.gm<4096xf16>
  dv.copy %y to %out {burst_bytes = 8192} : !dv.buf<ub, 4096xf16> to !dv.gm<4096xf16>
  dv.copy %z to %out {burst_bytes = 32} : !dv.buf<ub, 16xf16> to !dv.gm<4096xf16>
  dv.return
}

// -----

// A buffer created before a loop and used inside it is live for the whole
// loop: the buffer created after its last textual use but inside the same
// loop must not take its bytes.
// CHECK-LABEL: dv.kernel @loop_extends_lifetime
// CHECK: dv.alloc offset 0 : !dv.buf<ub, 2048xf16>
// CHECK: dv.loop
// CHECK: dv.alloc offset 4096 : !dv.buf<ub, 2048xf16>
dv.kernel @loop_extends_lifetime(%in: !dv.gm<8192xf16>, %out: !dv.gm<8192xf16>)
    attributes {block_dim = 1 : i64, kind = "vector"} {
  %acc = dv.alloc : !dv.buf<ub, 2048xf16>
  dv.loop %i trip 4 {
    %src = dv.view %in[%i * 2048] : !dv.gm<8192xf16> to !dv.gm<2048xf16>
    dv.copy %src to %acc {burst_bytes = 4096} : !dv.gm<2048xf16> to !dv.buf<ub, 2048xf16>
    %tmp = dv.alloc : !dv.buf<ub, 2048xf16>
    dv.copy %acc to %tmp {burst_bytes = 4096} : !dv.buf<ub, 2048xf16> to !dv.buf<ub, 2048xf16>
    %dst = dv.view %out[%i * 2048] : !dv.gm<8192xf16> to !dv.gm<2048xf16>
    dv.copy %tmp to %dst {burst_bytes = 4096} : !dv.buf<ub, 2048xf16> to !dv.gm<2048xf16>
  }
  dv.return
}

// -----

// Spaces are planned separately with their own alignment (L0A: 512 B), and
// buffers already placed keep their offsets; the others go above them.
// CHECK-LABEL: dv.kernel @spaces_and_placed
// CHECK: dv.alloc offset 0 : !dv.buf<l1, 256xf16>
// CHECK: dv.alloc offset 512 : !dv.buf<l1, 256xf16>
// CHECK: dv.alloc offset 0 : !dv.buf<l0a, 16x16xf16, nz>
dv.kernel @spaces_and_placed(%in: !dv.gm<256xf16>) attributes {block_dim = 1 : i64, kind = "cube"} {
  %placed = dv.alloc offset 0 : !dv.buf<l1, 256xf16>
  %l1 = dv.alloc : !dv.buf<l1, 256xf16>
  %l0a = dv.alloc : !dv.buf<l0a, 16x16xf16, nz>
  dv.copy %in to %placed {burst_bytes = 512} : !dv.gm<256xf16> to !dv.buf<l1, 256xf16>
  dv.copy %in to %l1 {burst_bytes = 512} : !dv.gm<256xf16> to !dv.buf<l1, 256xf16>
  dv.copy %l1 to %l0a {burst_bytes = 512} : !dv.buf<l1, 256xf16> to !dv.buf<l0a, 16x16xf16, nz>
  dv.copy %placed to %l0a {burst_bytes = 512} : !dv.buf<l1, 256xf16> to !dv.buf<l0a, 16x16xf16, nz>
  dv.return
}

// -----

// More than the space holds: a clear error naming the space and the SoC.
// expected-error @+1 {{the kernel's UB buffers need 393216 bytes but the Ascend310P3 has 262144 per core: lower with smaller tiles}}
dv.kernel @too_big(%in: !dv.gm<65536xf16>, %out: !dv.gm<65536xf16>)
    attributes {block_dim = 1 : i64, kind = "vector"} {
  %a = dv.alloc : !dv.buf<ub, 65536xf16>
  %b = dv.alloc : !dv.buf<ub, 65536xf16>
  %c = dv.alloc : !dv.buf<ub, 65536xf16>
  dv.copy %in to %a {burst_bytes = 131072} : !dv.gm<65536xf16> to !dv.buf<ub, 65536xf16>
  dv.copy %in to %b {burst_bytes = 131072} : !dv.gm<65536xf16> to !dv.buf<ub, 65536xf16>
  dv.copy %in to %c {burst_bytes = 131072} : !dv.gm<65536xf16> to !dv.buf<ub, 65536xf16>
  dv.copy %a to %out {burst_bytes = 131072} : !dv.buf<ub, 65536xf16> to !dv.gm<65536xf16>
  dv.copy %b to %out {burst_bytes = 131072} : !dv.buf<ub, 65536xf16> to !dv.gm<65536xf16>
  dv.copy %c to %out {burst_bytes = 131072} : !dv.buf<ub, 65536xf16> to !dv.gm<65536xf16>
  dv.return
}
