#include <gtest/gtest.h>

#include "base/byte_size.h"

namespace attnscope {
namespace {

// Decimal units, one decimal past bytes, the unit changing at 1,000; past terabytes the number grows.
TEST(ByteSize, ReadsInDecimalUnits) {
  EXPECT_EQ(byte_size(0), "0 B");
  EXPECT_EQ(byte_size(999), "999 B");
  EXPECT_EQ(byte_size(1000), "1.0 kB");
  EXPECT_EQ(byte_size(340e3), "340.0 kB");
  EXPECT_EQ(byte_size(1.24e6), "1.2 MB");
  EXPECT_EQ(byte_size(71.04e9), "71.0 GB");  // a ModernBERT-base-sized model's maps at 8,192 tokens
  EXPECT_EQ(byte_size(36e12), "36.0 TB");
  EXPECT_EQ(byte_size(4.5e15), "4500.0 TB");
}

}  // namespace
}  // namespace attnscope
