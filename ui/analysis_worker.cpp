#include "analysis_worker.h"

#include <chrono>
#include <filesystem>

#include "analysis/word_level.h"
#include "base/error.h"
#include "figures/text_figures.h"
#include "model/device_fallback.h"

namespace attnscope::ui {

AnalysisWorker::AnalysisWorker(std::string model, std::string device, std::string precision, std::function<void()> notify)
    : notify_(std::move(notify)), thread_(&AnalysisWorker::run, this, std::move(model), std::move(device), std::move(precision), nullptr) {}

AnalysisWorker::AnalysisWorker(std::shared_ptr<const Checkpoint> loaded, std::string model, std::function<void()> notify)
    : notify_(std::move(notify)), thread_(&AnalysisWorker::run, this, std::move(model), "", "", std::move(loaded)) {}

AnalysisWorker::~AnalysisWorker() {
  stop_flag_ = true;  // a run under way stops at its next layer
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

uint64_t AnalysisWorker::submit(AnalysisRequest request) {
  // Serials are unique across workers, so views keyed by them notice a change of model.
  static std::atomic<uint64_t> next_serial{0};
  const uint64_t serial = ++next_serial;
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(request);
    pending_serial_ = serial;
    pending_since_ = std::chrono::steady_clock::now();
    newest_ = serial;
    busy_ = true;
  }
  wake_.notify_all();
  return serial;
}

void AnalysisWorker::wait_for_start(uint64_t serial, std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  started_cv_.wait_for(lock, limit, [&] { return started_ >= serial || stop_; });
}

std::shared_ptr<const AnalysisSnapshot> AnalysisWorker::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

std::shared_ptr<const AnalysisSnapshot> AnalysisWorker::latest_good() const {
  std::lock_guard lock(mutex_);
  return latest_good_;
}

ModelStatus AnalysisWorker::model_status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::shared_ptr<const Checkpoint> AnalysisWorker::checkpoint() const {
  std::lock_guard lock(mutex_);
  return checkpoint_;
}

void AnalysisWorker::run(std::string model, std::string device, std::string precision, std::shared_ptr<const Checkpoint> loaded) {
  ModelStatus status;
  try {
    const ComputeDevice dev = loaded ? loaded->model().device() : select_device(device, precision);
    auto checkpoint = loaded ? std::move(loaded) : Checkpoint::load(model, dev);
    model_ = model;
    device_ = dev;
    // A model id is shown as the id (its cache folder is named after a commit).
    const std::string name = std::filesystem::is_directory(model) ? std::filesystem::path(model).filename().string() : model;
    status.loaded = true;
    status.name = name;
    status.device = dev.describe();
    status.layers = static_cast<int>(checkpoint->model().config().num_layers);
    status.heads = static_cast<int>(checkpoint->model().config().num_heads);
    std::lock_guard lock(mutex_);
    checkpoint_ = std::move(checkpoint);
  } catch (const std::exception& e) {
    status.error = e.what();
  }
  {
    std::lock_guard lock(mutex_);
    status_ = status;
    busy_ = pending_.has_value() && status.loaded;
  }
  if (notify_) notify_();
  if (!status.loaded) return;
  for (;;) {
    AnalysisRequest request;
    uint64_t serial;
    std::chrono::steady_clock::time_point asked;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      request = std::move(*pending_);
      serial = pending_serial_;
      asked = pending_since_;
      pending_.reset();
      started_ = serial;
    }
    started_cv_.notify_all();
    answer(request, serial, asked);
  }
}

namespace {

// Failing here costs nothing: the snapshot then has no atlas, and the overview makes its
// thumbnails itself and says why it can't.
void colour_grid(AnalysisSnapshot& snapshot, const FigureOptions& options) {
  try {
    snapshot.grid = grid_atlas({snapshot.encoding, snapshot.captures, snapshot.analysis}, options);
    snapshot.grid_options = options;
  } catch (const std::exception&) {
  }
}

}  // namespace

void AnalysisWorker::answer(const AnalysisRequest& request, uint64_t serial, std::chrono::steady_clock::time_point asked) {
  auto snapshot = std::make_shared<AnalysisSnapshot>();
  snapshot->serial = serial;
  snapshot->text = request.text;
  const auto start = std::chrono::steady_clock::now();
  const auto since = [](std::chrono::steady_clock::time_point t) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(); };
  snapshot->waited_seconds = std::chrono::duration<double>(start - asked).count();
  try {
    const size_t max_length = request.max_length ? request.max_length : checkpoint_->default_max_length();
    snapshot->encoding = checkpoint_->encode(request.text, max_length, encoder_);
    if (snapshot->encoding.size() <= 2) throw Error("the text has no word pieces yet");
    const auto keep_going = [this, serial] { return !stale(serial); };
    // Out of GPU memory: the CPU takes over, for this text and the next, and the window says so.
    device_ = run_with_cpu_fallback(
        device_,
        [&](const ComputeDevice& d) {
          if (d.device != checkpoint_->model().device().device) {
            auto on_cpu = Checkpoint::load(model_, d);
            std::lock_guard lock(mutex_);
            checkpoint_ = std::move(on_cpu);
          }
          // No view reads the last layer's output: its output projection and feed-forward block,
          // about 6% of a BERT-base forward, are left out.
          snapshot->captures = std::move(
              checkpoint_->run({snapshot->encoding}, true, keep_going, request.lenses, BertModel::LastLayer::HeadOutputsOnly).front().captures);
        },
        [this](const std::string& notice) {
          std::lock_guard lock(mutex_);
          status_.notice = notice;
          status_.device = ComputeDevice{}.describe();
        });
    if (request.settings.words) {  // every view on words
      TextRun words = to_words({snapshot->encoding, snapshot->captures});
      snapshot->encoding = std::move(words.encoding);
      snapshot->captures = std::move(words.captures);
    }
    snapshot->forward_seconds = since(start);
    if (stale(serial)) throw Cancelled();
    const auto analysis_start = std::chrono::steady_clock::now();
    snapshot->analysis = analyze_text(snapshot->encoding, snapshot->captures, request.settings, true, keep_going);
    snapshot->analysis_seconds = since(analysis_start);
    if (request.grid) {
      const auto grid_start = std::chrono::steady_clock::now();
      colour_grid(*snapshot, *request.grid);
      snapshot->grid_seconds = since(grid_start);
    }
  } catch (const Cancelled&) {
    ++abandoned_;
    std::lock_guard lock(mutex_);
    busy_ = pending_.has_value();
    return;  // a newer request is waiting (or the worker is stopping): nothing to show for this one
  } catch (const std::exception& e) {
    snapshot->error = e.what();
  }
  snapshot->finished = std::chrono::steady_clock::now();
  snapshot->seconds = std::chrono::duration<double>(snapshot->finished - start).count();
  {
    std::lock_guard lock(mutex_);
    latest_ = snapshot;
    if (snapshot->error.empty()) latest_good_ = snapshot;
    busy_ = pending_.has_value();
  }
  if (notify_) notify_();
}

}  // namespace attnscope::ui
