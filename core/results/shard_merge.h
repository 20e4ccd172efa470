#pragma once
// Shards of one corpus run summed into the whole run. Every accumulator is a sum over windows, so
// the merge is exact: counts and histograms equal the unsharded run's, float64 sums differ only
// by the order of additions (well within 1e-6 relative). Shards are read one at a time and added
// to the running sum, so the merge's memory is that of two results, whatever the shard count.
#include <filesystem>
#include <vector>

#include "results/corpus_json.h"

namespace attnscope {

// Checks that the files are the N shards of one run (same input, model, window, limit, settings
// and N; each shard once; none partial) and sums them. Throws attnscope::Error with one line
// naming the shard files or shard numbers at fault; nothing is returned then.
CorpusFile merge_shards(const std::vector<std::filesystem::path>& shards);

// The files of a folder that are corpus results (*.json), sorted; a file list is taken as given.
std::vector<std::filesystem::path> shard_files(const std::vector<std::filesystem::path>& files_or_folder);

}  // namespace attnscope
