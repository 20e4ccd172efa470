#pragma once
// ATTNSCOPE_ADDRESS_SANITIZER is defined in a build with AddressSanitizer, which brings its own
// allocator (the host memory pool stands aside; a test of glibc's heap or of a petabyte request
// is skipped). GCC says __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNSCOPE_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ATTNSCOPE_ADDRESS_SANITIZER 1
#endif
