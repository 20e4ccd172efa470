#include "corpus/corpus_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/error.h"

namespace attnscope {
namespace {

bool is_jsonl(const std::filesystem::path& p) { return p.extension() == ".jsonl" || p.extension() == ".ndjson"; }

bool is_ascii_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

CorpusReader::CorpusReader(const std::filesystem::path& input, size_t chunk_bytes) : chunk_bytes_(chunk_bytes) {
  if (std::filesystem::is_directory(input)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(input))
      if (entry.is_regular_file() && entry.path().filename().string().front() != '.') files_.push_back(entry.path());
    std::sort(files_.begin(), files_.end());
    if (files_.empty()) throw Error(input.string() + ": the folder holds no files");
  } else if (std::filesystem::is_regular_file(input)) {
    files_.push_back(input);
  } else {
    throw Error(input.string() + ": no such file or folder");
  }
  for (const auto& f : files_) total_bytes_ += std::filesystem::file_size(f);
}

std::string CorpusReader::where() const {
  if (file_index_ == 0 || file_index_ > files_.size()) return "corpus";
  const auto& f = files_[file_index_ - 1];
  return jsonl_ ? f.string() + " line " + std::to_string(line_)
                : f.string() + " near byte " + std::to_string(position_);
}

bool CorpusReader::open_next_file() {
  if (in_.is_open()) {
    bytes_done_ += position_;
    position_ = 0;
    in_.close();
  }
  if (file_index_ >= files_.size()) return false;
  const auto& f = files_[file_index_++];
  in_.open(f, std::ios::binary);
  if (!in_) throw Error(f.string() + ": cannot open");
  jsonl_ = is_jsonl(f);
  document_started_ = false;
  carry_.clear();
  line_ = 0;
  position_ = 0;
  return true;
}

bool CorpusReader::next(std::string& chunk, bool& new_document) {
  Span ignored;
  return next(chunk, new_document, ignored);
}

bool CorpusReader::next(std::string& chunk, bool& new_document, Span& span) {
  while (true) {
    if (in_.is_open()) {
      const bool starts = !document_started_ || jsonl_;
      if (jsonl_ ? next_jsonl(chunk, span) : next_text(chunk, span)) {
        new_document = starts;
        document_started_ = true;
        return true;
      }
    }
    if (!open_next_file()) return false;
  }
}

bool CorpusReader::next_jsonl(std::string& chunk, Span& span) {
  std::string line;
  while (std::getline(in_, line)) {
    ++line_;
    span = {bytes_done_ + position_, line.size() + 1};
    position_ += line.size() + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw Error(where() + ": not valid JSON (" + e.what() + ")");
    }
    if (!record.is_object() || !record.contains("text") || !record["text"].is_string())
      throw Error(where() + ": expected an object with a \"text\" string");
    chunk = record["text"].get<std::string>();
    return true;
  }
  return false;
}

bool CorpusReader::next_text(std::string& chunk, Span& span) {
  std::string buffer(chunk_bytes_, '\0');
  in_.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  buffer.resize(static_cast<size_t>(in_.gcount()));
  if (buffer.empty() && carry_.empty()) return false;
  const uint64_t first = bytes_done_ + position_ - carry_.size();  // the carried text was read before
  position_ += buffer.size();
  chunk = std::move(carry_);
  carry_.clear();
  chunk += buffer;
  if (!buffer.empty()) {  // keep the last, possibly unfinished word for the next chunk
    const auto cut = std::find_if(chunk.rbegin(), chunk.rend(), is_ascii_space);
    if (cut != chunk.rend()) {
      const size_t keep = static_cast<size_t>(chunk.rend() - cut);
      carry_ = chunk.substr(keep);
      chunk.resize(keep);
    }
  }
  span = {first, chunk.size()};
  return true;
}

}  // namespace attnscope
