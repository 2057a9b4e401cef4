# MLIR 22 from Debian (/usr/lib/llvm-22). We link the single shared libMLIR.so:
# (MLIR config versions match on major.minor, so "22.1" is how "MLIR 22" is spelled.)
# Debian's MLIR_DIALECT_LIBS mixes static archives with libMLIR.so, and linking
# both gives duplicate registrations at start-up.
find_package(MLIR 22.1 CONFIG REQUIRED
  HINTS /usr/lib/llvm-22/lib/cmake/mlir /usr/lib/llvm-22)
message(STATUS "Using MLIRConfig.cmake in: ${MLIR_DIR}")
message(STATUS "Using LLVMConfig.cmake in: ${LLVM_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})
link_directories(${LLVM_LIBRARY_DIR})

find_library(VINCI_LIBMLIR MLIR HINTS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)
find_library(VINCI_LIBLLVM LLVM HINTS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)

# vinci_link_mlir(target [KEEP_RTTI]): link a compiler target against the
# shared MLIR/LLVM. LLVM is built without RTTI and code that subclasses its
# polymorphic classes (passes) must follow; KEEP_RTTI is for code that only
# calls MLIR but uses another RTTI library (protobuf in the ONNX importer).
function(vinci_link_mlir target)
  cmake_parse_arguments(ARG "KEEP_RTTI" "" "" ${ARGN})
  target_link_libraries(${target} PUBLIC ${VINCI_LIBMLIR} ${VINCI_LIBLLVM})
  if(NOT ARG_KEEP_RTTI)
    target_compile_options(${target} PRIVATE -fno-rtti)
  endif()
endfunction()

find_program(VINCI_LIT NAMES lit llvm-lit HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin REQUIRED)
find_program(VINCI_FILECHECK FileCheck HINTS /usr/lib/llvm-22/bin ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
