// attnscope-cli heads: the role of every head on a text (METHOD.md, "Head roles"), as a table,
// CSV or JSON.
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/count_text.h"
#include "commands.h"
#include "base/error.h"
#include "corpus/allocator_tuning.h"
#include "model/capture_plan.h"
#include "model/forward_progress.h"
#include "pipeline/text_head_roles.h"
#include "results/head_roles_json.h"
#include "progress_line.h"
#include "optional_cell.h"
#include "run_options.h"

namespace attnscope::cli {
namespace {

struct HeadsOptions {
  RunOptions run;
  HeadRoleSettings roles;
  TextHeadRolesOptions probe;
  bool csv = false, json = false;
};

std::string label(const HeadRoleScores& s, int64_t l, int64_t h, const HeadRoleSettings& settings) {
  const auto role = s.strongest(l, h, settings);
  return role ? std::string(head_role_name(*role)) : "-";
}

void print_table(const HeadRoleScores& s, const HeadsOptions& o, size_t tokens) {
  std::printf("%s; a head's role is its highest score >= %.2f; '-' = undefined on this text\n\n",
              count(tokens, "token").c_str(), o.roles.threshold);
  std::printf("%5s %4s %9s %9s %9s %9s %9s %9s %9s  %s\n", "layer", "head", "previous", "next", "first", "end",
              "duplicate", "induction", "broad", "role");
  for (int64_t l = 0; l < s.layers(); ++l) {
    for (int64_t h = 0; h < s.heads(); ++h) {
      std::printf("%5lld %4lld", static_cast<long long>(l), static_cast<long long>(h));
      for (const HeadRole role : kHeadRoles) std::printf(" %9s", optional_cell(s.score(role, l, h)).c_str());
      std::printf("  %s\n", label(s, l, h, o.roles).c_str());
    }
    std::printf("layer %lld: sink rate %.2f\n", static_cast<long long>(l), s.sink_rate(o.roles, l));
  }
  std::printf("model: sink rate %.2f (heads whose first-token score is >= %.2f)\n", s.sink_rate(o.roles),
              o.roles.sink_threshold);
}

void print_csv(const HeadRoleScores& s, const HeadsOptions& o) {
  std::printf("layer,head");
  for (const HeadRole role : kHeadRoles) std::printf(",%s", std::string(head_role_name(role)).c_str());
  std::printf(",role\n");
  for (int64_t l = 0; l < s.layers(); ++l)
    for (int64_t h = 0; h < s.heads(); ++h) {
      std::printf("%lld,%lld", static_cast<long long>(l), static_cast<long long>(h));
      for (const HeadRole role : kHeadRoles) {
        const auto v = s.score(role, l, h);
        v ? std::printf(",%.9g", *v) : std::printf(",");
      }
      std::printf(",%s\n", label(s, l, h, o.roles).c_str());
    }
}

struct TextRoles {
  HeadRoleScores scores;
  size_t tokens = 0;
};

// The roles of every head on the text, with the forward's and the roles' progress (ended before
// the table is printed).
TextRoles text_roles(const HeadsOptions& o) {
  ComputeDevice device;
  const auto checkpoint = load_checkpoint(o.run, device);
  const std::string text = read_text_input(o.run.input);
  const Encoding encoding =
      checkpoint->encode(text, o.run.max_length ? o.run.max_length : checkpoint->default_max_length());
  const ModelConfig& config = checkpoint->model().config();
  StageProgress progress;  // a long text's forward and roles take minutes
  CheckpointRun forward;   // a long text keeps queries and keys, its maps made again layer by layer
  if (o.run.long_texts)
    forward.kept = attention_to_keep(config, static_cast<int64_t>(encoding.size()), *o.run.long_texts,
                                     capture_memory(checkpoint->model().device().device));
  forward.attention_blocks = with_forward_progress({}, progress.report(), config.num_layers);
  forward.progress = progress.report();  // a text whose maps are kept reports its layers
  tune_heap_for_command(forward.kept, config, static_cast<int64_t>(encoding.size()));
  const TextRun run = std::move(checkpoint->run({encoding}, forward).front());
  TextHeadRolesOptions roles = o.probe;
  roles.progress = progress.report();
  return {text_head_roles(*checkpoint, run, roles), run.encoding.size()};
}

int run_heads(const HeadsOptions& o) {
  if (o.csv && o.json) throw Error("--csv and --json: choose one");
  const auto [scores, tokens] = text_roles(o);
  if (o.json)
    std::cout << head_roles_to_json(scores, o.roles, o.probe.induction_period).dump() << "\n";
  else if (o.csv)
    print_csv(scores, o);
  else
    print_table(scores, o, tokens);
  return 0;
}

}  // namespace

Action add_heads_command(CLI::App& app) {
  auto o = std::make_shared<HeadsOptions>();
  auto* cmd = app.add_subcommand(
      "heads",
      "The role of every head on a text: previous token, next token, first token (attention sink), end token, "
      "duplicate token, induction (on a probe of random tokens repeated twice) and broad attention, each a score "
      "in [0, 1] (METHOD.md, Head roles), the strongest role at or above --threshold, and the sink rate of each "
      "layer and of the model");
  add_run_options(*cmd, o->run);
  add_long_text_options(*cmd, o->run);
  cmd->add_option("--threshold", o->roles.threshold, "A head's role is its highest score at or above this")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--sink-threshold", o->roles.sink_threshold,
                  "A head is a sink when its first-token score is at least this")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--induction-period", o->probe.induction_period,
                  "Random tokens in the probe, which is run twice over")
      ->capture_default_str()
      ->check(CLI::Range(2, 4096));
  cmd->add_option("--induction-seed", o->probe.induction_seed, "Seed of the probe's tokens (SplitMix64)")
      ->capture_default_str();
  cmd->add_flag("--no-induction{false}", o->probe.induction,
                "Leave induction undefined: no probe run (for a model whose positions the probe does not fit)");
  cmd->add_flag("--csv", o->csv, "Print CSV (one row a head) instead of a table");
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  return [o] { return run_heads(*o); };
}

}  // namespace attnscope::cli
