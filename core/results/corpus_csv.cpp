#include "results/corpus_csv.h"

#include <ATen/ATen.h>

#include <sstream>

#include "base/error.h"
#include "base/atomic_file.h"

namespace attnscope {
namespace {

std::string mean(double sum, int64_t count) {
  if (count <= 0) return "";
  std::ostringstream out;
  out.precision(10);
  out << sum / static_cast<double>(count);
  return out.str();
}

}  // namespace

void write_corpus_csv(const std::filesystem::path& dir, CorpusAccumulator& a) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir)) throw Error(dir.string() + ": cannot create the folder for the CSV tables");
  const int64_t L = a.layers(), H = a.heads(), N = a.window(), texts = a.texts();
  const double chance_sum = a.chance_sum.item<double>();

  std::ostringstream head, layer, head_distances, layer_distances;
  head << "layer,head,texts,mean_pairs";
  for (int k = 0; k < CorpusAccumulator::kStats; ++k)
    head << "," << CorpusAccumulator::stat_name(k) << "_mean," << CorpusAccumulator::stat_name(k) << "_undefined";
  head << ",chance_same_sentence_mean\n";
  layer << "layer,texts,mean_distinct_anchors,mean_distance\n";
  head_distances << "layer,head,distance,pairs\n";
  layer_distances << "layer,distance,pairs\n";

  const auto distances = a.distance_histogram.accessor<int64_t, 3>();
  const auto anchors = a.distinct_anchors.accessor<int64_t, 2>();
  const auto pairs = a.pair_count_sum.accessor<int64_t, 2>();
  for (int64_t l = 0; l < L; ++l) {
    double anchor_sum = 0;
    for (int64_t k = 0; k <= H; ++k) anchor_sum += static_cast<double>(k * anchors[l][k]);
    std::vector<int64_t> pooled(static_cast<size_t>(N), 0);
    for (int64_t h = 0; h < H; ++h) {
      head << l << "," << h << "," << texts << "," << mean(static_cast<double>(pairs[l][h]), texts);
      for (const auto& s : a.stats) {
        const int64_t undefined = s.undefined[l][h].item<int64_t>();
        head << "," << mean(s.sum[l][h].item<double>(), texts - undefined) << "," << undefined;
      }
      head << "," << mean(chance_sum, a.chance_histogram.sum().item<int64_t>()) << "\n";
      for (int64_t d = 1; d < N; ++d) {
        pooled[static_cast<size_t>(d)] += distances[l][h][d];
        if (distances[l][h][d]) head_distances << l << "," << h << "," << d << "," << distances[l][h][d] << "\n";
      }
    }
    double distance_sum = 0, distance_count = 0;
    for (int64_t d = 1; d < N; ++d) {
      distance_sum += static_cast<double>(d * pooled[static_cast<size_t>(d)]);
      distance_count += static_cast<double>(pooled[static_cast<size_t>(d)]);
      if (pooled[static_cast<size_t>(d)])
        layer_distances << l << "," << d << "," << pooled[static_cast<size_t>(d)] << "\n";
    }
    layer << l << "," << texts << "," << mean(anchor_sum, texts) << ","
          << mean(distance_sum, static_cast<int64_t>(distance_count)) << "\n";
  }
  write_file_atomically(dir / "per_head.csv", head.str());
  write_file_atomically(dir / "per_layer.csv", layer.str());
  write_file_atomically(dir / "head_distances.csv", head_distances.str());
  write_file_atomically(dir / "layer_distances.csv", layer_distances.str());
}

std::filesystem::path default_csv_folder(const std::filesystem::path& result) {
  return std::filesystem::path(result).replace_extension("").string() + "-csv";
}

}  // namespace attnscope
