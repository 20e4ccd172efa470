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

// Decoded into memory given (a tensor's): exactly the bytes decode() gives, and only into as many.
TEST(Base64, DecodedIntoMemoryOfTheDecodedSize) {
  for (const char* coded : {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYmFy"}) {
    const std::vector<std::byte> whole = base64_decode(coded);
    ASSERT_EQ(base64_decoded_size(coded), whole.size()) << coded;
    std::vector<std::byte> into(whole.size(), std::byte{0x55});
    base64_decode_into(coded, into);
    EXPECT_EQ(into, whole) << coded;
  }
  std::vector<std::byte> short_by_one(2);
  EXPECT_THROW(base64_decode_into("Zm9v", short_by_one), Error);
  EXPECT_THROW(base64_decoded_size("Zm9"), Error);
}

TEST(Base64, BadInputIsRefused) {
  EXPECT_THROW(decode("abc"), Error);
  EXPECT_THROW(decode("ab!d"), Error);
  EXPECT_THROW(decode("a==="), Error);
  EXPECT_THROW(decode("Zg==Zg=="), Error);  // padding only at the very end
}

}  // namespace
}  // namespace attnscope
