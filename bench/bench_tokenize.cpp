// Time to split one whole text into word pieces (what the explorer does before the forward when a
// text is opened, and on every edit with a tokenizer other than BERT's), median of many runs after
// warm-up (not a test). Prints one JSON object;
// bench/run_tokenize.sh runs it beside bench/reference_tokenize.py.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "corpus/allocator_tuning.h"
#include "tokenizer/tokenizer.h"

int main(int argc, char** argv) {
  CLI::App app{"attnscope tokenizer benchmark: one whole text, no truncation"};
  std::string folder, text_file;
  int runs = 9, warmup = 2;
  app.add_option("--tokenizer", folder, "Folder with tokenizer.json, or vocab.txt (a checkpoint folder)")->required();
  app.add_option("--text-file", text_file, "UTF-8 text to tokenise whole")->required();
  app.add_option("--runs", runs)->capture_default_str()->check(CLI::Range(1, 10000));
  app.add_option("--warmup", warmup)->capture_default_str()->check(CLI::Range(0, 10000));
  CLI11_PARSE(app, argc, argv);
  try {
    attnscope::keep_freed_memory_for_reuse();  // as the explorer does
    std::ifstream in(text_file, std::ios::binary);
    if (!in) throw std::runtime_error(text_file + ": cannot be read");
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    const auto tokenizer = attnscope::load_tokenizer(folder);
    size_t tokens = 0;
    for (int i = 0; i < warmup; ++i) tokens = tokenizer->tokenize(text).size();
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      tokens = tokenizer->tokenize(text).size();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(ms.begin(), ms.begin() + runs / 2, ms.end());
    const double median = ms[static_cast<size_t>(runs / 2)];
    std::cout << nlohmann::json{{"bytes", text.size()},
                                {"tokens", tokens},
                                {"tokenize_ms", median},
                                {"mb_per_s", text.size() / median / 1e3}}
                     .dump()
              << "\n";
  } catch (const std::exception& e) {
    std::cerr << "bench_tokenize: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
