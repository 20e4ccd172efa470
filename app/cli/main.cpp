// attnscope-cli: the command line on the attnscope core. Every failure ends with one line on
// standard error saying what is wrong, and a non-zero exit status.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <map>

#include "base/error_message.h"
#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "attnscope-cli: the attention maps and head outputs of transformers (BERT and the encoders after it, GPT-2 to "
      "Gemma 3 decoders), from the command line"};
  app.require_subcommand(1);
  std::map<CLI::App*, attnscope::cli::Action> actions;
  const auto add = [&](attnscope::cli::Action action) { actions[app.get_subcommands({}).back()] = std::move(action); };
  add(attnscope::cli::add_tokenize_command(app));
  add(attnscope::cli::add_analyze_command(app));
  add(attnscope::cli::add_pairs_command(app));
  add(attnscope::cli::add_stats_command(app));
  add(attnscope::cli::add_heads_command(app));
  add(attnscope::cli::add_next_command(app));
  add(attnscope::cli::add_corpus_command(app));
  add(attnscope::cli::add_merge_command(app));
  add(attnscope::cli::add_compare_command(app));
  add(attnscope::cli::add_figure_command(app));
  add(attnscope::cli::add_report_command(app));
  add(attnscope::cli::add_download_command(app));
  const auto known = [&](const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->check_name(name)) return true;
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
    std::fprintf(stderr,
                 "attnscope-cli: unknown command \"%s\" (commands: tokenize, analyze, pairs, stats, heads, next, "
                 "compare, corpus, "
                 "merge, figure, download; see attnscope-cli --help)\n",
                 argv[1]);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "attnscope-cli: %s (see attnscope-cli --help)\n", e.what());
    return 2;
  }
  try {
    for (auto& [command, action] : actions)
      if (command->parsed()) return action();
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnscope-cli: error: %s\n", attnscope::error_message(e).c_str());
    return 1;
  }
}
