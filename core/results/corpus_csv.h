#pragma once
// A corpus run's tables as CSV (header row, one record per line, plain numbers; empty cells where
// a mean is undefined), each written atomically into `dir`:
//   per_head.csv        layer, head, texts, mean pairs, the per-text statistics' means and
//                       how many texts left each undefined, the same-sentence chance level
//   per_layer.csv       layer, texts, mean distinct anchors, mean pair distance
//   head_distances.csv  layer, head, distance, pairs (distances that occur)
//   layer_distances.csv layer, distance, pairs
#include <filesystem>

#include "corpus/corpus_accumulator.h"

namespace attnscope {

void write_corpus_csv(const std::filesystem::path& dir, CorpusAccumulator& accumulator);

// Where the tables of a result file go unless told: "run.json" -> "run-csv".
std::filesystem::path default_csv_folder(const std::filesystem::path& result);

}  // namespace attnscope
