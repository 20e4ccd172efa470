#include "corpus_job.h"
#include "base/error_message.h"
#include "corpus/run_fingerprint.h"
#include "corpus/window_stream.h"
#include "results/corpus_csv.h"
#include "results/corpus_json.h"

namespace attnscope::ui {

CorpusJob::~CorpusJob() {
  cancel_ = true;
  join();
}

void CorpusJob::join() {
  if (thread_.joinable()) thread_.join();
}

CorpusJobState CorpusJob::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

void CorpusJob::finish(std::string message, ReportSource report) {
  std::lock_guard lock(mutex_);
  state_.running = false;
  if (report.corpus) {
    state_.result = report.corpus;
    state_.report = std::move(report);
  }
  state_.message = std::move(message);
}

void CorpusJob::start_run(std::shared_ptr<const Checkpoint> checkpoint, CorpusOptions options,
                          std::filesystem::path out) {
  join();
  cancel_ = false;
  {
    std::lock_guard lock(mutex_);
    state_ = {true, {}, "running", nullptr, options.input.string(), {}};
  }
  thread_ = std::thread([this, checkpoint = std::move(checkpoint), options = std::move(options), out = std::move(out)] {
    const ModelConfig& config = checkpoint->model().config();
    auto acc = std::make_shared<CorpusAccumulator>(
        config.num_layers, config.num_heads, static_cast<int64_t>(options.window), checkpoint->model().device().device);
    try {
      const CorpusOutcome outcome = run_corpus(*checkpoint, options, *acc, 0, [this](const CorpusProgress& p) {
        std::lock_guard lock(mutex_);
        state_.progress = p;
        return !cancel_;
      });
      std::string message =
          (outcome.complete ? "done: " : "cancelled after ") + std::to_string(outcome.windows) + " windows";
      const bool saving = !out.empty();
      CorpusFile file{checkpoint->dir().string(),
                      config.to_json(),
                      saving ? input_fingerprint(options.input) : nlohmann::json(),
                      saving ? model_fingerprint(checkpoint->dir()) : nlohmann::json(),
                      checkpoint->model().device().describe(),
                      options,
                      !outcome.complete,
                      outcome.windows,
                      outcome.documents,
                      pieces_per_window(checkpoint->tokenizer(), options.window),
                      acc};
      if (saving) {
        save_corpus(out, file);
        write_corpus_csv(default_csv_folder(out), *acc);
        message += ", saved to " + out.string();
      }
      finish(message, report_source("", out, file));
    } catch (const std::exception& e) {
      finish("error: " + error_message(e));
    }
  });
}

void CorpusJob::start_open(std::filesystem::path saved) {
  join();
  {
    std::lock_guard lock(mutex_);
    state_ = {true, {}, "opening " + saved.string(), nullptr, saved.string(), {}};
  }
  thread_ = std::thread([this, saved = std::move(saved)] {
    try {
      CorpusFile file = load_corpus(saved);
      finish("opened " + saved.string() + " (" + std::to_string(file.windows) + " windows" +
                 (file.partial ? ", partial run)" : ")"),
             report_source("", saved, file));
    } catch (const std::exception& e) {
      finish("error: " + error_message(e));
    }
  });
}

}  // namespace attnscope::ui
