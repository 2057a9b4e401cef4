// TraceWriter's internals (internal to vinci_sim).
#ifndef VINCI_SIM_TRACE_IMPL_H
#define VINCI_SIM_TRACE_IMPL_H

#include <string>
#include <vector>

#include "core.h"

namespace vinci::sim {

struct TraceWriter::Impl {
  struct Event {
    uint64_t start, duration;  // absolute cycles
    uint32_t core, block, pc;
    Opcode op;
    Pipe pipe;
    uint32_t launch;  // the launch's index, into launch_names
  };
  std::vector<Event> events;
  // One per runKernel call, in call order: the kernel's name. Identical
  // kernels share one program and name, so the index is what tells launches
  // apart (their first traced instructions need not be pc 0: set_flag,
  // wait_flag and Scalar instructions are not traced).
  std::vector<std::string> launch_names;
  std::string next_name;
  uint64_t base_cycles = 0;  // where the next kernel starts
  uint32_t max_core = 0;
  double clock_hz = 1e9;
  std::string soc_name;
  bool truncated = false;
};

}  // namespace vinci::sim

#endif  // VINCI_SIM_TRACE_IMPL_H
