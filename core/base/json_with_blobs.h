#pragma once
// A JSON file whose long "data" strings stay where they lie in the file. A corpus result holds its
// sums as base64 strings of hundreds of megabytes (1.6 GB in all at 512 tokens); nlohmann's lexer
// reads them a character at a time and copies each twice (60% of the 18.8 s such a file took to
// read). Here the file is mapped, the value of every "data" key that is a string of at least
// `min_bytes` without escapes is cut out of the text the parser sees (a reference left in its
// place), and its reader takes it from the mapping: text() of the parsed value.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"

namespace attnscope {

// Shorter strings are parsed: a reference costs about as much. Low enough that the tests' small
// result files are read through the same path as a large one.
inline constexpr size_t kMinBlobBytes = 64;

class JsonWithBlobs {
 public:
  // Throws attnscope::Error "<file>: cannot open (...)" and "<file>: not valid JSON (...)".
  explicit JsonWithBlobs(const std::filesystem::path& file, size_t min_bytes = kMinBlobBytes);
  // The same over bytes the caller keeps alive (tests, fuzzing); `where` names them in errors.
  JsonWithBlobs(std::string_view bytes, const std::string& where, size_t min_bytes = kMinBlobBytes);

  const nlohmann::json& document() const { return document_; }
  // A string value of the document: the file's bytes where it was cut out, else the string itself.
  // Throws attnscope::Error when `value` is not a string.
  std::string_view text(const nlohmann::json& value) const;
  // The pages of a text from the mapping leave this process's memory (read again if touched).
  void release(std::string_view text) const;
  size_t blobs() const { return blobs_.size(); }

 private:
  void parse(std::string_view bytes, const std::string& where, size_t min_bytes);

  std::optional<MappedFile> file_;
  std::vector<std::string_view> blobs_;
  nlohmann::json document_;
};

// A string value's text: through `blobs` where the document came with them, else the string itself.
// Throws attnscope::Error when `value` is not a string.
std::string_view string_text(const nlohmann::json& value, const JsonWithBlobs* blobs);

}  // namespace attnscope
