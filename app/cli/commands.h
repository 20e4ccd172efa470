#pragma once
// The subcommands of attnscope-cli. Each registers its options and returns the action to run.
#include <CLI/CLI.hpp>

#include <functional>

namespace attnscope::cli {

using Action = std::function<int()>;

Action add_tokenize_command(CLI::App& app);
Action add_analyze_command(CLI::App& app);
Action add_pairs_command(CLI::App& app);
Action add_stats_command(CLI::App& app);
Action add_heads_command(CLI::App& app);
Action add_next_command(CLI::App& app);
Action add_corpus_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_compare_command(CLI::App& app);
Action add_figure_command(CLI::App& app);
Action add_report_command(CLI::App& app);
Action add_download_command(CLI::App& app);

}  // namespace attnscope::cli
