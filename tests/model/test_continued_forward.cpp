// A decoder's forward continued from a run of a text that starts with the same tokens
// (ForwardPrefix): the rows it takes from the run before are each layer's input, and only the later
// rows go through the output projection and feed-forward block; where that run's maps are given
// only the later rows of each map are made, and where its keys and values are given too (on a
// model that projects apart into wide enough products; with the lenses, its queries as well) only
// the later rows are projected. Every capture (maps or what recomputes them, head outputs, the
// lenses' vectors, hidden states, the last token's state, the keys and values kept) equals a
// forward from scratch of the new text to the bit on the CPU: text appended, one token appended,
// an edit in the middle, text cut at the end; keeping every map and keeping queries and keys (a
// long text's); the last layer complete and stopped at its head outputs, as the explorer runs it.
// An encoder, and a batch, take nothing from a prefix.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "base/error.h"
#include "model/reproducible_products.h"
#include "model/transformer.h"
#include "model/value_gram.h"
#include "support/nested_tensor.h"
#include "support/model_texts.h"
#include "support/paths.h"
#include "support/test_device.h"

namespace attnscope {
namespace {

// On a GPU its products may pick other kernels for fewer rows: the same to its rounding there.
void expect_same(const at::Tensor& a, const at::Tensor& b, const std::string& what) {
  ASSERT_EQ(a.defined(), b.defined()) << what;
  if (!a.defined()) return;
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  if (a.device().is_cpu())
    EXPECT_TRUE(at::equal(a, b)) << what << ": largest difference " << (a - b).abs().max().item<double>();
  else
    EXPECT_TRUE(at::allclose(a.to(at::kFloat), b.to(at::kFloat), 1e-4, 1e-5)) << what;
}

// A continued forward's column sums before its blocks (`a`) against a forward's from scratch: the
// same blocks, and the same sums at every row it keeps, its last block's among them; before the
// row its blocks resumed from, it keeps those the run before kept alone.
void expect_same_sums_before(const ColumnSumsBefore& a, const ColumnSumsBefore& b) {
  EXPECT_EQ(a.block_step, b.block_step);
  ASSERT_EQ(a.empty(), b.empty());
  if (a.empty()) return;
  EXPECT_EQ(a.rows.back(), b.rows.back()) << "the last block's";
  for (size_t i = 0; i < a.rows.size(); ++i) {
    const at::Tensor* same = b.before(a.rows[i]);
    ASSERT_TRUE(same) << "a row the forward from scratch keeps: " << a.rows[i];
    expect_same(a.sums[i], *same, "column sums before row " + std::to_string(a.rows[i]));
  }
}

void expect_same_captures(const BatchCaptures& a, const BatchCaptures& b) {
  expect_same(a.all_attention, b.all_attention, "maps");
  expect_same(a.all_column_sums, b.all_column_sums, "column sums");
  expect_same_sums_before(a.column_sums_before, b.column_sums_before);
  expect_same(a.all_head_outputs, b.all_head_outputs, "head outputs");
  expect_same(a.all_queries, b.all_queries, "queries");
  expect_same(a.all_keys, b.all_keys, "keys");
  expect_same(a.all_layer_keys, b.all_layer_keys, "keys kept to continue from");
  expect_same(a.all_layer_values, b.all_layer_values, "values kept to continue from");
  expect_same(a.all_value_norms, b.all_value_norms, "value norms");
  expect_same(a.all_value_gram, b.all_value_gram, "value Gram matrices");
  expect_same(a.last_states, b.last_states, "last tokens' states");
  ASSERT_EQ(a.hidden_states.size(), b.hidden_states.size());
  for (size_t l = 0; l < a.hidden_states.size(); ++l)
    expect_same(a.hidden_states[l], b.hidden_states[l], "hidden state " + std::to_string(l));
}

int64_t shared_start(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  return std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin();
}

// The first rows of the blocks of maps a forward hands out, per layer.
std::vector<int64_t> first_block_rows(const Transformer& model, const std::vector<int64_t>& ids,
                                      ForwardOptions options) {
  std::vector<int64_t> first(static_cast<size_t>(model.config().num_layers), -1);
  options.attention_blocks = [&](int64_t layer, const AttentionBlock& block) {
    if (first[static_cast<size_t>(layer)] < 0) first[static_cast<size_t>(layer)] = block.rows.first;
  };
  model.forward({ids}, options);
  return first;
}

// A long text's forward continued with the run before's column sums before some of its blocks,
// head outputs, queries, keys and values (`kept`) as well as its layer inputs (`options.prefix`):
// it makes the blocks from the last of those rows at or before its first new row on alone (every
// block where there is none), and its captures are those of a forward from scratch (`fresh`)
// either way. Returns them.
TextCaptures expect_resumed_as_fresh(const Transformer& model, const TextCaptures& kept,
                                     const std::vector<int64_t>& after, ForwardOptions options,
                                     const BatchCaptures& fresh) {
  EXPECT_FALSE(kept.column_sums_before.empty()) << "a decoder's long text keeps them to be continued from";
  SCOPED_TRACE("its blocks from the last row kept before its first new one on");
  for (const int64_t row : kept.column_sums_before.rows) EXPECT_EQ(row % kept.column_sums_before.block_step, 0);
  options.prefix = continued_from(kept, options.prefix.tokens);
  EXPECT_TRUE(at::equal(options.prefix.keys, kept.keys)) << "a long text's keys are those it keeps";
  const BatchCaptures continued = model.forward({after}, options);
  expect_same_captures(continued, fresh);
  const int64_t rows = model.tokens_continued(options.prefix, static_cast<int64_t>(after.size()), 1);
  const int64_t from = kept.column_sums_before.last_at_or_before(rows);
  EXPECT_EQ(model.blocks_resumed_from(options.prefix, 1, static_cast<int64_t>(after.size()), rows, options.block_rows),
            from);
  const std::vector<int64_t> first = first_block_rows(model, after, options);
  EXPECT_EQ(first.front(), from) << "the rows continued: " << rows;
  EXPECT_EQ(std::count(first.begin(), first.end(), first.front()), static_cast<int64_t>(first.size()));
  return text_captures(continued, 0, false);
}

// `before` run keeping its layers' inputs, then `after` continued from it and from scratch.
void expect_continued_as_fresh(const Transformer& model, const std::vector<int64_t>& before,
                               const std::vector<int64_t>& after, ForwardOptions options, const std::string& what) {
  SCOPED_TRACE(what);
  options.keep_layer_inputs = true;
  const BatchCaptures earlier = model.forward({before}, options);
  const TextCaptures kept = text_captures(earlier, 0, false);
  ASSERT_GE(kept.hidden_states.size(0), model.config().num_layers) << "every layer's input kept";
  ForwardOptions continued_options = options;
  continued_options.prefix = {kept.hidden_states, shared_start(before, after)};
  const auto n = static_cast<int64_t>(after.size());
  const int64_t expected = std::min(shared_start(before, after), n - kFewestBlockRows);
  EXPECT_EQ(model.tokens_continued(continued_options.prefix, n, 1), expected);
  EXPECT_GT(expected, 0);
  const BatchCaptures fresh = model.forward({after}, options);
  expect_same_captures(model.forward({after}, continued_options), fresh);
  if (!kept.attention.defined()) {
    expect_resumed_as_fresh(model, kept, after, continued_options, fresh);
    return;
  }
  SCOPED_TRACE("the maps' earlier rows taken too");
  continued_options.prefix.attention = kept.attention;
  continued_options.prefix.head_outputs = kept.head_outputs;
  expect_same_captures(model.forward({after}, continued_options), fresh);
  if (!kept.layer_keys.defined()) return;  // kept where a continued forward reads them
  SCOPED_TRACE("its keys and values taken too");
  EXPECT_EQ(kept.layer_keys.sizes(),
            (std::vector<int64_t>{model.config().num_layers, model.config().kv_heads(),
                                  static_cast<int64_t>(before.size()), model.config().head_dim()}));
  continued_options.prefix.keys = kept.layer_keys;
  continued_options.prefix.values = kept.layer_values;
  expect_same_captures(model.forward({after}, continued_options), fresh);
  if (!options.lenses) return;
  SCOPED_TRACE("its queries taken too");
  continued_options.prefix.queries = kept.queries;
  expect_same_captures(model.forward({after}, continued_options), fresh);
  SCOPED_TRACE("its value Gram matrices taken too");
  continued_options.prefix.value_gram = kept.value_gram;
  continued_options.prefix.value_norms = kept.value_norms;
  expect_same_captures(model.forward({after}, continued_options), fresh);
}

class ContinuedForward : public ::testing::TestWithParam<std::string> {};

TEST_P(ContinuedForward, EqualsAForwardFromScratch) {
  const auto model = Transformer::load(test::golden_dir() / GetParam(), test::test_device());
  const std::vector<int64_t> text = test::spread_token_ids(*model, 44, 11),
                             tail = test::spread_token_ids(*model, 20, 3);  // 64 positions
  std::vector<int64_t> appended = text, one_more = text, edited = text;
  appended.insert(appended.end(), tail.begin(), tail.end());
  one_more.push_back(tail.front());
  edited[30] = edited[30] % (model->config().vocab_size - 1) + 1;
  const std::vector<int64_t> cut(text.begin(), text.begin() + 36);
  const ForwardOptions every_map{.lenses = true};
  expect_continued_as_fresh(*model, text, appended, every_map, "text appended");
  expect_continued_as_fresh(*model, text, one_more, every_map, "one token appended");
  expect_continued_as_fresh(*model, text, edited, every_map, "an edit in the middle");
  expect_continued_as_fresh(*model, text, cut, every_map, "the text cut at its end");
  expect_continued_as_fresh(*model, text, appended, {.last_layer = LastLayer::HeadOutputsAndLastToken},
                            "the explorer's forward");
  // Without the lenses too, where a wide enough model projects the later rows alone (these tiny
  // ones are too narrow: ARealDecoderProjectsItsLaterRowsAlone below).
  expect_continued_as_fresh(*model, text, one_more, {}, "one token appended, no lenses");
  expect_continued_as_fresh(*model, text, edited, {.last_layer = LastLayer::HeadOutputsAndLastToken},
                            "an edit in the middle, the explorer's forward");
  expect_continued_as_fresh(*model, text, cut, {}, "the text cut at its end, no lenses");
  expect_continued_as_fresh(*model, text, appended, {.kept = KeptAttention::QueriesAndKeys, .block_rows = 7},
                            "queries and keys kept");
}

INSTANTIATE_TEST_SUITE_P(Decoders, ContinuedForward,
                         ::testing::Values("decoders/llama", "decoders/mistral", "decoders/qwen2_sliding",
                                           "decoders/qwen3", "decoders/gemma2", "decoders/gemma3", "decoders/gpt2",
                                           "decoders/gpt_neox"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '/', '_');
                           return test::test_name(name);
                         });

// Whether a forward of `after` continued from `before` reads the run before's keys and values:
// given them moved (every earlier key and value doubled; all ones where the run kept none), its
// maps differ from a forward from scratch only if it does.
bool reads_earlier_keys(const Transformer& model, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
                        const ForwardOptions& options) {
  ForwardOptions keeping = options;
  keeping.keep_layer_inputs = true;
  const TextCaptures kept = text_captures(model.forward({before}, keeping), 0, false);
  const ModelConfig& c = model.config();
  const auto moved_from = [&](const at::Tensor& t) {
    return t.defined() ? t * 2
                       : at::ones({c.num_layers, c.kv_heads(), static_cast<int64_t>(before.size()), c.head_dim()});
  };
  ForwardOptions moved = options;
  moved.prefix = {kept.hidden_states, shared_start(before, after), kept.attention,
                  kept.head_outputs,  moved_from(kept.layer_keys), moved_from(kept.layer_values)};
  const at::Tensor fresh = model.forward({after}, options).all_attention;
  return !at::allclose(model.forward({after}, moved).all_attention, fresh, 1e-4, 1e-5);
}

// Whether a forward with the lenses of `after` continued from `before` takes the run before's
// queries, keys and values: given its queries doubled, the earlier rows' kept queries are those,
// the rest of its captures a forward's from scratch.
bool reads_earlier_queries(const Transformer& model, const std::vector<int64_t>& before,
                           const std::vector<int64_t>& after) {
  const ForwardOptions options{.lenses = true, .keep_layer_inputs = true};
  const TextCaptures kept = text_captures(model.forward({before}, options), 0, false);
  ForwardOptions moved = options;
  moved.prefix = {kept.hidden_states, shared_start(before, after), kept.attention,  kept.head_outputs,
                  kept.layer_keys,    kept.layer_values,           kept.queries * 2};
  const BatchCaptures fresh = model.forward({after}, options), continued = model.forward({after}, moved);
  const auto n = static_cast<int64_t>(after.size());
  const int64_t earlier = model.tokens_continued(moved.prefix, n, 1);
  EXPECT_TRUE(at::equal(continued.all_attention, fresh.all_attention)) << "the maps do not read the earlier queries";
  EXPECT_TRUE(at::equal(continued.all_queries.narrow(3, earlier, n - earlier),
                        fresh.all_queries.narrow(3, earlier, n - earlier)))
      << "the later rows' queries projected";
  return at::equal(continued.all_queries.narrow(3, 0, earlier), fresh.all_queries.narrow(3, 0, earlier) * 2);
}

// Whether a forward with the lenses of `after` continued from `before` with all the run before
// keeps takes the value Gram matrices and norms of its whole slices of kValueGramSlice tokens before
// the first new row: given them doubled, those tokens' are doubled, the later tokens' those of a
// forward from scratch. Given as kept, every capture is a forward's from scratch.
bool reads_earlier_value_gram(const Transformer& model, const std::vector<int64_t>& before,
                              const std::vector<int64_t>& after) {
  const ForwardOptions options{
      .lenses = true, .last_layer = LastLayer::HeadOutputsAndLastToken, .keep_layer_inputs = true};
  const TextCaptures kept = text_captures(model.forward({before}, options), 0, false);
  ForwardOptions continued = options;
  continued.prefix = {kept.hidden_states, shared_start(before, after), kept.attention, kept.head_outputs,
                      kept.layer_keys,    kept.layer_values,           kept.queries,   kept.value_gram,
                      kept.value_norms};
  const BatchCaptures fresh = model.forward({after}, options);
  expect_same_captures(model.forward({after}, continued), fresh);
  continued.prefix.value_gram = kept.value_gram * 2;
  continued.prefix.value_norms = kept.value_norms * 2;
  const BatchCaptures moved = model.forward({after}, continued);
  const int64_t n = static_cast<int64_t>(after.size()), taken = kValueGramSlice;
  EXPECT_TRUE(
      at::equal(moved.all_value_gram.narrow(2, taken, n - taken), fresh.all_value_gram.narrow(2, taken, n - taken)))
      << "the later tokens' made";
  return at::equal(moved.all_value_gram.narrow(2, 0, taken), fresh.all_value_gram.narrow(2, 0, taken) * 2) &&
         at::equal(moved.all_value_norms.narrow(3, 0, taken), fresh.all_value_norms.narrow(3, 0, taken) * 2);
}

// Both project apart into wide enough products: a continued forward projects the later rows
// alone, its captures still those of a forward from scratch.
TEST(ContinuedForwardOf, ARealDecoderProjectsItsLaterRowsAlone) {
  test::on_real_decoders([](const Transformer& model) {
    const std::vector<int64_t> text = test::spread_token_ids(model, 90, 5);
    std::vector<int64_t> one_more = text, edited = text;
    one_more.push_back(text[40]);
    edited[70] = edited[71];
    const ForwardOptions explorer{.last_layer = LastLayer::HeadOutputsAndLastToken};
    expect_continued_as_fresh(model, text, one_more, explorer, "one token appended");
    expect_continued_as_fresh(model, text, edited, {}, "an edit near the end");
    expect_continued_as_fresh(model, text, one_more, {.lenses = true, .last_layer = LastLayer::HeadOutputsAndLastToken},
                              "one token appended, with the lenses");
    EXPECT_TRUE(reads_earlier_keys(model, text, one_more, explorer));
    EXPECT_FALSE(reads_earlier_keys(model, text, one_more, {.lenses = true}))
        << "the lenses without the run before's queries project every row";
    EXPECT_TRUE(reads_earlier_queries(model, text, one_more));
  });
}

// A long text (its maps not kept) typed on at its end or edited in its middle, as the explorer
// continues it: the blocks before the last block whose column sums the run before kept before
// the first new token are not made again. Blocks of 32 rows (the sizes a long text's forward picks
// make one block of these few tokens), their sums kept before every other one, or every one.
TEST(ContinuedForwardOf, ARealDecodersLongTextMakesTheBlocksFromTheLastKeptBeforeItsFirstNewToken) {
  test::on_real_decoders([](const Transformer& model) {
    const std::vector<int64_t> text = test::spread_token_ids(model, 150, 5);
    std::vector<int64_t> typed = text, edited = text;
    typed.insert(typed.end(), text.begin() + 20, text.begin() + 23);
    edited[100] = edited[101];
    const ForwardOptions long_text{
        .kept = KeptAttention::QueriesAndKeys, .block_rows = 32, .last_layer = LastLayer::HeadOutputsAndLastToken};
    expect_continued_as_fresh(model, text, typed, long_text, "text typed at the end");
    expect_continued_as_fresh(model, text, edited, long_text, "an edit before the last block: every block made");
    ForwardOptions every_block = long_text;
    every_block.column_sums_every = 32;
    expect_continued_as_fresh(model, text, edited, every_block, "an edit in the block from 96");
    expect_continued_as_fresh(model, text, typed,
                              {.kept = KeptAttention::QueriesAndKeys, .block_rows = 32, .lenses = true},
                              "text typed at the end, with the lenses");
    SCOPED_TRACE("edited twice, the second time before the first edit");
    ForwardOptions kept_options = every_block;
    kept_options.keep_layer_inputs = true;
    const TextCaptures kept = text_captures(model.forward({text}, kept_options), 0, false);
    const ForwardOptions scratch = kept_options;
    kept_options.prefix = {kept.hidden_states, 100};
    const TextCaptures once =
        expect_resumed_as_fresh(model, kept, edited, kept_options, model.forward({edited}, scratch));
    EXPECT_EQ(once.column_sums_before.rows, (std::vector<int64_t>{32, 64, 96, 128}));
    std::vector<int64_t> twice = edited;
    twice[70] = twice[71];
    kept_options.prefix = {once.hidden_states, 70};
    expect_resumed_as_fresh(model, once, twice, kept_options, model.forward({twice}, scratch));
  });
}

// Text typed on at the end of one of more than kValueGramSlice tokens with a lens shown, as the
// explorer continues it: its first slice's value Gram matrices are taken.
TEST(ContinuedForwardOf, ARealDecoderWithTheLensesTakesTheValueGramMatricesOfWholeSlices) {
  test::on_real_decoders([](const Transformer& model) {
    const std::vector<int64_t> text = test::spread_token_ids(model, kValueGramSlice + 10, 5);
    std::vector<int64_t> typed = text;
    typed.insert(typed.end(), text.begin() + 20, text.begin() + 23);
    EXPECT_TRUE(reads_earlier_value_gram(model, text, typed));
    std::vector<int64_t> early_edit = text;  // the first slice is not whole before the first new row
    early_edit[kValueGramSlice - 1] = text[3];
    EXPECT_FALSE(reads_earlier_value_gram(model, text, early_edit));
  });
}

TEST(ContinuedForwardOf, ATinyModelsNarrowOrFusedProjectionProjectsEveryRow) {
  for (const char* name : {"llama", "gpt2"}) {  // 2 key/value heads of 8; GPT-2's fused projection
    SCOPED_TRACE(name);
    const auto model = Transformer::load(test::golden_dir() / "decoders" / name, test::test_device());
    const std::vector<int64_t> text = test::spread_token_ids(*model, 44, 11);
    std::vector<int64_t> one_more = text;
    one_more.push_back(text[3]);
    EXPECT_FALSE(reads_earlier_keys(*model, text, one_more, {}));
    EXPECT_FALSE(text_captures(model->forward({text}, {.keep_layer_inputs = true}), 0, false).layer_keys.defined())
        << "nor kept";
  }
}

// Each layer's input of a run keeping them: the first L hidden states, over the whole text.
at::Tensor layer_inputs(const Transformer& model, const std::vector<int64_t>& ids) {
  return text_captures(model.forward({ids}, {.keep_layer_inputs = true}), 0, false).hidden_states;
}

TEST(ContinuedForwardOf, AnEncoderOrABatchTakesNothing) {
  const auto encoder = Transformer::load(test::golden_dir() / "encoders" / "modernbert", test::test_device());
  const std::vector<int64_t> text = test::spread_token_ids(*encoder, 40, 2);
  std::vector<int64_t> appended = text;
  appended.push_back(7);
  const ForwardPrefix prefix{layer_inputs(*encoder, text), 40};
  EXPECT_EQ(encoder->tokens_continued(prefix, 41, 1), 0) << "every token of an encoder reads every other";
  expect_same_captures(encoder->forward({appended}, {.prefix = prefix}), encoder->forward({appended}));

  const auto decoder = Transformer::load(test::golden_dir() / "decoders" / "llama", test::test_device());
  const ForwardPrefix decoded{layer_inputs(*decoder, text), 40};
  EXPECT_EQ(decoder->tokens_continued(decoded, 41, 2), 0) << "a batch";
  EXPECT_EQ(decoder->tokens_continued(decoded, 41, 1), 37) << "kFewestBlockRows left to run";
  EXPECT_EQ(decoder->tokens_continued(decoded, 3, 1), 0) << "a text too short to continue";
}

TEST(ContinuedForwardOf, APrefixWithoutEveryLayersInputIsRefused) {
  const auto model = Transformer::load(test::golden_dir() / "decoders" / "llama", test::test_device());
  const std::vector<int64_t> text = test::spread_token_ids(*model, 40, 2);
  const at::Tensor inputs = layer_inputs(*model, text);
  EXPECT_THROW(model->forward({text}, {.prefix = {inputs.narrow(0, 0, 1), 30}}), Error) << "one layer's";
  EXPECT_THROW(model->forward({text}, {.prefix = {inputs.narrow(1, 0, 10), 30}}), Error) << "fewer tokens";
  EXPECT_THROW(model->forward({text}, {.prefix = {at::Tensor(), 30}}), Error) << "none";
  EXPECT_NO_THROW(model->forward({text}, {.prefix = {at::Tensor(), 0}})) << "nothing to continue";
  const TextCaptures kept = text_captures(model->forward({text}), 0, false);
  EXPECT_THROW(model->forward({text}, {.prefix = {inputs, 30, kept.attention.narrow(2, 0, 10), kept.head_outputs}}),
               Error)
      << "maps of fewer rows";
  EXPECT_THROW(model->forward({text}, {.prefix = {inputs, 30, kept.attention, at::Tensor()}}), Error)
      << "maps without head outputs";
  EXPECT_NO_THROW(model->forward({text}, {.prefix = {inputs, 30, kept.attention, kept.head_outputs}}));
  // Checked wherever given, though this tiny model's narrow projections would not read them.
  const ModelConfig& c = model->config();
  const at::Tensor keys = at::zeros({c.num_layers, c.kv_heads(), 40, c.head_dim()}), values = at::zeros_like(keys);
  EXPECT_THROW(model->forward({text}, {.prefix = {inputs, 30, kept.attention, kept.head_outputs, keys.narrow(2, 0, 10),
                                                  values.narrow(2, 0, 10)}}),
               Error)
      << "keys and values of fewer tokens";
  EXPECT_THROW(model->forward({text}, {.prefix = {inputs, 30, kept.attention, kept.head_outputs, keys, at::Tensor()}}),
               Error)
      << "keys without values";
  EXPECT_NO_THROW(model->forward({text}, {.prefix = {inputs, 30, kept.attention, kept.head_outputs, keys, values}}));
  const at::Tensor queries = at::zeros({c.num_layers, c.num_heads, 40, c.head_dim()});
  EXPECT_THROW(model->forward({text}, {.lenses = true,
                                       .prefix = {inputs, 30, kept.attention, kept.head_outputs, keys, values,
                                                  queries.narrow(2, 0, 10)}}),
               Error)
      << "queries of fewer tokens";
  EXPECT_THROW(model->forward({text}, {.lenses = true,
                                       .prefix = {inputs, 30, kept.attention, kept.head_outputs, keys, values,
                                                  queries.narrow(1, 0, 1)}}),
               Error)
      << "one head's queries";
  EXPECT_NO_THROW(model->forward(
      {text}, {.lenses = true, .prefix = {inputs, 30, kept.attention, kept.head_outputs, keys, values, queries}}));
  const at::Tensor gram = at::zeros({c.num_layers, 40, c.num_heads, c.num_heads}),
                   norms = at::zeros({c.num_layers, c.num_heads, 40});
  const auto with_gram = [&](const at::Tensor& g, const at::Tensor& v) {
    return ForwardOptions{.lenses = true,
                          .prefix = {inputs, 30, kept.attention, kept.head_outputs, keys, values, queries, g, v}};
  };
  EXPECT_THROW(model->forward({text}, with_gram(gram.narrow(1, 0, 10), norms.narrow(2, 0, 10))), Error)
      << "value Gram matrices of fewer tokens";
  EXPECT_THROW(model->forward({text}, with_gram(gram.narrow(2, 0, 1), norms)), Error) << "one head's";
  EXPECT_THROW(model->forward({text}, with_gram(gram, at::Tensor())), Error) << "no norms";
  EXPECT_NO_THROW(model->forward({text}, with_gram(gram, norms)));
}

TEST(ContinuedForwardOf, ALongTextsColumnSumsOfAnotherShapeOrLayoutAreRefusedOrLeft) {
  const auto model = Transformer::load(test::golden_dir() / "decoders" / "llama", test::test_device());
  const std::vector<int64_t> text = test::spread_token_ids(*model, 40, 2);
  const ForwardOptions long_text{
      .kept = KeptAttention::QueriesAndKeys, .block_rows = 8, .keep_layer_inputs = true, .column_sums_every = 16};
  const TextCaptures kept = text_captures(model->forward({text}, long_text), 0, false);
  const ColumnSumsBefore& sums = kept.column_sums_before;
  ASSERT_EQ(sums.rows, (std::vector<int64_t>{16, 32}));
  ASSERT_EQ(sums.block_step, 8);
  const auto continued = [&](const ColumnSumsBefore& before, const at::Tensor& outputs, int64_t tokens = 36) {
    ForwardOptions o = long_text;
    o.prefix = {kept.hidden_states, tokens, {}, outputs, kept.keys, kept.layer_values, kept.queries};
    o.prefix.column_sums_before = before;
    return first_block_rows(*model, text, o).front();
  };
  const auto with = [&](int64_t step, std::vector<int64_t> rows, std::vector<at::Tensor> tensors) {
    return ColumnSumsBefore{step, std::move(rows), std::move(tensors)};
  };
  EXPECT_EQ(continued(sums, kept.head_outputs), 32);
  EXPECT_EQ(continued(sums, kept.head_outputs, 20), 16) << "the last row kept before the first new token";
  EXPECT_EQ(continued(sums, kept.head_outputs, 12), 0) << "none kept before it";
  EXPECT_EQ(continued(with(16, sums.rows, sums.sums), kept.head_outputs), 0) << "blocks of other rows";
  EXPECT_EQ(continued(with(8, {30}, {sums.sums[1].narrow(2, 0, 30)}), kept.head_outputs), 0)
      << "not a block's first row";
  EXPECT_THROW(continued(with(8, {32}, {sums.sums[1].narrow(1, 0, 1)}), kept.head_outputs), Error) << "one head's";
  EXPECT_THROW(continued(with(8, {32}, {sums.sums[0]}), kept.head_outputs), Error) << "sums over other rows";
  EXPECT_THROW(continued(with(8, {32, 16}, {sums.sums[1], sums.sums[0]}), kept.head_outputs), Error)
      << "rows out of order";
  EXPECT_THROW(continued(with(8, {16, 32}, {sums.sums[0]}), kept.head_outputs), Error) << "a row without its sums";
  EXPECT_THROW(continued(sums, kept.head_outputs.narrow(2, 0, 20)), Error) << "head outputs of fewer rows";
  EXPECT_THROW(continued(sums, at::Tensor()), Error) << "no head outputs";
}

}  // namespace
}  // namespace attnscope
