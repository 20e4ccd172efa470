// attnscope-cli as a user meets it: every bad input ends with one line on standard error and a
// non-zero exit; good input gives results the core can read back. Here: help, tokenize, analyze
// (with lenses), pairs, stats, corpus runs and shards, model ids, downloads from a loopback Hub, bad
// inputs, in that order. Figures: test_cli_figure.cpp; other encoders: test_cli_encoders.cpp; comparisons:
// test_cli_compare.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "cli/cli_runner.h"
#include "results/result_json.h"
#include "model/safetensors.h"
#include "support/fake_hub.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

using namespace test;

TEST_F(Cli, HelpForEveryCommand) {
  for (const std::vector<std::string> args : {std::vector<std::string>{"--help"},
                                              {"tokenize", "--help"},
                                              {"analyze", "--help"},
                                              {"pairs", "--help"},
                                              {"stats", "--help"},
                                              {"heads", "--help"},
                                              {"compare", "--help"},
                                              {"figure", "--help"}}) {
    const Outcome o = run_cli(args);
    EXPECT_EQ(o.status, 0);
    EXPECT_NE(o.out.find("--"), std::string::npos);
  }
  EXPECT_NE(run_cli({"analyze", "--help"}).out.find("--max-len"), std::string::npos);
}

TEST_F(Cli, TokenizePrintsIdsAndByteRanges) {
  const Outcome o = run_cli({"tokenize", "--model", tiny(), "--text", "The cat", "--json"});
  ASSERT_EQ(o.status, 0) << o.err;
  const auto json = nlohmann::json::parse(o.out);
  EXPECT_EQ(json["tokens"].size(), 4u);
  EXPECT_EQ(json["tokens"][2]["text"], "cat");
  EXPECT_EQ(json["tokens"][2]["begin"], 4);
}

TEST_F(Cli, AnalyzeWritesAResultTheCoreReadsBack) {
  const auto out = dir_ / "r.json";
  const Outcome o = run_cli(
      {"analyze", "--model", tiny(), "--text", "The cat sat on the mat.", "--device", "cpu", "--out", out.string()});
  ASSERT_EQ(o.status, 0) << o.err;
  const TextRunFile file = load_text_run(out);
  EXPECT_EQ(file.run.captures.num_layers, 2);
  EXPECT_EQ(file.run.encoding.size(), 9u);
  EXPECT_EQ(file.device, "cpu float32");
}

TEST_F(Cli, AnalyzeKeepsTheLensesWhenAsked) {
  const auto out = dir_ / "lenses.safetensors";
  ASSERT_EQ(
      run_cli({"analyze", "--model", tiny(), "--text", "The cat sat on the mat.", "--lenses", "--out", out.string()})
          .status,
      0);
  const SafetensorsFile file(out);
  for (const char* name : {"value_norms", "norm_layer_maps", "rollout", "queries", "keys"})
    EXPECT_NE(file.find(name), nullptr) << name;
  const auto plain = dir_ / "plain.safetensors";
  ASSERT_EQ(
      run_cli({"analyze", "--model", tiny(), "--text", "The cat sat on the mat.", "--out", plain.string()}).status, 0);
  EXPECT_EQ(SafetensorsFile(plain).find("rollout"), nullptr);
}

TEST_F(Cli, AnalyzeIncludesTheAnalysis) {
  const auto out = dir_ / "r.json";
  ASSERT_EQ(run_cli({"analyze", "--model", tiny(), "--text", "The cat sat. The dog sat.", "--out", out.string(),
                     "--tau", "0.5", "--no-special", "--sentences", "segments", "--segments-from", "1:0"})
                .status,
            0);
  const auto json = test::read_json(out);  // a .json name gives the JSON container
  const auto& analysis = json["analysis"];
  EXPECT_EQ(analysis["settings"]["tau"], 0.5);
  EXPECT_EQ(analysis["settings"]["include_special"], false);
  EXPECT_EQ(analysis["settings"]["sentences"], "segments");
  EXPECT_EQ(analysis["settings"]["segment_map"]["head"], 0);
  EXPECT_EQ(analysis["layers"].size(), 2u);
  EXPECT_EQ(analysis["layers"][1]["heads"].size(), 2u);
  EXPECT_EQ(analysis["sentences"].size(), json["tokens"].size());
  const TextRunFile file = load_text_run(out);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) {
      const auto pairs = stored_pairs(file, l, h);
      EXPECT_EQ(static_cast<int64_t>(pairs.size()), analysis["layers"][l]["heads"][h]["pair_count"].get<int64_t>());
      for (const TokenPair& p : pairs) {
        EXPECT_GE(p.value, 0.5);
        EXPECT_NE(p.i, 0);  // [CLS] left out
      }
    }
}

// The binary result opens in Python with safetensors and numpy, and its pairs, unpacked as
// docs/result-format.md says, are the ones `pairs` prints.
TEST_F(Cli, BinaryResultOpensInPythonWithThePairsOfThePairsCommand) {
  const std::string text = "The keeper climbed the stairs. The keeper lit the lamp.";
  for (const char* captures : {"all", "none"}) {
    const auto out = dir_ / (std::string("r-") + captures + ".safetensors");
    ASSERT_EQ(
        run_cli({"analyze", "--model", tiny(), "--text", text, "--out", out.string(), "--captures", captures}).status,
        0);
    const Outcome pairs =
        run_cli({"pairs", "--model", tiny(), "--text", text, "--layer", "1", "--head", "0", "--json"});
    ASSERT_EQ(pairs.status, 0) << pairs.err;
    const std::string script = R"PY(
import json, sys
import numpy as np
from safetensors import safe_open
with safe_open(sys.argv[1], "np") as f:
    doc = json.loads(f.metadata()["document"])
    t = {k: f.get_tensor(k) for k in f.keys()}
n = len(doc["tokens"]); L, H = t["pair_mask"].shape[:2]
i, j = np.triu_indices(n, 1)
masks = np.unpackbits(t["pair_mask"], axis=-1, count=len(i), bitorder="little").astype(bool)
layer, head = 1, 0
keep = masks[layer, head]
if "head_outputs" in t:
    c = t["head_outputs"][layer, head]
    values = (c @ c.T)[i[keep], j[keep]] / doc["analysis"]["layers"][layer]["heads"][head]["scale"]
else:
    before = int(masks.reshape(L * H, -1)[: layer * H + head].sum())
    values = t["pair_value"][before : before + keep.sum()]
print(json.dumps([[int(a), int(b), float(v)] for a, b, v in zip(i[keep], j[keep], values)]))
)PY";
    test::write_text(dir_ / "read.py", script);
    const Outcome python = run({test::venv_python().string(), (dir_ / "read.py").string(), out.string()});
    ASSERT_EQ(python.status, 0) << python.err;
    const auto ours = nlohmann::json::parse(pairs.out)["pairs"], theirs = nlohmann::json::parse(python.out);
    ASSERT_EQ(ours.size(), theirs.size()) << captures;
    for (size_t k = 0; k < ours.size(); ++k) {
      EXPECT_EQ(ours[k]["index_i"], theirs[k][0]);
      EXPECT_EQ(ours[k]["index_j"], theirs[k][1]);
      EXPECT_NEAR(ours[k]["value"].get<double>(), theirs[k][2].get<double>(), 1e-5);
    }
  }
}

TEST_F(Cli, PairsAndStatsForOneHead) {
  const Outcome pairs = run_cli(
      {"pairs", "--model", tiny(), "--text", "the cat sat on the mat", "--layer", "1", "--head", "1", "--json"});
  ASSERT_EQ(pairs.status, 0) << pairs.err;
  const auto p = nlohmann::json::parse(pairs.out);
  EXPECT_EQ(p["layer"], 1);
  for (const auto& pair : p["pairs"]) EXPECT_LT(pair["index_i"].get<int>(), pair["index_j"].get<int>());
  const Outcome table =
      run_cli({"pairs", "--model", tiny(), "--text", "the cat sat on the mat", "--layer", "0", "--head", "0"});
  EXPECT_NE(table.out.find("Layer 0, head 0"), std::string::npos);
  const Outcome stats = run_cli({"stats", "--model", tiny(), "--text", "the cat sat. the dog sat.", "--json"});
  ASSERT_EQ(stats.status, 0) << stats.err;
  const auto st = nlohmann::json::parse(stats.out);
  EXPECT_EQ(st["layers"].size(), 2u);
  EXPECT_TRUE(st["layers"][0]["heads"][0].contains("chance_same_sentence"));
  EXPECT_NE(
      run_cli({"stats", "--model", tiny(), "--text", "the cat", "--layer", "1"}).out.find("distinct anchor tokens"),
      std::string::npos);
}

// --top N: the N pairs of largest value, largest first, of the head's whole list (which the JSON
// counts in pair_count either way); the table's title says how many of how many it shows.
TEST_F(Cli, PairsTopListsTheStrongestFirst) {
  const std::vector<std::string> args{"pairs",   "--model", tiny(),   "--text", "the cat sat on the mat. the dog sat.",
                                      "--layer", "1",       "--head", "0",      "--tau",
                                      "0.01",    "--json"};
  const Outcome all = run_cli(args);
  ASSERT_EQ(all.status, 0) << all.err;
  std::vector<std::tuple<float, int, int>> expected;  // (-value, i, j): the strongest first, ties in text order
  const nlohmann::json every = nlohmann::json::parse(all.out);
  for (const auto& p : every["pairs"])
    expected.emplace_back(-p["value"].get<float>(), p["index_i"].get<int>(), p["index_j"].get<int>());
  ASSERT_GT(expected.size(), 5u) << all.out;
  std::sort(expected.begin(), expected.end());
  auto top_args = args;
  top_args.insert(top_args.end() - 1, {"--top", "5"});
  const Outcome top = run_cli(top_args);
  ASSERT_EQ(top.status, 0) << top.err;
  const auto t = nlohmann::json::parse(top.out);
  EXPECT_EQ(t["pair_count"].get<size_t>(), expected.size());
  ASSERT_EQ(t["pairs"].size(), 5u);
  for (size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(t["pairs"][k]["value"].get<float>(), -std::get<0>(expected[k])) << k;
    EXPECT_EQ(t["pairs"][k]["index_i"].get<int>(), std::get<1>(expected[k])) << k;
    EXPECT_EQ(t["pairs"][k]["index_j"].get<int>(), std::get<2>(expected[k])) << k;
  }
  top_args.pop_back();  // the table
  const Outcome table = run_cli(top_args);
  EXPECT_NE(table.out.find(std::to_string(expected.size()) + " pairs with S / max S >= 0.01"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("the 5 strongest, strongest first"), std::string::npos) << table.out;
  EXPECT_EQ(std::count(table.out.begin(), table.out.end(), '\n'), 2 + 5);  // title, header, five rows
  expect_one_line_error({"pairs", "--model", tiny(), "--text", "x", "--layer", "0", "--head", "0", "--top", "0"},
                        "--top");
}

TEST_F(Cli, CorpusRunsResumesAndWritesCsv) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "the cat sat on the mat . a dog sat . ";
  test::write_text(dir_ / "corpus.txt", text);
  const auto out = (dir_ / "c.json").string();
  const Outcome first = run_cli({"corpus", "--model", tiny(), "--input", (dir_ / "corpus.txt").string(), "--max-len",
                                 "16", "--batch", "4", "--max-windows", "8", "--out", out});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_NE(first.err.find("corpus: 100.0%"), std::string::npos) << first.err;  // plain progress lines off a terminal
  EXPECT_NE(first.err.find(" s forward passes, "), std::string::npos) << first.err;  // where the time went
  EXPECT_TRUE(std::filesystem::exists(dir_ / "c-csv" / "per_head.csv"));
  // The tables load in pandas with numeric columns and one row per head / layer.
  const std::string check = test::venv_python().string() +
                            " -c \"import pandas as pd, sys; d = sys.argv[1]; "
                            "h = pd.read_csv(d + '/per_head.csv'); l = pd.read_csv(d + '/per_layer.csv'); "
                            "pd.read_csv(d + '/head_distances.csv'); pd.read_csv(d + '/layer_distances.csv'); "
                            "assert len(h) == 4 and len(l) == 2, (len(h), len(l)); "
                            "assert all(str(t) in ('int64', 'float64') for t in h.dtypes), h.dtypes\" " +
                            (dir_ / "c-csv").string();
  EXPECT_EQ(std::system(check.c_str()), 0) << check;
  const auto json = test::read_json(out);
  EXPECT_EQ(json["windows"], 8);
  EXPECT_EQ(json["partial"], false);
  const Outcome again = run_cli({"corpus", "--model", tiny(), "--input", (dir_ / "corpus.txt").string(), "--max-len",
                                 "16", "--batch", "4", "--max-windows", "8", "--out", out, "--resume"});
  EXPECT_EQ(again.status, 0);
  EXPECT_NE(again.out.find("already complete"), std::string::npos);
  expect_one_line_error({"corpus", "--model", tiny(), "--input", (dir_ / "corpus.txt").string(), "--max-len", "12",
                         "--out", out, "--resume"},
                        "another model, input, window");
  expect_one_line_error({"corpus", "--model", tiny(), "--input", (dir_ / "nothing").string()},
                        "no such file or folder");
  expect_one_line_error({"corpus", "--model", tiny(), "--input", (dir_ / "corpus.txt").string(), "--out",
                         (dir_ / "none.json").string(), "--resume"},
                        "cannot open");
}

// A decoder's windows hold what its template leaves: SmolLM2 adds no token, so a window of 16 holds
// 16 pieces, and the file says so; a saved run whose windows held fewer is not resumed.
TEST_F(Cli, ADecodersCorpusWindowsFillEveryPosition) {
  const auto model = real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf");
  if (!std::filesystem::exists(model)) return;  // real_model_file said how to fetch it
  std::string text;
  for (int i = 0; i < 30; ++i) text += "the cat sat on the mat. a dog sat. ";
  test::write_text(dir_ / "corpus.txt", text);
  const auto out = (dir_ / "c.json").string();
  const std::vector<std::string> args{
      "corpus",        "--model", model.string(), "--input", (dir_ / "corpus.txt").string(), "--max-len", "16",
      "--max-windows", "3",       "--out",        out};
  const Outcome first = run_cli(args);
  ASSERT_EQ(first.status, 0) << first.err;
  auto json = test::read_json(out);
  EXPECT_EQ(json["window_pieces"], 16);
  EXPECT_EQ(json["windows"], 3);
  json["partial"] = true;
  json["window_pieces"] = 14;  // as cut before: N - 2 whatever the template
  test::write_text(out, json.dump());
  auto resume = args;
  resume.push_back("--resume");
  expect_one_line_error(resume, "another model, input, window");
}

TEST_F(Cli, CorpusShardsMergeIntoTheWholeRun) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "the cat sat on the mat . a dog sat . ";
  test::write_text(dir_ / "corpus.txt", text);
  const std::string input = (dir_ / "corpus.txt").string();
  const auto corpus = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"corpus", "--model", tiny(), "--input", input, "--max-len", "16", "--batch", "4"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  ASSERT_EQ(corpus({"--out", (dir_ / "whole.json").string()}).status, 0);
  std::filesystem::create_directories(dir_ / "shards");
  for (int k = 0; k < 3; ++k) {
    const Outcome o = corpus({"--shard", std::to_string(k) + "/3", "--out",
                              (dir_ / "shards" / ("s" + std::to_string(k) + ".json")).string()});
    ASSERT_EQ(o.status, 0) << o.err;
  }
  const Outcome merged = run_cli({"merge", (dir_ / "merged.json").string(), (dir_ / "shards").string()});
  ASSERT_EQ(merged.status, 0) << merged.err;
  const auto whole = test::read_json(dir_ / "whole.json"), sum = test::read_json(dir_ / "merged.json");
  EXPECT_EQ(sum["windows"], whole["windows"]);
  EXPECT_EQ(sum["accumulators"]["distance_histogram"], whole["accumulators"]["distance_histogram"]);
  EXPECT_EQ(sum["accumulators"]["pair_count_sum"], whole["accumulators"]["pair_count_sum"]);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "merged-csv" / "per_head.csv"));
  EXPECT_EQ(run_cli({"figure", "--corpus", (dir_ / "merged.json").string(), "--fig", "2", "--out",
                     (dir_ / "f2.svg").string()})
                .status,
            0);
  // The explorer's name for the same file (attnscope --corpus-result) is taken too.
  EXPECT_EQ(run_cli({"figure", "--corpus-result", (dir_ / "merged.json").string(), "--fig", "3", "--out",
                     (dir_ / "f3.svg").string()})
                .status,
            0);
  // A Slurm array task finds its shard in the environment.
  const Outcome task = run({"env", "SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=4", "SLURM_ARRAY_TASK_COUNT=3",
                            test::cli_path().string(), "corpus", "--model", tiny(), "--input", input, "--max-len", "16",
                            "--shard", "auto", "--out", (dir_ / "auto.json").string()});
  ASSERT_EQ(task.status, 0) << task.err;
  EXPECT_EQ(test::read_json(dir_ / "auto.json")["shard"], (nlohmann::json{{"index", 1}, {"count", 3}}));
  expect_one_line_error({"merge", (dir_ / "m2.json").string(), (dir_ / "shards" / "s0.json").string(),
                         (dir_ / "shards" / "s2.json").string()},
                        "shard 1 of 3 is missing");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "m2.json"));
  expect_one_line_error({"corpus", "--model", tiny(), "--input", input, "--shard", "3/3"},
                        "shard 3 of 3 does not exist");
  expect_one_line_error({"corpus", "--model", tiny(), "--input", input, "--shard", "half"}, "is not K/N");
  expect_one_line_error({"corpus", "--model", tiny(), "--input", input, "--shard", "auto"},
                        "--shard auto needs SLURM_ARRAY_TASK_ID");
}

TEST_F(Cli, CorpusFailingHalfWayKeepsWhatWasDone) {
  std::filesystem::create_directories(dir_ / "texts");
  std::string good;
  for (int i = 0; i < 20; ++i) good += "the cat sat on the mat . ";
  test::write_text(dir_ / "texts" / "a.txt", good);
  test::write_text(dir_ / "texts" / "b.txt", "the dog \xff sat");
  const auto out = (dir_ / "c.json").string();
  const Outcome o = run_cli({"corpus", "--model", tiny(), "--input", (dir_ / "texts").string(), "--max-len", "16",
                             "--batch", "2", "--out", out});
  EXPECT_EQ(o.status, 1);
  // Progress lines, then exactly one error line naming the file and where the done part is.
  EXPECT_EQ(o.err.find("attnscope-cli: error: "), o.err.rfind("attnscope-cli:"));
  EXPECT_NE(o.err.find("b.txt"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("invalid UTF-8"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("--resume continues"), std::string::npos) << o.err;
  const auto saved = test::read_json(out);
  EXPECT_EQ(saved["partial"], true);
  EXPECT_GT(saved["windows"].get<int>(), 0);
}

// Ctrl-C in the middle of a run: the process stops after its batch and leaves a partial result
// that --resume completes with the same totals as an uninterrupted run.
TEST_F(Cli, CorpusInterruptedByCtrlCResumes) {
  std::string text;
  while (text.size() < 400000)
    text += "The keeper climbed the stairs every evening, and wrote the weather in his book. ";
  test::write_text(dir_ / "big.txt", text);
  const std::string model = test::minilm_dir().string(), input = (dir_ / "big.txt").string();
  const std::string base = test::cli_path().string() + " corpus --model " + model + " --input " + input +
                           " --batch 4 --max-windows 120 --threads 1";
  const auto partial = dir_ / "p.json", whole = dir_ / "w.json";
  // Start in the background, interrupt once its first progress line (10%) is out, wait for it.
  const std::string log = (dir_ / "log").string();
  const std::string interrupted = base + " --out " + partial.string() + " > " + log +
                                  " 2>&1 & pid=$!; for i in $(seq 1200); do grep -q corpus: " + log +
                                  " && break; sleep 0.05; done; kill -INT $pid; wait $pid; echo $?";
  FILE* shell = popen(interrupted.c_str(), "r");
  ASSERT_NE(shell, nullptr);
  char status[16] = {0};
  ASSERT_NE(fgets(status, sizeof status, shell), nullptr);
  pclose(shell);
  EXPECT_EQ(std::string(status), "130\n") << "the interrupted run should end with status 130";
  const auto saved = test::read_json(partial);
  EXPECT_EQ(saved["partial"], true);
  EXPECT_GT(saved["windows"].get<int>(), 0);
  EXPECT_LT(saved["windows"].get<int>(), 120);
  EXPECT_EQ(std::system((base + " --out " + partial.string() + " --resume > /dev/null 2>&1").c_str()), 0);
  EXPECT_EQ(std::system((base + " --out " + whole.string() + " > /dev/null 2>&1").c_str()), 0);
  const auto resumed = test::read_json(partial), complete = test::read_json(whole);
  EXPECT_EQ(resumed["partial"], false);
  EXPECT_EQ(resumed["windows"], complete["windows"]);
  EXPECT_EQ(resumed["accumulators"], complete["accumulators"]);
}

TEST_F(Cli, ModelIdsComeFromTheHuggingFaceCache) {
  const auto snapshot = dir_ / "hub" / "models--someone--tiny-bert" / "snapshots" / "r1";
  std::filesystem::create_directories(snapshot.parent_path());
  std::filesystem::copy(dir_ / "tiny", snapshot, std::filesystem::copy_options::recursive);
  ::setenv("HF_HUB_CACHE", (dir_ / "hub").string().c_str(), 1);
  const Outcome o =
      run_cli({"analyze", "--model", "someone/tiny-bert", "--text", "the cat", "--out", (dir_ / "r.json").string()});
  const Outcome missing = run_cli({"tokenize", "--model", "someone/other", "--text", "the cat"});
  ::unsetenv("HF_HUB_CACHE");
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("snapshots/r1"), std::string::npos) << o.out;
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.err.find("not in the Hugging Face cache"), std::string::npos) << missing.err;
}

TEST_F(Cli, BadInputsGetOneClearLine) {
  const auto bad = dir_ / "bad";
  std::filesystem::create_directories(bad);
  test::write_text(dir_ / "invalid.txt", "ok \xff here");
  test::write_text(dir_ / "empty.txt", "");
  std::string big;
  while (big.size() < (1u << 20)) big += "the cat sat on the mat. ";
  test::write_text(dir_ / "big.txt", big);

  expect_one_line_error({}, "subcommand");
  expect_one_line_error({"frobnicate"}, "frobnicate");
  expect_one_line_error({"analyze", "--text", "x"}, "--model is required");
  expect_one_line_error({"analyze", "--model", tiny()}, "no text");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "a", "--file", "b"}, "not both");
  expect_one_line_error({"analyze", "--model", (dir_ / "absent").string(), "--text", "x"}, "not a folder");
  expect_one_line_error({"analyze", "--model", bad.string(), "--text", "x"}, "vocab.txt");
  expect_one_line_error({"analyze", "--model", tiny(), "--file", (dir_ / "nope.txt").string()}, "cannot open");
  expect_one_line_error({"analyze", "--model", tiny(), "--file", dir_.path().string()}, "is a folder");
  expect_one_line_error({"analyze", "--model", tiny(), "--file", (dir_ / "empty.txt").string()}, "empty");
  expect_one_line_error({"analyze", "--model", tiny(), "--file", (dir_ / "invalid.txt").string()},
                        "invalid UTF-8 at byte 3");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", " \t "}, "no word pieces");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--max-len", "17"}, "out of range");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--max-len", "abc"}, "max-len");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--device", "tpu"}, "unknown device");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--device", "cpu", "--precision", "float16"},
                        "CUDA only");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--out", (dir_ / "no" / "r.json").string()},
                        "does not exist");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--encoding", "hex"}, "encoding");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--tau", "0"}, "tau");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--tau-sep", "2"}, "tau-sep");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--sentences", "lines"}, "sentences");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--segments-from", "one"}, "--segments-from");
  expect_one_line_error({"analyze", "--model", tiny(), "--text", "x", "--segments-from", "7"}, "not a layer");
  expect_one_line_error({"pairs", "--model", tiny(), "--text", "x", "--layer", "0"}, "--head is required");
  expect_one_line_error({"pairs", "--model", tiny(), "--text", "x", "--layer", "2", "--head", "0"},
                        "not in this model");
  expect_one_line_error({"pairs", "--model", tiny(), "--text", "x", "--layer", "-1", "--head", "0"}, "layer");
  expect_one_line_error({"stats", "--model", tiny(), "--text", "x", "--layer", "5"}, "not in this model");

  test::write_text(bad / "vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n");
  test::write_text(bad / "config.json", "{\"hidden_size\": 8,");
  expect_one_line_error({"analyze", "--model", bad.string(), "--text", "x"}, "config.json: not valid JSON");
  std::filesystem::copy_file(dir_.path() / "tiny" / "config.json", bad / "config.json",
                             std::filesystem::copy_options::overwrite_existing);
  test::write_text(bad / "model.safetensors", std::string("\x10\0\0\0\0\0\0\0{\"a\":", 13));
  expect_one_line_error({"analyze", "--model", bad.string(), "--text", "x"}, "does not fit in the file");
  test::write_text(bad / "model.safetensors", std::string("\xff\xff\xff\xff\0\0\0\0{}", 10));
  expect_one_line_error({"analyze", "--model", bad.string(), "--text", "x"}, "model.safetensors: header length");

  const Outcome big_run = run_cli({"analyze", "--model", tiny(), "--file", (dir_ / "big.txt").string(), "--max-len",
                                   "16", "--out", (dir_ / "big.json").string()});
  EXPECT_EQ(big_run.status, 0) << big_run.err;
  EXPECT_NE(big_run.out.find("--max-len 16 kept the first"), std::string::npos) << big_run.out;
}

TEST_F(Cli, DownloadThenUseTheModelById) {
  test::FakeHub hub;
  const std::string cache = (dir_ / "hub").string();
  const Outcome o = run_cli({"download", "test-org/model", "--endpoint", hub.endpoint(), "--cache", cache});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("models--test-org--model/snapshots/"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("download model.safetensors:"), std::string::npos) << o.err;  // progress lines off a terminal
  EXPECT_NE(o.err.find("MB of 90.9 MB"), std::string::npos) << o.err;
  hub.stop();
  setenv("HF_HUB_CACHE", cache.c_str(), 1);
  setenv("HF_HUB_OFFLINE", "1", 1);
  const Outcome used = run_cli({"stats", "--model", "test-org/model", "--text", "The cat sat.", "--layer", "0"});
  EXPECT_EQ(used.status, 0) << used.err;
  expect_one_line_error({"download", "test-org/model"}, "HF_HUB_OFFLINE");
  expect_one_line_error({"stats", "--model", "test-org/absent", "--text", "x", "--layer", "0"},
                        "HF_HUB_OFFLINE is set");
  unsetenv("HF_HUB_OFFLINE");
  expect_one_line_error({"stats", "--model", "test-org/absent", "--text", "x", "--layer", "0"},
                        "attnscope-cli download test-org/absent");
  unsetenv("HF_HUB_CACHE");
}

// A GGUF repository's file: the command prints its path, and says to open it by that path.
TEST_F(Cli, DownloadsAGgufRepositorysFile) {
  test::FakeHub hub;
  const std::string cache = (dir_ / "hub").string();
  const Outcome o = run_cli({"download", "test-org/gguf:Q8_0", "--endpoint", hub.endpoint(), "--cache", cache});
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string path = o.out.substr(0, o.out.find('\n'));
  EXPECT_TRUE(path.ends_with("/tiny-Q8_0.gguf")) << o.out;
  EXPECT_NE(o.err.find("use it with --model " + path), std::string::npos) << o.err;
  EXPECT_EQ(run_cli({"tokenize", "--model", path, "--text", "hello"}).status, 0);
  expect_one_line_error({"download", "test-org/gguf-choice", "--endpoint", hub.endpoint(), "--cache", cache},
                        "choose one with a tag after the id");
}

TEST_F(Cli, DownloadFailuresGetOneLine) {
  test::FakeHub hub;
  const std::string cache = (dir_ / "hub").string();
  expect_one_line_error({"download", "test-org/nothing", "--endpoint", hub.endpoint(), "--cache", cache}, "not found");
  // After progress lines, the error is the last line.
  const Outcome corrupt = run_cli({"download", "test-org/corrupt", "--endpoint", hub.endpoint(), "--cache", cache});
  EXPECT_EQ(corrupt.status, 1);
  const std::string last = corrupt.err.substr(corrupt.err.rfind('\n', corrupt.err.size() - 2) + 1);
  EXPECT_EQ(last.rfind("attnscope-cli: error: model.safetensors:", 0), 0u) << corrupt.err;
  EXPECT_NE(last.find("SHA-256"), std::string::npos) << corrupt.err;
  expect_one_line_error({"download", "test-org/pickle", "--endpoint", hub.endpoint(), "--cache", cache},
                        "pytorch_model.bin");
  expect_one_line_error({"download", "test-org/private", "--endpoint", hub.endpoint(), "--cache", cache}, "HF_TOKEN");
  expect_one_line_error({"download", "a/b/c", "--cache", cache}, "not a model id");
}

}  // namespace
}  // namespace attnscope
