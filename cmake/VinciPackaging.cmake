# Debian packages with CPack (`cpack -G DEB` in the build directory):
#   vinci-runtime  libvinci_runtime with its headers, CMake package and
#                  pkg-config file, vinci-run and vinci-info: everything an
#                  edge box needs to run an .om, and nothing of the compiler
#   vinci          vinci-compile, vinci-opt and the Python package for
#                  Debian's /usr/bin/python3 (depends on vinci-runtime)
# Library dependencies come from dpkg-shlibdeps; the Python package's from
# the Depends below.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vinci)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The Vinci developers")
set(CPACK_PACKAGE_CONTACT "Vinci developers <vinci@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Ahead-of-time compiler for Huawei Da Vinci NPUs (Ascend 310P) and its runtime")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libvinci_runtime comes from the vinci-runtime package (named in Depends):
# dpkg-shlibdeps finds it in the build tree and asks nothing more of it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/lib)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_COMPONENTS_ALL vinci_runtime vinci_tools vinci_compiler vinci_python)
set(CPACK_COMPONENT_VINCI_RUNTIME_GROUP runtime)
set(CPACK_COMPONENT_VINCI_TOOLS_GROUP runtime)
set(CPACK_COMPONENT_VINCI_COMPILER_GROUP compiler)
set(CPACK_COMPONENT_VINCI_PYTHON_GROUP compiler)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME vinci-runtime)
# Maintainer scripts that honour DPKG_ROOT (CPack's default ones call
# ldconfig unconditionally, which fails in a scratch root). CPack wants them
# named postinst and postrm.
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/runtime-postinst ${CMAKE_BINARY_DIR}/deb/runtime/postinst
               COPYONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
               GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/runtime-postrm ${CMAKE_BINARY_DIR}/deb/runtime/postrm
               COPYONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
               GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
    ${CMAKE_BINARY_DIR}/deb/runtime/postinst ${CMAKE_BINARY_DIR}/deb/runtime/postrm)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "Vinci runtime: loads and runs .om models on the built-in Ascend 310P simulator\n"
    " libvinci_runtime (C API vinci/runtime.h, CMake package VinciRuntime,\n"
    " pkg-config vinci-runtime), vinci-run and vinci-info. No compiler, no MLIR.")
set(CPACK_DEBIAN_COMPILER_PACKAGE_NAME vinci)
set(CPACK_DEBIAN_COMPILER_PACKAGE_DEPENDS
    "vinci-runtime (= ${PROJECT_VERSION}), python3, python3-numpy")
set(CPACK_DEBIAN_COMPILER_PACKAGE_RECOMMENDS "python3-torch, python3-onnx")
set(CPACK_DEBIAN_COMPILER_DESCRIPTION
    "Vinci compiler: ONNX and PyTorch models to .om for Ascend 310P\n"
    " vinci-compile (ATC-style options), vinci-opt and the vinci Python package\n"
    " (vinci.compile, vinci.load) for /usr/bin/python3.")
include(CPack)
