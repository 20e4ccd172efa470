// Corpus throughput with the full analysis, and peak memory (not a test). Prints one JSON object.
// bench/run_corpus.sh runs it beside bench/reference_corpus.py.
#include <ATen/DeviceAccelerator.h>
#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <chrono>
#include <iostream>

#include "corpus/allocator_tuning.h"
#include "corpus/corpus_run.h"

int main(int argc, char** argv) {
  CLI::App app{"attnscope corpus benchmark"};
  std::string model, input, device = "cpu", precision = "float32";
  size_t window = 128, batch = 8;
  uint64_t windows = 400;
  int threads = 2;
  app.add_option("--model", model)->required();
  app.add_option("--input", input)->required();
  app.add_option("--window", window)->capture_default_str();
  app.add_option("--batch", batch)->capture_default_str();
  app.add_option("--windows", windows)->capture_default_str();
  app.add_option("--threads", threads)->capture_default_str();
  app.add_option("--device", device)->capture_default_str();
  app.add_option("--precision", precision)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  at::set_num_threads(threads);
  attnscope::keep_freed_memory_for_reuse();  // as the corpus command does
  const attnscope::ComputeDevice where = attnscope::select_device(device, precision);
  const auto checkpoint = attnscope::Checkpoint::load(model, where);
  const auto& c = checkpoint->model().config();
  attnscope::CorpusOptions options{input, window, batch, windows, {}};
  {  // warm-up: one batch
    attnscope::CorpusAccumulator warm(c.num_layers, c.num_heads, static_cast<int64_t>(window), where.device);
    attnscope::CorpusOptions first = options;
    first.max_windows = batch;
    attnscope::run_corpus(*checkpoint, first, warm);
  }
  attnscope::CorpusAccumulator acc(c.num_layers, c.num_heads, static_cast<int64_t>(window), where.device);
  const auto start = std::chrono::steady_clock::now();
  const auto outcome = attnscope::run_corpus(*checkpoint, options, acc);
  if (!where.device.is_cpu())
    at::accelerator::synchronizeDevice(where.device.index() < 0 ? 0 : where.device.index());  // the GPU's last work
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::cout << nlohmann::json{{"windows", outcome.windows},
                              {"seconds", seconds},
                              {"windows_per_s", outcome.windows / seconds},
                              {"peak_rss_mb", usage.ru_maxrss / 1024.0},
                              {"read_s", outcome.read_seconds},
                              {"forward_s", outcome.forward_seconds},
                              {"analysis_s", outcome.analysis_seconds},
                              {"accumulate_s", outcome.accumulate_seconds},
                              {"batch", batch},
                              {"threads", threads}}
                   .dump()
            << "\n";
  return 0;
}
