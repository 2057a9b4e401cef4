// OmDescription.cpp: everything in a .om container, as text or JSON
// (vinci-info, and vinci-compile --mode=1).
#include "OmDescription.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <string>
#include <vector>

#include "vinci/format/container.h"
#include "vinci/format/om_generated.h"
#include "vinci/sim/executor.h"
#include "vinci/soc.h"

namespace {

namespace om = vinci::om;
namespace format = vinci::format;

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) out += fmt::format("\\u{:04x}", c);
        else out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

std::vector<int64_t> shapeOf(const om::TensorDesc& tensor) {
  return std::vector<int64_t>(tensor.shape()->begin(), tensor.shape()->end());
}

struct KernelStats {
  size_t instructions = 0;
  uint64_t dynamic_instructions = 0;
  std::string disassembly;
};

std::string tensorJson(const om::TensorDesc& t) {
  return fmt::format(R"({{"name": {}, "dtype": "{}", "format": "{}", "shape": [{}], "size": {}}})",
                     jsonString(str(t.name())), format::dtypeName(static_cast<uint8_t>(t.dtype())),
                     format::formatName(static_cast<uint8_t>(t.format())),
                     fmt::join(shapeOf(t), ", "), t.size());
}

std::string tensorText(const om::TensorDesc& t) {
  return fmt::format("'{}' {} {} [{}] {} bytes", str(t.name()),
                     format::dtypeName(static_cast<uint8_t>(t.dtype())),
                     format::formatName(static_cast<uint8_t>(t.format())),
                     fmt::join(shapeOf(t), ", "), t.size());
}

std::string ioPlacement(const om::IoDesc& io, bool json) {
  if (io.placement() == om::IoPlacement::Arena) {
    const bool converts =
        io.device_dtype() != om::DType::Unknown && io.device_dtype() != io.tensor()->dtype();
    const char* device = vinci::format::dtypeName(static_cast<uint8_t>(io.device_dtype()));
    if (json)
      return fmt::format(R"("placement": "arena", "arena_offset": {}{})", io.arena_offset(),
                         converts ? fmt::format(R"(, "device_dtype": "{}")", device) : "");
    return fmt::format("in arena at {}{}", io.arena_offset(),
                       converts ? fmt::format(" as {}", device) : "");
  }
  return json ? std::string(R"("placement": "separate")") : std::string("separate buffer");
}


using TaskList = flatbuffers::Vector<flatbuffers::Offset<om::Task>>;
using PlanList = flatbuffers::Vector<flatbuffers::Offset<om::BufferPlan>>;

// A JSON array of `items`, one a line at `indent`.
std::string jsonArray(const std::vector<std::string>& items, const std::string& indent) {
  if (items.empty()) return "[]";
  return fmt::format("[\n{}  {}\n{}]", indent, fmt::join(items, ",\n" + indent + "  "), indent);
}

std::string tasksJson(const TaskList& tasks, const std::string& indent) {
  std::vector<std::string> items;
  for (const om::Task* task : tasks) {
    std::vector<std::string> args;
    for (const om::TaskArg* arg : *task->args())
      args.push_back(fmt::format(R"({{"space": "{}", "index": {}, "offset": {}, "size": {}}})",
                                 format::spaceName(static_cast<uint8_t>(arg->space())),
                                 arg->index(), arg->offset(), arg->size()));
    items.push_back(fmt::format(R"({{"kernel": {}, "args": [{}]}})", task->kernel(),
                                fmt::join(args, ", ")));
  }
  return jsonArray(items, indent);
}

std::string planJson(const PlanList* plan, const std::string& indent) {
  std::vector<std::string> items;
  if (plan)
    for (const om::BufferPlan* b : *plan)
      items.push_back(fmt::format(
          R"({{"name": {}, "offset": {}, "size": {}, "first_task": {}, "last_task": {}}})",
          jsonString(str(b->name())), b->offset(), b->size(), b->first_task(), b->last_task()));
  return jsonArray(items, indent);
}

std::string tasksText(const om::Model& model, const TaskList& tasks, const std::string& indent) {
  std::string out;
  for (uint32_t t = 0; t < tasks.size(); ++t) {
    const om::Task& task = *tasks.Get(t);
    std::vector<std::string> args;
    for (const om::TaskArg* arg : *task.args()) {
      const bool io = arg->space() == om::Space::Input || arg->space() == om::Space::Output;
      args.push_back(fmt::format("{}{}[{}, +{}]", format::spaceName(static_cast<uint8_t>(arg->space())),
                                 io ? std::to_string(arg->index()) : std::string(), arg->offset(),
                                 arg->size()));
    }
    out += fmt::format("{}{} kernel {} '{}' ({})\n", indent, t, task.kernel(),
                       str(model.kernels()->Get(task.kernel())->name()), fmt::join(args, ", "));
  }
  return out;
}

std::string planText(const PlanList* plan, const std::string& indent) {
  std::string out;
  if (plan)
    for (const om::BufferPlan* b : *plan)
      out += fmt::format("{}'{}' [{}, +{}) live tasks {}..{}\n", indent, str(b->name()), b->offset(),
                         b->size(), b->first_task(), b->last_task());
  return out;
}

// Which input dim each gear value sets: "input 0 'ids' dim 1 <- value 0".
std::vector<std::string> gearDims(const om::Model& model) {
  std::vector<std::string> dims;
  if (model.gear_dims())
    for (const om::GearDim* dim : *model.gear_dims())
      dims.push_back(fmt::format("input {} '{}' dim {} <- value {}", dim->input(),
                                 str(model.inputs()->Get(dim->input())->tensor()->name()),
                                 dim->axis(), dim->value()));
  return dims;
}

std::string gearIoText(const om::Model& model, const om::Gear& gear, bool inputs) {
  const auto& top = inputs ? *model.inputs() : *model.outputs();
  const auto& list = inputs ? *gear.inputs() : *gear.outputs();
  std::vector<std::string> items;
  for (uint32_t i = 0; i < list.size(); ++i) {
    const om::GearIo& io = *list.Get(i);
    const bool arena = top.Get(i)->placement() == om::IoPlacement::Arena;
    items.push_back(fmt::format("'{}' [{}] {} bytes{}", str(top.Get(i)->tensor()->name()),
                                fmt::join(io.shape()->begin(), io.shape()->end(), ", "), io.size(),
                                arena ? fmt::format(" at arena {}", io.arena_offset()) : ""));
  }
  return fmt::format("{}", fmt::join(items, ", "));
}

std::string gearIoJson(const om::Gear& gear, bool inputs) {
  std::vector<std::string> items;
  for (const om::GearIo* io : inputs ? *gear.inputs() : *gear.outputs())
    items.push_back(fmt::format(R"({{"shape": [{}], "size": {}, "arena_offset": {}}})",
                                fmt::join(io->shape()->begin(), io->shape()->end(), ", "),
                                io->size(), io->arena_offset()));
  return fmt::format("[{}]", fmt::join(items, ", "));
}

}  // namespace

namespace vinci::describe {

bool describeOm(const std::string& path, bool json, bool disassemble, std::string& out,
                std::string& error) {
  auto fail = [&](const std::string& message) {
    error = message;
    return false;
  };
  out.clear();
  format::MappedFile file;
  format::Status status = format::MappedFile::open(path, file);
  if (!status.ok()) return fail(status.message);
  format::Container container;
  status = format::Container::open(file.data(), file.size(), path, container);
  if (!status.ok()) return fail(status.message);
  const vinci::soc::SocSpec* soc = vinci::soc::findSoc(container.soc());
  if (soc == nullptr) return fail(fmt::format("{}: unknown SoC '{}'", path, container.soc()));
  const om::Model& model = container.model();
  std::vector<KernelStats> stats(model.kernels()->size());
  for (uint32_t k = 0; k < model.kernels()->size(); ++k) {
    const om::Kernel& kernel = *model.kernels()->Get(k);
    format::ByteRange program = container.kernelProgram(k);
    vinci::sim::Program decoded;
    std::string error;
    if (!vinci::sim::decodeProgram(program.data, program.size, *soc, kernel.num_args(), decoded, error))
      return fail(fmt::format("{}: kernel {} '{}': {}", path, k, str(kernel.name()), error));
    stats[k].instructions = decoded.instructionCount();
    stats[k].dynamic_instructions = decoded.dynamicInstructionCount();
    if (disassemble) stats[k].disassembly = decoded.disassemble();
  }

  const auto* weights = model.weights();
  const auto* plan = model.memory_plan();
  const auto* debug_names = model.debug_names();
  if (json) {
    std::vector<std::string> items;
    out += "{\n";
    out += fmt::format("  \"file\": {},\n  \"format_version\": \"{}.{}\",\n  \"size\": {},\n",
                       jsonString(path), container.versionMajor(), container.versionMinor(),
                       container.fileSize());
    out += fmt::format("  \"name\": {},\n  \"soc\": {},\n  \"precision\": \"{}\",\n",
                       jsonString(str(model.name())), jsonString(container.soc()),
                       format::precisionName(static_cast<uint8_t>(model.precision())));
    out += fmt::format("  \"producer\": {},\n  \"producer_version\": {},\n  \"arena_size\": {},\n",
                       jsonString(str(model.producer())), jsonString(str(model.producer_version())),
                       model.arena_size());
    for (const auto& section : container.sections())
      items.push_back(fmt::format(
          R"({{"kind": "{}", "offset": {}, "size": {}, "alignment": {}, "checksum": "{:016x}"}})",
          format::sectionKindName(section.kind), section.offset, section.size, section.alignment,
          section.checksum));
    out += fmt::format("  \"sections\": [\n    {}\n  ],\n", fmt::join(items, ",\n    "));
    for (const char* role : {"inputs", "outputs"}) {
      const auto& list = std::string(role) == "inputs" ? *model.inputs() : *model.outputs();
      items.clear();
      for (const om::IoDesc* io : list) {
        std::string tensor = tensorJson(*io->tensor());
        tensor.pop_back();
        items.push_back(tensor + ", " + ioPlacement(*io, true) + "}");
      }
      out += fmt::format("  \"{}\": [{}{}{}],\n", role, items.empty() ? "" : "\n    ",
                         fmt::join(items, ",\n    "), items.empty() ? "" : "\n  ");
    }
    items.clear();
    if (weights)
      for (const om::Weight* w : *weights) {
        std::string tensor = tensorJson(*w->tensor());
        tensor.pop_back();
        items.push_back(tensor + fmt::format(R"(, "offset": {}}})", w->offset()));
      }
    out += fmt::format("  \"weights\": [{}{}{}],\n", items.empty() ? "" : "\n    ",
                       fmt::join(items, ",\n    "), items.empty() ? "" : "\n  ");
    items.clear();
    for (uint32_t k = 0; k < model.kernels()->size(); ++k) {
      const om::Kernel& kernel = *model.kernels()->Get(k);
      std::vector<std::string> sources;
      if (kernel.source_nodes())
        for (const flatbuffers::String* s : *kernel.source_nodes()) sources.push_back(jsonString(s->str()));
      items.push_back(fmt::format(
          R"({{"name": {}, "kind": "{}", "block_dim": {}, "num_args": {}, "program_offset": {}, )"
          R"("program_size": {}, "instructions": {}, "dynamic_instructions_per_block": {}, "source_nodes": [{}]{}}})",
          jsonString(str(kernel.name())), format::kernelKindName(static_cast<uint8_t>(kernel.kind())),
          kernel.block_dim(), kernel.num_args(), kernel.program_offset(), kernel.program_size(),
          stats[k].instructions, stats[k].dynamic_instructions, fmt::join(sources, ", "),
          disassemble ? ", \"disassembly\": " + jsonString(stats[k].disassembly) : std::string()));
    }
    out += fmt::format("  \"kernels\": [{}{}{}],\n", items.empty() ? "" : "\n    ",
                       fmt::join(items, ",\n    "), items.empty() ? "" : "\n  ");
    out += fmt::format("  \"tasks\": {},\n", tasksJson(*model.tasks(), "  "));
    out += fmt::format("  \"memory_plan\": {},\n", planJson(plan, "  "));
    out += fmt::format("  \"gear_kind\": \"{}\",\n",
                       format::gearKindName(static_cast<uint8_t>(model.gear_kind())));
    items.clear();
    if (model.gears())
      for (const om::Gear* gear : *model.gears())
        items.push_back(fmt::format(
            "{{\"values\": [{}], \"arena_size\": {}, \"inputs\": {}, \"outputs\": {},\n"
            "     \"tasks\": {},\n     \"memory_plan\": {}}}",
            fmt::join(gear->values()->begin(), gear->values()->end(), ", "), gear->arena_size(),
            gearIoJson(*gear, true), gearIoJson(*gear, false), tasksJson(*gear->tasks(), "     "),
            planJson(gear->memory_plan(), "     ")));
    std::vector<std::string> dims;
    if (model.gear_dims())
      for (const om::GearDim* dim : *model.gear_dims())
        dims.push_back(fmt::format(R"({{"value": {}, "input": {}, "axis": {}}})", dim->value(),
                                   dim->input(), dim->axis()));
    out += fmt::format("  \"gear_dims\": [{}],\n", fmt::join(dims, ", "));
    out += fmt::format("  \"gears\": {},\n", jsonArray(items, "  "));
    items.clear();
    if (debug_names)
      for (const flatbuffers::String* s : *debug_names) items.push_back(jsonString(s->str()));
    out += fmt::format("  \"debug_names\": [{}]\n}}\n", fmt::join(items, ", "));
  } else {
    out += fmt::format("{}: Vinci .om format {}.{}, {} bytes\n", path, container.versionMajor(),
                       container.versionMinor(), container.fileSize());
    out += fmt::format("model '{}' for {} ({}), precision {}, produced by {} {}\n",
                       str(model.name()), container.soc(), soc->description,
                       format::precisionName(static_cast<uint8_t>(model.precision())),
                       str(model.producer()), str(model.producer_version()));
    out += "sections:\n";
    for (const auto& s : container.sections())
      out += fmt::format("  {:<9} offset {:>10}  size {:>10}  align {:>4}  xxh64 {:016x}\n",
                         format::sectionKindName(s.kind), s.offset, s.size, s.alignment, s.checksum);
    out += fmt::format("inputs ({}):\n", model.inputs()->size());
    for (uint32_t i = 0; i < model.inputs()->size(); ++i)
      out += fmt::format("  {} {}, {}\n", i, tensorText(*model.inputs()->Get(i)->tensor()),
                         ioPlacement(*model.inputs()->Get(i), false));
    out += fmt::format("outputs ({}):\n", model.outputs()->size());
    for (uint32_t i = 0; i < model.outputs()->size(); ++i)
      out += fmt::format("  {} {}, {}\n", i, tensorText(*model.outputs()->Get(i)->tensor()),
                         ioPlacement(*model.outputs()->Get(i), false));
    out += fmt::format("weights ({}, {} bytes):\n", weights ? weights->size() : 0,
                       container.section(format::SectionKind::weights).size);
    if (weights)
      for (uint32_t i = 0; i < weights->size(); ++i)
        out += fmt::format("  {} {} at {}\n", i, tensorText(*weights->Get(i)->tensor()),
                           weights->Get(i)->offset());
    out += fmt::format("kernels ({}):\n", model.kernels()->size());
    for (uint32_t k = 0; k < model.kernels()->size(); ++k) {
      const om::Kernel& kernel = *model.kernels()->Get(k);
      std::vector<std::string> sources;
      if (kernel.source_nodes())
        for (const flatbuffers::String* s : *kernel.source_nodes()) sources.push_back(s->str());
      out += fmt::format("  {} '{}' {}, block_dim {}, {} args, {} instructions ({} per block "
                         "executed), program {} bytes at {}, from [{}]\n",
                         k, str(kernel.name()), format::kernelKindName(static_cast<uint8_t>(kernel.kind())),
                         kernel.block_dim(), kernel.num_args(), stats[k].instructions,
                         stats[k].dynamic_instructions, kernel.program_size(),
                         kernel.program_offset(), fmt::join(sources, ", "));
      if (disassemble) out += stats[k].disassembly + (stats[k].disassembly.empty() || stats[k].disassembly.back() == '\n' ? "" : "\n");
    }
    if (model.gear_kind() != om::GearKind::None) {
      out += fmt::format("gears ({}, {}; {}):\n", model.gears()->size(),
                         format::gearKindName(static_cast<uint8_t>(model.gear_kind())),
                         fmt::join(gearDims(model), ", "));
      for (uint32_t g = 0; g < model.gears()->size(); ++g) {
        const om::Gear& gear = *model.gears()->Get(g);
        out += fmt::format("  gear {} [{}]: {} tasks, arena {} bytes\n", g,
                           fmt::join(gear.values()->begin(), gear.values()->end(), ","),
                           gear.tasks()->size(), gear.arena_size());
        out += fmt::format("    inputs: {}\n    outputs: {}\n", gearIoText(model, gear, true),
                           gearIoText(model, gear, false));
        out += fmt::format("    tasks ({}):\n", gear.tasks()->size()) +
               tasksText(model, *gear.tasks(), "      ");
        out += fmt::format("    memory plan ({} buffers):\n",
                           gear.memory_plan() ? gear.memory_plan()->size() : 0) +
               planText(gear.memory_plan(), "      ");
      }
      out += fmt::format("arena: {} bytes (the largest gear's)\n", model.arena_size());
    } else {
      out += fmt::format("tasks ({}):\n", model.tasks()->size()) +
             tasksText(model, *model.tasks(), "  ");
      out += fmt::format("arena: {} bytes; memory plan ({} buffers):\n", model.arena_size(),
                         plan ? plan->size() : 0) +
             planText(plan, "  ");
    }
    out += fmt::format("debug names ({})", debug_names ? debug_names->size() : 0);
    if (debug_names) {
      std::vector<std::string> names;
      for (const flatbuffers::String* s : *debug_names) names.push_back(s->str());
      out += fmt::format(": {}", fmt::join(names, ", "));
    }
    out += fmt::format("\ndebug section: {} bytes\n", container.section(format::SectionKind::debug).size);
  }
  return true;
}

}  // namespace vinci::describe
