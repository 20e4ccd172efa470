#include "text_input.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"

namespace attnscope::cli {

std::string read_text_input(const TextInput& input) {
  if (!input.text.empty() && !input.file.empty()) throw Error("give either --text or --file, not both");
  std::string text = input.text;
  if (!input.file.empty()) {
    if (std::filesystem::is_directory(input.file)) throw Error(input.file + ": is a folder, expected a text file");
    std::ifstream in(input.file, std::ios::binary);
    if (!in) throw Error(input.file + ": cannot open the text file");
    std::stringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  } else if (input.text.empty()) {
    throw Error("no text: give --text \"...\" or --file FILE");
  }
  if (text.empty()) throw Error("the text is empty: nothing to work on");
  return text;
}

}  // namespace attnscope::cli
