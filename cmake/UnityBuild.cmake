# The core's, the explorer's, the command line's and the test suites' files compiled six at a time
# as one (CMake's unity build). Each file instantiates the same templates of ATen, JSON,
# GoogleTest and ImGui again: timed file by file on the two-core machine (GCC, Release), the core
# took 388 CPU s (197 s of wall time) alone and 185 (95 s) in batches, the test suites 501 (299 s)
# and 211 (172 s). Files keep their helpers in anonymous namespaces, so two files of one target
# cannot define the same name there: what two files need lives in a header of its own. Editing one
# file recompiles its batch (10 to 20 s); -DATTNSCOPE_UNITY_BUILD=OFF compiles every file alone,
# which also checks that each includes what it uses.
option(ATTNSCOPE_UNITY_BUILD "Compile the core's, the explorer's, the command line's and the tests' files six at a time as one" ON)
# The core alone file by file (tools/test.sh's sanitizer build): clang's -O1 with AddressSanitizer
# ran the core's code from batches more slowly (the tokenizer's golden tests 8.2 to 8.8 s against
# 5.9 to 6.5 s), which cost that pass more time in its tests than the batches saved in its build.
option(ATTNSCOPE_UNITY_CORE "With ATTNSCOPE_UNITY_BUILD, the core's files in batches too" ON)

# `target`: the core's library (ATTNSCOPE_UNITY_CORE) or another target.
function(attnscope_unity target)
  if(ATTNSCOPE_UNITY_BUILD AND (ATTNSCOPE_UNITY_CORE OR NOT target STREQUAL "attnscope_core"))
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 6)
  endif()
endfunction()
