//===- FusionSwitch.h - --fusion_switch_file, in ATC's shape -----*- C++ -*-===//
//
// {"Switch": {"GraphFusion": {"ALL": "off", "QkvFusion": "on"},
//             "UBFusion": {"ALL": "off"}}}
//
// GraphFusion names the graph rewrites on vg (and the softmax protection);
// UBFusion names the kernel-level fusions the partitioner makes (a kernel
// absorbing its consumers while the data is still in UB). Within a section a
// named entry overrides ALL; whatever the file does not mention stays on.
// docs/fusion.md lists every switch.
//
//===----------------------------------------------------------------------===//
#ifndef VINCI_COMPILER_DRIVER_FUSIONSWITCH_H
#define VINCI_COMPILER_DRIVER_FUSIONSWITCH_H

#include <map>
#include <string>
#include <vector>

namespace vinci::driver {

struct FusionSwitchInfo {
  const char *section; // GraphFusion or UBFusion
  const char *name;
  const char *what;
};

/// Every switch, in the order docs/fusion.md lists them.
const std::vector<FusionSwitchInfo> &fusionSwitches();

/// Which fusions are on: all of them unless a switch file turns some off.
class FusionSwitches {
public:
  bool isOn(const std::string &name) const;
  /// Reads `path`; on failure returns false with a one-line `error` that
  /// names the file and what to do.
  bool load(const std::string &path, std::string &error);

private:
  std::map<std::string, bool> enabled; // by switch name; absent: on
};

} // namespace vinci::driver

#endif // VINCI_COMPILER_DRIVER_FUSIONSWITCH_H
