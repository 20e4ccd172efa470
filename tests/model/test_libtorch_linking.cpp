// libtorch 2.11's wheel exports copies of libstdc++'s std::filesystem functions (92 of them,
// compiled into it from a static part of a newer libstdc++). A program whose calls bind to those
// copies crashes in them (remove_all, seen on a GPU machine): cmake/Libtorch.cmake names
// libstdc++ before libtorch. This checks the binding itself, with a message instead of a crash.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <filesystem>
#include <string>

namespace attnscope {
namespace {

std::string library_of(const void* function) {
  Dl_info info{};
  return dladdr(function, &info) && info.dli_fname ? info.dli_fname : "(unknown)";
}

TEST(LibtorchLinking, StdFilesystemIsLibstdcxxs) {
  using RemoveAll = std::uintmax_t (*)(const std::filesystem::path&, std::error_code&);
  const RemoveAll remove_all = &std::filesystem::remove_all;
  const std::string library = library_of(reinterpret_cast<const void*>(remove_all));
  EXPECT_EQ(library.find("libtorch"), std::string::npos)
      << "std::filesystem::remove_all binds to " << library << ": link libstdc++ before libtorch";
}

}  // namespace
}  // namespace attnscope
