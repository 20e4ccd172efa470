// Compiled only so that CMake builds the precompiled ATen header the other targets reuse
// (cmake/PrecompiledHeaders.cmake).
