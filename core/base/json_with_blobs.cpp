#include "base/json_with_blobs.h"

#include <algorithm>
#include <cstdint>

#include "base/error.h"

namespace attnscope {
namespace {

constexpr auto npos = std::string_view::npos;
constexpr char kReference = '\x01';  // a cut string's place: "\u0001" and the string's number

// The index of the quote that closes the string opened at text[open], or npos when none does.
size_t string_end(std::string_view text, size_t open) {
  for (size_t at = open + 1;;) {
    const size_t quote = text.find('"', at);  // memchr: a base64 string is passed over in one call
    if (quote == npos) return npos;
    size_t backslashes = 0;
    while (quote - backslashes > open + 1 && text[quote - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote;
    at = quote + 1;
  }
}

std::string_view without_trailing_space(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// True when the text kept so far ends with the key "data" and its colon: the string that follows
// is a tensor's data, which its reader takes through text().
bool after_data_key(std::string_view kept) {
  kept = without_trailing_space(kept);
  if (kept.empty() || kept.back() != ':') return false;
  return without_trailing_space(kept.substr(0, kept.size() - 1)).ends_with("\"data\"");
}

// The text with each long "data" string replaced by its reference, the strings cut out in `blobs`.
std::string cut_long_data(std::string_view text, size_t min_bytes, std::vector<std::string_view>& blobs) {
  std::string kept;
  kept.reserve(std::min(text.size(), size_t{1} << 20));
  for (size_t at = 0; at < text.size();) {
    const size_t open = text.find('"', at);
    kept.append(text.substr(at, open == npos ? npos : open - at));
    if (open == npos) break;
    const size_t close = string_end(text, open);
    if (close == npos) {  // not closed: left for the parser to refuse
      kept.append(text.substr(open));
      break;
    }
    const std::string_view inner = text.substr(open + 1, close - open - 1);
    if (inner.size() >= min_bytes && inner.find('\\') == npos && after_data_key(kept)) {
      kept += "\"\\u0001" + std::to_string(blobs.size()) + "\"";
      blobs.push_back(inner);
    } else {
      kept.append(text.substr(open, close - open + 1));
    }
    at = close + 1;
  }
  return kept;
}

}  // namespace

JsonWithBlobs::JsonWithBlobs(const std::filesystem::path& file, size_t min_bytes) : file_(std::in_place, file) {
  const auto bytes = file_->bytes();
  parse({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, file.string(), min_bytes);
}

JsonWithBlobs::JsonWithBlobs(std::string_view bytes, const std::string& where, size_t min_bytes) {
  parse(bytes, where, min_bytes);
}

void JsonWithBlobs::parse(std::string_view bytes, const std::string& where, size_t min_bytes) {
  const std::string kept = cut_long_data(bytes, std::max<size_t>(min_bytes, 1), blobs_);
  // Scanned, the cut strings' pages leave memory until their reader asks for them: the file is not
  // held whole beside what it is read into (1.6 GB beside 1.2 GB of sums).
  for (const std::string_view blob : blobs_) release(blob);
  try {
    document_ = nlohmann::json::parse(kept);
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": not valid JSON (" + e.what() + ")");
  }
}

std::string_view JsonWithBlobs::text(const nlohmann::json& value) const {
  if (!value.is_string()) throw Error("expected a string");
  const std::string& s = value.get_ref<const std::string&>();
  if (s.size() < 2 || s.size() > 20 || s[0] != kReference) return s;
  uint64_t index = 0;
  for (size_t k = 1; k < s.size(); ++k) {
    if (s[k] < '0' || s[k] > '9') return s;
    index = index * 10 + static_cast<uint64_t>(s[k] - '0');
  }
  return index < blobs_.size() ? blobs_[index] : std::string_view(s);
}

std::string_view string_text(const nlohmann::json& value, const JsonWithBlobs* blobs) {
  if (blobs) return blobs->text(value);
  if (!value.is_string()) throw Error("expected a string");
  return value.get_ref<const std::string&>();
}

void JsonWithBlobs::release(std::string_view text) const {
  if (file_) file_->release({reinterpret_cast<const std::byte*>(text.data()), text.size()});
}

}  // namespace attnscope
