#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/atomic_file.h"
#include "support/paths.h"

namespace attnscope {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, WritesAndReplaces) {
  const test::TempDir dir;
  write_file_atomically(dir / "a.json", "first");
  write_file_atomically(dir / "a.json", "second");
  EXPECT_EQ(read(dir / "a.json"), "second");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

TEST(AtomicFile, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  const test::TempDir dir;
  write_file_atomically(dir / "a.json", "old");
  EXPECT_THROW(write_file_atomically(dir / "a.json",
                                     [](std::ostream& out) {
                                       out << "half of the new";
                                       throw Error("the writer failed half way");
                                     }),
               Error);
  EXPECT_EQ(read(dir / "a.json"), "old");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

TEST(AtomicFile, MissingFolderIsAClearError) {
  const test::TempDir dir;
  EXPECT_THROW(write_file_atomically(dir / "no" / "such" / "a.json", "x"), Error);
}

}  // namespace
}  // namespace attnscope
