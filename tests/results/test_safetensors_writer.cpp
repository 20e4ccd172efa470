// The result files' safetensors writer: tensors held whole and tensors made as the file is written
// (StreamedTensor, the pair masks) land where the header says, the share written is reported as it
// goes, and a streamed tensor that writes another number of bytes than its shape needs leaves no
// file behind.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"
#include "model/safetensors.h"
#include "results/safetensors_writer.h"
#include "support/paths.h"

namespace attnscope {
namespace {

// A U8 tensor of `rows` rows of 5 bytes, row r all r + 1, written a row at a time.
StreamedTensor rows_of_bytes(const std::string& name, int64_t rows, int64_t row_bytes = 5) {
  return {name, at::kByte, {rows, 5}, [rows, row_bytes](std::ostream& out) {
            for (int64_t r = 0; r < rows; ++r) {
              const std::string row(static_cast<size_t>(row_bytes), static_cast<char>(r + 1));
              out.write(row.data(), static_cast<std::streamsize>(row.size()));
            }
          }};
}

TEST(SafetensorsWriter, StreamedTensorsFollowTheWholeOnesWhereTheHeaderSays) {
  test::TempDir dir;
  const at::Tensor whole = at::arange(6, at::kFloat).view({2, 3});
  write_safetensors(dir.path() / "t.safetensors", {{"whole", whole}}, {{"k", "v"}},
                    {rows_of_bytes("streamed", 3), rows_of_bytes("empty", 0)});
  const SafetensorsFile file(dir.path() / "t.safetensors");
  EXPECT_EQ(file.metadata().at("k"), "v");
  const TensorInfo* w = file.find("whole");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(std::memcmp(file.data(*w).data(), whole.data_ptr(), 24), 0);
  const TensorInfo* s = file.find("streamed");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->dtype, DType::U8);
  EXPECT_EQ(s->shape, (std::vector<int64_t>{3, 5}));
  ASSERT_EQ(s->size, 15u);
  const auto* bytes = reinterpret_cast<const uint8_t*>(file.data(*s).data());
  for (int k = 0; k < 15; ++k) EXPECT_EQ(bytes[k], k / 5 + 1) << "byte " << k;
  ASSERT_NE(file.find("empty"), nullptr);
  EXPECT_EQ(file.find("empty")->size, 0u);
}

// A file of a gigabyte takes seconds to write: its share written is reported every
// kWrittenPiece bytes of a whole tensor (written in such pieces, each where it belongs) and after
// each streamed tensor, ending at 1.
TEST(SafetensorsWriter, ReportsTheShareWrittenAsItWrites) {
  test::TempDir dir;
  const auto piece = static_cast<int64_t>(kWrittenPiece);
  const at::Tensor whole =
      at::arange(251, at::kInt).to(at::kByte).repeat({piece * 5 / 2 / 251});  // not a piece's divisor
  std::vector<double> reported;
  write_safetensors(dir.path() / "t.safetensors", {{"whole", whole}}, {}, {rows_of_bytes("streamed", 3)},
                    [&](std::string_view stage, double fraction) {
                      EXPECT_EQ(stage, "writing");
                      reported.push_back(fraction);
                    });
  const double total = static_cast<double>(whole.numel() + 15);
  EXPECT_EQ(reported, (std::vector<double>{static_cast<double>(piece) / total, 2.0 * static_cast<double>(piece) / total,
                                           static_cast<double>(whole.numel()) / total, 1.0}));
  const SafetensorsFile file(dir.path() / "t.safetensors");
  const TensorInfo* w = file.find("whole");
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->size, static_cast<uint64_t>(whole.numel()));
  EXPECT_EQ(std::memcmp(file.data(*w).data(), whole.data_ptr(), w->size), 0);
  const TensorInfo* s = file.find("streamed");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(file.data(*s).data())[14], 3);
}

TEST(SafetensorsWriter, AStreamedTensorIsMadeWholeWhereOneIsNeeded) {
  const at::Tensor made = rows_of_bytes("m", 2).made();
  EXPECT_TRUE(at::equal(made, at::tensor({1, 1, 1, 1, 1, 2, 2, 2, 2, 2}, at::kByte).view({2, 5})));
  EXPECT_THROW(rows_of_bytes("short", 2, 4).made(), Error);
}

TEST(SafetensorsWriter, AStreamedTensorOfTheWrongSizeLeavesNoFile) {
  test::TempDir dir;
  for (const int64_t row_bytes : {4, 6}) {
    EXPECT_THROW(write_safetensors(dir.path() / "t.safetensors", {}, {}, {rows_of_bytes("wrong", 2, row_bytes)}),
                 Error);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "t.safetensors"));
  }
}

}  // namespace
}  // namespace attnscope
