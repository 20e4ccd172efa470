# libtorch's ATen/ATen.h is about 8 of the 11 to 14 seconds that a file including it takes to
# compile on the two-core machines the project is built and tested on, and most files reach it.
# Precompiled, it is read in about a second; a file that does not include it measured slower with
# it forced in (its declarations slow every lookup), so only the files that include it use it.
# GCC refuses a precompiled header made with other options that change it (-fopenmp defines
# _OPENMP, which ATen's parallel_for reads), so the core, built with OpenMP, has its own, and the
# other targets reuse one made with the flags they share. CMake passes -Winvalid-pch: a header the
# compiler cannot use is a warning in the build log, and the build still succeeds the slow way.
option(ATTNSCOPE_PRECOMPILED_HEADERS "Precompile libtorch's ATen header (faster builds)" ON)

# Whether `path` includes libtorch's headers (ATen, c10, torch), itself or through the project's
# own headers ("room/name.h" under core/, ui/, tests/ or app/, or beside the file), in `out`. A file
# that reaches ATen/core/Tensor.h only through a header of ours took 15 to 24 s to compile without
# the precompiled header and 7 to 11 s with it (the explorer's panels, the command line's commands).
# Each file's answer is kept for the rest of the configuration.
function(attnscope_reaches_torch path out)
  get_property(known GLOBAL PROPERTY "attnscope_torch:${path}" SET)
  if(known)
    get_property(answer GLOBAL PROPERTY "attnscope_torch:${path}")
    set(${out} ${answer} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "attnscope_torch:${path}" FALSE)  # a cycle of includes ends here
  file(STRINGS "${path}" lines REGEX "^#include [<\"]")
  set(answer FALSE)
  cmake_path(GET path PARENT_PATH here)
  foreach(line IN LISTS lines)
    if(line MATCHES "^#include <(ATen|c10|torch)/")
      set(answer TRUE)
      break()
    endif()
    if(NOT line MATCHES "^#include \"([^\"]+)\"")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    foreach(root IN ITEMS "${here}" "${PROJECT_SOURCE_DIR}/core" "${PROJECT_SOURCE_DIR}/ui" "${PROJECT_SOURCE_DIR}/tests"
                          "${PROJECT_SOURCE_DIR}/app")
      if(EXISTS "${root}/${name}")
        attnscope_reaches_torch("${root}/${name}" reaches)
        if(reaches)
          set(answer TRUE)
        endif()
        break()
      endif()
    endforeach()
    if(answer)
      break()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY "attnscope_torch:${path}" ${answer})
  set(${out} ${answer} PARENT_SCOPE)
endfunction()

# Marks the sources of `target` that reach no libtorch header (attnscope_reaches_torch); true in
# `out` when one does. Those few are compiled without the precompiled header: forced in, it made
# a file of ours alone 1 to 2 s slower (its declarations slow every lookup).
function(attnscope_skip_sources_without_aten target out)
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(any FALSE)
  foreach(source IN LISTS sources)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${dir}" OUTPUT_VARIABLE path)
    attnscope_reaches_torch("${path}" uses)
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
