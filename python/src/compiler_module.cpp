// vinci._compiler: the Driver (vinci-compile's library) for Python.
//
// Only standard-library types cross into the compiler (CompileBridge.h), so
// this translation unit needs no MLIR header. vinci/compiler.py turns the
// results into return values and exceptions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "CompileBridge.h"

#include <string>

namespace py = pybind11;
using vinci::driver::CompileOptions;

namespace {

/// The options by vinci-compile's spelling (without the dashes).
/// vinci/compiler.py has already turned Python values into the command
/// line's text, flags into bools and --softmax_clip into a float.
CompileOptions toOptions(const py::dict &given) {
  CompileOptions options;
  struct Field {
    const char *name;
    std::string CompileOptions::*text = nullptr;
    bool CompileOptions::*flag = nullptr;
    double CompileOptions::*number = nullptr;
  };
  static const Field fields[] = {
      {"model", &CompileOptions::model, nullptr},
      {"framework", &CompileOptions::framework, nullptr},
      {"output", &CompileOptions::output, nullptr},
      {"soc_version", &CompileOptions::socVersion, nullptr},
      {"input_shape", &CompileOptions::inputShape, nullptr},
      {"dynamic_batch_size", &CompileOptions::dynamicBatchSize, nullptr},
      {"dynamic_image_size", &CompileOptions::dynamicImageSize, nullptr},
      {"dynamic_dims", &CompileOptions::dynamicDims, nullptr},
      {"input_format", &CompileOptions::inputFormat, nullptr},
      {"const_input", &CompileOptions::constInput, nullptr},
      {"emit", &CompileOptions::emit, nullptr},
      {"dump_dir", &CompileOptions::dumpDir, nullptr},
      {"report", &CompileOptions::report, nullptr},
      {"fusion_switch_file", &CompileOptions::fusionSwitchFile, nullptr},
      {"precision_mode", &CompileOptions::precisionMode, nullptr},
      {"keep_dtype", &CompileOptions::keepDtype, nullptr},
      {"out_nodes", &CompileOptions::outNodes, nullptr},
      {"output_type", &CompileOptions::outputType, nullptr},
      {"input_fp16_nodes", &CompileOptions::inputFp16Nodes, nullptr},
      {"log", &CompileOptions::log, nullptr},
      {"calibration", &CompileOptions::calibration, nullptr},
      {"quant_config", &CompileOptions::quantConfig, nullptr},
      {"softmax_clip", nullptr, nullptr, &CompileOptions::softmaxClip},
      {"check_support", nullptr, &CompileOptions::checkSupport},
      {"print_weights", nullptr, &CompileOptions::printWeights},
  };
  for (const auto &[key, value] : given) {
    std::string name = py::str(key);
    const Field *field = nullptr;
    for (const Field &candidate : fields)
      if (name == candidate.name)
        field = &candidate;
    if (!field)
      throw py::type_error("unknown compile option '" + name + "'");
    if (field->text)
      options.*(field->text) = py::cast<std::string>(value);
    else if (field->flag)
      options.*(field->flag) = py::cast<bool>(value);
    else
      options.*(field->number) = py::cast<double>(value);
  }
  return options;
}

py::tuple toTuple(const vinci::python::CompileResult &result) {
  return py::make_tuple(result.exitCode, result.output, result.log);
}

/// A graph from vinci/torch_import.py: plain lists and tuples, weights as
/// C-contiguous numpy arrays (read in place, see GraphSpec.h).
vinci::torch_import::GraphSpec toGraph(const py::dict &graph, std::vector<py::buffer_info> &held) {
  using namespace vinci::torch_import;
  auto tensorSpec = [](const py::handle &item) {
    auto fields = py::cast<py::tuple>(item); // (name, element type, shape)
    return TensorSpec{py::cast<std::string>(fields[0]), py::cast<std::string>(fields[1]),
                      py::cast<std::vector<int64_t>>(fields[2])};
  };
  GraphSpec spec;
  spec.name = py::cast<std::string>(graph["name"]);
  for (const py::handle &item : graph["inputs"])
    spec.inputs.push_back(tensorSpec(item));
  for (const py::handle &item : graph["constants"]) {
    auto fields = py::cast<py::tuple>(item); // (name, element type, shape, array)
    ConstantSpec constant;
    constant.tensor = tensorSpec(item);
    held.push_back(py::reinterpret_borrow<py::buffer>(fields[3]).request());
    if (!PyBuffer_IsContiguous(held.back().view(), 'C'))
      throw py::value_error("constant '" + constant.tensor.name + "' is not C-contiguous");
    constant.data = held.back().ptr;
    constant.bytes = static_cast<size_t>(held.back().size * held.back().itemsize);
    spec.constants.push_back(std::move(constant));
  }
  for (const py::handle &item : graph["nodes"]) {
    auto fields = py::cast<py::tuple>(item); // (op, source, operands, attributes, results)
    NodeSpec node;
    node.op = py::cast<std::string>(fields[0]);
    node.source = py::cast<std::string>(fields[1]);
    node.operands = py::cast<std::vector<int64_t>>(fields[2]);
    node.attributes = py::cast<std::vector<std::pair<std::string, std::string>>>(fields[3]);
    node.numResults = py::cast<int>(fields[4]);
    spec.nodes.push_back(std::move(node));
  }
  spec.outputs = py::cast<std::vector<std::pair<int64_t, std::string>>>(graph["outputs"]);
  return spec;
}

} // namespace

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "Vinci compiler bindings (the vinci-compile driver); use vinci.compile instead";

  m.def(
      "compile_file",
      [](const py::dict &options) {
        CompileOptions parsed = toOptions(options);
        vinci::python::CompileResult result;
        {
          py::gil_scoped_release release;
          result = vinci::python::compileFile(parsed);
        }
        return toTuple(result);
      },
      py::arg("options"),
      "Runs vinci-compile's driver; returns (exit code, IR text, stderr text).");

  m.def(
      "compile_graph",
      [](const py::dict &options, const py::dict &graph) {
        CompileOptions parsed = toOptions(options);
        std::vector<py::buffer_info> held; // the weights' views, valid while `graph` lives
        vinci::torch_import::GraphSpec spec = toGraph(graph, held);
        vinci::python::CompileResult result;
        {
          py::gil_scoped_release release;
          result = vinci::python::compileGraph(parsed, spec);
        }
        return toTuple(result);
      },
      py::arg("options"), py::arg("graph"),
      "Compiles a graph from the PyTorch front end; returns (exit code, IR text, stderr text).");
}
