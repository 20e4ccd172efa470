// Latency of one text through attnscope, median of many runs after warm-up (not a test).
//
//   analyze        tokenise + forward with captures + captures copied out per text (CPU float32)
//   forward        forward with captures, ids already tokenised
//   plain forward  forward without captures (fused attention), the floor captures are measured on
//   analysis       the paper's analysis of the captures (every head: similarity, pairs,
//                  separators, statistics), on the captures as the forward left them
//   thumbnails     the overview's thumbnails of that analysis coloured (the explorer's grid view)
//   sliced         the forward with captures in slices, a check between them
//   explorer       the same, its last layer stopped at its head outputs, as the explorer runs it
//
// With --dump-map L H FILE, no timing: one head's map of the text made again from the queries and
// keys a long text keeps, written to FILE as float32 (row-major n x n) and the text's ids to
// FILE.ids.json, for bench/check_long_map.sh to compare with transformers'.
//
// With --head-roles, a long text's head roles made from its maps again over the keys each block of
// rows may see, beside the same over whole rows (how they were made before), the forward, and the
// forward handing its blocks to the roles, which then make no map again.
//
// With --long-text, what a long text costs (issue 32), its maps not kept: the plain forward, the
// forward keeping queries and keys, the overview's thumbnails made again block by block, the whole
// analysis, one head's whole map made again, the forward pooling the overview's thumbnails from
// its own blocks of maps, coloured (what the explorer's overview of a long text waits for), the
// Head view's map of a head of the last layer and of the first sliding-window layer, each block of
// rows over the keys it may see and spread over every key, and the Head view's rollout after the
// second layer and after the last.
//
// With --long-text-lens, what a long text's norm-based lens costs, its maps not kept: the forward
// keeping queries, keys and the lenses' captures, the separators' column sums of the norm-based
// maps, the Head view's norm-based map of a head and of its layer's own map (of the last layer),
// one head's whole norm-based map (what its pairs are found in) and the rollout after the last
// layer through the norm-based layer maps and through the mean attention, each from blocks over
// the keys their rows may see and from the same blocks spread over every key.
//
// With --continued N, a decoder's text typed on at its end: the explorer's forward of the text
// continued from a run of it without its last N tokens (ForwardPrefix: its layers' inputs alone,
// then with its maps and head outputs too, then with its keys and values as well, as the explorer
// continues), beside the same from scratch. With --lenses too, the same keeping the lenses'
// captures (as the explorer does while a lens is shown), and continued with the run before's
// queries as well (the later rows alone projected), then its value Gram matrices too (those of its
// whole slices of 128 tokens taken, as the explorer then continues). With --long-text too, the same
// for a long text, its maps not kept, the overview pooled from its blocks: from scratch, continued
// from its layer inputs alone, and from its blocks of rows from the run before's last on; then the
// analysis and head roles of its captures from scratch and taking the earlier tokens' from those
// of the text before (AnalysisRun::resume, TextHeadRolesOptions::resume). --edited-at P instead of
// --continued: the same continued from the text with its token P another (an edit in the middle).
//
// With --typed-at-start, the pipeline's whole run as the window asks it on a text whose first word
// changes each run, beside the same from scratch with and without the five next tokens.
//
// Prints one JSON object. bench/run.sh runs it beside bench/reference_forward.py.
//
// Sections (each marked SECTION below): 1 timing helpers; 2 long texts (--long-text,
// --long-text-lens, --head-roles); 3 text typed (--typed-at-start, --continued); 4 --dump-map and
// the command line.
#include <ATen/Parallel.h>
#include <ATen/DeviceAccelerator.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "analysis/text_analysis.h"
#include "analysis/lens_maps.h"
#include "figures/overview_thumbnails.h"
#include "model/attention_rows.h"
#include "corpus/allocator_tuning.h"
#include "figures/text_figures.h"
#include "model/checkpoint.h"
#include "model/reproducible_products.h"
#include "figures/map_sources.h"
#include "pipeline/long_text_lens_pairs.h"
#include "pipeline/long_text_separators.h"
#include "pipeline/role_rows_from_blocks.h"
#include "pipeline/text_head_roles.h"
#include "pipeline/text_pipeline.h"

namespace {

// SECTION 1: timing helpers.

// A GPU works asynchronously: each variant is timed to the end of its device work.
void finish_device_work(const c10::Device& device) {
  if (!device.is_cpu()) at::accelerator::synchronizeDevice(device.index() < 0 ? 0 : device.index());
}

// --step-times: each step's time to stderr as it ends, warm-ups too, so that a run stopped by a
// limit (the GPU sessions' checks, tools/gpu_check.sh) still says which step took the time.
bool g_step_times = false;

// One run of a step, to the end of its device work, in milliseconds.
double timed_step(const std::function<void()>& work, const c10::Device& device, size_t step, const char* what) {
  const auto start = std::chrono::steady_clock::now();
  work();
  finish_device_work(device);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (g_step_times) std::fprintf(stderr, "step %zu (%s): %.1f ms\n", step, what, ms);
  return ms;
}

// Runs the variants round-robin, so a slow spell of a shared machine hits them all alike, and
// returns the median time of each in milliseconds. `idle`: the machine left idle this long before
// each timed run, as between a typist's keys.
std::vector<double> interleaved_medians(int warmup, int runs, const std::vector<std::function<void()>>& variants,
                                        const c10::Device& device, std::chrono::milliseconds idle) {
  for (int i = 0; i < warmup; ++i)
    for (size_t v = 0; v < variants.size(); ++v) timed_step(variants[v], device, v, "warm-up");
  std::vector<std::vector<double>> times(variants.size());
  for (int i = 0; i < runs; ++i)
    for (size_t v = 0; v < variants.size(); ++v) {
      std::this_thread::sleep_for(idle);
      times[v].push_back(timed_step(variants[v], device, v, "timed"));
    }
  std::vector<double> medians;
  for (auto& t : times) {
    std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
    medians.push_back(t[static_cast<size_t>(runs / 2)]);
  }
  return medians;
}

// SECTION 2: long texts.

// The long-text timings (--long-text), each a median of `runs` after `warmup` runs.
void time_long_text(const attnscope::Checkpoint& checkpoint, const attnscope::Encoding& text, int warmup, int runs) {
  using namespace attnscope;
  const std::vector<int64_t> ids = text.ids();
  const TextCaptures captures =
      text_captures(checkpoint.model().forward({ids}, {.kept = KeptAttention::QueriesAndKeys}), 0, true);
  const TextAnalysis analysis = analyze_text(text, captures, {});
  const AnalyzedTextView view = analyzed_text_view(text, captures, analysis, &checkpoint.model());
  const int last = static_cast<int>(analysis.num_layers - 1), head = static_cast<int>(analysis.num_heads / 2);
  // The Head view's map of a layer, its rows over the keys they may see (as the view reads them) or
  // spread over every key (held_rows unset: as it read them before); the first sliding-window layer
  // beside the last layer where the model has one (else the last layer again).
  int local = last;
  for (int l = 0; l < last; ++l)
    if (checkpoint.model().config().is_local_layer(static_cast<size_t>(l))) {
      local = l;
      break;
    }
  const auto head_view_map = [&](int layer, bool held) {
    MapSource source = head_map_source(view, {layer, head}, ValueScale::Clipped, false);
    if (!held) source.held_rows = {};
    MapPyramid pyramid(std::move(source));
    pyramid.make_top(std::chrono::hours(1));
  };
  const auto m = interleaved_medians(
      warmup, runs,
      {[&] { checkpoint.model().forward({ids}, {.capture = false}); },
       [&] { checkpoint.model().forward({ids}, {.kept = KeptAttention::QueriesAndKeys}); },
       [&] { grid_atlas(view, {}); }, [&] { analyze_text(text, captures, {}); },
       [&] { head_matrix(view, last, head, MatrixKind::Attention); },
       [&] {  // what the explorer's overview waits for: the forward pooling it, then colours
         OverviewPooler pooler(analysis.num_layers, analysis.num_heads, kGridThumbnailCells);
         checkpoint.model().forward({ids}, {.kept = KeptAttention::QueriesAndKeys, .attention_blocks = pooler.sink()});
         grid_atlas(view, {}, {.pooled = &pooler});
       },
       // What the Head view waits for: the top level of the head's pyramid, its clipped scale counted.
       [&] { head_view_map(last, true); }, [&] { head_view_map(last, false); }, [&] { head_view_map(local, true); },
       [&] { head_view_map(local, false); },
       // The Head view's rollout (made before it is drawn): after the second layer one product of
       // n x n matrices, after the last L - 1 of them.
       [&] { long_text_rollout(view, 1, false); }, [&] { long_text_rollout(view, last, false); }},
      checkpoint.model().device().device, std::chrono::milliseconds(0));
  std::cout << nlohmann::json{{"tokens", ids.size()},
                              {"runs", runs},
                              {"forward_plain_ms", m[0]},
                              {"forward_queries_keys_ms", m[1]},
                              {"thumbnails_ms", m[2]},
                              {"analysis_ms", m[3]},
                              {"head_map_ms", m[4]},
                              {"forward_pooled_overview_ms", m[5]},
                              {"head_view_map_ms", m[6]},
                              {"head_view_map_every_key_ms", m[7]},
                              {"local_layer", local},
                              {"head_view_map_local_ms", m[8]},
                              {"head_view_map_local_every_key_ms", m[9]},
                              {"rollout_second_layer_ms", m[10]},
                              {"rollout_last_layer_ms", m[11]}}
                   .dump()
            << "\n";
}

// The long-text lens timings (--long-text-lens), each a median of `runs` after `warmup` runs.
void time_long_text_lens(const attnscope::Checkpoint& checkpoint, const attnscope::Encoding& text, int warmup,
                         int runs) {
  using namespace attnscope;
  const std::vector<int64_t> ids = text.ids();
  const auto captures = std::make_shared<const TextCaptures>(text_captures(
      checkpoint.model().forward({ids}, {.kept = KeptAttention::QueriesAndKeys, .lenses = true}), 0, true));
  const TextAnalysis analysis = analyze_text(text, *captures, {});
  const AnalyzedTextView held = analyzed_text_view(text, *captures, analysis, &checkpoint.model());
  // The same blocks spread over every key, as these steps read them before.
  const auto every_key = [&] {
    return AttentionBlockRows([blocks = recomputed_attention_blocks(checkpoint.model(), *captures)](
                                  int64_t layer, int64_t head, RowSpan rows) {
      const AttentionBlock block = blocks(layer, head, rows);
      return AttentionBlock{block.whole(), block.rows, {0, block.n}, block.n};
    });
  };
  AnalyzedTextView spread = held;
  spread.attention_blocks = every_key();
  const int last = static_cast<int>(analysis.num_layers - 1), head = static_cast<int>(analysis.num_heads / 2);
  const auto head_view_map = [&](const AnalyzedTextView& view, int of_head) {
    MapPyramid pyramid(head_map_source(view, {last, of_head, MatrixKind::Norm}, ValueScale::Clipped, false));
    pyramid.make_top(std::chrono::hours(1));
  };
  const LensMapsOf held_maps{[&] { return recomputed_attention_blocks(checkpoint.model(), *captures); }, captures},
      spread_maps{every_key, captures};
  const auto m = interleaved_medians(
      warmup, runs,
      {[&] { checkpoint.model().forward({ids}, {.kept = KeptAttention::QueriesAndKeys, .lenses = true}); },
       [&] { long_text_separator_columns(held_maps.blocks(), *captures, SeparatorInput::Norm); },
       [&] { long_text_separator_columns(spread_maps.blocks(), *captures, SeparatorInput::Norm); },
       [&] { head_view_map(held, head); }, [&] { head_view_map(spread, head); }, [&] { head_view_map(held, -1); },
       [&] { head_view_map(spread, -1); }, [&] { long_text_lens_map(held_maps, PairInput::Norm, last, head); },
       [&] { long_text_lens_map(spread_maps, PairInput::Norm, last, head); },
       // The rollout after the last layer (one product of n x n matrices a layer), through the
       // norm-based layer maps and through the mean attention.
       [&] { long_text_rollout(held, last, true); }, [&] { long_text_rollout(spread, last, true); },
       [&] { long_text_rollout(held, last, false); }, [&] { long_text_rollout(spread, last, false); }},
      checkpoint.model().device().device, std::chrono::milliseconds(0));
  std::cout << nlohmann::json{{"tokens", ids.size()},
                              {"runs", runs},
                              {"forward_lenses_ms", m[0]},
                              {"norm_separators_ms", m[1]},
                              {"norm_separators_every_key_ms", m[2]},
                              {"norm_head_view_map_ms", m[3]},
                              {"norm_head_view_map_every_key_ms", m[4]},
                              {"norm_layer_view_map_ms", m[5]},
                              {"norm_layer_view_map_every_key_ms", m[6]},
                              {"norm_head_map_ms", m[7]},
                              {"norm_head_map_every_key_ms", m[8]},
                              {"norm_rollout_last_layer_ms", m[9]},
                              {"norm_rollout_last_layer_every_key_ms", m[10]},
                              {"rollout_last_layer_ms", m[11]},
                              {"rollout_last_layer_every_key_ms", m[12]}}
                   .dump()
            << "\n";
}

// --head-roles: a long text's head roles (induction aside) from its maps made again, as
// text_role_scores makes them (each block over the keys its rows may see, the queries and keys laid
// out once a layer) and as they were made before (each block's whole rows, laid out again for each
// block), beside the forward keeping queries and keys; the largest difference of their scores. And
// the forward handing its blocks to the role rows, then the roles from those (as the explorer makes
// them: pipeline/role_rows_from_blocks.h), with their largest difference from those made again.
void time_head_roles(const attnscope::Checkpoint& checkpoint, const std::vector<int64_t>& ids, int warmup, int runs) {
  using namespace attnscope;
  const Transformer& model = checkpoint.model();
  const TextCaptures c = text_captures(model.forward({ids}, {.kept = KeptAttention::QueriesAndKeys}), 0, true);
  const auto whole_rows = [&] {
    const int64_t n = c.length;
    const std::vector<AttentionReach> reach = attention_reach(model.config());
    HeadRoleScores scores(c.num_layers, c.num_heads);
    for (int64_t l = 0; l < c.num_layers; ++l) {
      LayerRoleRows rows(c.num_heads, n, ids, reach[static_cast<size_t>(l)]);
      for (const auto& [first, count] : row_blocks(n, rows_per_block(c.num_heads * n)))
        rows.add(model.recompute_attention(c.queries[l], c.keys[l], l, {first, count}), first);
      rows.finish(scores, l);
    }
    return scores;
  };
  const auto from_blocks = [&] {
    RoleRowsFromBlocks rows;
    rows.start(model, ids);
    const TextCaptures kept = text_captures(
        model.forward({ids}, {.kept = KeptAttention::QueriesAndKeys, .attention_blocks = rows.sink()}), 0, true);
    return text_role_scores(model, kept, ids, {.from_blocks = &rows});
  };
  const auto largest_difference = [](const HeadRoleScores& x, const HeadRoleScores& y) {
    double largest = 0;
    for (const HeadRole role : kHeadRoles)
      for (int64_t l = 0; l < x.layers(); ++l)
        for (int64_t h = 0; h < x.heads(); ++h)
          if (const auto a = x.score(role, l, h), b = y.score(role, l, h); a && b)
            largest = std::max(largest, std::abs(*a - *b));
    return largest;
  };
  const HeadRoleScores now = text_role_scores(model, c, ids);
  const double largest = largest_difference(whole_rows(), now),
               from_blocks_largest = largest_difference(from_blocks(), now);
  const auto m =
      interleaved_medians(warmup, runs,
                          {[&] { model.forward({ids}, {.kept = KeptAttention::QueriesAndKeys}); },
                           [&] { text_role_scores(model, c, ids); }, [&] { whole_rows(); }, [&] { from_blocks(); }},
                          model.device().device, std::chrono::milliseconds(0));
  std::cout << nlohmann::json{{"tokens", ids.size()},
                              {"runs", runs},
                              {"forward_queries_keys_ms", m[0]},
                              {"head_roles_visible_keys_ms", m[1]},
                              {"head_roles_whole_rows_ms", m[2]},
                              {"largest_score_difference", largest},
                              {"forward_and_roles_from_its_blocks_ms", m[3]},
                              {"from_blocks_largest_score_difference", from_blocks_largest}}
                   .dump()
            << "\n";
}

// SECTION 3: text typed.

// --typed-at-start: the pipeline's whole run (text to analysis) as the window asks it on a text
// whose first word changes from run to run (typed at its start: no token shared but a start
// token), continuing from its last run and working out the five most likely next tokens; the
// same from scratch; and from scratch without the next tokens (what the typing target's forward
// alone and analysis alone add up to). Each pipeline sees the two texts in turn.
void time_typed_at_start(const std::shared_ptr<const attnscope::Checkpoint>& checkpoint, const std::string& model,
                         const std::string& text, size_t max_length, int warmup, int runs,
                         std::chrono::milliseconds idle) {
  attnscope::TextPipeline continued(checkpoint, model), scratch(checkpoint, model), plain(checkpoint, model);
  int turn = 0;
  const auto next_text = [&] { return (++turn % 2 ? std::string("A ") : std::string("Then ")) + text; };
  const attnscope::TextPipelineOptions as_window{.max_length = max_length, .next_tokens = 5, .continues = true},
      with_next{.max_length = max_length, .next_tokens = 5}, alone{.max_length = max_length};
  const auto m =
      interleaved_medians(warmup, runs,
                          {[&] { continued.run(next_text(), as_window); }, [&] { scratch.run(next_text(), with_next); },
                           [&] { plain.run(next_text(), alone); }},
                          checkpoint->model().device().device, idle);
  std::cout << nlohmann::json{{"tokens", checkpoint->encode(text, max_length).size()},
                              {"window_run_ms", m[0]},
                              {"scratch_next_tokens_ms", m[1]},
                              {"scratch_ms", m[2]}}
                   .dump()
            << "\n";
}

// The explorer's forward (in slices, its last layer at its head outputs and last token) of `ids`
// from scratch and continued from a run of them without their last `typed`; with `lenses`, keeping
// the lenses' captures (as while a lens is shown), and continued with the run before's queries too,
// then its value Gram matrices as well.
void time_continued(const attnscope::Checkpoint& checkpoint, const std::vector<int64_t>& ids, int64_t typed,
                    bool lenses, int warmup, int runs, std::chrono::milliseconds idle) {
  using namespace attnscope;
  const Transformer& model = checkpoint.model();
  typed = std::clamp<int64_t>(typed, 1, static_cast<int64_t>(ids.size()) - 1);
  const std::vector<int64_t> before(ids.begin(), ids.end() - typed);
  const ForwardOptions explorer{
      .lenses = lenses, .last_layer = LastLayer::HeadOutputsAndLastToken, .keep_layer_inputs = true, .keep_going = [] {
        return true;
      }};
  const TextCaptures earlier = text_captures(model.forward({before}, explorer), 0, false);
  ForwardOptions continued = explorer;
  continued.prefix = {earlier.hidden_states, static_cast<int64_t>(before.size())};
  ForwardOptions with_maps = continued;
  with_maps.prefix.attention = earlier.attention;
  with_maps.prefix.head_outputs = earlier.head_outputs;
  ForwardOptions with_keys = with_maps;  // what the explorer's pipeline continues from (without the lenses)
  with_keys.prefix.keys = earlier.layer_keys;
  with_keys.prefix.values = earlier.layer_values;
  ForwardOptions with_queries = with_keys;  // and with them
  with_queries.prefix.queries = earlier.queries;
  ForwardOptions with_gram = with_queries;
  with_gram.prefix.value_gram = earlier.value_gram;
  with_gram.prefix.value_norms = earlier.value_norms;
  std::vector<std::function<void()>> variants{
      [&] { model.forward({ids}, explorer); }, [&] { model.forward({ids}, continued); },
      [&] { model.forward({ids}, with_maps); }, [&] { model.forward({ids}, with_keys); }};
  if (lenses) {
    variants.push_back([&] { model.forward({ids}, with_queries); });
    variants.push_back([&] { model.forward({ids}, with_gram); });
  }
  const auto m = interleaved_medians(warmup, runs, variants, model.device().device, idle);
  const double as_explorer = m.back();
  nlohmann::json out{{"tokens", ids.size()},
                     {"typed", typed},
                     {"lenses", lenses},
                     {"tokens_continued", model.tokens_continued(continued.prefix, ids.size(), 1)},
                     {"runs", runs},
                     {"forward_ms", m[0]},
                     {"continued_layers_ms", m[1]},
                     {"continued_maps_ms", m[2]},
                     {"continued_ms", as_explorer},
                     {"ratio", as_explorer / m[0]}};
  if (lenses) {
    out["continued_every_row_ms"] = m[3];  // the keys and values taken, every row projected
    out["continued_gram_made_ms"] = m[4];  // the queries taken too, every row's Gram matrices made
  }
  std::cout << out.dump() << "\n";
}

// The same for a long text, its maps not kept, as the explorer runs it with the overview of
// attention shown (its forward's blocks pooled into thumbnails): from scratch; continued from the
// run before's layer inputs alone (every block made); and continued from its column sums before its
// last block, head outputs, queries, keys and values too (the blocks from there on alone made, the
// overview pooled on from where the run before's stood).
// The analysis of the continued run's captures from scratch, and taking each head's pairs among
// the earlier tokens from the analysis of the text before (AnalysisRun::resume), as the explorer's
// pipeline does: medians of `runs` after `warmup`, alternating.
nlohmann::json time_resumed_analysis(const attnscope::Encoding& encoding, const attnscope::TextCaptures& captures,
                                     const attnscope::Encoding& earlier_encoding,
                                     const attnscope::TextCaptures& earlier, int warmup, int runs,
                                     std::chrono::milliseconds idle) {
  using namespace attnscope;
  const TextAnalysis was = analyze_text(earlier_encoding, earlier, {}, {.keeps_pairs_before = true});
  int64_t heads_resumed = 0;
  const auto m = interleaved_medians(warmup, runs,
                                     {[&] { analyze_text(encoding, captures, {}, {.keeps_pairs_before = true}); },
                                      [&] {
                                        const TextAnalysis a = analyze_text(
                                            encoding, captures, {}, {.keeps_pairs_before = true, .resume = &was});
                                        heads_resumed = a.pairs_before->heads_resumed;
                                      }},
                                     at::kCPU, idle);
  return {{"analysis_ms", m[0]}, {"analysis_resumed_ms", m[1]}, {"heads_resumed", heads_resumed}};
}

// The head roles of the same captures from scratch, and taking each layer's rows of the earlier
// tokens from the roles of the text before (TextHeadRolesOptions::resume), as the explorer does.
nlohmann::json time_resumed_roles(const attnscope::Transformer& model, const attnscope::TextCaptures& captures,
                                  const std::vector<int64_t>& ids, const attnscope::TextCaptures& earlier,
                                  const std::vector<int64_t>& earlier_ids, int warmup, int runs,
                                  std::chrono::milliseconds idle) {
  using namespace attnscope;
  TextRoleRows kept;
  text_role_scores(model, earlier, earlier_ids, {.keep = &kept});
  const auto m = interleaved_medians(warmup, runs,
                                     {[&] { text_role_scores(model, captures, ids); },
                                      [&] { text_role_scores(model, captures, ids, {.resume = &kept}); }},
                                     at::kCPU, idle);
  return {{"head_roles_ms", m[0]}, {"head_roles_resumed_ms", m[1]}};
}

// The text before a long text's continued run: it without its last `typed` tokens, or (`edited_at`
// positive) it with the token there another, an edit in the middle. Its ids, and how many leading
// tokens the two share.
std::pair<std::vector<int64_t>, int64_t> text_before(const std::vector<int64_t>& ids, int64_t typed,
                                                     int64_t edited_at) {
  const auto n = static_cast<int64_t>(ids.size());
  if (edited_at <= 0) {
    typed = std::clamp<int64_t>(typed, 1, n - 1);
    return {std::vector<int64_t>(ids.begin(), ids.end() - typed), n - typed};
  }
  const auto at = static_cast<size_t>(std::clamp<int64_t>(edited_at, 1, n - 1));
  std::vector<int64_t> before = ids;
  before[at] = ids[at - 1] != ids[at] ? ids[at - 1] : ids[at] + 1;
  return {before, static_cast<int64_t>(at)};
}

// How a long text's continued run is timed: typed on at its end (`typed` tokens) or edited at token
// `edited_at`; its forward alone, or with the analysis and the head roles.
struct ContinuedLongRun {
  int64_t typed = 0, edited_at = 0;
  int warmup = 0, runs = 1;
  std::chrono::milliseconds idle{0};
  bool forward_only = false;
};

void time_continued_long(const attnscope::Checkpoint& checkpoint, const attnscope::Encoding& encoding,
                         const ContinuedLongRun& how) {
  const auto [typed, edited_at, warmup, runs, idle, forward_only] = how;
  using namespace attnscope;
  const Transformer& model = checkpoint.model();
  const ModelConfig& c = model.config();
  const std::vector<int64_t> ids = encoding.ids();
  const auto [before, shared] = text_before(ids, typed, edited_at);
  ForwardOptions explorer{.kept = KeptAttention::QueriesAndKeys,
                          .last_layer = LastLayer::HeadOutputsAndLastToken,
                          .keep_layer_inputs = true,
                          .keep_going = [] { return true; }};
  OverviewPooler first(c.num_layers, c.num_heads, kGridThumbnailCells);
  explorer.attention_blocks = first.sink();
  const TextCaptures earlier = text_captures(model.forward({before}, explorer), 0, false);
  const auto point = first.resume_point(earlier.column_sums_before.rows);
  ForwardOptions layer_inputs = explorer;
  layer_inputs.prefix = {earlier.hidden_states, shared};
  ForwardOptions resumed = explorer;
  resumed.prefix = continued_from(earlier, shared);
  const auto pooled = [&](ForwardOptions o) {
    OverviewPooler pooler(c.num_layers, c.num_heads, kGridThumbnailCells, point);
    o.attention_blocks = pooler.sink();
    model.forward({ids}, o);
  };
  const auto m = interleaved_medians(
      warmup, runs, {[&] { pooled(explorer); }, [&] { pooled(layer_inputs); }, [&] { pooled(resumed); }},
      model.device().device, idle);
  const auto n = static_cast<int64_t>(ids.size());
  const int64_t rows = model.tokens_continued(resumed.prefix, n, 1);
  nlohmann::json out{{"tokens", ids.size()},
                     {"typed", edited_at > 0 ? 0 : n - shared},
                     {"edited_at", edited_at > 0 ? shared : -1},
                     {"tokens_continued", rows},
                     {"blocks_from", model.blocks_resumed_from(resumed.prefix, 1, n, rows)},
                     {"runs", runs},
                     {"forward_ms", m[0]},
                     {"continued_layers_ms", m[1]},
                     {"continued_ms", m[2]},
                     {"ratio", m[2] / m[0]}};
  if (forward_only) {
    std::cout << out.dump() << "\n";
    return;
  }
  Encoding earlier_encoding = encoding;
  earlier_encoding.tokens.resize(before.size());
  for (size_t k = 0; k < before.size(); ++k) earlier_encoding.tokens[k].id = static_cast<int32_t>(before[k]);
  ForwardOptions plain = explorer;
  plain.attention_blocks = {};
  const TextCaptures host_earlier = text_captures(model.forward({before}, plain), 0, true),
                     now = text_captures(model.forward({ids}, plain), 0, true);
  out.update(time_resumed_analysis(encoding, now, earlier_encoding, host_earlier, warmup, runs, idle));
  out.update(time_resumed_roles(model, now, ids, host_earlier, before, warmup, runs, idle));
  std::cout << out.dump() << "\n";
}

// SECTION 4: --dump-map and the command line.

// --dump-map: the head's map made again (a long text's path, its maps never kept).
void dump_map(const attnscope::Checkpoint& checkpoint, const std::vector<int64_t>& ids, int layer, int head,
              const std::string& file) {
  using namespace attnscope;
  const TextCaptures captures =
      text_captures(checkpoint.model().forward({ids}, {.kept = KeptAttention::QueriesAndKeys}), 0, true);
  const at::Tensor map = recomputed_attention_rows(checkpoint.model(), captures)(layer, head, {})[0].contiguous();
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(map.data_ptr<float>()), static_cast<std::streamsize>(map.numel() * 4));
  std::ofstream(file + ".ids.json") << nlohmann::json(ids).dump();
}

// The command line's choices: which steps to time, on what.
struct BenchOptions {
  std::string model, text_file, device = "cpu", precision = "float32";
  int runs = 30, warmup = 5, threads = 2, idle_ms = 0;
  size_t max_length = 128;
  bool reuse_freed_memory = false, forward_only = false, long_text = false, long_text_lens = false, head_roles = false,
       typed_at_start = false, continued_lenses = false;
  int64_t typed = 0, edited_at = 0;
  std::vector<std::string> dump;
  std::chrono::milliseconds idle() const { return std::chrono::milliseconds(idle_ms); }
};

void add_options(CLI::App& app, BenchOptions& o) {
  app.add_option("--model", o.model, "Checkpoint folder")->required();
  app.add_option("--text-file", o.text_file, "Text to analyse (truncated to --max-len)")->required();
  app.add_option("--max-len", o.max_length)->capture_default_str();
  app.add_option("--runs", o.runs)->capture_default_str();
  app.add_option("--warmup", o.warmup)->capture_default_str();
  app.add_option("--threads", o.threads)->capture_default_str();
  app.add_option(
         "--idle-ms", o.idle_ms,
         "Milliseconds the machine is left idle before each timed run (the explorer runs after a typist's pause)")
      ->capture_default_str()
      ->check(CLI::Range(0, 10000));
  app.add_option("--device", o.device)->capture_default_str();
  app.add_option("--precision", o.precision)->capture_default_str();
  app.add_flag(
      "--reuse-freed-memory", o.reuse_freed_memory,
      "Keep freed memory for reuse, as the explorer and corpus runs do (keep_freed_memory_for_reuse): without it "
      "every large tensor is fresh pages from the kernel");
  app.add_flag("--forward-only", o.forward_only,
               "Time the forward with captures alone (a long text's analysis on a big model takes minutes); with "
               "--long-text and --continued or --edited-at, the forwards alone");
  app.add_flag("--long-text", o.long_text,
               "Time what a long text costs, its maps not kept: forward, overview, analysis, one head's map");
  app.add_flag("--long-text-lens", o.long_text_lens,
               "Time a long text's norm-based lens, its maps not kept: separators, the Head view's maps, a head's "
               "whole map, each over the keys a block sees and spread over every key (as before)");
  app.add_flag("--head-roles", o.head_roles,
               "Time a long text's head roles from its maps made again, over the keys each block sees and over whole "
               "rows (as before), beside the forward keeping queries and keys");
  app.add_option("--continued", o.typed,
                 "N: a decoder's forward of the text continued from a run of it without its last N tokens, beside "
                 "the same from scratch (the explorer's forward as text is typed on at its end); with --long-text, "
                 "of a long text, its maps not kept")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--edited-at", o.edited_at,
                 "P: with --long-text, the same continued from a run of the text with its token P another (an edit "
                 "in the middle) instead of without its last tokens")
      ->check(CLI::Range(1, 1 << 20));
  app.add_flag("--lenses", o.continued_lenses,
               "With --continued: the same with the lenses' captures kept, continued without and with the run "
               "before's queries, then its value Gram matrices too");
  app.add_flag("--typed-at-start", o.typed_at_start,
               "The pipeline's run as the window asks it on a text whose first word changes each run (continued, "
               "with the next tokens), from scratch with and without the next tokens");
  app.add_flag("--step-times", g_step_times,
               "Print each step's time to stderr as it ends (warm-ups too): what a run stopped by a time limit leaves");
  app.add_option("--dump-map", o.dump, "L H FILE: write head H of layer L's map, made again, and exit")->expected(3);
}

// The forward with captures alone, as the explorer and the command line run it: the last layer
// stopped at its head outputs (a decoder's finished for its last token, whose next tokens the
// explorer shows), since nothing reads the rest of it; and beside it every row through the whole
// last layer, as transformers' forward runs it.
void time_forward_only(const attnscope::Checkpoint& checkpoint, const std::vector<int64_t>& ids, const BenchOptions& o,
                       double load_ms) {
  using attnscope::LastLayer;
  const attnscope::Transformer& model = checkpoint.model();
  const LastLayer as_run = model.config().causal() ? LastLayer::HeadOutputsAndLastToken : LastLayer::HeadOutputsOnly;
  const auto m = interleaved_medians(
      o.warmup, o.runs, {[&] { model.forward({ids}, {.last_layer = as_run}); }, [&] { model.forward({ids}); }},
      model.device().device, o.idle());
  std::cout << nlohmann::json{{"tokens", ids.size()}, {"load_ms", load_ms},         {"threads", o.threads},
                              {"runs", o.runs},       {"forward_capture_ms", m[0]}, {"forward_complete_ms", m[1]}}
                   .dump()
            << "\n";
}

// One list of timed steps, in the order of the JSON keys it prints: longer than most functions,
// kept whole so that each key sits beside what it times.
void time_every_step(const std::shared_ptr<const attnscope::Checkpoint>& checkpoint, const std::string& text,
                     const std::vector<int64_t>& ids, const BenchOptions& o, double load_ms) {
  const std::string& model = o.model;
  const size_t max_length = o.max_length;
  const int runs = o.runs, warmup = o.warmup, threads = o.threads;
  const attnscope::TextRun run = checkpoint->run(text, max_length, {.to_host = false});
  const attnscope::TextAnalysis analysed = attnscope::analyze_text(run.encoding, run.captures, {});
  // The first forward with the lenses also makes the model's W_O^T W_O products, once: timed apart.
  const auto first_start = std::chrono::steady_clock::now();
  const attnscope::TextRun lensed = checkpoint->run(text, max_length, {.to_host = false, .lenses = true});
  finish_device_work(checkpoint->model().device().device);
  const double first_lenses =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_start).count();
  // Every lens of issue 14 for the whole text: each head's norm-based map, each layer's, and the rollout.
  const int layers = static_cast<int>(checkpoint->model().config().num_layers);
  attnscope::TextPipeline pipeline(checkpoint, model);
  const auto lens_maps = [&] {
    const attnscope::TextCaptures& c = lensed.captures;
    attnscope::head_norm_maps(c);
    attnscope::layer_norm_maps(c, 0, layers);
    attnscope::rollout_maps(c, layers);
  };
  const auto m = interleaved_medians(
      warmup, runs,
      {[&] { checkpoint->run(text, max_length); }, [&] { checkpoint->model().forward({ids}); },
       [&] { checkpoint->model().forward({ids}, {.capture = false}); },
       [&] { attnscope::analyze_text(run.encoding, run.captures, {}); }, [&] { checkpoint->encode(text, max_length); },
       [&] { checkpoint->model().forward({ids}, {.lenses = true}); }, lens_maps,
       [&] { attnscope::head_norm_maps(lensed.captures); },
       [&] { attnscope::layer_norm_maps(lensed.captures, 0, layers); },
       [&] { attnscope::rollout_maps(lensed.captures, layers); },
       [&] {
         attnscope::grid_atlas({run.encoding, run.captures, analysed}, {});
       },
       // As the explorer runs it: its products in slices, a check between them.
       [&] {
         checkpoint->model().forward({ids},
                                     {.last_layer = attnscope::LastLayer::Complete, .keep_going = [] { return true; }});
       },
       // The explorer's own: in slices, and its last layer stopped at its head outputs.
       [&] {
         checkpoint->model().forward(
             {ids}, {.last_layer = attnscope::LastLayer::HeadOutputsOnly, .keep_going = [] { return true; }});
       },
       // The core's whole pipeline, text to analysis, as the explorer and the command line run it.
       [&] { pipeline.run(text, {.max_length = max_length}); }},
      checkpoint->model().device().device, o.idle());
  const double analyze = m[0], forward = m[1], plain = m[2], analysis = m[3], tokenize = m[4], forward_lenses = m[5],
               lenses = m[6];
  std::cout << nlohmann::json{{"tokens", ids.size()},       {"load_ms", load_ms},
                              {"threads", threads},         {"runs", runs},
                              {"analyze_ms", analyze},      {"forward_capture_ms", forward},
                              {"forward_plain_ms", plain},  {"analysis_ms", analysis},
                              {"tokenize_ms", tokenize},    {"forward_lenses_ms", forward_lenses},
                              {"lens_maps_ms", lenses},     {"first_forward_lenses_ms", first_lenses},
                              {"head_norm_maps_ms", m[7]},  {"layer_norm_maps_ms", m[8]},
                              {"rollout_ms", m[9]},         {"thumbnails_ms", m[10]},
                              {"forward_sliced_ms", m[11]}, {"forward_explorer_ms", m[12]},
                              {"pipeline_ms", m[13]}}
                   .dump()
            << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnscope forward-pass benchmark"};
  BenchOptions o;
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);

  at::set_num_threads(o.threads);
  if (o.reuse_freed_memory) attnscope::keep_freed_memory_for_reuse();
  // A long text's heap as the explorer and the command line set it (tune_heap_for_run): with glibc's
  // defaults each block of rows of the analysis' scan may be mapped for itself and faulted in again,
  // as earlier allocations left the heap (Gemma 3's whole analysis at 8,192 tokens took 42 to 47 s
  // so, 25 s with the blocks kept), which is not what the tools' users wait for.
  else if (o.long_text || o.long_text_lens)
    attnscope::tune_heap_for_run(false);
  std::ifstream in(o.text_file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const auto load_start = std::chrono::steady_clock::now();
  const auto checkpoint = attnscope::Checkpoint::load(o.model, attnscope::select_device(o.device, o.precision));
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count();
  const auto ids = checkpoint->encode(text, o.max_length).ids();
  if (!o.dump.empty())
    dump_map(*checkpoint, ids, std::stoi(o.dump[0]), std::stoi(o.dump[1]), o.dump[2]);
  else if (o.head_roles)
    time_head_roles(*checkpoint, ids, o.warmup, o.runs);
  else if ((o.typed > 0 || o.edited_at > 0) && o.long_text)
    time_continued_long(*checkpoint, checkpoint->encode(text, o.max_length),
                        {o.typed, o.edited_at, o.warmup, o.runs, o.idle(), o.forward_only});
  else if (o.typed > 0)
    time_continued(*checkpoint, ids, o.typed, o.continued_lenses, o.warmup, o.runs, o.idle());
  else if (o.long_text)
    time_long_text(*checkpoint, checkpoint->encode(text, o.max_length), o.warmup, o.runs);
  else if (o.long_text_lens)
    time_long_text_lens(*checkpoint, checkpoint->encode(text, o.max_length), o.warmup, o.runs);
  else if (o.typed_at_start)
    time_typed_at_start(checkpoint, o.model, text, o.max_length, o.warmup, o.runs, o.idle());
  else if (o.forward_only)
    time_forward_only(*checkpoint, ids, o, load_ms);
  else
    time_every_step(checkpoint, text, ids, o, load_ms);
  return 0;
}
