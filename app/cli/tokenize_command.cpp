#include <nlohmann/json.hpp>

#include <iostream>

#include "commands.h"
#include "base/error.h"
#include "model/checkpoint.h"
#include "text_cell.h"
#include "text_input.h"
#include "tokenizer/piece_text.h"
#include "tokenizer/tokenizer.h"

namespace attnscope::cli {
namespace {

struct TokenizeOptions {
  std::string model;
  TextInput input;
  size_t max_length = kDefaultMaxLength;
  bool json = false;
};

int run_tokenize(const TokenizeOptions& o) {
  const auto tokenizer = Checkpoint::load_tokenizer_of(o.model);
  const std::string text = read_text_input(o.input);
  const Encoding e = tokenizer->encode(text, o.max_length);
  if (o.json) {
    nlohmann::json tokens = nlohmann::json::array();
    for (size_t i = 0; i < e.tokens.size(); ++i) {
      const Token& t = e.tokens[i];
      tokens.push_back(
          {{"index", i}, {"id", t.id}, {"text", t.text}, {"begin", t.begin}, {"end", t.end}, {"special", t.special}});
    }
    std::cout << nlohmann::json{{"tokens", tokens}, {"truncated", e.truncated}, {"full_length", e.full_length}}.dump()
              << "\n";
    return 0;
  }
  std::printf("%5s  %6s  %-20s  %s\n", "index", "id", "token", "bytes");
  for (size_t i = 0; i < e.tokens.size(); ++i) {
    const Token& t = e.tokens[i];
    std::printf("%5zu  %6d  %s  %u-%u\n", i, t.id, left_aligned(spelt_piece(t.text), 20).c_str(), t.begin, t.end);
  }
  if (e.truncated)
    std::printf("truncated: the text has %zu tokens, the first %zu are kept (--max-len)\n", e.full_length,
                e.tokens.size());
  return 0;
}

}  // namespace

Action add_tokenize_command(CLI::App& app) {
  auto o = std::make_shared<TokenizeOptions>();
  auto* cmd = app.add_subcommand("tokenize",
                                 "Split a text into the model's word pieces: ids, tokens and the byte range of each");
  cmd->add_option("--model", o->model,
                  "Checkpoint folder (tokenizer.json, or vocab.txt with tokenizer_config.json), a GGUF file (its own "
                  "vocabulary) or a folder holding one, or a model id in the Hugging Face cache")
      ->required();
  cmd->add_option("--text", o->input.text, "The text itself");
  cmd->add_option("--file", o->input.file, "A UTF-8 text file to read the text from");
  cmd->add_option("--max-len", o->max_length,
                  "Keep at most N tokens, the special ones ([CLS] and [SEP], or a decoder's start token) included")
      ->capture_default_str()
      ->check(CLI::Range(2, 1 << 20));
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  return [o] { return run_tokenize(*o); };
}

}  // namespace attnscope::cli
