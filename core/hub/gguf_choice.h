#pragma once
// Which file of a GGUF repository to fetch. Such a repository (no config.json; one .gguf file per
// quantisation, often a dozen, e.g. model-Q4_K_M.gguf, model-Q8_0.gguf, model-F16.gguf) is opened
// from one file: the one asked for by a tag after the id ("org/name:Q8_0", as llama.cpp's -hf
// takes it: the file of that name, or the one file whose name holds the tag), else its only one,
// else the one named Q4_K_M (the size most people choose first, and llama.cpp's default). Files
// split in parts (-00001-of-00003.gguf) and vision projectors (mmproj*) are not models attnscope
// opens.
#include <string>
#include <vector>

namespace attnscope {

// Whether the repository's listing holds a .gguf file.
bool has_gguf_files(const std::vector<std::string>& repository_files);

// The file to fetch for `tag` (empty: none asked for); throws attnscope::Error naming the choices
// where none is clear, and saying why where the file asked for is missing or cannot be opened.
std::string chosen_gguf_file(const std::string& model_id, const std::vector<std::string>& repository_files,
                             const std::string& tag = "");

}  // namespace attnscope
