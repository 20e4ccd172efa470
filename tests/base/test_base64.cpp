#include <gtest/gtest.h>

#include "base/error.h"
#include "base/base64.h"

namespace attnscope {
namespace {

std::string encode(const std::string& s) {
  return base64_encode({reinterpret_cast<const std::byte*>(s.data()), s.size()});
}
std::string decode(const std::string& s) {
  const auto bytes = base64_decode(s);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(encode(plain), coded);
    EXPECT_EQ(decode(coded), plain);
  }
}

TEST(Base64, AllByteValuesRoundTrip) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  EXPECT_EQ(decode(encode(all)), all);
}

TEST(Base64, BadInputIsRefused) {
  EXPECT_THROW(decode("abc"), Error);
  EXPECT_THROW(decode("ab!d"), Error);
  EXPECT_THROW(decode("a==="), Error);
  EXPECT_THROW(decode("Zg==Zg=="), Error);  // padding only at the very end
}

}  // namespace
}  // namespace attnscope
