#include "results/corpus_csv.h"

#include <ATen/ATen.h>

#include <sstream>

#include "base/atomic_file.h"
#include "base/error.h"
#include "corpus/corpus_summary.h"

namespace attnscope {
namespace {

// A cell: the value with 10 significant digits, empty when undefined.
std::string cell(const std::optional<double>& v) {
  if (!v) return "";
  std::ostringstream out;
  out.precision(10);
  out << *v;
  return out.str();
}

std::optional<double> mean(double sum, int64_t count) {
  if (count <= 0) return std::nullopt;
  return sum / static_cast<double>(count);
}

const TokenClass kClasses[] = {TokenClass::First, TokenClass::Special, TokenClass::Punctuation, TokenClass::Word};

// per_head.csv: the statistics' means over texts, then where the head's summed attention lies.
std::string per_head_table(const CorpusAccumulator& a) {
  std::ostringstream out;
  out << "layer,head,texts,mean_pairs";
  for (int k = 0; k < CorpusAccumulator::kStats; ++k)
    out << "," << CorpusAccumulator::stat_name(k) << "_mean," << CorpusAccumulator::stat_name(k) << "_undefined";
  out << ",chance_same_sentence_mean,pooled_mean_distance,diagonal_band_share,"
         "diagonal_band_share_without_separators,rows_peaking_on_band\n";
  const at::Tensor band = band_shares(a.attention_sum()), band_without = band_shares(a.attention_without_separators()),
                   peaks = rows_peaking_on_band(a.attention_without_separators());
  const auto pairs = a.pair_count_sum.accessor<int64_t, 2>();
  for (int64_t l = 0; l < a.layers(); ++l)
    for (int64_t h = 0; h < a.heads(); ++h) {
      out << l << "," << h << "," << a.texts() << "," << cell(mean(static_cast<double>(pairs[l][h]), a.texts()));
      for (int k = 0; k < CorpusAccumulator::kStats; ++k)
        out << "," << cell(head_stat_mean(a, k, l, h)) << "," << a.stats[k].undefined[l][h].item<int64_t>();
      out << "," << cell(chance_mean(a)) << "," << cell(head_pooled_mean_distance(a, l, h)) << ","
          << cell(band[l][h].item<double>()) << "," << cell(band_without[l][h].item<double>()) << ","
          << cell(peaks[l][h].item<double>()) << "\n";
    }
  return out.str();
}

// per_layer.csv: anchors and distances, where the layer's attention lies, its separators by class.
std::string per_layer_table(const CorpusAccumulator& a) {
  std::ostringstream out;
  out << "layer,texts,mean_distinct_anchors,mean_distance,first_column_share,diagonal_band_share,separators";
  for (TokenClass c : kClasses) out << ",separators_" << token_class_key(c) << "_share";
  out << "\n";
  const at::Tensor sums = a.attention_sum();
  const at::Tensor columns = layer_column_shares(sums), band = band_shares(sums.sum(1, true));
  for (int64_t l = 0; l < a.layers(); ++l) {
    out << l << "," << a.texts() << "," << cell(mean_distinct_anchors(a, l)) << ","
        << cell(layer_pooled_mean_distance(a, l)) << "," << cell(columns[l][0].item<double>()) << ","
        << cell(band[l][0].item<double>()) << ","
        << (a.has_token_classes() ? std::to_string(a.separator_classes[l].sum().item<int64_t>()) : "");
    for (TokenClass c : kClasses) out << "," << cell(separator_class_share(a, l, c));
    out << "\n";
  }
  return out.str();
}

}  // namespace

void write_corpus_csv(const std::filesystem::path& dir, CorpusAccumulator& a) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir)) throw Error(dir.string() + ": cannot create the folder for the CSV tables");
  std::ostringstream head_distances, layer_distances;
  head_distances << "layer,head,distance,pairs\n";
  layer_distances << "layer,distance,pairs\n";
  const auto distances = a.distance_histogram.accessor<int64_t, 3>();
  for (int64_t l = 0; l < a.layers(); ++l) {
    std::vector<int64_t> pooled(static_cast<size_t>(a.window()), 0);
    for (int64_t h = 0; h < a.heads(); ++h)
      for (int64_t d = 1; d < a.window(); ++d) {
        pooled[static_cast<size_t>(d)] += distances[l][h][d];
        if (distances[l][h][d]) head_distances << l << "," << h << "," << d << "," << distances[l][h][d] << "\n";
      }
    for (int64_t d = 1; d < a.window(); ++d)
      if (pooled[static_cast<size_t>(d)])
        layer_distances << l << "," << d << "," << pooled[static_cast<size_t>(d)] << "\n";
  }
  write_file_atomically(dir / "per_head.csv", per_head_table(a));
  write_file_atomically(dir / "per_layer.csv", per_layer_table(a));
  write_file_atomically(dir / "head_distances.csv", head_distances.str());
  write_file_atomically(dir / "layer_distances.csv", layer_distances.str());
}

std::filesystem::path default_csv_folder(const std::filesystem::path& result) {
  return std::filesystem::path(result).replace_extension("").string() + "-csv";
}

}  // namespace attnscope
