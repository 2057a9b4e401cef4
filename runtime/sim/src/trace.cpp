// Chrome trace JSON (the Trace Event Format that Perfetto and chrome://tracing
// open): one process per simulated core, one thread (track) per pipe.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "trace_impl.h"
#include "vinci/sim/isa.h"

namespace vinci::sim {

TraceWriter::TraceWriter() : impl_(std::make_unique<Impl>()) {}
TraceWriter::~TraceWriter() = default;

void TraceWriter::setNextKernelName(std::string name) { impl_->next_name = std::move(name); }
size_t TraceWriter::eventCount() const { return impl_->events.size(); }

namespace {
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}
}  // namespace

std::string TraceWriter::json() const {
  const Impl& im = *impl_;
  std::ostringstream os;
  const double us_per_cycle = 1e6 / im.clock_hz;
  os << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"note\":\"simulated timeline: models an "
     << escape(im.soc_name.empty() ? "Ascend 310P" : im.soc_name)
     << " AI Core from published numbers, not a hardware measurement\",\"clock_hz\":" << im.clock_hz
     << ",\"truncated\":" << (im.truncated ? "true" : "false")
     << ",\"launches\":" << im.launch_names.size() << "},\"traceEvents\":[";
  bool first = true;
  auto sep = [&] {
    if (!first) os << ",\n";
    first = false;
  };
  if (!im.events.empty()) {
    for (uint32_t c = 0; c <= im.max_core; ++c) {
      sep();
      os << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << c << ",\"args\":{\"name\":\"AI core " << c << "\"}}";
      for (unsigned p = 0; p < kNumPipes; ++p) {
        sep();
        os << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << c << ",\"tid\":" << p
           << ",\"args\":{\"name\":\"" << pipeName(Pipe(p)) << "\"}}";
      }
    }
  }
  char num[64];
  for (const Impl::Event& e : im.events) {
    sep();
    os << "{\"ph\":\"X\",\"name\":\"" << opcodeName(e.op) << "\",\"cat\":\"" << pipeName(e.pipe)
       << "\",\"pid\":" << e.core << ",\"tid\":" << unsigned(e.pipe);
    std::snprintf(num, sizeof num, ",\"ts\":%.4f,\"dur\":%.4f", double(e.start) * us_per_cycle,
                  double(e.duration) * us_per_cycle);
    os << num << ",\"args\":{\"pc\":" << e.pc << ",\"block\":" << e.block << ",\"cycles\":" << e.duration
       << ",\"launch\":" << e.launch << ",\"kernel\":\"" << escape(im.launch_names[e.launch]) << "\"}}";
  }
  os << "]}\n";
  return os.str();
}

bool TraceWriter::writeFile(const std::string& path, std::string& error) const {
  std::ofstream f(path, std::ios::binary);
  if (!f) {
    error = "cannot open " + path + " for writing";
    return false;
  }
  f << json();
  f.close();
  if (!f) {
    error = "write to " + path + " failed";
    return false;
  }
  return true;
}

}  // namespace vinci::sim
