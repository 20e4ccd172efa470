// Long texts from the command line (--maps-up-to): a text past the length keeps queries and keys,
// not maps, and analyze, heads, stats, pairs (of S, its cosine or a lens) and figure print exactly what
// they print with every map kept (the real MiniLM at 256 tokens), on words too, and compare its
// measures; what needs the maps is refused in one line.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"
#include "results/text_run_file.h"
#include "support/minilm.h"
#include "support/modified_checkpoint.h"

namespace attnscope {
namespace {

using namespace test;

class CliLongText : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    std::string text;
    for (const auto& entry : std::filesystem::directory_iterator(source_dir() / "assets" / "corpus"))
      text += slurp(entry.path()) + "\n";
    file_ = (dir_.path() / "long.txt").string();
    std::ofstream(file_) << text;
  }
  std::vector<std::string> args(const std::vector<std::string>& command, bool long_text) const {
    std::vector<std::string> a = command;
    a.insert(a.end(), {"--model", minilm_dir().string(), "--file", file_, "--max-len", "256"});
    if (long_text) a.insert(a.end(), {"--maps-up-to", "100"});
    return a;
  }
  std::string file_;
};

TEST_F(CliLongText, PrintsWhatEveryMapKeptPrints) {
  for (const auto& command :
       std::vector<std::vector<std::string>>{{"heads", "--json"},
                                             {"stats"},
                                             {"pairs", "--layer", "5", "--head", "0"},
                                             {"pairs", "--layer", "5", "--head", "0", "--pairs-from", "cosine"},
                                             // A lens: each head's map made whole again (long_text_lens_pairs.h).
                                             {"pairs", "--layer", "5", "--head", "0", "--pairs-from", "attention"},
                                             {"pairs", "--layer", "2", "--head", "7", "--pairs-from", "norm"},
                                             {"stats", "--pairs-from", "rollout"}}) {
    const Outcome long_text = run_cli(args(command, true)), maps = run_cli(args(command, false));
    ASSERT_EQ(long_text.status, 0) << long_text.err;
    ASSERT_EQ(maps.status, 0) << maps.err;
    EXPECT_EQ(long_text.out, maps.out) << command.front();
  }
  // Separators from a lens: a long text's made from its maps made again (pipeline/long_text_separators.h).
  for (const char* from : {"attention", "norm", "rollout"}) {
    const std::vector<std::string> analyze = {"analyze", "--out", "-", "--captures", "none", "--separators-from", from};
    const Outcome long_text = run_cli(args(analyze, true)), maps = run_cli(args(analyze, false));
    ASSERT_EQ(long_text.status, 0) << long_text.err;
    ASSERT_EQ(maps.status, 0) << maps.err;
    nlohmann::json a = nlohmann::json::parse(long_text.out), b = nlohmann::json::parse(maps.out);
    EXPECT_EQ(a["analysis"], b["analysis"]) << from;
    EXPECT_EQ(a["head_roles"], b["head_roles"]) << from;
  }
}

// On words: the word maps made from the pieces' maps made again (analysis/word_level.h), the same
// statistics, pairs, analysis and overview as the words of every map kept.
TEST_F(CliLongText, OnWordsPrintsWhatEveryMapKeptPrints) {
  for (const auto& command :
       std::vector<std::vector<std::string>>{{"stats", "--words"},
                                             {"pairs", "--layer", "4", "--head", "2", "--words"},
                                             {"analyze", "--out", "-", "--words", "--captures", "none"}}) {
    const Outcome long_text = run_cli(args(command, true)), maps = run_cli(args(command, false));
    ASSERT_EQ(long_text.status, 0) << long_text.err;
    ASSERT_EQ(maps.status, 0) << maps.err;
    if (command.front() != "analyze") {
      EXPECT_EQ(long_text.out, maps.out) << command.front();
      continue;
    }
    nlohmann::json a = nlohmann::json::parse(long_text.out), b = nlohmann::json::parse(maps.out);
    EXPECT_EQ(a["analysis"], b["analysis"]);
    EXPECT_EQ(a["tokens"], b["tokens"]);
  }
}

// The overview (made again block by block of rows), figure 5 (a head's maps and S made again) and
// the norm-based lens's overview and layer map (from attention made again and the kept value
// vectors), and the rollout after a layer or after each of several (made a block of rows at a time,
// in one pass) draw the same SVG as with every map kept.
TEST_F(CliLongText, DrawsTheFiguresEveryMapKeptDraws) {
  const std::vector<std::vector<std::string>> figures = {{"grid"},
                                                         {"5"},
                                                         {"grid", "--matrix", "norm"},
                                                         {"head", "--matrix", "norm", "--head", "-1"},
                                                         {"head", "--matrix", "rollout"},
                                                         {"12", "--layer-matrix", "rollout", "--layers", "1,4"}};
  for (size_t f = 0; f < figures.size(); ++f) {
    const std::string long_svg = (dir_.path() / ("long-" + std::to_string(f) + ".svg")).string(),
                      maps_svg = (dir_.path() / ("maps-" + std::to_string(f) + ".svg")).string();
    const auto command = [&](const std::string& out) {
      std::vector<std::string> c = {"figure", "--fig"};
      c.insert(c.end(), figures[f].begin(), figures[f].end());
      c.insert(c.end(), {"--layer", "4", "--out", out});
      return c;
    };
    const Outcome long_text = run_cli(args(command(long_svg), true));
    const Outcome maps = run_cli(args(command(maps_svg), false));
    ASSERT_EQ(long_text.status, 0) << long_text.err;
    ASSERT_EQ(maps.status, 0) << maps.err;
    EXPECT_EQ(slurp(long_svg), slurp(maps_svg)) << figures[f].front();
  }
}

// A long text's result holds what makes every map again: its queries and keys, the maps' column
// sums and the head outputs. Read back, the model makes from them the maps a short run writes, to
// the bit; Python makes a head's map from the file alone as docs/result-format.md shows. A result
// over --max-size is refused before anything is written, saying what it would need.
TEST_F(CliLongText, WritesWhatMakesEveryMapAgain) {
  const std::filesystem::path long_out = dir_.path() / "long.safetensors", maps_out = dir_.path() / "maps.safetensors";
  const Outcome long_text = run_cli(args({"analyze", "--out", long_out.string()}, true));
  ASSERT_EQ(long_text.status, 0) << long_text.err;
  const Outcome maps = run_cli(args({"analyze", "--out", maps_out.string(), "--captures", "attention"}, false));
  ASSERT_EQ(maps.status, 0) << maps.err;
  const TextRunFile a = load_text_run(long_out), b = load_text_run(maps_out);
  ASSERT_EQ(a.captures, CaptureSet::QueriesAndKeys);
  EXPECT_FALSE(a.run.captures.attention.defined());
  ASSERT_TRUE(a.run.captures.column_sums.defined() && a.run.captures.head_outputs.defined());
  EXPECT_EQ(a.analysis->summary, b.analysis->summary);
  const Transformer& model = minilm_checkpoint().model();
  for (const int64_t layer : {0, 5})
    EXPECT_TRUE(at::equal(model.recompute_attention(a.run.captures.queries[layer], a.run.captures.keys[layer], layer),
                          b.run.captures.attention[layer]))
        << "layer " << layer;
  const std::string script = R"PY(
import json, sys
import numpy as np
from safetensors import safe_open
with safe_open(sys.argv[1], "np") as f:
    doc = json.loads(f.metadata()["document"])
    q, k = f.get_tensor("queries"), f.get_tensor("keys")
how = doc["attention"]
layer, head = 3, 7
key_head = head // (q.shape[1] // k.shape[1])
scores = (q[layer, head] * np.float32(how["scale"])) @ k[layer, key_head].T
if how["softcap"] > 0:
    scores = np.tanh(scores / how["softcap"]) * how["softcap"]
i, j = np.arange(len(scores))[:, None], np.arange(len(scores))[None, :]
hidden = (j > i) if how["causal"] else np.zeros(scores.shape, bool)
if layer in how["local_layers"]:
    hidden = hidden | (np.abs(i - j) > how["local_window"])
scores[hidden] = -np.inf
A = np.exp(scores - scores.max(axis=1, keepdims=True))
A /= A.sum(axis=1, keepdims=True)
with safe_open(sys.argv[2], "np") as f:
    print(float(np.abs(A - f.get_tensor("attention")[layer, head]).max()))
)PY";
  write_text(dir_.path() / "make_map.py", script);
  const Outcome python =
      run({venv_python().string(), (dir_.path() / "make_map.py").string(), long_out.string(), maps_out.string()});
  ASSERT_EQ(python.status, 0) << python.err;
  EXPECT_LT(std::stod(python.out), 1e-6) << python.out;
  expect_one_line_error(
      args({"analyze", "--out", (dir_.path() / "big.safetensors").string(), "--max-size", "0.001"}, true),
      "MB, more than its limit of 1.0 MB");
  // Its masks and pair values alone take more than 100 kB: the smaller of the two is what to allow.
  const Outcome big =
      run_cli(args({"analyze", "--out", (dir_.path() / "big.safetensors").string(), "--max-size", "0.0001"}, true));
  EXPECT_NE(big.err.find("or more"), std::string::npos) << big.err;
  EXPECT_EQ(big.err.find("give --captures none"), std::string::npos) << big.err;
  // Refused before the forward (after it the size is known to the byte, not "at least").
  EXPECT_NE(big.err.find("would take at least"), std::string::npos) << big.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "big.safetensors"));
  // So is a capture set a long text does not keep.
  const Outcome maps_asked = run_cli(
      args({"analyze", "--out", (dir_.path() / "maps.json").string(), "--captures", "attention", "--max-size", "0.001"},
           true));
  EXPECT_NE(maps_asked.err.find("kept no attention maps"), std::string::npos) << maps_asked.err;
}

// compare on two long runs (the model and a noisy copy of it) sums its map measures a block of rows
// at a time, its maps made again, and prints what it prints with every map kept, within the rounding
// of float64 sums taken in another order; the figure of the two runs is the same.
TEST_F(CliLongText, ComparesAsWithEveryMapKept) {
  write_modified_checkpoint(minilm_dir(), dir_.path() / "noisy", add_noise(0.1, 11));
  const auto compare = [&](bool long_text) {
    return run_cli(args({"compare", "--json", "--model-b", (dir_.path() / "noisy").string()}, long_text));
  };
  const Outcome long_text = compare(true), maps = compare(false);
  ASSERT_EQ(long_text.status, 0) << long_text.err;
  ASSERT_EQ(maps.status, 0) << maps.err;
  const nlohmann::json a = nlohmann::json::parse(long_text.out)["heads"], b = nlohmann::json::parse(maps.out)["heads"];
  ASSERT_EQ(a.size(), 72u);
  ASSERT_EQ(b.size(), 72u);
  for (size_t k = 0; k < b.size(); ++k) {
    for (const char* key : {"cka", "attention_cosine", "attention_max_difference", "similarity_relative_change"}) {
      ASSERT_TRUE(a[k][key].is_number() && b[k][key].is_number()) << key;
      const double want = b[k][key].get<double>();
      EXPECT_NEAR(a[k][key].get<double>(), want, 1e-9 * std::max(1.0, std::abs(want))) << key << ", head " << k;
    }
    EXPECT_EQ(a[k]["jaccard"], b[k]["jaccard"]) << "head " << k;
    EXPECT_EQ(a[k]["matched_head"], b[k]["matched_head"]) << "head " << k;
  }
  // The figure of both runs' maps and their difference: the maps made again, the same picture.
  const auto figure = [&](bool long_text) {
    const std::string out = (dir_.path() / (long_text ? "long-compared.svg" : "maps-compared.svg")).string();
    const Outcome made = run_cli(args({"figure", "--fig", "head", "--layer", "3", "--head", "5", "--model-b",
                                       (dir_.path() / "noisy").string(), "--out", out},
                                      long_text));
    EXPECT_EQ(made.status, 0) << made.err;
    return slurp(out);
  };
  EXPECT_EQ(figure(true), figure(false));
}

TEST_F(CliLongText, RefusesWhatNeedsEveryMapInOneLine) {
  expect_one_line_error(
      args({"analyze", "--out", (dir_.path() / "r.safetensors").string(), "--captures", "attention"}, true),
      "queries-keys");
  expect_one_line_error(
      args({"analyze", "--words", "--out", (dir_.path() / "w.safetensors").string(), "--captures", "queries-keys"},
           true),
      "words");
  expect_one_line_error(args({"stats", "--maps-up-to", "-3"}, false), "maps-up-to");
}

}  // namespace
}  // namespace attnscope
