# libtorch's ATen/ATen.h is about 8 of the 11 to 14 seconds that a file including it takes to
# compile on the two-core machines the project is built and tested on, and about fifty files do.
# Precompiled, it is read in about a second; a file that does not include it measured slower with
# it forced in (its declarations slow every lookup), so only the files that include it use it.
# GCC refuses a precompiled header made with other options that change it (-fopenmp defines
# _OPENMP, which ATen's parallel_for reads), so the core, built with OpenMP, has its own, and the
# other targets reuse one made with the flags they share. CMake passes -Winvalid-pch: a header the
# compiler cannot use is a warning in the build log, and the build still succeeds the slow way.
option(ATTNSCOPE_PRECOMPILED_HEADERS "Precompile libtorch's ATen header (faster builds)" ON)

# Marks the sources of `target` that do not include ATen/ATen.h; true in `out` when one does.
function(attnscope_skip_sources_without_aten target out)
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(any FALSE)
  foreach(source IN LISTS sources)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${dir}" OUTPUT_VARIABLE path)
    file(STRINGS "${path}" uses REGEX "^#include <ATen/ATen.h>")
    if(uses)
      set(any TRUE)
    else()
      set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
  set(${out} ${any} PARENT_SCOPE)
endfunction()

# The core's own precompiled header (built with OpenMP).
function(attnscope_precompile_own target)
  if(NOT ATTNSCOPE_PRECOMPILED_HEADERS)
    return()
  endif()
  attnscope_skip_sources_without_aten(${target} used)
  if(used)
    target_precompile_headers(${target} PRIVATE <ATen/ATen.h>)
  endif()
endfunction()

# The precompiled header shared by the targets without OpenMP (command line, tests, benchmarks).
function(attnscope_precompile_shared target)
  if(NOT ATTNSCOPE_PRECOMPILED_HEADERS)
    return()
  endif()
  attnscope_skip_sources_without_aten(${target} used)
  if(NOT used)
    return()
  endif()
  if(NOT TARGET attnscope_pch)
    add_library(attnscope_pch OBJECT "${PROJECT_SOURCE_DIR}/cmake/precompiled_header.cpp")
    target_link_libraries(attnscope_pch PRIVATE ${ATTNSCOPE_TORCH_LIBRARIES})
    target_precompile_headers(attnscope_pch PRIVATE <ATen/ATen.h>)
  endif()
  target_precompile_headers(${target} REUSE_FROM attnscope_pch)
endfunction()
