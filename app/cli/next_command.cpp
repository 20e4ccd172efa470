// attnscope-cli next: what a decoder would write after the text, its most likely next tokens with
// their probabilities (a table or JSON).
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/count_text.h"
#include "base/error.h"
#include "commands.h"
#include "model/capture_plan.h"
#include "model/forward_progress.h"
#include "model/next_tokens.h"
#include "progress_line.h"
#include "run_options.h"
#include "tokenizer/piece_text.h"

namespace attnscope::cli {
namespace {

struct NextOptions {
  RunOptions run;
  int top = 5;
  bool json = false;
};

// The last layer run at the last token alone, and a long text's maps not kept (SmolLM2's at 8,192
// tokens would take 72 GB): its queries and keys instead, as analyze keeps them (--maps-up-to).
TextRun run_to_last_token(const Checkpoint& checkpoint, const Encoding& encoding, const CapturePlan& plan) {
  const ModelConfig& config = checkpoint.model().config();
  const auto n = static_cast<int64_t>(encoding.size());
  CheckpointRun forward;
  forward.last_layer = LastLayer::HeadOutputsAndLastToken;
  forward.kept = attention_to_keep(config, n, plan, capture_memory(checkpoint.model().device().device));
  tune_heap_for_command(forward.kept, config, n);
  StageProgress progress;  // SmolLM2 at 8,192 tokens: most of a minute
  forward.attention_blocks = with_forward_progress({}, progress.report(), config.num_layers);
  forward.progress = progress.report();
  return std::move(checkpoint.run({encoding}, forward).front());
}

int run_next(const NextOptions& o) {
  ComputeDevice device;
  const auto checkpoint = load_checkpoint(o.run, device);
  const std::string text = read_text_input(o.run.input);
  const size_t max_length = o.run.max_length ? o.run.max_length : checkpoint->default_max_length();
  const TextRun run = run_to_last_token(*checkpoint, checkpoint->encode(text, max_length), *o.run.long_texts);
  const std::vector<NextToken> next = next_tokens(checkpoint->model(), run.captures, o.top);
  const Tokenizer& tokenizer = checkpoint->tokenizer();
  if (o.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const NextToken& t : next)
      rows.push_back({{"id", t.id}, {"piece", tokenizer.piece(t.id)}, {"probability", t.probability}});
    std::cout << nlohmann::json{{"tokens", run.encoding.size()}, {"next", rows}}.dump() << "\n";
    return 0;
  }
  std::printf("after %s, the %zu most likely next:\n\n%4s %11s %8s  %s\n", count(run.encoding.size(), "token").c_str(),
              next.size(), "rank", "probability", "id", "piece");
  for (size_t k = 0; k < next.size(); ++k)
    std::printf("%4zu %11.4f %8lld  %s\n", k + 1, next[k].probability, static_cast<long long>(next[k].id),
                readable_piece(tokenizer.piece(next[k].id)).c_str());
  return 0;
}

}  // namespace

Action add_next_command(CLI::App& app) {
  auto o = std::make_shared<NextOptions>();
  auto* cmd = app.add_subcommand("next",
                                 "What a decoder would write next: its most likely tokens after the text, with their "
                                 "probabilities (decoders only)");
  add_run_options(*cmd, o->run);
  add_long_text_options(*cmd, o->run);
  cmd->add_option("--top", o->top, "How many of the most likely tokens")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  return [o] { return run_next(*o); };
}

}  // namespace attnscope::cli
