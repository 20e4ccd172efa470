#pragma once
// The overview of a long text coloured off the UI thread, when it is asked with other options
// than the run coloured it with: its maps are made again for every layer (seconds at 8,192 tokens),
// its rollout a product of n x n matrices a layer (minutes). The newest request wins, a stale one
// stops at its next block of rows (newest_request_job.h).
#include <cstdint>
#include <memory>
#include <string>

#include "analysis_worker.h"
#include "figures/figure_options.h"
#include "figures/thumbnail_atlas.h"
#include "newest_request_job.h"

namespace attnscope::ui {

using OverviewJob = NewestRequestJob<ThumbnailAtlas>;

// The key of `serial`'s overview with `options` (its thumbnails' options: grid_thumbnails_key).
std::string overview_request_key(uint64_t serial, const FigureOptions& options);
// Colours `snapshot`'s overview with `options` on `job`, unless that one is made or being made already.
void submit_overview(OverviewJob& job, std::shared_ptr<const AnalysisSnapshot> snapshot, const FigureOptions& options);

}  // namespace attnscope::ui
