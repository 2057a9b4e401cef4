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
    uint32_t kernel;  // index into kernel_names
  };
  std::vector<Event> events;
  std::vector<std::string> kernel_names;
  std::string next_name;
  uint64_t base_cycles = 0;  // where the next kernel starts
  uint32_t max_core = 0;
  double clock_hz = 1e9;
  std::string soc_name;
  bool truncated = false;
};

}  // namespace vinci::sim

#endif  // VINCI_SIM_TRACE_IMPL_H
