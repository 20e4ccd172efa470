// Which file of a GGUF repository a download fetches (core/hub/gguf_choice.h): the one a tag names,
// else the only one, else the Q4_K_M; never a part of a split file or a vision projector; and
// one line naming the choices where none is clear.
#include <gtest/gtest.h>

#include "base/error.h"
#include "hub/gguf_choice.h"

namespace attnscope {
namespace {

std::string error_of(const std::vector<std::string>& repo, const std::string& tag) {
  try {
    chosen_gguf_file("org/m-GGUF", repo, tag);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

const std::vector<std::string> kRepo{
    "README.md",   ".gitattributes", "m-Q4_K_M.gguf",     "m-Q4_K_S.gguf",
    "m-Q8_0.gguf", "m-F16.gguf",     "mmproj-m-f16.gguf", "big/m-Q2_K-00001-of-00002.gguf"};

TEST(GgufChoice, TheQ4KMUnlessATagNamesAnother) {
  EXPECT_TRUE(has_gguf_files(kRepo));
  EXPECT_FALSE(has_gguf_files({"config.json", "model.safetensors"}));
  EXPECT_EQ(chosen_gguf_file("org/m-GGUF", kRepo), "m-Q4_K_M.gguf");
  EXPECT_EQ(chosen_gguf_file("org/m-GGUF", kRepo, "Q8_0"), "m-Q8_0.gguf");
  EXPECT_EQ(chosen_gguf_file("org/m-GGUF", kRepo, "q8_0"), "m-Q8_0.gguf");  // any case
  EXPECT_EQ(chosen_gguf_file("org/m-GGUF", kRepo, "m-F16.gguf"), "m-F16.gguf");
}

TEST(GgufChoice, TheOnlyWholeModelFileOfARepository) {
  EXPECT_EQ(chosen_gguf_file("org/m-GGUF", {"m-Q6_K.gguf", "mmproj-m-f16.gguf", "README.md"}), "m-Q6_K.gguf");
}

TEST(GgufChoice, SaysWhatToNameWhereNoneIsClear) {
  const std::string many = error_of({"m-Q8_0.gguf", "m-F16.gguf"}, "");
  EXPECT_NE(many.find("holds 2 GGUF files (m-Q8_0.gguf, m-F16.gguf)"), std::string::npos) << many;
  EXPECT_NE(many.find("org/m-GGUF:m-Q8_0.gguf"), std::string::npos) << many;
  const std::string two = error_of(kRepo, "Q4_K");
  EXPECT_NE(two.find("matches 2 files (m-Q4_K_M.gguf, m-Q4_K_S.gguf)"), std::string::npos) << two;
  const std::string none = error_of(kRepo, "Q3_K_L");
  EXPECT_NE(none.find("no GGUF file named for Q3_K_L"), std::string::npos) << none;
  const std::string split = error_of(kRepo, "Q2_K");
  EXPECT_NE(split.find("split in parts"), std::string::npos) << split;
  EXPECT_NE(split.find("llama-gguf-split --merge"), std::string::npos) << split;
  const std::string only_parts = error_of({"m-00001-of-00002.gguf", "m-00002-of-00002.gguf"}, "");
  EXPECT_NE(only_parts.find("in parts only"), std::string::npos) << only_parts;
}

}  // namespace
}  // namespace attnscope
