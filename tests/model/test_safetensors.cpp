// The safetensors reader on good files and on every kind of lie a file can tell.
#include <gtest/gtest.h>

#include "base/error.h"
#include "model/safetensors.h"
#include "support/paths.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

std::span<const std::byte> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::string parse_error(const std::string& file) {
  try {
    parse_safetensors(as_bytes(file), "x.safetensors");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

nlohmann::json entry(const char* dtype, nlohmann::json shape, nlohmann::json offsets) {
  return {{"dtype", dtype}, {"shape", shape}, {"data_offsets", offsets}};
}

TEST(Safetensors, ReadsNamesShapesDtypesAndOffsets) {
  const std::string file = test::safetensors_bytes({{"__metadata__", {{"format", "pt"}}},
                                                    {"a", entry("F32", {2, 2}, {0, 16})},
                                                    {"b", entry("BF16", {3}, {16, 22})},
                                                    {"ids", entry("I64", {1}, {22, 30})}},
                                                   std::string(30, '\0'));
  const auto tensors = parse_safetensors(as_bytes(file), "x");
  ASSERT_EQ(tensors.size(), 3u);
  const size_t data_start = file.size() - 30;
  EXPECT_EQ(tensors[0].name, "a");
  EXPECT_EQ(tensors[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tensors[0].offset, data_start);
  EXPECT_EQ(tensors[1].dtype, DType::BF16);
  EXPECT_EQ(tensors[1].size, 6u);
  EXPECT_EQ(tensors[2].dtype, DType::I64);
}

TEST(Safetensors, ScalarsAndEmptyTensorsAreValid) {
  const std::string file = test::safetensors_bytes(
      {{"s", entry("F32", nlohmann::json::array(), {0, 4})}, {"e", entry("F16", {0, 5}, {4, 4})}},
      std::string(4, '\0'));
  const auto tensors = parse_safetensors(as_bytes(file), "x");
  EXPECT_EQ(tensors.size(), 2u);
}

TEST(Safetensors, BadFilesAreRefusedWithAMessage) {
  const std::string data(16, '\0');
  const auto with = [&](nlohmann::json e) { return test::safetensors_bytes({{"t", e}}, data); };
  EXPECT_NE(parse_error("").find("too short"), std::string::npos);
  EXPECT_NE(parse_error("1234567").find("too short"), std::string::npos);
  std::string lying = test::safetensors_bytes({{"t", entry("F32", {4}, {0, 16})}}, data);
  lying[0] = '\xff';
  lying[1] = '\xff';
  EXPECT_NE(parse_error(lying).find("does not fit"), std::string::npos);
  EXPECT_NE(parse_error(std::string("\x08\0\0\0\0\0\0\0{\"a\":tru", 16)).find("not valid JSON"), std::string::npos);
  EXPECT_NE(parse_error(test::safetensors_bytes(nlohmann::json::array({1, 2}), "")).find("not a JSON object"),
            std::string::npos);
  EXPECT_NE(parse_error(with({{"shape", {4}}, {"data_offsets", {0, 16}}})).find("tensor t: missing \"dtype\""),
            std::string::npos);
  EXPECT_NE(parse_error(with(entry("F33", {4}, {0, 16}))).find("unknown dtype"), std::string::npos);
  EXPECT_NE(parse_error(with(entry("F32", {-4}, {0, 16}))).find("not a list of sizes"), std::string::npos);
  EXPECT_NE(parse_error(with(entry("F32", {"4"}, {0, 16}))).find("not a list of sizes"), std::string::npos);
  EXPECT_NE(parse_error(with(entry("F32", 4, {0, 16}))).find("missing \"shape\""), std::string::npos);
  EXPECT_NE(parse_error(with(entry("F32", {4}, {16, 0}))).find("lie outside"), std::string::npos);
  EXPECT_NE(parse_error(with(entry("F32", {4}, {0, 20}))).find("lie outside"), std::string::npos);
  EXPECT_NE(parse_error(with(entry("F32", {4}, {0}))).find("two byte offsets"), std::string::npos);
  EXPECT_NE(parse_error(with(entry("F32", {3}, {0, 16}))).find("holds 16 bytes, but shape [3] of F32 needs 12"),
            std::string::npos);
  EXPECT_NE(parse_error(with(entry("F32", {1099511627776, 1099511627776}, {0, 16}))).find("too large"),
            std::string::npos);
  EXPECT_NE(parse_error(with("not an object")).find("not an object"), std::string::npos);
  EXPECT_NE(
      parse_error(test::safetensors_bytes({{"a", entry("F32", {3}, {0, 12})}, {"b", entry("F32", {2}, {8, 16})}}, data))
          .find("overlap"),
      std::string::npos);
}

TEST(Safetensors, FilesThatAreNotThereOrNotFiles) {
  const test::TempDir dir;
  EXPECT_THROW(SafetensorsFile(dir / "absent.safetensors"), Error);
  EXPECT_THROW(SafetensorsFile(dir.path()), Error);
  test::write_text(dir / "empty.safetensors", "");
  EXPECT_THROW(SafetensorsFile(dir / "empty.safetensors"), Error);
}

TEST(Safetensors, DataIsReadFromTheMap) {
  const test::TempDir dir;
  test::write_safetensors(dir / "m.safetensors", {{"w", {2}, {1.5f, -2.0f}}}, DType::F32);
  const SafetensorsFile file(dir / "m.safetensors");
  const auto* w = file.find("w");
  ASSERT_NE(w, nullptr);
  float values[2];
  std::memcpy(values, file.data(*w).data(), 8);
  EXPECT_EQ(values[0], 1.5f);
  EXPECT_EQ(values[1], -2.0f);
  EXPECT_EQ(file.find("nope"), nullptr);
}

}  // namespace
}  // namespace attnscope
