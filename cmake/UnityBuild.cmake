# The explorer's, the command line's and the test suites' files compiled a few at a time as one
# (CMake's unity build). Each file instantiates the same templates of GoogleTest, ATen, JSON and
# ImGui again, so six test files as one took 10 s where they took 28 s apart (GCC, -O1), and the
# tests' whole build 211 CPU s where it took 501. Files keep their helpers in anonymous
# namespaces, so two files of one target cannot define the same helper name: a helper two files
# need lives in a header of its own. The core is left out (its files include libtorch's headers in
# ways that do not combine, and it is the part edited most). -DATTNSCOPE_UNITY_BUILD=OFF compiles
# every file alone, which also checks that each file includes what it uses.
option(ATTNSCOPE_UNITY_BUILD "Compile the explorer's, the command line's and the tests' files a few at a time as one" ON)

function(attnscope_unity target)
  if(ATTNSCOPE_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 6)
  endif()
endfunction()
