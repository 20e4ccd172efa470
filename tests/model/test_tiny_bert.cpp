// The encoder on a tiny random BERT written by the test, against a plain double-precision
// forward written from the definitions (tests/support/tiny_bert.cpp).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "base/error.h"
#include "model/checkpoint.h"
#include "support/paths.h"
#include "support/tiny_bert.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

const std::vector<int64_t> kIds = {2, 5, 6, 7, 8, 5, 9, 10, 3};  // [CLS] the cat sat on the mat . [SEP]

double max_difference(const at::Tensor& ours, const std::vector<std::vector<double>>& ref) {
  const at::Tensor t = ours.to(at::kDouble).contiguous();
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i)
    for (size_t j = 0; j < ref[i].size(); ++j)
      worst = std::max(worst, std::abs(t[static_cast<int64_t>(i)][static_cast<int64_t>(j)].item<double>() - ref[i][j]));
  return worst;
}

void expect_matches_reference(const test::TinyBertSpec& spec, const TextCaptures& c, const std::vector<int64_t>& ids) {
  const auto ref = test::reference_forward(spec, ids);
  ASSERT_EQ(c.attention.sizes(), (std::vector<int64_t>{spec.layers, spec.heads, static_cast<int64_t>(ids.size()),
                                                       static_cast<int64_t>(ids.size())}));
  for (int64_t l = 0; l < spec.layers; ++l)
    for (int64_t h = 0; h < spec.heads; ++h) {
      EXPECT_LT(max_difference(c.attention[l][h], ref.attention[static_cast<size_t>(l)][static_cast<size_t>(h)]), 1e-5)
          << "layer " << l << " head " << h;
      EXPECT_LT(max_difference(c.head_outputs[l][h], ref.outputs[static_cast<size_t>(l)][static_cast<size_t>(h)]), 1e-5)
          << "layer " << l << " head " << h;
    }
  EXPECT_LT(max_difference(c.hidden_states[spec.layers], ref.last_hidden), 1e-4);
}

std::shared_ptr<const Transformer> load_tiny(const test::TempDir& dir, const test::TinyBertSpec& spec) {
  test::write_tiny_bert(dir.path(), spec);
  return Transformer::load(dir.path(), test::test_device());
}

TEST(TinyBert, ForwardMatchesThePlainDefinition) {
  const test::TempDir dir;
  const test::TinyBertSpec spec;
  const auto model = load_tiny(dir, spec);
  expect_matches_reference(spec, text_captures(model->forward({kIds}), 0, true), kIds);
}

TEST(TinyBert, HalfAndBFloat16CheckpointsLoad) {
  for (DType dtype : {DType::F16, DType::BF16}) {
    const test::TempDir dir;
    test::TinyBertSpec spec;
    spec.dtype = dtype;
    const auto model = load_tiny(dir, spec);
    expect_matches_reference(spec, text_captures(model->forward({kIds}), 0, true), kIds);
  }
}

TEST(TinyBert, PrefixedAndGammaBetaNamesLoadAndTaskHeadsAreIgnored) {
  const test::TempDir dir;
  test::TinyBertSpec spec;
  spec.bert_prefix = spec.gamma_beta = true;
  const auto model = load_tiny(dir, spec);
  expect_matches_reference(spec, text_captures(model->forward({kIds}), 0, true), kIds);
}

TEST(TinyBert, AttentionRowsSumToOne) {
  const test::TempDir dir;
  const auto model = load_tiny(dir, {});
  const auto c = text_captures(model->forward({kIds}), 0, true);
  EXPECT_TRUE(at::allclose(c.attention.sum(-1), at::ones({2, 2, 9}), 0, 1e-6));
}

TEST(TinyBert, PaddedBatchEqualsSingleRunsAndDropsPads) {
  const test::TempDir dir;
  const test::TinyBertSpec spec;
  const auto model = load_tiny(dir, spec);
  const std::vector<std::vector<int64_t>> texts = {kIds, {2, 12, 7, 3}, {2, 13, 6, 11, 7, 8, 13, 9, 10, 5, 12, 3}};
  const BatchCaptures batch = model->forward(texts);
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto together = text_captures(batch, i, true);
    const auto alone = text_captures(model->forward({texts[i]}), 0, true);
    const auto n = static_cast<int64_t>(texts[i].size());
    EXPECT_EQ(together.length, n);
    EXPECT_EQ(together.attention.size(3), n);
    EXPECT_TRUE(at::allclose(together.attention, alone.attention, 0, 1e-6));
    EXPECT_TRUE(at::allclose(together.head_outputs, alone.head_outputs, 0, 1e-6));
    EXPECT_TRUE(at::allclose(together.hidden_states, alone.hidden_states, 0, 1e-5));
    expect_matches_reference(spec, together, texts[i]);
  }
}

TEST(TinyBert, ColumnAttentionOfABatchLeavesPadRowsOut) {
  const test::TempDir dir;
  const auto model = load_tiny(dir, {});
  const std::vector<std::vector<int64_t>> texts = {kIds, {2, 12, 7, 3}};
  const BatchCaptures batch = model->forward(texts);
  const at::Tensor columns = column_attention(batch).cpu();  // [B, L, H, n], computed on the model's device
  ASSERT_EQ(columns.sizes(), (std::vector<int64_t>{2, 2, 2, 9}));
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto text = text_captures(batch, i, true);
    const auto n = static_cast<int64_t>(texts[i].size());
    EXPECT_TRUE(at::allclose(columns[static_cast<int64_t>(i)].narrow(-1, 0, n), text.attention.sum(-2), 0, 1e-6));
    EXPECT_TRUE(at::equal(text_head_outputs(batch, i).cpu(), text.head_outputs));
  }
  EXPECT_EQ(columns[1].narrow(-1, 4, 5).abs().sum().item<float>(), 0.0f);  // pad columns receive nothing
  EXPECT_TRUE(at::equal(real_rows(batch).squeeze(2)[1].cpu(), at::tensor({1, 1, 1, 1, 0, 0, 0, 0, 0}, at::kFloat)));
  EXPECT_FALSE(real_rows(model->forward({kIds})).defined());  // nothing padded
}

TEST(TinyBert, StoppingAtTheLastHeadOutputsKeepsEveryCapture) {
  const test::TempDir dir;
  const auto model = load_tiny(dir, {});
  const std::vector<std::vector<int64_t>> texts = {kIds, {2, 12, 7, 3}};
  const BatchCaptures whole = model->forward(texts),
                      cut = model->forward(texts, {.last_layer = LastLayer::HeadOutputsOnly});
  ASSERT_EQ(cut.attention.size(), whole.attention.size());
  for (size_t l = 0; l < whole.attention.size(); ++l) {
    EXPECT_TRUE(at::equal(cut.attention[l], whole.attention[l]));
    EXPECT_TRUE(at::equal(cut.head_outputs[l], whole.head_outputs[l]));
  }
  ASSERT_EQ(cut.hidden_states.size(), whole.hidden_states.size() - 1);  // all but the last layer's output
  for (size_t l = 0; l < cut.hidden_states.size(); ++l)
    EXPECT_TRUE(at::equal(cut.hidden_states[l], whole.hidden_states[l]));
  EXPECT_THROW(model->forward(texts, {.capture = false, .last_layer = LastLayer::HeadOutputsOnly}), Error);
}

// A run made stale by a newer request stops at its next check, so the explorer's next run starts
// sooner. A tiny model's products are one slice each: four checks a layer (before it, after the
// attention, before each product of the feed-forward block).
TEST(TinyBert, AStaleRunStopsAtTheNextOfFourChecksALayer) {
  const test::TempDir dir;
  const auto model = load_tiny(dir, {});
  const auto layers = static_cast<int>(model->config().num_layers);
  int checks = 0;
  model->forward({kIds}, {.last_layer = LastLayer::Complete, .keep_going = [&] { return ++checks > 0; }});
  EXPECT_EQ(checks, 4 * layers);
  for (int allowed : {0, 1, 2, 4}) {
    int asked = 0;
    EXPECT_THROW(
        model->forward({kIds}, {.last_layer = LastLayer::Complete, .keep_going = [&] { return asked++ < allowed; }}),
        Cancelled);
    EXPECT_EQ(asked, allowed + 1) << "nothing more is computed once a check says stop";
  }
}

// The command line's bar for a forward that keeps every map: one report a layer, the last whole,
// whether or not the last layer stops at its head outputs; the checkpoint's run hands it on.
TEST(TinyBert, AForwardReportsEachLayerDone) {
  const test::TempDir dir;
  test::write_tiny_bert(dir.path(), {.layers = 3});
  const auto checkpoint = Checkpoint::load(dir.path(), test::test_device());
  for (const LastLayer last : {LastLayer::Complete, LastLayer::HeadOutputsOnly}) {
    std::vector<double> reported;
    CheckpointRun run{.last_layer = last};
    run.progress = [&](std::string_view stage, double fraction) {
      EXPECT_EQ(stage, "model");
      reported.push_back(fraction);
    };
    checkpoint->run({checkpoint->encode("The cat sat on the mat.", 16)}, run);
    EXPECT_EQ(reported, (std::vector<double>{1.0 / 3, 2.0 / 3, 1.0}));
  }
}

TEST(TinyBert, PlainForwardAgreesWithCapturingForward) {
  const test::TempDir dir;
  const auto model = load_tiny(dir, {});
  const std::vector<std::vector<int64_t>> texts = {kIds, {2, 12, 7, 3}};
  const BatchCaptures captured = model->forward(texts), plain = model->forward(texts, {.capture = false});
  EXPECT_TRUE(plain.attention.empty());
  for (int64_t b = 0; b < 2; ++b) {
    const int64_t n = captured.lengths[static_cast<size_t>(b)];
    EXPECT_TRUE(at::allclose(captured.hidden_states.back()[b].narrow(0, 0, n),
                             plain.hidden_states.back()[b].narrow(0, 0, n), 0, 1e-5));
  }
}

TEST(TinyBert, BadBatchesAreRefused) {
  const test::TempDir dir;
  const auto model = load_tiny(dir, {});
  EXPECT_THROW(model->forward({}), Error);
  EXPECT_THROW(model->forward({{}}), Error);
  EXPECT_THROW(model->forward({{2, 99, 3}}), Error);                   // id outside the vocabulary
  EXPECT_THROW(model->forward({std::vector<int64_t>(17, 5)}), Error);  // longer than 16 positions
}

void expect_load_error(const std::function<void(const std::filesystem::path&)>& damage, const std::string& needle) {
  const test::TempDir dir;
  test::write_tiny_bert(dir.path(), {});
  damage(dir.path());
  try {
    Checkpoint::load(dir.path(), test::test_device());
    ADD_FAILURE() << "loaded a damaged checkpoint; expected an error containing: " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

void rewrite_tensor(const std::filesystem::path& dir, const std::string& name, std::vector<int64_t> shape,
                    DType dtype) {
  auto tensors = test::tiny_bert_tensors({});
  for (auto& t : tensors)
    if (t.name == name) {
      t.shape = shape;
      int64_t n = 1;
      for (auto d : shape) n *= d;
      t.values.assign(static_cast<size_t>(n), 0.5f);
      t.dtype = dtype;
    }
  test::write_safetensors(dir / "model.safetensors", tensors, DType::F32);
}

TEST(TinyBert, DamagedCheckpointsGiveMessagesNamingWhatIsWrong) {
  const std::string q = "encoder.layer.1.attention.self.query.weight";
  expect_load_error(
      [&](auto d) {
        rewrite_tensor(d, q, {8, 7}, DType::F32);
      },
      q + " has shape [8, 7], expected [8, 8]");
  expect_load_error(
      [&](auto d) {
        rewrite_tensor(d, q, {8, 8}, DType::F64);
      },
      q + " has dtype F64, expected F32, F16 or BF16");
  expect_load_error([](auto d) { std::filesystem::remove(d / "config.json"); }, "config.json");
  expect_load_error([](auto d) { std::filesystem::remove(d / "vocab.txt"); }, "vocab.txt");
  expect_load_error([](auto d) { std::filesystem::remove(d / "model.safetensors"); }, "model.safetensors: missing");
  expect_load_error([](auto d) { test::write_text(d / "config.json", "{\"hidden_size\": 8"); }, "not valid JSON");
  expect_load_error(
      [](auto d) {
        test::write_text(d / "vocab.txt",
                         "[PAD]\n[UNK]\n[CLS]\n[SEP]\n" + std::string(20, 'x') + "\na\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n");
      },
      "vocab_size is 14");
  expect_load_error(
      [](auto d) {
        auto tensors = test::tiny_bert_tensors({});
        tensors.erase(tensors.begin() + 3);  // embeddings.LayerNorm.weight
        test::write_safetensors(d / "model.safetensors", tensors, DType::F32);
      },
      "tensor embeddings.LayerNorm.weight is missing");
  expect_load_error(
      [](auto d) {
        std::string bytes = test::safetensors_bytes(
            {{"a", {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {0, 16}}}}}, "0123456789abcdef");
        test::write_text(d / "model.safetensors", bytes.substr(0, bytes.size() - 4));
      },
      "outside the");
}

TEST(TinyBert, CheckpointRunsTextEndToEnd) {
  const test::TempDir dir;
  test::write_tiny_bert(dir.path(), {});
  const auto checkpoint = Checkpoint::load(dir.path(), test::test_device());
  const TextRun run = checkpoint->run("The cat sat on the mat.", 16);
  EXPECT_EQ(run.encoding.ids(), kIds);
  expect_matches_reference({}, run.captures, kIds);
  EXPECT_THROW(checkpoint->encode("the cat", 17), Error);  // beyond the model's 16 positions
  EXPECT_THROW(checkpoint->encode("the cat", 1), Error);
}

// The explorer's runs: the same maps and head outputs, and no hidden states (the last is missing).
TEST(TinyBert, ACheckpointRunStoppedAtTheLastHeadOutputsKeepsTheMapsAndNoHiddenStates) {
  const test::TempDir dir;
  test::write_tiny_bert(dir.path(), {});
  const auto checkpoint = Checkpoint::load(dir.path(), test::test_device());
  const Encoding encoding = checkpoint->encode("The cat sat on the mat.", 16);
  const TextRun whole = checkpoint->run("The cat sat on the mat.", 16);
  const TextRun cut = std::move(checkpoint->run({encoding}, {.last_layer = LastLayer::HeadOutputsOnly}).front());
  EXPECT_TRUE(at::equal(cut.captures.attention, whole.captures.attention));
  EXPECT_TRUE(at::equal(cut.captures.head_outputs, whole.captures.head_outputs));
  EXPECT_TRUE(whole.captures.hidden_states.defined());
  EXPECT_FALSE(cut.captures.hidden_states.defined());
}

}  // namespace
}  // namespace attnscope
