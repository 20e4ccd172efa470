#include "tiled_figure_job.h"

#include <chrono>

#include "base/error.h"

namespace attnscope::ui {
namespace {

// Between two checks for a newer request: a block of rows or more (a block is some 32 MB of the map).
constexpr std::chrono::milliseconds kSlice{50};
// Between two reports of the share done: each wakes the window for a frame, drawn on the cores the
// maps are made on.
constexpr std::chrono::milliseconds kReportEvery{250};

}  // namespace

void submit_tiled_figure(TiledFigureJob& job, const std::string& key, std::shared_ptr<const AnalysisSnapshot> snapshot,
                         KeptRollouts rollouts, TiledBuilder build, FigureOptions options, PyramidOptions tiles) {
  job.submit(key, [snapshot = std::move(snapshot), rollouts = std::move(rollouts), build = std::move(build),
                   options = std::move(options), tiles](const JobControl& control) {
    AnalyzedTextView text = snapshot->view();  // this thread's own: it keeps the queries and keys laid out
    if (rollouts) text.rollouts = *rollouts;
    TiledFigure t = build(text, options);
    auto made = std::make_shared<MadeTiledFigure>();
    made->snapshot = snapshot;
    made->figure = std::move(t.figure);
    const double count = static_cast<double>(t.tiled.size());
    auto reported = std::chrono::steady_clock::now();
    for (size_t k = 0; k < t.tiled.size(); ++k) {
      MapPyramid pyramid(std::move(t.tiled[k].source), tiles);
      while (!pyramid.make_top(kSlice)) {
        if (!control.keep_going()) throw Cancelled();
        if (std::chrono::steady_clock::now() - reported < kReportEvery) continue;
        reported = std::chrono::steady_clock::now();
        control.progress((static_cast<double>(k) + pyramid.top_share()) / count);
      }
      made->maps.emplace_back(t.tiled[k].panel, std::move(pyramid));
    }
    return made;
  });
}

}  // namespace attnscope::ui
