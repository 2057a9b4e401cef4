# Where `cmake --install` puts things, and the RPATHs that make an installed
# tree relocatable (a scratch root, /usr/local or /usr alike):
#   bin/                      vinci-run, vinci-info (component vinci_tools),
#                             vinci-compile, vinci-opt (vinci_compiler)
#   lib/<multiarch>/          libvinci_runtime.so, its CMake package and
#                             pkg-config file (vinci_runtime), headers in
#                             include/vinci
#   lib/python3.N/dist-packages/vinci/   the Python package (vinci_python)
# The two Debian packages (cmake/VinciPackaging.cmake) group them:
# vinci-runtime (an edge box) and vinci (the compiler and the Python package).
include(GNUInstallDirs)

# Installed executables and modules find libvinci_runtime relative to
# themselves, and the compiler finds Debian's libMLIR where it lives.
file(RELATIVE_PATH VINCI_BIN_TO_LIB /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${CMAKE_INSTALL_LIBDIR})
set(VINCI_TOOL_INSTALL_RPATH "$ORIGIN/${VINCI_BIN_TO_LIB}")

# The site directory Debian's /usr/bin/python3 reads under both /usr (a .deb)
# and /usr/local (`cmake --install`'s default): lib/python3.N/dist-packages,
# N the version the extension modules are built for.
if(NOT DEFINED VINCI_PYTHON_INSTALL_DIR)
  execute_process(COMMAND /usr/bin/python3 -c
                  "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"
                  OUTPUT_VARIABLE _vinci_pyver OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(VINCI_PYTHON_INSTALL_DIR lib/python${_vinci_pyver}/dist-packages CACHE STRING
      "Where the vinci Python package installs, relative to the prefix")
endif()
file(RELATIVE_PATH VINCI_PYTHON_TO_LIB /prefix/${VINCI_PYTHON_INSTALL_DIR}/vinci
     /prefix/${CMAKE_INSTALL_LIBDIR})
set(VINCI_PYTHON_INSTALL_RPATH "$ORIGIN/${VINCI_PYTHON_TO_LIB}")
