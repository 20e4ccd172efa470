#pragma once
// A long text's figure whose maps are drawn from pyramids of tiles, built with the top level of
// each map made, off the UI thread: a head's map at 8,192 tokens is 67 million cells made again
// from its queries and keys, which the drawing thread made 40 ms a frame on its one core (1.4
// times as long as on two, frames aside); beside the window it has the model's threads while the
// window shows how far it has come. The newest request wins (newest_request_job.h); what it made
// is handed over once.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis_worker.h"
#include "figures/map_pyramid.h"
#include "figures/text_figures.h"
#include "newest_request_job.h"
#include "rollout_job.h"

namespace attnscope::ui {

// How a long text's figure is built with its maps drawn from tiles (text_figures.h: TiledFigure).
using TiledBuilder = std::function<TiledFigure(const AnalyzedTextView&, const FigureOptions&)>;

struct MadeTiledFigure {
  std::shared_ptr<const AnalysisSnapshot> snapshot;  // what the maps' sources read
  Figure figure;
  std::vector<std::pair<size_t, MapPyramid>> maps;  // (panel, its pyramid, the top level made)
};
using TiledFigureJob = NewestRequestJob<std::shared_ptr<MadeTiledFigure>>;

// Builds `snapshot`'s figure for `options` on `job` (with `rollouts` where the figure draws them),
// the share done reported over its maps, unless that key is being made already.
void submit_tiled_figure(TiledFigureJob& job, const std::string& key, std::shared_ptr<const AnalysisSnapshot> snapshot,
                         KeptRollouts rollouts, TiledBuilder build, FigureOptions options, PyramidOptions tiles);

}  // namespace attnscope::ui
