// RUN: vinci-opt %s --split-input-file --verify-diagnostics

// One case per dv verifier rule, each the smallest kernel that breaks it.
// The matching near-misses that must verify are in ops.mlir. Sizes and
// alignments are Ascend310P3's (no dv.soc attribute: the default).

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// expected-error @below {{expected an on-chip space: l1, l0a, l0b, l0c or ub}}
dv.kernel @buf_in_gm(%a: !dv.buf<gm, 16xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  dv.return
}

// -----

// expected-error @below {{unsupported element type 'f64' (expected f16, bf16, f32, i8, ui8 or i32)}}
dv.kernel @bad_element(%a: !dv.gm<16xf64>) attributes {block_dim = 1 : i64, kind = "mix"} {
  dv.return
}

// -----

// expected-error @below {{buffer dims must be static and positive}}
dv.kernel @zero_dim(%a: !dv.gm<0x16xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  dv.return
}

// -----

dv.kernel @nz_rows() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{nz buffer shape must be [rows x cols] with rows a multiple of 16 and cols a multiple of C0 = 16}}
  %b = dv.alloc : !dv.buf<l1, 20x16xf16, nz>
  dv.return
}

// -----

dv.kernel @nz_c0_int8() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{nz buffer shape must be [rows x cols] with rows a multiple of 16 and cols a multiple of C0 = 32}}
  %b = dv.alloc : !dv.buf<l1, 16x16xi8, nz>
  dv.return
}

// -----

dv.kernel @nc1hwc0_c0() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{nc1hwc0 buffer must have C0 = 16 as its innermost dim}}
  %b = dv.alloc : !dv.buf<ub, 1x1x4x4x8xf16, nc1hwc0>
  dv.return
}

// -----

dv.kernel @bad_layout() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{expected a layout: nd, nz or nc1hwc0}}
  %b = dv.alloc : !dv.buf<ub, 16xf16, nhwc>
  dv.return
}

// -----

//===----------------------------------------------------------------------===//
// The target SoC
//===----------------------------------------------------------------------===//

// expected-error @below {{unknown SoC 'Ascend999' in 'dv.soc'}}
module attributes {dv.soc = "Ascend999"} {
}

// -----

// expected-error @below {{'dv.soc' must be a string naming a SoC}}
module attributes {dv.soc = 310} {
}

// -----

// expected-error @below {{unknown dv attribute 'dv.target'}}
module attributes {dv.target = "Ascend310P3"} {
}

// -----

//===----------------------------------------------------------------------===//
// Kernels, loops, block_idx
//===----------------------------------------------------------------------===//

// expected-error @below {{'dv.kernel' op block_dim must be in 1..65535, got 0}}
dv.kernel @block_dim_zero() attributes {block_dim = 0 : i64, kind = "mix"} {
  dv.return
}

// -----

// expected-error @below {{'dv.kernel' op block_dim must be in 1..65535, got 65536}}
dv.kernel @block_dim_big() attributes {block_dim = 65536 : i64, kind = "mix"} {
  dv.return
}

// -----

// expected-error @below {{'dv.kernel' op kind must be cube, vector or mix, got 'scalar'}}
dv.kernel @bad_kind() attributes {block_dim = 1 : i64, kind = "scalar"} {
  dv.return
}

// -----

// expected-error @below {{'dv.kernel' op argument #1 must be a !dv.gm buffer, got '!dv.buf<ub, 16xf16>'}}
dv.kernel @arg_not_gm(%a: !dv.gm<16xf16>, %b: !dv.buf<ub, 16xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  dv.return
}

// -----

dv.kernel @trip_big() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.loop' op trip must be in 0..16777216, got 16777217}}
  dv.loop %i trip 16777217 {
  }
  dv.return
}

// -----

dv.kernel @loop_depth() attributes {block_dim = 1 : i64, kind = "mix"} {
  dv.loop %i trip 2 {
    dv.loop %j trip 2 {
      dv.loop %k trip 2 {
        dv.loop %l trip 2 {
          // expected-error @below {{'dv.loop' op loops nest at most 4 deep}}
          dv.loop %m trip 2 {
          }
        }
      }
    }
  }
  dv.return
}

// -----

func.func @loop_outside_kernel() {
  // expected-error @below {{'dv.loop' op must be inside a dv.kernel}}
  dv.loop %i trip 2 {
  }
  return
}

// -----

func.func @block_idx_outside_kernel() {
  // expected-error @below {{'dv.block_idx' op must be inside a dv.kernel}}
  %b = dv.block_idx
  return
}

// -----

//===----------------------------------------------------------------------===//
// Buffers: sizes and alignment per space (Ascend310P3)
//===----------------------------------------------------------------------===//

dv.kernel @ub_too_big() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op buffer of 262146 bytes exceeds Ascend310P3's ub (262144 bytes)}}
  %b = dv.alloc : !dv.buf<ub, 131073xf16>
  dv.return
}

// -----

dv.kernel @l0a_too_big() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op buffer of 69632 bytes exceeds Ascend310P3's l0a (65536 bytes)}}
  %b = dv.alloc : !dv.buf<l0a, 128x272xf16, nz>
  dv.return
}

// -----

dv.kernel @l1_past_end() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op buffer [32, 1048608) exceeds Ascend310P3's l1 (1048576 bytes)}}
  %b = dv.alloc offset 32 : !dv.buf<l1, 524288xf16>
  dv.return
}

// -----

dv.kernel @ub_misaligned() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op offset 16 is not a multiple of the ub alignment (32 bytes)}}
  %b = dv.alloc offset 16 : !dv.buf<ub, 16xf16>
  dv.return
}

// -----

dv.kernel @l1_misaligned() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op offset 48 is not a multiple of the l1 alignment (32 bytes)}}
  %b = dv.alloc offset 48 : !dv.buf<l1, 16xf16>
  dv.return
}

// -----

dv.kernel @l0a_misaligned() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op offset 256 is not a multiple of the l0a alignment (512 bytes)}}
  %b = dv.alloc offset 256 : !dv.buf<l0a, 256xf16>
  dv.return
}

// -----

dv.kernel @l0b_misaligned() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op offset 32 is not a multiple of the l0b alignment (512 bytes)}}
  %b = dv.alloc offset 32 : !dv.buf<l0b, 256xf16>
  dv.return
}

// -----

dv.kernel @l0c_misaligned() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op offset 32 is not a multiple of the l0c alignment (64 bytes)}}
  %b = dv.alloc offset 32 : !dv.buf<l0c, 256xf32>
  dv.return
}

// -----

dv.kernel @negative_offset() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.alloc' op offset -32 is not a multiple of the ub alignment (32 bytes)}}
  %b = dv.alloc offset -32 : !dv.buf<ub, 16xf16>
  dv.return
}

// -----

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

dv.kernel @view_space() attributes {block_dim = 1 : i64, kind = "mix"} {
  %u = dv.alloc : !dv.buf<ub, 256xf16>
  %b = dv.block_idx
  // expected-error @below {{'dv.view' op result must be in the source's space (ub)}}
  %v = dv.view %u[%b * 0] : !dv.buf<ub, 256xf16> to !dv.buf<l1, 16xf16>
  dv.return
}

// -----

dv.kernel @view_gm_to_buf(%a: !dv.gm<256xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %b = dv.block_idx
  // expected-error @below {{'dv.view' op result must be in the source's space (gm)}}
  %v = dv.view %a[%b * 0] : !dv.gm<256xf16> to !dv.buf<ub, 16xf16>
  dv.return
}

// -----

dv.kernel @view_element(%a: !dv.gm<256xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %b = dv.block_idx
  // expected-error @below {{'dv.view' op source and result must have the same element type, got 'f16' and 'f32'}}
  %v = dv.view %a[%b * 0] : !dv.gm<256xf16> to !dv.gm<16xf32>
  dv.return
}

// -----

dv.kernel @view_not_isa_form(%a: !dv.gm<256xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %b = dv.block_idx
  // expected-error @below {{'dv.view' op offset must be base + sum c * index, with block_idx also allowed as (block_idx mod G) and (block_idx floordiv G)}}
  %v = dv.view %a[(%b + 1) mod 4] : !dv.gm<256xf16> to !dv.gm<16xf16>
  dv.return
}

// -----

dv.kernel @view_mod_iv(%a: !dv.gm<256xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  dv.loop %i trip 4 {
    // expected-error @below {{'dv.view' op mod and floordiv apply to block_idx only}}
    %v = dv.view %a[%i mod 2] : !dv.gm<256xf16> to !dv.gm<16xf16>
  }
  dv.return
}

// -----

dv.kernel @view_two_splits(%a: !dv.gm<256xf16>) attributes {block_dim = 4 : i64, kind = "mix"} {
  %b = dv.block_idx
  // expected-error @below {{'dv.view' op one block split G per offset, got 2 and 4}}
  %v = dv.view %a[(%b mod 2) * 16 + (%b floordiv 4) * 64] : !dv.gm<256xf16> to !dv.gm<16xf16>
  dv.return
}

// -----

// Block 7 of a G = 7 split: (7 mod 7) * 256 + (7 floordiv 7) * 1761 + 96
// = 1857, and 1857 + 192 elements pass the source's 2048.
dv.kernel @view_edge_block_beyond(%x: !dv.gm<2048xf16>) attributes {block_dim = 8 : i64, kind = "cube"} {
  %bid = dv.block_idx
  // expected-error @below {{'dv.view' op view bytes [192, 4098) exceed the source's 4096 bytes}}
  %rows = dv.view %x[(%bid mod 7) * 256 + (%bid floordiv 7) * 1761 + 96] : !dv.gm<2048xf16> to !dv.gm<192xf16>
  dv.return
}

// -----

dv.kernel @view_bad_index(%a: !dv.gm<256xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %c = builtin.unrealized_conversion_cast to index
  // expected-error @below {{'dv.view' op indices must be dv.loop induction variables or dv.block_idx}}
  %v = dv.view %a[%c * 16] : !dv.gm<256xf16> to !dv.gm<16xf16>
  dv.return
}

// -----

dv.kernel @view_misaligned_ub() attributes {block_dim = 1 : i64, kind = "mix"} {
  %u = dv.alloc : !dv.buf<ub, 256xf16>
  dv.loop %i trip 4 {
    // expected-error @below {{'dv.view' op offset terms must be multiples of the ub alignment (32 bytes) in every term}}
    %v = dv.view %u[%i * 8] : !dv.buf<ub, 256xf16> to !dv.buf<ub, 16xf16>
  }
  dv.return
}

// -----

dv.kernel @view_misaligned_l0a_base() attributes {block_dim = 1 : i64, kind = "mix"} {
  %l = dv.alloc : !dv.buf<l0a, 1024xf16>
  %b = dv.block_idx
  // expected-error @below {{'dv.view' op offset terms must be multiples of the l0a alignment (512 bytes) in every term}}
  %v = dv.view %l[%b * 0 + 16] : !dv.buf<l0a, 1024xf16> to !dv.buf<l0a, 256xf16>
  dv.return
}

// -----

dv.kernel @view_past_end() attributes {block_dim = 1 : i64, kind = "mix"} {
  %u = dv.alloc : !dv.buf<ub, 1024xf16>
  dv.loop %i trip 5 {
    // expected-error @below {{'dv.view' op view bytes [0, 2560) exceed the source's 2048 bytes}}
    %v = dv.view %u[%i * 256] : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 256xf16>
  }
  dv.return
}

// -----

dv.kernel @view_block_past_end(%a: !dv.gm<256xf16>) attributes {block_dim = 5 : i64, kind = "mix"} {
  %b = dv.block_idx
  // expected-error @below {{'dv.view' op view bytes [0, 640) exceed the source's 512 bytes}}
  %v = dv.view %a[%b * 64] : !dv.gm<256xf16> to !dv.gm<64xf16>
  dv.return
}

// -----

dv.kernel @view_before_start(%a: !dv.gm<256xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  dv.loop %i trip 4 {
    // expected-error @below {{'dv.view' op view starts before its source (element offset -48)}}
    %v = dv.view %a[%i * -16] : !dv.gm<256xf16> to !dv.gm<16xf16>
  }
  dv.return
}

// -----

//===----------------------------------------------------------------------===//
// Sync
//===----------------------------------------------------------------------===//

dv.kernel @event_range() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.set_flag' op event must be in 0..7, got 8}}
  dv.set_flag MTE2 -> M event 8
  dv.return
}

// -----

dv.kernel @wait_event_range() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.wait_flag' op event must be in 0..7, got -1}}
  dv.wait_flag V -> MTE3 event -1
  dv.return
}

// -----

dv.kernel @flag_same_pipe() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.set_flag' op flag between pipe V and itself}}
  dv.set_flag V -> V event 0
  dv.return
}

// -----

dv.kernel @flag_all() attributes {block_dim = 1 : i64, kind = "mix"} {
  // expected-error @below {{'dv.wait_flag' op flags connect two pipes, not ALL}}
  dv.wait_flag ALL -> V event 0
  dv.return
}

// -----

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

dv.kernel @copy_no_path(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy' op no copy path from l0c to ub (GM->L1/L0A/L0B/UB, L1->L0A/L0B/UB, UB->GM/L1/UB)}}
  dv.copy %l0c to %ubf {burst_bytes = 1024} : !dv.buf<l0c, 64x64xf32, nz> to !dv.buf<ub, 4096xf32>
  dv.return
}

// -----

dv.kernel @copy_gm_gm(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy' op no copy path from gm to gm}}
  dv.copy %g to %g {burst_bytes = 1024} : !dv.gm<64x64xf16> to !dv.gm<64x64xf16>
  dv.return
}

// -----

dv.kernel @copy_l0a_l1(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy' op no copy path from l0a to l1}}
  dv.copy %l0a to %l1 {burst_bytes = 1024} : !dv.buf<l0a, 64x64xf16, nz> to !dv.buf<l1, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @copy_zero_bursts(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy' op bursts must be in 1..65535, got 0}}
  dv.copy %g to %ubnd {bursts = 0, burst_bytes = 1024} : !dv.gm<64x64xf16> to !dv.buf<ub, 4096xf16>
  dv.return
}

// -----

dv.kernel @copy_empty_burst(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy' op burst_bytes must be in 1..4294967295, got 0}}
  dv.copy %g to %ubnd {burst_bytes = 0} : !dv.gm<64x64xf16> to !dv.buf<ub, 4096xf16>
  dv.return
}

// -----

dv.kernel @copy_dst_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy' op dst accesses 8224 bytes but its buffer has 8192}}
  dv.copy %g to %ubnd {bursts = 2, burst_bytes = 4096, dst_gap = 32} : !dv.gm<64x64xf16> to !dv.buf<ub, 4096xf16>
  dv.return
}

// -----

dv.kernel @copy_src_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy' op src accesses 8224 bytes but its buffer has 8192}}
  dv.copy %g to %ubnd {burst_bytes = 8224} : !dv.gm<64x64xf16> to !dv.buf<ub, 4096xf16>
  dv.return
}

// -----

dv.kernel @nd2nz_dst_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nd2nz' op dst must be in l1, l0a, l0b or ub, got l0c}}
  dv.copy_nd2nz %g to %l0c {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<l0c, 64x64xf32, nz>
  dv.return
}

// -----

dv.kernel @nd2nz_layout(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nd2nz' op dst must have layout nz}}
  dv.copy_nd2nz %g to %ubnd {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<ub, 4096xf16>
  dv.return
}

// -----

dv.kernel @nd2nz_element(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %u = dv.alloc : !dv.buf<ub, 64x64xf32, nz>
  // expected-error @below {{'dv.copy_nd2nz' op src and dst must have the same element type, got 'f16' and 'f32'}}
  dv.copy_nd2nz %g to %u {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<ub, 64x64xf32, nz>
  dv.return
}

// -----

dv.kernel @nd2nz_dst_rows(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nd2nz' op dst_rows must be a multiple of 16 >= rows, got 24}}
  dv.copy_nd2nz %g to %ub {rows = 20, cols = 64, src_row_stride = 64, dst_rows = 24, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<ub, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @nd2nz_dst_cols(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nd2nz' op dst_cols must be a multiple of C0 = 16 >= cols, got 40}}
  dv.copy_nd2nz %g to %ub {rows = 16, cols = 40, src_row_stride = 64, dst_rows = 16, dst_cols = 40} : !dv.gm<64x64xf16> to !dv.buf<ub, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @nd2nz_stride(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nd2nz' op src_row_stride 32 is smaller than cols 64}}
  dv.copy_nd2nz %g to %ub {rows = 16, cols = 64, src_row_stride = 32, dst_rows = 16, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<ub, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @nd2nz_rows_zero(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nd2nz' op rows must be in 1..65535, got 0}}
  dv.copy_nd2nz %g to %ub {rows = 0, cols = 64, src_row_stride = 64, dst_rows = 16, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<ub, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @nd2nz_src_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nd2nz' op src accesses 8318 bytes but its buffer has 8192}}
  dv.copy_nd2nz %g to %ub {rows = 64, cols = 64, src_row_stride = 65, dst_rows = 64, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<ub, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @nd2nz_dst_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nd2nz' op dst accesses 10240 bytes but its buffer has 8192}}
  dv.copy_nd2nz %g to %ub {rows = 64, cols = 64, src_row_stride = 64, dst_rows = 80, dst_cols = 64} : !dv.gm<64x64xf16> to !dv.buf<ub, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @nz2nd_src_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nz2nd' op src must be in ub, got l1}}
  dv.copy_nz2nd %l1 to %g {rows = 64, cols = 64, dst_row_stride = 64, src_rows = 64} : !dv.buf<l1, 64x64xf16, nz> to !dv.gm<64x64xf16>
  dv.return
}

// -----

dv.kernel @nz2nd_src_layout(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nz2nd' op src must have layout nz}}
  dv.copy_nz2nd %ubnd to %g {rows = 64, cols = 64, dst_row_stride = 64, src_rows = 64} : !dv.buf<ub, 4096xf16> to !dv.gm<64x64xf16>
  dv.return
}

// -----

dv.kernel @nz2nd_src_rows(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nz2nd' op src_rows must be a multiple of 16 >= rows, got 40}}
  dv.copy_nz2nd %ub to %g {rows = 40, cols = 64, dst_row_stride = 64, src_rows = 40} : !dv.buf<ub, 64x64xf16, nz> to !dv.gm<64x64xf16>
  dv.return
}

// -----

dv.kernel @nz2nd_stride(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nz2nd' op dst_row_stride 48 is smaller than cols 64}}
  dv.copy_nz2nd %ub to %g {rows = 64, cols = 64, dst_row_stride = 48, src_rows = 64} : !dv.buf<ub, 64x64xf16, nz> to !dv.gm<64x64xf16>
  dv.return
}

// -----

dv.kernel @nz2nd_dst_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.copy_nz2nd' op dst accesses 10208 bytes but its buffer has 8192}}
  dv.copy_nz2nd %ub to %g {rows = 64, cols = 64, dst_row_stride = 80, src_rows = 64} : !dv.buf<ub, 64x64xf16, nz> to !dv.gm<64x64xf16>
  dv.return
}

// -----

dv.kernel @nchw_layout(%x: !dv.gm<1x3x8x8xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %u = dv.alloc : !dv.buf<ub, 1024xf16>
  // expected-error @below {{'dv.copy_nchw2nc1hwc0' op dst must have layout nc1hwc0}}
  dv.copy_nchw2nc1hwc0 %x to %u {channels = 3, spatial = 64, src_channel_stride = 64} : !dv.gm<1x3x8x8xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @nchw_space(%x: !dv.gm<1x3x8x8xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %u = dv.alloc : !dv.buf<l0a, 1x1x8x8x16xf16, nc1hwc0>
  // expected-error @below {{'dv.copy_nchw2nc1hwc0' op dst must be in l1 or ub, got l0a}}
  dv.copy_nchw2nc1hwc0 %x to %u {channels = 3, spatial = 64, src_channel_stride = 64} : !dv.gm<1x3x8x8xf16> to !dv.buf<l0a, 1x1x8x8x16xf16, nc1hwc0>
  dv.return
}

// -----

dv.kernel @nchw_stride(%x: !dv.gm<1x3x8x8xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %u = dv.alloc : !dv.buf<ub, 1x1x8x8x16xf16, nc1hwc0>
  // expected-error @below {{'dv.copy_nchw2nc1hwc0' op src_channel_stride 32 is smaller than spatial 64}}
  dv.copy_nchw2nc1hwc0 %x to %u {channels = 3, spatial = 64, src_channel_stride = 32} : !dv.gm<1x3x8x8xf16> to !dv.buf<ub, 1x1x8x8x16xf16, nc1hwc0>
  dv.return
}

// -----

dv.kernel @nchw_src_extent(%x: !dv.gm<1x3x8x8xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %u = dv.alloc : !dv.buf<ub, 1x1x8x8x16xf16, nc1hwc0>
  // expected-error @below {{'dv.copy_nchw2nc1hwc0' op src accesses 512 bytes but its buffer has 384}}
  dv.copy_nchw2nc1hwc0 %x to %u {channels = 3, spatial = 64, src_channel_stride = 96} : !dv.gm<1x3x8x8xf16> to !dv.buf<ub, 1x1x8x8x16xf16, nc1hwc0>
  dv.return
}

// -----

dv.kernel @lf_src_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.load_fractals' op src must be in l1, got ub}}
  dv.load_fractals %ub to %l0a {outer = 4, inner = 4, src_outer_stride = 1, src_inner_stride = 4, dst_outer_stride = 4, dst_inner_stride = 1} : !dv.buf<ub, 64x64xf16, nz> to !dv.buf<l0a, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @lf_dst_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.load_fractals' op dst must be in l0a or l0b, got ub}}
  dv.load_fractals %l1 to %ub {outer = 4, inner = 4, src_outer_stride = 1, src_inner_stride = 4, dst_outer_stride = 4, dst_inner_stride = 1} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<ub, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @lf_f32() attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 16x16xf32, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 16x16xf32, nz>
  // expected-error @below {{'dv.load_fractals' op fractals must hold 8- or 16-bit elements}}
  dv.load_fractals %l1 to %l0a {outer = 1, inner = 1, src_outer_stride = 1, src_inner_stride = 1, dst_outer_stride = 1, dst_inner_stride = 1} : !dv.buf<l1, 16x16xf32, nz> to !dv.buf<l0a, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @lf_transpose_i8() attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 16x32xi8, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 16x32xi8, nz>
  // expected-error @below {{'dv.load_fractals' op transpose needs a 16-bit element type}}
  dv.load_fractals %l1 to %l0b {outer = 1, inner = 1, src_outer_stride = 1, src_inner_stride = 1, dst_outer_stride = 1, dst_inner_stride = 1, transpose} : !dv.buf<l1, 16x32xi8, nz> to !dv.buf<l0b, 16x32xi8, nz>
  dv.return
}

// -----

dv.kernel @lf_zero_outer(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.load_fractals' op outer must be in 1..65535, got 0}}
  dv.load_fractals %l1 to %l0a {outer = 0, inner = 4, src_outer_stride = 1, src_inner_stride = 4, dst_outer_stride = 4, dst_inner_stride = 1} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0a, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @lf_stride_big(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.load_fractals' op src_outer_stride must be in 0..65535, got 65536}}
  dv.load_fractals %l1 to %l0a {outer = 4, inner = 4, src_outer_stride = 65536, src_inner_stride = 4, dst_outer_stride = 4, dst_inner_stride = 1} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0a, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @lf_dst_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.load_fractals' op dst accesses 9728 bytes but its buffer has 8192}}
  dv.load_fractals %l1 to %l0a {outer = 4, inner = 4, src_outer_stride = 1, src_inner_stride = 4, dst_outer_stride = 5, dst_inner_stride = 1} : !dv.buf<l1, 64x64xf16, nz> to !dv.buf<l0a, 64x64xf16, nz>
  dv.return
}

// -----

//===----------------------------------------------------------------------===//
// Cube
//===----------------------------------------------------------------------===//

dv.kernel @mmad_a_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.mmad' op a must be in l0a, got l0b}}
  dv.mmad %l0b, %l0b to %l0c {m = 64, n = 64, k = 64} : !dv.buf<l0b, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_b_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.mmad' op b must be in l0b, got l0a}}
  dv.mmad %l0a, %l0a to %l0c {m = 64, n = 64, k = 64} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0a, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_c_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.mmad' op c must be in l0c, got ub}}
  dv.mmad %l0a, %l0b to %ubf {m = 64, n = 64, k = 64} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<ub, 4096xf32>
  dv.return
}

// -----

dv.kernel @mmad_f32_in() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x16xf32, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x16xf32, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
  // expected-error @below {{'dv.mmad' op the Cube of Ascend310P3 takes no f32 inputs}}
  dv.mmad %a, %b to %c {m = 16, n = 16, k = 16} : !dv.buf<l0a, 16x16xf32, nz>, !dv.buf<l0b, 16x16xf32, nz> to !dv.buf<l0c, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_bf16_in() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x16xbf16, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x16xbf16, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
  // expected-error @below {{'dv.mmad' op the Cube of Ascend310P3 takes no bf16 inputs}}
  dv.mmad %a, %b to %c {m = 16, n = 16, k = 16} : !dv.buf<l0a, 16x16xbf16, nz>, !dv.buf<l0b, 16x16xbf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_i8_f32() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x32xi8, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x32xi8, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
  // expected-error @below {{'dv.mmad' op unsupported mmad types 'i8' x 'i8' -> 'f32' (f16 -> f32/f16, i8 -> i32)}}
  dv.mmad %a, %b to %c {m = 16, n = 16, k = 16} : !dv.buf<l0a, 16x32xi8, nz>, !dv.buf<l0b, 16x32xi8, nz> to !dv.buf<l0c, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_f16_i32() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x16xf16, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x16xf16, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xi32, nz>
  // expected-error @below {{'dv.mmad' op unsupported mmad types 'f16' x 'f16' -> 'i32' (f16 -> f32/f16, i8 -> i32)}}
  dv.mmad %a, %b to %c {m = 16, n = 16, k = 16} : !dv.buf<l0a, 16x16xf16, nz>, !dv.buf<l0b, 16x16xf16, nz> to !dv.buf<l0c, 16x16xi32, nz>
  dv.return
}

// -----

dv.kernel @mmad_mixed_in() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x32xi8, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x32xf16, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
  // expected-error @below {{'dv.mmad' op a and b must have the same element type, got 'i8' and 'f16'}}
  dv.mmad %a, %b to %c {m = 16, n = 16, k = 16} : !dv.buf<l0a, 16x32xi8, nz>, !dv.buf<l0b, 16x32xf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_m_big() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x16xf16, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x16xf16, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
  // expected-error @below {{'dv.mmad' op m must be in 1..4095, got 4096}}
  dv.mmad %a, %b to %c {m = 4096, n = 16, k = 16} : !dv.buf<l0a, 16x16xf16, nz>, !dv.buf<l0b, 16x16xf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_n_big() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x16xf16, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x16xf16, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
  // expected-error @below {{'dv.mmad' op n must be in 1..4095, got 4096}}
  dv.mmad %a, %b to %c {m = 16, n = 4096, k = 16} : !dv.buf<l0a, 16x16xf16, nz>, !dv.buf<l0b, 16x16xf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_k_zero() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x16xf16, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x16xf16, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
  // expected-error @below {{'dv.mmad' op k must be in 1..4095, got 0}}
  dv.mmad %a, %b to %c {m = 16, n = 16, k = 0} : !dv.buf<l0a, 16x16xf16, nz>, !dv.buf<l0b, 16x16xf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_a_extent() attributes {block_dim = 1 : i64, kind = "mix"} {
  %a = dv.alloc : !dv.buf<l0a, 16x16xf16, nz>
  %b = dv.alloc : !dv.buf<l0b, 16x16xf16, nz>
  %c = dv.alloc : !dv.buf<l0c, 16x16xf32, nz>
  // expected-error @below {{'dv.mmad' op a accesses 1024 bytes but its buffer has 512}}
  dv.mmad %a, %b to %c {m = 16, n = 16, k = 17} : !dv.buf<l0a, 16x16xf16, nz>, !dv.buf<l0b, 16x16xf16, nz> to !dv.buf<l0c, 16x16xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_c_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.mmad' op c accesses 20480 bytes but its buffer has 16384}}
  dv.mmad %l0a, %l0b to %l0c {m = 64, n = 80, k = 16} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  dv.return
}

// -----

dv.kernel @mmad_k_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.mmad' op a accesses 10240 bytes but its buffer has 8192}}
  dv.mmad %l0a, %l0b to %l0c {m = 64, n = 64, k = 80} : !dv.buf<l0a, 64x64xf16, nz>, !dv.buf<l0b, 64x64xf16, nz> to !dv.buf<l0c, 64x64xf32, nz>
  dv.return
}

// -----

dv.kernel @move_src_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.move_l0c_ub' op src must be in l0c, got ub}}
  dv.move_l0c_ub %ubf to %ubnd {burst_elems = 4096} : !dv.buf<ub, 4096xf32> to !dv.buf<ub, 4096xf16>
  dv.return
}

// -----

dv.kernel @move_dst_space(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.move_l0c_ub' op dst must be in ub, got l1}}
  dv.move_l0c_ub %l0c to %l1 {burst_elems = 4096} : !dv.buf<l0c, 64x64xf32, nz> to !dv.buf<l1, 64x64xf16, nz>
  dv.return
}

// -----

dv.kernel @move_cast() attributes {block_dim = 1 : i64, kind = "mix"} {
  %l0c = dv.alloc : !dv.buf<l0c, 4096xf32>
  %u = dv.alloc : !dv.buf<ub, 4096xi32>
  // expected-error @below {{'dv.move_l0c_ub' op unsupported L0C -> UB cast 'f32' -> 'i32' (f32 -> f32/f16/bf16, i32 -> i32/f32/f16, f16 -> f16/f32)}}
  dv.move_l0c_ub %l0c to %u {burst_elems = 4096} : !dv.buf<l0c, 4096xf32> to !dv.buf<ub, 4096xi32>
  dv.return
}

// -----

dv.kernel @move_scale_int() attributes {block_dim = 1 : i64, kind = "mix"} {
  %l0c = dv.alloc : !dv.buf<l0c, 4096xi32>
  %u = dv.alloc : !dv.buf<ub, 4096xi32>
  // expected-error @below {{'dv.move_l0c_ub' op scale needs a float result}}
  dv.move_l0c_ub %l0c to %u {burst_elems = 4096, scale = 0.5 : f32} : !dv.buf<l0c, 4096xi32> to !dv.buf<ub, 4096xi32>
  dv.return
}

// -----

dv.kernel @move_dst_extent(%g: !dv.gm<64x64xf16>) attributes {block_dim = 1 : i64, kind = "mix"} {
  %l1 = dv.alloc : !dv.buf<l1, 64x64xf16, nz>
  %l0a = dv.alloc : !dv.buf<l0a, 64x64xf16, nz>
  %l0b = dv.alloc : !dv.buf<l0b, 64x64xf16, nz>
  %l0c = dv.alloc : !dv.buf<l0c, 64x64xf32, nz>
  %ub = dv.alloc : !dv.buf<ub, 64x64xf16, nz>
  %ubnd = dv.alloc : !dv.buf<ub, 4096xf16>
  %ubf = dv.alloc : !dv.buf<ub, 4096xf32>
  // expected-error @below {{'dv.move_l0c_ub' op dst accesses 8224 bytes but its buffer has 8192}}
  dv.move_l0c_ub %l0c to %ubnd {bursts = 2, burst_elems = 2048, dst_gap = 16} : !dv.buf<l0c, 64x64xf32, nz> to !dv.buf<ub, 4096xf16>
  dv.return
}

// -----

//===----------------------------------------------------------------------===//
// Vector
//===----------------------------------------------------------------------===//

dv.kernel @vec_space() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadd' op src1 must be in ub, got l1}}
  dv.vadd %x, %l to %x {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<l1, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_repeat() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadd' op repeat must be in 0..255, got 256}}
  dv.vadd %x, %x to %x {repeat = 256} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_blk_arity() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vmul' op 'blk' must list 3 strides (dst, src0, src1)}}
  dv.vmul %x, %x to %x {repeat = 8, blk = array<i64: 1, 1>} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_rep_arity() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vexp' op 'rep' must list 2 strides (dst, src0)}}
  dv.vexp %x to %x {repeat = 8, rep = array<i64: 8, 8, 8>} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_stride_big() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadd' op rep stride must be in 0..65535, got 65536}}
  dv.vadd %x, %x to %x {repeat = 1, rep = array<i64: 8, 65536, 8>} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_mask_size() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadd' op mask must be [lanes 0..63, lanes 64..127]}}
  dv.vadd %x, %x to %x {repeat = 8, mask = array<i64: -1>} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_mask_lanes() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadd' op mask sets lanes beyond the 64 of a repeat}}
  dv.vadd %f, %f to %f {repeat = 16, mask = array<i64: -1, 1>} : !dv.buf<ub, 1024xf32>, !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf32>
  dv.return
}

// -----

dv.kernel @vec_float_only() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vexp' op needs a float element type, got 'i32'}}
  dv.vexp %i to %i {repeat = 16} : !dv.buf<ub, 1024xi32> to !dv.buf<ub, 1024xi32>
  dv.return
}

// -----

dv.kernel @vec_div_int() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vdiv' op needs a float element type, got 'i32'}}
  dv.vdiv %i, %i to %i {repeat = 16} : !dv.buf<ub, 1024xi32>, !dv.buf<ub, 1024xi32> to !dv.buf<ub, 1024xi32>
  dv.return
}

// -----

dv.kernel @vec_element_mismatch() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadd' op src0 and src1 must have the same element type, got 'f16' and 'f32'}}
  dv.vadd %x, %f to %x {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_dst_mismatch() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vrelu' op src0 and dst must have the same element type, got 'f16' and 'f32'}}
  dv.vrelu %x to %f {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf32>
  dv.return
}

// -----

dv.kernel @vec_int8() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadd' op vector element type must be f16, bf16, f32 or i32, got 'ui8'}}
  dv.vadd %m, %m to %m {repeat = 1} : !dv.buf<ub, 128xui8>, !dv.buf<ub, 128xui8> to !dv.buf<ub, 128xui8>
  dv.return
}

// -----

dv.kernel @vec_scalar_type() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadds' op scalar must be an f32 for element type 'f16'}}
  dv.vadds %x, 1 : i32 to %x {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_scalar_int() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vmuls' op scalar must be an i32 for element type 'i32'}}
  dv.vmuls %i, 1.0 : f32 to %i {repeat = 16} : !dv.buf<ub, 1024xi32> to !dv.buf<ub, 1024xi32>
  dv.return
}

// -----

dv.kernel @vec_extent() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vadd' op dst accesses 2304 bytes but its buffer has 2048}}
  dv.vadd %x, %x to %x {repeat = 9} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vec_src_extent() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vabs' op src0 accesses 2272 bytes but its buffer has 2048}}
  dv.vabs %x to %x {repeat = 8, rep = array<i64: 8, 9>} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vconv_same() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vconv' op vconv needs two different element types, got 'f16'}}
  dv.vconv %x to %x {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vconv_round_float() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vconv' op conversions to float round to nearest even (rint) only}}
  dv.vconv %f to %x round floor {repeat = 16, rep = array<i64: 4, 8>} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vconv_dst_extent() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vconv' op dst accesses 3968 bytes but its buffer has 2048}}
  dv.vconv %f to %x {repeat = 16} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vcmp_dst_extent() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  %big = dv.alloc : !dv.buf<ub, 2048xf16>
  // expected-error @below {{'dv.vcmp' op dst accesses 144 bytes but its buffer has 128}}
  dv.vcmp lt %big, %big to %m {repeat = 9} : !dv.buf<ub, 2048xf16>, !dv.buf<ub, 2048xf16> to !dv.buf<ub, 128xui8>
  dv.return
}

// -----

dv.kernel @vsel_mask_extent() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  %small = dv.alloc : !dv.buf<ub, 64xui8>
  // expected-error @below {{'dv.vsel' op sel_mask accesses 128 bytes but its buffer has 64}}
  dv.vsel %x, %x, %small to %x {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16>, !dv.buf<ub, 64xui8> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vsel_mask_space() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vsel' op sel_mask must be in ub, got l1}}
  dv.vsel %x, %x, %l to %x {repeat = 8} : !dv.buf<ub, 1024xf16>, !dv.buf<ub, 1024xf16>, !dv.buf<l1, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vcadd_dst_extent() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  %r = dv.alloc : !dv.buf<ub, 4xf16>
  // expected-error @below {{'dv.vcadd' op dst accesses 16 bytes but its buffer has 8}}
  dv.vcadd %x to %r {repeat = 8} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 4xf16>
  dv.return
}

// -----

dv.kernel @vbrcb_src_extent() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  %r = dv.alloc : !dv.buf<ub, 4xf16>
  // expected-error @below {{'dv.vbrcb' op src0 accesses 16 bytes but its buffer has 8}}
  dv.vbrcb %r to %x {repeat = 8} : !dv.buf<ub, 4xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vdup_scalar() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vdup' op scalar must be an f32 for element type 'f32'}}
  dv.vdup 1 : i32 to %f {repeat = 16} : !dv.buf<ub, 1024xf32>
  dv.return
}

// -----

dv.kernel @vtranspose_f32() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vtranspose' op vtranspose needs a 16-bit element type}}
  dv.vtranspose %f to %f {tiles = 1} : !dv.buf<ub, 1024xf32> to !dv.buf<ub, 1024xf32>
  dv.return
}

// -----

dv.kernel @vtranspose_tiles() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vtranspose' op tiles must be in 1..255, got 0}}
  dv.vtranspose %x to %x {tiles = 0} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @vtranspose_extent() attributes {block_dim = 1 : i64, kind = "vector"} {
  %x = dv.alloc : !dv.buf<ub, 1024xf16>
  %f = dv.alloc : !dv.buf<ub, 1024xf32>
  %i = dv.alloc : !dv.buf<ub, 1024xi32>
  %m = dv.alloc : !dv.buf<ub, 128xui8>
  %l = dv.alloc : !dv.buf<l1, 1024xf16>
  // expected-error @below {{'dv.vtranspose' op src0 accesses 2560 bytes but its buffer has 2048}}
  dv.vtranspose %x to %x {tiles = 5} : !dv.buf<ub, 1024xf16> to !dv.buf<ub, 1024xf16>
  dv.return
}

// -----

dv.kernel @copy_gather_index_type(%t: !dv.gm<100x64xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %idx = dv.alloc : !dv.buf<ub, 8xf32>
  %rows = dv.alloc : !dv.buf<ub, 512xf16>
  // expected-error @below {{'dv.copy_gather' op indices must be i32, got 'f32'}}
  dv.copy_gather %t[%idx] to %rows {rows = 8, row_bytes = 128, src_row_stride = 128, dst_row_stride = 128, table_rows = 100} : !dv.gm<100x64xf16>, !dv.buf<ub, 8xf32> to !dv.buf<ub, 512xf16>
  dv.return
}

// -----

dv.kernel @copy_gather_table_extent(%t: !dv.gm<100x64xf16>) attributes {block_dim = 1 : i64, kind = "vector"} {
  %idx = dv.alloc : !dv.buf<ub, 8xi32>
  %rows = dv.alloc : !dv.buf<ub, 512xf16>
  // expected-error @below {{'dv.copy_gather' op src accesses 12928 bytes but its buffer has 12800}}
  dv.copy_gather %t[%idx] to %rows {rows = 8, row_bytes = 128, src_row_stride = 128, dst_row_stride = 128, table_rows = 101} : !dv.gm<100x64xf16>, !dv.buf<ub, 8xi32> to !dv.buf<ub, 512xf16>
  dv.return
}

// -----

// expected-error @below {{'dv.nz_weights' names 1, which is not a GM argument of the kernel}}
dv.kernel @nz_weights_index(%w: !dv.gm<4x64x16xf16>) attributes {block_dim = 1 : i64, kind = "cube", dv.nz_weights = array<i64: 1>} {
  dv.return
}

// -----

dv.kernel @load3d_src_space() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<ub, 2x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op src must be in l1, got ub}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>, repeat = 4} : !dv.buf<ub, 2x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_dtype() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 2x8x8x16xf32, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf32, nz>
  // expected-error @below {{'dv.load_3d' op feature maps must be f16, i8 or ui8, got 'f32'}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>, repeat = 4} : !dv.buf<l1, 2x8x8x16xf32, nc1hwc0> to !dv.buf<l0a, 64x144xf32, nz>
  dv.return
}

// -----

dv.kernel @load3d_stride() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op strides h must be in 1..63, got 64}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 64>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>, repeat = 4} : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_first_tap() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op first_tap [3, 0] must lie inside the filter}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 3, 0>, left_top = array<i64: -1, -1>, repeat = 4} : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_fit() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op the filter does not fit the padded feature map's width}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 11, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>, repeat = 4} : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_left_top_w() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op left_top w must be a window of the padded row (-1..6), got 7}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: 7, -1>,  repeat = 4} : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_left_top_h() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op left_top h must not start above the top pad, got -2}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -2>,  repeat = 4} : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_pads() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op 'pads' must be [left, right, top, bottom]}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>, repeat = 4} : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_pad_value() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op pad_value must be an f32 for element type 'f16'}}
  dv.load_3d positions %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>, repeat = 4, pad_value = 1 : i32} : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_dst_extent() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 5x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op dst accesses 20480 bytes but its buffer has 18432}}
  dv.load_3d taps %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 0, 0>, left_top = array<i64: -1, -1>, repeat = 40} : !dv.buf<l1, 5x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}

// -----

dv.kernel @load3d_src_extent() attributes {block_dim = 1 : i64, kind = "cube"} {
  %map = dv.alloc : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0>
  %a = dv.alloc : !dv.buf<l0a, 64x144xf16, nz>
  // expected-error @below {{'dv.load_3d' op src accesses 6144 bytes but its buffer has 2048}}
  dv.load_3d taps %map to %a {fmap_h = 8, fmap_w = 8, pads = array<i64: 1, 1, 1, 1>, filter = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, first_tap = array<i64: 2, 2>, left_top = array<i64: -1, -1>, repeat = 12} : !dv.buf<l1, 1x8x8x16xf16, nc1hwc0> to !dv.buf<l0a, 64x144xf16, nz>
  dv.return
}
