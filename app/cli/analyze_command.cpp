#include <ATen/Parallel.h>

#include <chrono>
#include <iostream>
#include <unistd.h>

#include "commands.h"
#include "error.h"
#include "io/result_json.h"
#include "text_input.h"

namespace attnscope::cli {
namespace {

struct AnalyzeOptions {
  std::string model;
  TextInput input;
  size_t max_length = 0;  // 0: the checkpoint's default
  std::string device = "auto";
  std::string precision = "float32";
  std::string out;
  std::string encoding = "base64";
  int threads = 0;
};

void print_summary(const TextRunFile& file, double seconds, const std::string& saved_to) {
  const Encoding& e = file.run.encoding;
  const TextCaptures& c = file.run.captures;
  std::printf("model    %s\ndevice   %s\ntokens   %zu", file.model_path.c_str(), file.device.c_str(), e.tokens.size());
  if (e.truncated) std::printf(" (the text has %zu; --max-len %zu kept the first)", e.full_length, file.max_length);
  std::printf("\ncaptured %lld layers x %lld heads: attention %zu x %zu, head outputs %zu x %lld\ntime     %.1f ms\n",
              static_cast<long long>(c.num_layers), static_cast<long long>(c.num_heads), e.size(), e.size(), e.size(),
              static_cast<long long>(c.head_dim), seconds * 1e3);
  if (saved_to.empty())
    std::printf("(give --out FILE.json to save the attention maps and head outputs)\n");
  else
    std::printf("saved    %s\n", saved_to.c_str());
}

int run_analyze(const AnalyzeOptions& o) {
  if (o.threads > 0) at::set_num_threads(o.threads);
  const std::string text = read_text_input(o.input);
  const ComputeDevice device = select_device(o.device, o.precision);
  const auto checkpoint = Checkpoint::load(o.model, device);
  const auto start = std::chrono::steady_clock::now();
  const size_t max_length = o.max_length ? o.max_length : checkpoint->default_max_length();
  const Encoding encoding = checkpoint->encode(text, max_length);
  if (encoding.size() <= 2) throw Error("the text has no word pieces (only white space or control characters)");
  TextRunFile file{o.model, checkpoint->model().config().to_json(), device.describe(), text, max_length,
                   std::move(checkpoint->run({encoding}).front())};
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto matrix_encoding = o.encoding == "decimal" ? MatrixEncoding::Decimal : MatrixEncoding::Base64;
  if (!o.out.empty() && o.out != "-") {
    save_text_run(o.out, file, matrix_encoding);
    print_summary(file, seconds, o.out);
  } else if (o.out == "-" || !isatty(STDOUT_FILENO)) {
    std::cout << text_run_to_json(file, matrix_encoding).dump() << "\n";
  } else {
    print_summary(file, seconds, "");
  }
  return 0;
}

}  // namespace

Action add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  auto* cmd = app.add_subcommand("analyze",
                                 "Run BERT on a text and keep, for every layer and head, the attention map A and the head "
                                 "outputs C = A V (format: docs/result-format.md)");
  cmd->add_option("--model", o->model, "Checkpoint folder (config.json, vocab.txt, model.safetensors)")->required();
  cmd->add_option("--text", o->input.text, "The text itself");
  cmd->add_option("--file", o->input.file, "A UTF-8 text file to read the text from");
  cmd->add_option("--max-len", o->max_length,
                  "Keep at most N tokens, [CLS] and [SEP] included (default 128, or the model's positions if fewer)")
      ->check(CLI::Range(2, 1 << 20));
  cmd->add_option("--device", o->device, "auto (CUDA when present), cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--precision", o->precision, "float32, or float16 / bfloat16 on CUDA")->capture_default_str();
  cmd->add_option("--out", o->out,
                  "Write the result JSON here (atomically); '-' for standard output. Without it, JSON goes to standard "
                  "output when that is not a terminal, and a summary is printed when it is");
  cmd->add_option("--encoding", o->encoding, "How matrices are stored: base64 (float32, exact, compact) or decimal (nested lists)")
      ->capture_default_str()
      ->check(CLI::IsMember({"base64", "decimal"}));
  cmd->add_option("--threads", o->threads, "CPU threads for libtorch (default: libtorch's choice)")->check(CLI::Range(1, 1024));
  return [o] { return run_analyze(*o); };
}

}  // namespace attnscope::cli
