# Read by ctest (the test program's include file, cmake/TestsBySuite.cmake sets the variables):
# one entry a suite, "Suite.*", or one a test where the suite must be run test by test.
if(NOT EXISTS "${names_file}")
  add_test("${program}_NOT_BUILT" "${program}_NOT_BUILT")
  return()
endif()
file(STRINGS "${names_file}" tests)
set(separate "")
if(EXISTS "${separate_file}")
  file(STRINGS "${separate_file}" separate REGEX "^[^#]")
endif()

set(suites "")
foreach(test IN LISTS tests)
  string(FIND "${test}" "." dot)
  string(SUBSTRING "${test}" 0 ${dot} suite)
  list(APPEND suites "${suite}")
  list(APPEND "tests_of_${suite}" "${test}")
endforeach()
list(REMOVE_DUPLICATES suites)

foreach(suite IN LISTS suites)
  set(alone ${one_process_per_test})
  foreach(test IN LISTS "tests_of_${suite}")
    foreach(pattern IN LISTS separate)
      if(test MATCHES "${pattern}")
        set(alone ON)
      endif()
    endforeach()
  endforeach()
  if(alone)
    foreach(test IN LISTS "tests_of_${suite}")
      add_test("${test}" "${program}" "--gtest_filter=${test}")
      # A test GoogleTest skipped (GTEST_SKIP) is reported as skipped. A suite's entry is not: one
      # test skipped beside others that failed must not hide them.
      set_tests_properties("${test}" PROPERTIES WORKING_DIRECTORY "${working_directory}"
                           SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" TIMEOUT 600 COST ${cost})
    endforeach()
  else()
    list(LENGTH "tests_of_${suite}" count)
    # ctest starts the costliest first on a fresh clone (no times kept from a run before): a suite
    # counts as its tests, at least a second each.
    set(suite_cost ${cost})
    if(suite_cost LESS 1)
      set(suite_cost 1)
    endif()
    math(EXPR suite_cost "${suite_cost} * ${count}")
    add_test("${suite}.*" "${program}" "--gtest_filter=${suite}.*")
    set_tests_properties("${suite}.*" PROPERTIES WORKING_DIRECTORY "${working_directory}" TIMEOUT 600
                         COST ${suite_cost})
  endif()
endforeach()
