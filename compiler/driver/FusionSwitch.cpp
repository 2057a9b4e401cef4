//===- FusionSwitch.cpp - --fusion_switch_file, in ATC's shape ------------===//
#include "driver/FusionSwitch.h"

#include "driver/JsonFile.h"

namespace vinci::driver {

const std::vector<FusionSwitchInfo> &fusionSwitches() {
  static const std::vector<FusionSwitchInfo> switches = {
      {"GraphFusion", "LayerNormFusion",
       "decomposed LayerNorm / RMSNorm -> one layer_norm / rms_norm (vinci-fuse-layernorm)"},
      {"GraphFusion", "GeluFusion", "GELU from its erf and tanh forms -> one gelu (vinci-fuse-gelu)"},
      {"GraphFusion", "QkvFusion",
       "matmuls of the same activations by constant weights -> one matmul and slices "
       "(vinci-fuse-qkv)"},
      {"GraphFusion", "ConvBatchNormFusion",
       "inference batch_norm folded into the preceding conv's weights and bias "
       "(vinci-fold-batchnorm)"},
      {"GraphFusion", "SoftmaxProtection",
       "safe softmax: saturate non-finite logits, subtract the row max, clip the shifted logits "
       "to [-softmax_clip, 0]; off: exp(x) / sum(exp(x)) as written"},
      {"UBFusion", "CubeEpilogueFusion",
       "a matmul's kernel absorbs its elementwise consumers (bias, activation, residual add, "
       "attention scale and mask) while the result is on chip"},
      {"UBFusion", "ElementwiseFusion",
       "chains of elementwise ops run as one Vector kernel"},
      {"UBFusion", "AttentionFusion",
       "attention's softmax (rows of at most 128) ends the QK^T matmul's kernel, and its PV "
       "matmul joins it: the scores and probabilities stay on chip (with CubeEpilogueFusion)"},
      {"UBFusion", "SoftmaxPrologueFusion",
       "a softmax joins the elementwise kernel of its input (a scale, a mask add), computed in "
       "f32 in the softmax's tiles: the scaled logits are never rounded to fp16"},
  };
  return switches;
}

bool FusionSwitches::isOn(const std::string &name) const {
  auto found = enabled.find(name);
  return found == enabled.end() || found->second;
}

bool FusionSwitches::load(const std::string &path, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = "--fusion_switch_file '" + path + "': " + message;
    return false;
  };
  std::string readError;
  std::optional<llvm::json::Value> parsed = readJsonFile(path, readError);
  if (!parsed)
    return fail(readError);
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Object *switchObject = root ? root->getObject("Switch") : nullptr;
  if (!switchObject)
    return fail("expected {\"Switch\": {\"GraphFusion\": {...}, \"UBFusion\": {...}}}");

  std::map<std::string, bool> result;
  for (const auto &[sectionKey, sectionValue] : *switchObject) {
    std::string section = sectionKey.str();
    if (section != "GraphFusion" && section != "UBFusion")
      return fail("unknown section '" + section + "' in \"Switch\" (known: GraphFusion, UBFusion)");
    const llvm::json::Object *entries = sectionValue.getAsObject();
    if (!entries)
      return fail("\"" + section + "\" must be an object of \"name\": \"on\" | \"off\"");
    std::string known;
    for (const FusionSwitchInfo &info : fusionSwitches())
      if (section == info.section)
        known += std::string(known.empty() ? "" : ", ") + info.name;
    auto valueOf = [&](const std::string &name, const llvm::json::Value &value,
                       bool &on) -> bool {
      std::optional<llvm::StringRef> text = value.getAsString();
      if (!text || (*text != "on" && *text != "off"))
        return fail("\"" + section + "\": \"" + name + "\" must be \"on\" or \"off\"");
      on = *text == "on";
      return true;
    };
    // ALL first, then the named entries override it.
    if (const llvm::json::Value *all = entries->get("ALL")) {
      bool on;
      if (!valueOf("ALL", *all, on))
        return false;
      for (const FusionSwitchInfo &info : fusionSwitches())
        if (section == info.section)
          result[info.name] = on;
    }
    for (const auto &[nameKey, value] : *entries) {
      std::string name = nameKey.str();
      if (name == "ALL")
        continue;
      bool knownName = false;
      for (const FusionSwitchInfo &info : fusionSwitches())
        knownName |= section == info.section && name == info.name;
      if (!knownName)
        return fail("unknown " + section + " switch '" + name + "' (known: ALL, " + known + ")");
      bool on;
      if (!valueOf(name, value, on))
        return false;
      result[name] = on;
    }
  }
  enabled = std::move(result);
  return true;
}

} // namespace vinci::driver
