# Finds libtorch and defines ATTNSCOPE_TORCH_LIBRARIES and TORCH_INSTALL_PREFIX.
#
# torch's own CMake config is used whenever it can be: it is what a user's libtorch distribution
# expects. But the config of a CUDA-built libtorch (the PyPI wheel is one) stops with an error when
# no CUDA toolkit is installed, although attnscope compiles no CUDA code and the wheel carries the
# CUDA runtime it needs. Without a toolkit, the libraries are therefore imported directly; the
# CUDA device path stays available at run time either way.
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND OR ATTNSCOPE_FORCE_TORCH_CONFIG)
  find_package(Torch REQUIRED)
  set(ATTNSCOPE_TORCH_LIBRARIES ${TORCH_LIBRARIES})
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
target_link_libraries(attnscope_libtorch INTERFACE
  "-Wl,--no-as-needed" ${ATTNSCOPE_LIB_torch} "-Wl,--as-needed" ${ATTNSCOPE_LIB_torch_cpu} ${ATTNSCOPE_LIB_c10})
set_target_properties(attnscope_libtorch PROPERTIES INTERFACE_LINK_DIRECTORIES "${TORCH_INSTALL_PREFIX}/lib")
set(ATTNSCOPE_TORCH_LIBRARIES attnscope_libtorch)
