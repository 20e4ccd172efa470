# After a test program links: its tests' full names (Suite.Test, parameterised ones with their
# instantiation's prefix and parameter's suffix), one a line, into `out`
# (cmake/TestsBySuite.cmake). A test whose suffix is its parameter's index gets, after a tab, the
# name ctest shows, with the parameter's value in its place (".../512" for ".../1  # GetParam() =
# 512"), as gtest_discover_tests names it: tools/not_under_sanitizers.txt names tests so.
#   cmake -Dprogram=PATH -Dout=FILE -P list_gtest_tests.cmake
execute_process(COMMAND "${program}" --gtest_list_tests OUTPUT_VARIABLE listed ERROR_VARIABLE errors
                RESULT_VARIABLE status TIMEOUT 60)
if(NOT status EQUAL 0)
  file(REMOVE "${out}")
  message(FATAL_ERROR "${program} --gtest_list_tests failed (${status}):\n${listed}${errors}")
endif()
string(REPLACE ";" "\\;" listed "${listed}")
string(REPLACE "\n" ";" lines "${listed}")
set(names "")
set(suite "")
foreach(line IN LISTS lines)
  set(shown "")
  if(line MATCHES "^  (.+)/[0-9]+ +# GetParam\\(\\) = (.+)$")
    set(shown "\t${suite}${CMAKE_MATCH_1}/${CMAKE_MATCH_2}")
  endif()
  string(REGEX REPLACE " *#.*" "" line "${line}")  # "  # GetParam() = ...", "  # TypeParam = ..."
  if(line MATCHES "^  (.+)$")
    string(APPEND names "${suite}${CMAKE_MATCH_1}${shown}\n")
  elseif(line MATCHES "^([^ ].*\\.)$")
    set(suite "${CMAKE_MATCH_1}")
  endif()
endforeach()
file(WRITE "${out}.new" "${names}")
file(RENAME "${out}.new" "${out}")
