// The GGUF reader and ggml's dequantisation against the gguf package (tools/make_gguf_golden.py:
// a file it wrote, with every metadata kind and a tensor of every type we convert, and what it
// reads back and dequantises), then hand-made files, each broken in one way.
#include <gtest/gtest.h>

#include <c10/util/Half.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

#include "base/error.h"
#include "base/file_hash.h"
#include "model/gguf_file.h"
#include "support/paths.h"

namespace attnscope {
namespace {

std::filesystem::path golden_file() { return test::golden_dir() / "gguf" / "types.gguf"; }

std::vector<float> golden_values() {
  std::ifstream in(test::golden_dir() / "gguf" / "expected.f32", std::ios::binary);
  std::vector<float> values;
  float v;
  while (in.read(reinterpret_cast<char*>(&v), sizeof v)) values.push_back(v);
  return values;
}

TEST(Gguf, ReadsWhatTheGgufPackageWrote) {
  const GgufFile file(golden_file());
  const nlohmann::json expected = test::read_json(test::golden_dir() / "gguf" / "expected.json");
  EXPECT_EQ(file.version(), 3u);
  EXPECT_EQ(file.get_string("general.architecture"), expected["metadata"]["general.architecture"].get<std::string>());
  EXPECT_EQ(file.get_uint("test.u8", 0), 200u);
  EXPECT_EQ(file.get_uint("test.u16", 0), 60000u);
  EXPECT_EQ(file.get_uint("test.u32", 0), 4000000000u);
  EXPECT_EQ(file.get_uint("test.u64", 0), expected["metadata"]["test.u64"].get<uint64_t>());
  EXPECT_EQ(file.get_real("test.i8", 0), -100);
  EXPECT_EQ(file.get_real("test.i16", 0), -30000);
  EXPECT_EQ(file.get_real("test.i32", 0), -2000000000);
  EXPECT_EQ(file.get_real("test.i64", 0), expected["metadata"]["test.i64"].get<double>());
  EXPECT_EQ(file.get_real("test.f32", 0), expected["metadata"]["test.f32"].get<double>());
  EXPECT_EQ(file.get_real("test.f64", 0), 1e-300);
  EXPECT_TRUE(std::get<bool>(file.find("test.bool")->value));
  EXPECT_EQ(file.get_string("test.string"), expected["metadata"]["test.string"].get<std::string>());
  EXPECT_EQ(file.get_strings("test.strings"), expected["metadata"]["test.strings"].get<std::vector<std::string>>());
  EXPECT_EQ(file.get_reals("test.reals"), (std::vector<double>{0.5, -1.25, 3.0}));
  EXPECT_EQ(file.get_reals("test.ints"), (std::vector<double>{1, -2, 3}));
  EXPECT_EQ(file.get_uint("absent", 7), 7u);
  EXPECT_THROW(file.get_string("test.u8"), Error);
  EXPECT_THROW(file.get_strings("test.reals"), Error);
}

TEST(Gguf, DequantisesEveryTypeAsTheGgufPackageToTheBit) {
  const GgufFile file(golden_file());
  const nlohmann::json expected = test::read_json(test::golden_dir() / "gguf" / "expected.json");
  const std::vector<float> values = golden_values();
  ASSERT_EQ(file.tensors().size(), expected["tensors"].size());
  for (const auto& e : expected["tensors"]) {
    const std::string name = e["name"];
    SCOPED_TRACE(name);
    const GgufTensor* t = file.find_tensor(name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->type->name, e["type"].get<std::string>());
    EXPECT_EQ(t->dims, e["dims"].get<std::vector<int64_t>>());
    EXPECT_EQ(t->offset, e["offset"].get<size_t>());
    const std::vector<float> got = file.dequantized(*t);
    ASSERT_EQ(got.size(), e["count"].get<size_t>());
    const size_t at = e["values_at"];
    size_t differ = 0;
    for (size_t k = 0; k < got.size(); ++k) {
      const float want = values[at + k];
      const bool same =
          std::isnan(want) ? std::isnan(got[k]) : std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(got[k]);
      differ += !same;
    }
    EXPECT_EQ(differ, 0u);
  }
}

TEST(Gguf, BlockSizesAreTheGgufPackages) {
  const nlohmann::json expected = test::read_json(test::golden_dir() / "gguf" / "expected.json");
  for (const auto& [name, row] : expected["block_sizes"].items()) {
    const GgmlType* type = ggml_type(row[0].get<uint32_t>());
    ASSERT_NE(type, nullptr) << name;
    EXPECT_EQ(type->name, name);
    EXPECT_EQ(type->block_elements, row[1].get<int64_t>()) << name;
    EXPECT_EQ(type->block_bytes, row[2].get<size_t>()) << name;
  }
  EXPECT_EQ(ggml_type(4), nullptr);  // removed from ggml (Q4_2)
}

TEST(Gguf, HalvesConvertAsIeeeSays) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const float want = static_cast<float>(c10::Half(static_cast<uint16_t>(bits), c10::Half::from_bits()));
    const float got = half_to_float(static_cast<uint16_t>(bits));
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << bits;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want)) << bits;
  }
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16_to_float(0xC000), -2.0f);
}

// A GGUF file made by hand: one uint32 metadata value and one F32 tensor of 8 values, with each
// field's place known, so that a test can break one.
struct HandMade {
  std::vector<std::byte> bytes;
  size_t version_at = 4, tensor_count_at = 8, type_at = 0, offset_at = 0;

  template <typename T>
  void put(T value) {
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  void put_string(const std::string& s) {
    put<uint64_t>(s.size());
    for (const char c : s) bytes.push_back(static_cast<std::byte>(c));
  }
  template <typename T>
  void set(size_t at, T value) {
    std::memcpy(bytes.data() + at, &value, sizeof(T));
  }

  HandMade() {
    for (const char c : std::string("GGUF")) bytes.push_back(static_cast<std::byte>(c));
    put<uint32_t>(3);
    put<uint64_t>(1);  // tensors
    put<uint64_t>(1);  // metadata
    put_string("general.alignment");
    put<uint32_t>(4);  // uint32
    put<uint32_t>(32);
    put_string("w");
    put<uint32_t>(1);
    put<uint64_t>(8);
    type_at = bytes.size();
    put<uint32_t>(0);  // F32
    offset_at = bytes.size();
    put<uint64_t>(0);
    bytes.resize((bytes.size() + 31) / 32 * 32);
    for (int k = 0; k < 8; ++k) put<float>(static_cast<float>(k));
  }

  std::string error() const {
    try {
      parse_gguf(bytes, "bad.gguf");
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

TEST(Gguf, AHandMadeFileReads) {
  HandMade f;
  const GgufContents g = parse_gguf(f.bytes, "hand.gguf");
  ASSERT_EQ(g.tensors.size(), 1u);
  EXPECT_EQ(g.tensors[0].size, 32u);
  EXPECT_EQ(g.tensors[0].offset % 32, 0u);
  f.set<uint32_t>(f.version_at, 2);
  EXPECT_EQ(parse_gguf(f.bytes, "v2.gguf").version, 2u);
}

TEST(Gguf, BrokenFilesGetOneLineNamingWhatIsWrong) {
  const auto error_of = [](const std::function<void(HandMade&)>& breakage) {
    HandMade f;
    breakage(f);
    return f.error();
  };
  EXPECT_NE(error_of([](HandMade& f) { f.bytes[0] = std::byte{'X'}; }).find("does not start with \"GGUF\""),
            std::string::npos);
  EXPECT_NE(error_of([](HandMade& f) { f.set<uint32_t>(f.version_at, 1); }).find("version 1"), std::string::npos);
  EXPECT_NE(error_of([](HandMade& f) { f.set<uint32_t>(f.type_at, 99); }).find("ggml type 99"), std::string::npos);
  EXPECT_NE(error_of([](HandMade& f) { f.set<uint64_t>(f.offset_at, 64); }).find("past the end"), std::string::npos);
  EXPECT_NE(error_of([](HandMade& f) { f.set<uint64_t>(f.offset_at, 4); }).find("not a multiple of the alignment"),
            std::string::npos);
  EXPECT_NE(error_of([](HandMade& f) {
              f.set<uint64_t>(f.tensor_count_at, uint64_t{1} << 60);
            }).find("more than the file holds"),
            std::string::npos);
  EXPECT_NE(error_of([](HandMade& f) { f.set<uint32_t>(f.type_at, 2); }).find("not whole Q4_0 blocks"),
            std::string::npos);
  // Every cut of the file, at every byte, is refused, never read past.
  HandMade whole;
  for (size_t n = 0; n < whole.bytes.size(); ++n) {
    HandMade cut;
    cut.bytes.resize(n);
    EXPECT_FALSE(cut.error().empty()) << "cut at " << n;
  }
}

TEST(Gguf, AKnownTypeThatDoesNotConvertIsNamed) {
  HandMade f;
  f.set<uint32_t>(f.type_at, 15);  // Q8_K: read, but not converted
  f.set<uint64_t>(f.offset_at, 0);
  f.bytes.resize(f.bytes.size() + 292);
  // 8 values are not a whole Q8_K block of 256: the reader says so first.
  EXPECT_NE(f.error().find("not whole Q8_K blocks"), std::string::npos);
  std::vector<float> out(256);
  std::vector<std::byte> block(292);
  try {
    dequantize(*ggml_type(15), block, out);
    ADD_FAILURE() << "Q8_K converted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Q8_K cannot be read yet"), std::string::npos) << e.what();
  }
  EXPECT_THROW(dequantize(*ggml_type(2), block, out), Error);  // 292 bytes are not 8 Q4_0 blocks
}

// The two real decoders tools/setup.sh fetches: every tensor where the gguf package finds it,
// dequantised to the same float32 values (SHA-256 of their bytes), and the scalar metadata equal.
class RealGguf : public ::testing::TestWithParam<std::string> {};

TEST_P(RealGguf, EveryTensorDequantisesAsTheGgufPackage) {
  const nlohmann::json expected = test::read_json(test::golden_dir() / "gguf" / "real.json")[GetParam()];
  const auto path = test::real_model_file(expected["file"].get<std::string>());
  if (!std::filesystem::exists(path)) return;
  const GgufFile file(path);
  for (const auto& [key, value] : expected["metadata"].items()) {
    if (key.starts_with("GGUF.") || key.ends_with("#length")) continue;
    if (value.is_string())
      EXPECT_EQ(file.get_string(key), value.get<std::string>()) << key;
    else if (value.is_boolean())
      EXPECT_EQ(std::get<bool>(file.find(key)->value), value.get<bool>()) << key;
    else
      EXPECT_EQ(file.get_real(key, -1), value.get<double>()) << key;
  }
  EXPECT_EQ(file.get_strings("tokenizer.ggml.tokens").size(),
            expected["metadata"]["tokenizer.ggml.tokens#length"].get<size_t>());
  ASSERT_EQ(file.tensors().size(), expected["tensors"].size());
  for (const auto& e : expected["tensors"]) {
    const GgufTensor* t = file.find_tensor(e["name"].get<std::string>());
    ASSERT_NE(t, nullptr) << e["name"];
    EXPECT_EQ(t->type->name, e["type"].get<std::string>()) << e["name"];
    EXPECT_EQ(t->dims, e["dims"].get<std::vector<int64_t>>()) << e["name"];
    EXPECT_EQ(t->offset, e["offset"].get<size_t>()) << e["name"];
    const std::vector<float> values = file.dequantized(*t);
    EXPECT_EQ(sha256_bytes(std::as_bytes(std::span(values))), e["sha256"].get<std::string>()) << e["name"];
  }
}

INSTANTIATE_TEST_SUITE_P(Decoders, RealGguf, ::testing::Values("smollm2", "gemma3"));

}  // namespace
}  // namespace attnscope
