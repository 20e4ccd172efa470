#pragma once
// A JSON document holding tensors (a result file's JSON container) written to a stream a piece at
// a time. As one nlohmann document and its dump, a BERT-base-sized result of 512 tokens (230 MB of
// JSON) held three copies of its tensors and took seconds without a word; written here, each
// tensor's data is encoded a piece at a time, and the bytes are those the whole dump gives.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "base/progress.h"
#include "results/safetensors_writer.h"

namespace attnscope {

struct JsonTensorStream {
  std::string member = "tensors";         // the member of the document that holds them
  bool decimal = false;                   // float tensors as decimal lists (tensor_json.h)
  size_t piece_bytes = size_t{12} << 20;  // a tensor's data encoded about this many bytes at a time
  ProgressReport progress = {};           // ("writing", share of the tensors' bytes) after each piece
};

// `document` (an object) with the member options.member: {name: tensor_to_json(t, decimal), ...}
// of `tensors` and `streamed` (each made whole in its turn), written to `out` as dump() writes it.
void write_json_with_tensors(std::ostream& out, const nlohmann::json& document, const NamedTensors& tensors,
                             const std::vector<StreamedTensor>& streamed, const JsonTensorStream& options = {});

}  // namespace attnscope
