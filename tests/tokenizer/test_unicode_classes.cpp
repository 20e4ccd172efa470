// Every code point is classified as the reference tokenizer classifies it (its map, made by
// tools/make_unicode_golden.py, is in tests/golden/unicode_classes.json).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/paths.h"
#include "tokenizer/char_classes.h"

namespace attnscope {
namespace {

class UnicodeClasses : public ::testing::Test {
 protected:
  static std::vector<bool> membership(const char* name) {
    std::vector<bool> in(0x110000, false);
    for (const auto& r : golden()[name])
      for (uint32_t cp = r[0].get<uint32_t>(); cp <= r[1].get<uint32_t>(); ++cp) in[cp] = true;
    return in;
  }

  template <typename Predicate>
  static std::string mismatches(const char* name, Predicate ours) {
    const auto expected = membership(name);
    std::string report;
    int count = 0;
    for (char32_t cp = 0; cp < 0x110000; ++cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      if (ours(cp) != expected[cp] && ++count <= 20) report += " U+" + std::to_string(cp);
    }
    return count ? std::to_string(count) + " code points differ, first:" + report : "";
  }

  static std::map<char32_t, std::u32string> mapping(const char* name) {
    std::map<char32_t, std::u32string> out;
    for (const auto& [key, value] : golden()[name].items()) {
      std::u32string s;
      for (const auto& cp : value) s.push_back(cp.get<char32_t>());
      out[static_cast<char32_t>(std::stoul(key))] = s;
    }
    return out;
  }

  // How many code points `ours` maps differently from the reference's mapping `name`.
  template <typename Map>
  static std::string mapping_mismatches(const char* name, Map ours) {
    const auto expected = mapping(name);
    int count = 0;
    std::string report;
    for (char32_t cp = 0; cp < 0x110000; ++cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      const auto it = expected.find(cp);
      const std::u32string want = it == expected.end() ? std::u32string(1, cp) : it->second;
      if (ours(cp) != want && ++count <= 20) report += " U+" + std::to_string(cp);
    }
    return count ? std::to_string(count) + " code points differ, first:" + report : "";
  }

  static const nlohmann::json& golden() { return test::golden("unicode_classes.json"); }
};

TEST_F(UnicodeClasses, ControlCharactersAsTheReference) {
  EXPECT_EQ(mismatches("control", [](char32_t cp) { return is_removed_control(cp); }), "");
}

TEST_F(UnicodeClasses, WhitespaceAsTheReference) {
  EXPECT_EQ(mismatches("whitespace", [](char32_t cp) { return !is_removed_control(cp) && is_bert_whitespace(cp); }),
            "");
}

TEST_F(UnicodeClasses, PunctuationAsTheReference) {
  EXPECT_EQ(mismatches("punctuation",
                       [](char32_t cp) {
                         return !is_removed_control(cp) && !is_bert_whitespace(cp) && is_bert_punctuation(cp);
                       }),
            "");
}

TEST_F(UnicodeClasses, CjkAsTheReference) {
  EXPECT_EQ(mismatches("chinese", [](char32_t cp) { return is_cjk_ideograph(cp); }), "");
}

// Strip accents of a single code point: decomposition, then the non-spacing marks dropped.
TEST_F(UnicodeClasses, AccentStrippingAsTheReference) {
  EXPECT_EQ(mapping_mismatches("strip_accents",
                               [](char32_t cp) {
                                 std::u32string decomposed, stripped;
                                 append_canonical_decomposition(decomposed, cp);
                                 for (char32_t c : decomposed)
                                   if (!is_nonspacing_mark(c)) stripped.push_back(c);
                                 return stripped;
                               }),
            "");
}

TEST_F(UnicodeClasses, LowercaseAsTheReference) {
  EXPECT_EQ(mapping_mismatches("lowercase",
                               [](char32_t cp) {
                                 std::u32string lowered;
                                 append_lowercase(lowered, cp);
                                 return lowered;
                               }),
            "");
}

}  // namespace
}  // namespace attnscope
