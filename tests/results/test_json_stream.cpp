// A JSON document with tensors written a piece at a time: byte for byte the dump of the whole
// document (tensor_to_json's members, the tensors by name), whatever the piece, both encodings,
// with the share written reported as it goes.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <sstream>

#include "base/error.h"
#include "results/json_stream.h"
#include "results/tensor_json.h"

namespace attnscope {
namespace {

StreamedTensor bytes_made_later(const std::string& name, int64_t count) {
  return {name, at::kByte, {count}, [count](std::ostream& out) {
            for (int64_t k = 0; k < count; ++k) out.put(static_cast<char>(k * 37 % 256));
          }};
}

TEST(JsonStream, WritesWhatTheWholeDocumentsDumpWrites) {
  const nlohmann::json document = {{"version", 2}, {"text", "a \"quoted\" caf\u00e9\n"}, {"analysis", {{"x", 1.5}}}};
  const NamedTensors tensors = {{"maps", at::randn({3, 5, 7}, at::kFloat) * 1e-3},
                                {"b_ids", at::arange(11, at::kLong)},
                                {"empty", at::zeros({0, 4}, at::kFloat)},
                                {"norms", at::randn({9}, at::kDouble)}};
  const std::vector<StreamedTensor> streamed = {bytes_made_later("pairs", 17), bytes_made_later("a_first", 2)};
  for (const bool decimal : {false, true}) {
    nlohmann::json whole = document;
    for (const auto& [name, t] : tensors) whole["tensors"][name] = tensor_to_json(t, decimal);
    for (const StreamedTensor& t : streamed) whole["tensors"][t.name] = tensor_to_json(t.made(), decimal);
    for (const size_t piece : {size_t{1}, size_t{7}, size_t{12}, size_t{1} << 20}) {
      std::ostringstream out;
      write_json_with_tensors(out, document, tensors, streamed, {.decimal = decimal, .piece_bytes = piece});
      EXPECT_EQ(out.str(), whole.dump()) << (decimal ? "decimal" : "base64") << ", pieces of " << piece;
    }
  }
}

TEST(JsonStream, ReportsTheShareOfTheTensorsWritten) {
  std::vector<double> reported;
  std::ostringstream out;
  write_json_with_tensors(out, {{"k", 1}}, {{"t", at::zeros({30}, at::kByte)}}, {bytes_made_later("s", 10)},
                          {.piece_bytes = 12, .progress = [&](std::string_view stage, double share) {
                             EXPECT_EQ(stage, "writing");
                             reported.push_back(share);
                           }});
  // "s" first by name: its 10 bytes in one piece, then "t" in pieces of 12, 12 and 6.
  EXPECT_EQ(reported, (std::vector<double>{10.0 / 40, 22.0 / 40, 34.0 / 40, 1.0}));
  EXPECT_EQ(nlohmann::json::parse(out.str())["k"], 1);
}

TEST(JsonStream, ADocumentThatIsNoObjectIsRefused) {
  std::ostringstream out;
  EXPECT_THROW(write_json_with_tensors(out, nlohmann::json::array(), {}, {}), Error);
}

}  // namespace
}  // namespace attnscope
