# ctest rt_sanitized_build: configure (once) and build the sanitizer
# sub-build. Inputs: SOURCE_DIR, BINARY_DIR, CXX, C (compilers), LAUNCHER.
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
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BINARY_DIR}" -j 2 RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "building the sanitizer sub-build failed")
endif()
