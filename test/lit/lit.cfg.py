# lit configuration for Vinci's FileCheck tests (dialects, passes, importer).
import os
import lit.formats

config.name = "Vinci"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vinci_binary_dir, "test", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.vinci_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%onnx_testdata", config.onnx_testdata_dir))
config.substitutions.append(("%python", config.python_executable))
