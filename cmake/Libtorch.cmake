# Finds libtorch and defines ATTNSCOPE_TORCH_LIBRARIES and TORCH_INSTALL_PREFIX.
#
# torch's own CMake config is used whenever it can be: it is what a user's libtorch distribution
# expects. But the config of a CUDA-built libtorch (the PyPI wheel is one) stops with an error when
# no CUDA toolkit is installed, although attnscope compiles no CUDA code and the wheel carries the
# CUDA runtime it needs. Without a toolkit, the libraries are therefore imported directly; the
# CUDA device path stays available at run time either way.
#
# libstdc++ comes before libtorch on every link line: libtorch wheels (2.11's libtorch.so, 2.15's
# libtorch_cpu.so) export copies of libstdc++'s std::filesystem functions, compiled into them from
# a static part of a newer libstdc++, and a program linked with libtorch first binds its own calls
# to those copies; 2.11's crash (remove_all, seen on a GPU machine). Named first, libstdc++ is where
# the linker binds them (versioned) and where the loader looks first.
# tests/model/test_libtorch_linking.cpp checks the binding.
set(ATTNSCOPE_LIBSTDCXX_FIRST "-Wl,--push-state,--no-as-needed" stdc++ "-Wl,--pop-state")
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND OR ATTNSCOPE_FORCE_TORCH_CONFIG)
  find_package(Torch REQUIRED)
  set(ATTNSCOPE_TORCH_LIBRARIES ${ATTNSCOPE_LIBSTDCXX_FIRST} ${TORCH_LIBRARIES})
  return()
endif()

find_file(ATTNSCOPE_TORCH_CONFIG TorchConfig.cmake
  HINTS ${Torch_DIR} ENV Torch_DIR
  PATH_SUFFIXES Torch share/cmake/Torch
  REQUIRED)
get_filename_component(TORCH_INSTALL_PREFIX "${ATTNSCOPE_TORCH_CONFIG}/../../../.." ABSOLUTE)
message(STATUS "libtorch: no CUDA toolkit found, importing ${TORCH_INSTALL_PREFIX} directly")
foreach(name torch torch_cpu c10)
  find_library(ATTNSCOPE_LIB_${name} ${name} PATHS "${TORCH_INSTALL_PREFIX}/lib" NO_DEFAULT_PATH REQUIRED)
endforeach()
add_library(attnscope_libtorch INTERFACE)
target_include_directories(attnscope_libtorch SYSTEM INTERFACE
  "${TORCH_INSTALL_PREFIX}/include" "${TORCH_INSTALL_PREFIX}/include/torch/csrc/api/include")
# libtorch.so brings libtorch_cuda.so (when built with CUDA), whose loading registers the CUDA
# device; keep it linked even though no symbol of ours comes from it directly.
target_link_libraries(attnscope_libtorch INTERFACE ${ATTNSCOPE_LIBSTDCXX_FIRST}
  "-Wl,--no-as-needed" ${ATTNSCOPE_LIB_torch} "-Wl,--as-needed" ${ATTNSCOPE_LIB_torch_cpu} ${ATTNSCOPE_LIB_c10})
set_target_properties(attnscope_libtorch PROPERTIES INTERFACE_LINK_DIRECTORIES "${TORCH_INSTALL_PREFIX}/lib")
set(ATTNSCOPE_TORCH_LIBRARIES attnscope_libtorch)
