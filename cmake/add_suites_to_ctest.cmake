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

# A line: the test's name, and after a tab the name ctest shows where it differs (cmake/list_gtest_tests.cmake).
set(suites "")
foreach(line IN LISTS tests)
  string(FIND "${line}" "\t" tab)
  if(tab LESS 0)
    set(test "${line}")
    set(shown "${line}")
  else()
    string(SUBSTRING "${line}" 0 ${tab} test)
    math(EXPR tab "${tab} + 1")
    string(SUBSTRING "${line}" ${tab} -1 shown)
  endif()
  string(FIND "${test}" "." dot)
  string(SUBSTRING "${test}" 0 ${dot} suite)
  list(APPEND suites "${suite}")
  list(APPEND "tests_of_${suite}" "${test}")
  list(APPEND "shown_of_${suite}" "${shown}")
endforeach()
list(REMOVE_DUPLICATES suites)

# Two tests at once (ctest -j2 on two cores) each start libtorch's OpenMP threads, one a core: an
# idle one spins for its next parallel region by default, on the core the other test's threads are
# working on. Put to sleep instead, the same tests ran in 146 s instead of 238 (the main pass, 37
# entries of the model, decoder and long-text tests, -j2, two-core machine) and in 175 s instead of
# 277 under the sanitizers; a test alone keeps both threads.
set(environment "OMP_WAIT_POLICY=PASSIVE")

foreach(suite IN LISTS suites)
  set(alone ${one_process_per_test})
  foreach(shown IN LISTS "shown_of_${suite}")
    foreach(pattern IN LISTS separate)
      if(shown MATCHES "${pattern}")
        set(alone ON)
      endif()
    endforeach()
  endforeach()
  if(alone)
    list(LENGTH "tests_of_${suite}" count)
    math(EXPR last "${count} - 1")
    foreach(k RANGE ${last})
      list(GET "tests_of_${suite}" ${k} test)
      list(GET "shown_of_${suite}" ${k} shown)
      add_test("${shown}" "${program}" "--gtest_filter=${test}")
      # A test GoogleTest skipped (GTEST_SKIP) is reported as skipped. A suite's entry is not: one
      # test skipped beside others that failed must not hide them.
      set_tests_properties("${shown}" PROPERTIES WORKING_DIRECTORY "${working_directory}"
                           SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" TIMEOUT 600 COST ${cost}
                           ENVIRONMENT "${environment}")
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
                         COST ${suite_cost} ENVIRONMENT "${environment}")
  endif()
endforeach()
