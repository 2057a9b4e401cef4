//===- Encode.h - dv kernels -> Vinci ISA program bytes ---------*- C++ -*-===//
//
// The encoder: a walk over one dv.kernel that emits one ISA record per dv
// instruction op (docs/isa.md, contract 1; docs/dv-dialect.md "Encoding").
// dv.loop becomes LoopBegin/LoopEnd, dv.view chains fold into the operand's
// affine address (base, loop coefficients, block terms), placed dv.alloc
// offsets become on-chip bases and kernel arguments GM argument indices.
// Anything the ISA cannot express is a one-line error naming the op. The
// bytes are decoded again (vinci::sim::decodeProgram) before they are handed
// out, so a kernel that encodes is a program the runtime accepts.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_BACKEND_ENCODE_H
#define VINCI_BACKEND_ENCODE_H

#include <cstdint>
#include <string>
#include <vector>

namespace vinci::dv {
class KernelOp;
}

namespace vinci::backend {

/// One encoded kernel and what the .om needs beside its program.
struct EncodedKernel {
  std::string name;                // the kernel's symbol name
  std::vector<uint8_t> program;    // header + records (docs/isa.md)
  uint32_t num_args = 0;           // GM arguments, in order
  uint32_t block_dim = 1;
  std::string kind;                // "cube", "vector" or "mix"
  std::string soc;                 // the SoC the program was encoded and checked for
  uint32_t instruction_count = 0;  // static records (loop markers included)
  uint64_t dynamic_instruction_count = 0;  // per block, as the decoder counts it
};

/// Encodes `kernel` (which must verify). On failure returns false and sets
/// `error` to one line naming the op at fault ("'dv.copy' op: ...").
bool encodeKernel(vinci::dv::KernelOp kernel, EncodedKernel &out, std::string &error);

/// The same, program bytes only.
bool encodeKernel(vinci::dv::KernelOp kernel, std::vector<uint8_t> &program,
                  std::string &error);

}  // namespace vinci::backend

#endif  // VINCI_BACKEND_ENCODE_H
