#pragma once
// Streams the documents of a corpus: a UTF-8 text file (one document), a JSON Lines file
// (.jsonl / .ndjson: one document per record's "text"), or a folder of such files (sorted, walked
// recursively). Text comes in chunks that end at white space, so each chunk tokenises exactly as
// it would inside the whole document, and memory does not grow with the corpus.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace attnscope {

class CorpusReader {
 public:
  explicit CorpusReader(const std::filesystem::path& input, size_t chunk_bytes = 1 << 16);

  // Where a chunk lies in the whole input (all files one after the other), in bytes.
  struct Span {
    uint64_t first = 0, bytes = 0;
  };

  // The next chunk of text; new_document is true when it starts a document. False at the end.
  // Throws attnscope::Error naming the file (and line, for JSON Lines) on unreadable input.
  bool next(std::string& chunk, bool& new_document);
  bool next(std::string& chunk, bool& new_document, Span& span);

  uint64_t total_bytes() const { return total_bytes_; }
  const std::vector<std::filesystem::path>& files() const { return files_; }  // in reading order
  std::string where() const;  // the file and byte (or line) being read, for messages

 private:
  bool open_next_file();
  bool next_jsonl(std::string& chunk, Span& span);
  bool next_text(std::string& chunk, Span& span);

  std::vector<std::filesystem::path> files_;
  size_t file_index_ = 0;
  std::ifstream in_;
  bool jsonl_ = false;
  bool document_started_ = false;
  std::string carry_;  // text read past the last white space, kept for the next chunk
  uint64_t line_ = 0;
  uint64_t position_ = 0;    // bytes of the current file consumed
  uint64_t bytes_done_ = 0;  // bytes of the files before it
  uint64_t total_bytes_ = 0;
  size_t chunk_bytes_;
};

}  // namespace attnscope
