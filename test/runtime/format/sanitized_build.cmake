# ctest rt_sanitized_build / rt_fuzz_build: configure (once) and build a
# sanitizer sub-build (sanitized/CMakeLists.txt). Inputs: SOURCE_DIR,
# BINARY_DIR, CXX, C (compilers), LAUNCHER, TARGETS (comma-separated, empty =
# all).
if(NOT EXISTS "${BINARY_DIR}/build.ninja")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/test/runtime/format/sanitized" -B "${BINARY_DIR}"
            -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVINCI_SOURCE_DIR=${SOURCE_DIR}
            -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${C}
            -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER}
    RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    file(REMOVE "${BINARY_DIR}/build.ninja")
    message(FATAL_ERROR "configuring the sanitizer sub-build failed")
  endif()
endif()
set(target_args "")
string(REPLACE "," ";" TARGETS "${TARGETS}")
foreach(target IN LISTS TARGETS)
  list(APPEND target_args --target ${target})
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BINARY_DIR}" -j 2 ${target_args}
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "building the sanitizer sub-build failed")
endif()
