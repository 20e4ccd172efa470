# ctest runs a GoogleTest program's tests one suite to a process, not one test to a process (as
# gtest_discover_tests does). Each process loads libtorch first: 0.4 s on the two-core machine,
# 0.9 s under AddressSanitizer, which made up about a fifth of the main pass's test time and a third
# of the sanitizer pass's across some 700 tests; a suite's tests also share what they load once (a
# checkpoint, a text run both ways at 512 tokens). A failing entry prints GoogleTest's own report,
# which names the test.
#
# Registered test by test instead: every suite of a program given ONE_PROCESS_PER_TEST (the window's
# and the command line's tests, each of which starts processes and takes seconds, so that the two
# cores share them out), and any suite holding a test that tools/not_under_sanitizers.txt names, so
# that the sanitizer pass's `ctest -E` leaves out just those. The grouping is done when ctest reads
# the tests (cmake/add_suites_to_ctest.cmake), from the names the program lists after each link.
function(attnscope_add_suites target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "ONE_PROCESS_PER_TEST" "COST" "")
  if(NOT arg_COST)
    set(arg_COST 0)
  endif()
  set(names "${CMAKE_CURRENT_BINARY_DIR}/${target}_test_names.txt")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_ctest.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" "-Dprogram=$<TARGET_FILE:${target}>" "-Dout=${names}"
            -P "${PROJECT_SOURCE_DIR}/cmake/list_gtest_tests.cmake"
    BYPRODUCTS "${names}"
    VERBATIM)
  set(per_test OFF)
  if(arg_ONE_PROCESS_PER_TEST)
    set(per_test ON)
  endif()
  file(GENERATE OUTPUT "${include_file}" CONTENT
"set(program [==[$<TARGET_FILE:${target}>]==])
set(names_file [==[${names}]==])
set(working_directory [==[${CMAKE_CURRENT_BINARY_DIR}]==])
set(one_process_per_test ${per_test})
set(cost ${arg_COST})
set(separate_file [==[${PROJECT_SOURCE_DIR}/tools/not_under_sanitizers.txt]==])
include([==[${PROJECT_SOURCE_DIR}/cmake/add_suites_to_ctest.cmake]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
