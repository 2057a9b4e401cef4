// vinci._runtime: the runtime's C API (through vinci/runtime.hpp) for Python.
//
// Deliberately thin: it links libvinci_runtime alone (no MLIR), so loading
// and running an .om from Python costs no compiler start-up. Argument
// checking against the model's descriptors, numpy conversions and the
// thread-local contexts live in vinci/runtime.py, where they read best; this
// module only moves buffers and releases the GIL while the simulator runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "vinci/runtime.hpp"

#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

py::dict describe(const vinci_tensor_desc &desc) {
  py::tuple shape(desc.rank);
  for (uint32_t d = 0; d < desc.rank; ++d)
    shape[d] = py::int_(desc.dims[d]);
  py::dict out;
  out["name"] = desc.name ? desc.name : "";
  out["dtype"] = vinci_dtype_name(desc.dtype);
  out["format"] = vinci_format_name(desc.format);
  out["shape"] = shape;
  out["size"] = desc.size;
  return out;
}

py::dict pipeCycles(const uint64_t (&cycles)[VINCI_PIPE_COUNT]) {
  static const char *const names[VINCI_PIPE_COUNT] = {"S", "V", "M", "MTE1", "MTE2", "MTE3"};
  py::dict out;
  for (int p = 0; p < VINCI_PIPE_COUNT; ++p)
    out[names[p]] = cycles[p];
  return out;
}

/// A loaded model: immutable, shared by every context made from it.
class LoadedModel {
public:
  LoadedModel(const std::string &path, uint32_t threads, bool hazardsFatal)
      : model(vinci::Model::fromFile(path)) {
    vinci_context_options_init(&contextOptions);
    contextOptions.threads = threads;
    contextOptions.hazards_fatal = hazardsFatal ? 1 : 0;
  }

  py::dict info() const {
    vinci_model_info info = model.info();
    py::dict out;
    out["name"] = info.name;
    out["soc"] = info.soc;
    out["precision"] = info.precision;
    out["producer"] = info.producer;
    out["producer_version"] = info.producer_version;
    out["num_kernels"] = info.num_kernels;
    out["num_tasks"] = info.num_tasks;
    out["num_weights"] = info.num_weights;
    out["work_size"] = info.work_size;
    out["weight_size"] = info.weight_size;
    out["clock_hz"] = info.clock_hz;
    return out;
  }
  py::list inputs() const {
    py::list out;
    for (uint32_t i = 0; i < model.numInputs(); ++i)
      out.append(describe(model.input(i)));
    return out;
  }
  py::list outputs() const {
    py::list out;
    for (uint32_t i = 0; i < model.numOutputs(); ++i)
      out.append(describe(model.output(i)));
    return out;
  }

  /// The gears (empty for a static model): values and io descriptors of each.
  py::list gears() const {
    py::list out;
    for (uint32_t g = 0; g < model.gearCount(); ++g) {
      py::dict gear;
      gear["values"] = py::cast(model.gear(g));
      py::list inputs, outputs;
      for (uint32_t i = 0; i < model.numInputs(); ++i)
        inputs.append(describe(model.gearInput(g, i)));
      for (uint32_t i = 0; i < model.numOutputs(); ++i)
        outputs.append(describe(model.gearOutput(g, i)));
      gear["inputs"] = inputs;
      gear["outputs"] = outputs;
      out.append(gear);
    }
    return out;
  }
  std::string gearKind() const {
    switch (model.gearKind()) {
    case VINCI_GEAR_BATCH_SIZE: return "batch_size";
    case VINCI_GEAR_IMAGE_SIZE: return "image_size";
    case VINCI_GEAR_DIMS: return "dims";
    default: return "none";
    }
  }
  /// The gear of these input shapes; the runtime's error lists the gears.
  uint32_t matchGear(const std::vector<std::vector<int64_t>> &shapes) const {
    return model.matchGear(shapes);
  }

  const vinci::Model model;
  vinci_context_options contextOptions;
};

/// One execution context; used by one thread at a time (vinci/runtime.py
/// keeps one per thread).
class Session {
public:
  explicit Session(std::shared_ptr<LoadedModel> loaded)
      : loaded(std::move(loaded)), context(this->loaded->model, &this->loaded->contextOptions) {}

  /// Runs on caller-made buffers: `inputs` and `outputs` are objects with the
  /// buffer protocol (C-contiguous numpy arrays) whose sizes the caller has
  /// already matched to the descriptors; the C API checks them again.
  void run(const py::list &inputs, const py::list &outputs) {
    std::vector<py::buffer_info> held; // keeps the buffer views valid while the GIL is released
    std::vector<vinci_const_buffer> in;
    std::vector<vinci_buffer> out;
    for (const py::handle &item : inputs) {
      held.push_back(py::reinterpret_borrow<py::buffer>(item).request());
      in.push_back({held.back().ptr, static_cast<uint64_t>(held.back().size * held.back().itemsize)});
    }
    for (const py::handle &item : outputs) {
      held.push_back(py::reinterpret_borrow<py::buffer>(item).request(/*writable=*/true));
      out.push_back({held.back().ptr, static_cast<uint64_t>(held.back().size * held.back().itemsize)});
    }
    py::gil_scoped_release release;
    context.run(in, out);
  }

  void setGear(uint32_t gear) { context.setGear(gear); }

  py::dict profile() const {
    vinci_profile p = context.profile();
    py::dict out;
    out["cycles"] = p.cycles;
    out["simulated_us"] = p.simulated_us;
    out["clock_hz"] = p.clock_hz;
    out["host_seconds"] = p.host_seconds;
    out["pipe_busy_cycles"] = pipeCycles(p.pipe_busy_cycles);
    out["gm_bytes_read"] = p.gm_bytes_read;
    out["gm_bytes_written"] = p.gm_bytes_written;
    out["instructions"] = p.instructions;
    out["cube_fractal_ops"] = p.cube_fractal_ops;
    out["num_tasks"] = p.num_tasks;
    out["hazard_count"] = p.hazard_count;
    py::list tasks;
    for (uint32_t t = 0; t < p.num_tasks; ++t) {
      vinci_task_profile tp = context.taskProfile(t);
      py::dict task;
      task["kernel"] = tp.kernel_name ? tp.kernel_name : "";
      task["block_dim"] = tp.block_dim;
      task["cores_used"] = tp.cores_used;
      task["cycles"] = tp.cycles;
      task["pipe_busy_cycles"] = pipeCycles(tp.pipe_busy_cycles);
      task["gm_bytes_read"] = tp.gm_bytes_read;
      task["gm_bytes_written"] = tp.gm_bytes_written;
      task["instructions"] = tp.instructions;
      tasks.append(task);
    }
    out["tasks"] = tasks;
    py::list hazards;
    for (uint32_t h = 0; h < p.hazard_count; ++h)
      if (const char *message = vinci_context_hazard_message(context.get(), h))
        hazards.append(message);
    out["hazards"] = hazards;
    return out;
  }

private:
  std::shared_ptr<LoadedModel> loaded; // the model outlives its contexts
  vinci::Context context;
};

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "Vinci runtime bindings (libvinci_runtime); use the vinci package instead";

  // vinci::Error -> vinci.errors.RuntimeStatusError(status code, status name, message),
  // made by vinci.errors so that the Python classes stay in one place.
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown)
        std::rethrow_exception(thrown);
    } catch (const vinci::Error &error) {
      py::object make = py::module_::import("vinci.errors").attr("_from_runtime_status");
      py::object exception = make(static_cast<int>(error.status()),
                                  vinci_status_name(error.status()), error.what());
      PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exception.ptr())), exception.ptr());
    }
  });

  m.def("runtime_version", [] { return std::string(vinci_runtime_version()); });

  py::class_<LoadedModel, std::shared_ptr<LoadedModel>>(m, "LoadedModel")
      .def(py::init<const std::string &, uint32_t, bool>(), py::arg("path"), py::arg("threads"),
           py::arg("hazards_fatal"))
      .def("info", &LoadedModel::info)
      .def("inputs", &LoadedModel::inputs)
      .def("outputs", &LoadedModel::outputs)
      .def("gears", &LoadedModel::gears)
      .def("gear_kind", &LoadedModel::gearKind)
      .def("match_gear", &LoadedModel::matchGear, py::arg("shapes"));

  py::class_<Session>(m, "Session")
      .def(py::init<std::shared_ptr<LoadedModel>>())
      .def("run", &Session::run, py::arg("inputs"), py::arg("outputs"))
      .def("set_gear", &Session::setGear, py::arg("gear"))
      .def("profile", &Session::profile);
}
