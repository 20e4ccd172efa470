#pragma once
// The one transformer forward in libtorch, for every architecture (model/architecture.h: the
// forward reads the description's traits, never the family's name), run under inference mode on a
// padded batch of token ids. Immutable once loaded (but for a cache of products of its own
// weights, filled once under std::call_once), so threads may share one model.
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "base/progress.h"
#include "model/attention_scores.h"
#include "model/context_in_blocks.h"
#include "model/transformer_weights.h"
#include "model/captures.h"
#include "model/config.h"
#include "model/device.h"
#include "model/gguf_file.h"
#include "model/rotary_positions.h"

namespace attnscope {

// How far the last layer runs. Whoever reads only the captures (the analysis, a corpus run) can
// stop it at its head outputs: its output projection and feed-forward block, most of a layer's
// work, are skipped, and hidden_states then holds L entries (the embeddings and layers 1 .. L - 1;
// a long text's forward the last of them alone).
// HeadOutputsAndLastToken stops there too, except at each text's last token, which runs to the
// end (BatchCaptures::last_states): all a decoder's next tokens need.
enum class LastLayer { Complete, HeadOutputsOnly, HeadOutputsAndLastToken };

// What a forward with captures keeps of each layer's attention.
enum class KeptAttention {
  Maps,  // every map, [L, B, H, n, n]: what every view and statistic reads
  // O(n) per layer: the queries and keys as the scores use them and each map's column sums (the
  // maps themselves made in blocks of query rows and dropped); any map is then recomputed on
  // demand (recompute_attention), to the bit. What a long text keeps (model/capture_plan.h).
  QueriesAndKeys,
};

// Handed each block of a layer's maps as a forward keeping queries and keys makes it, before it is
// dropped: on the compute device, in its precision, over the keys its rows may see (the others
// zero), valid during the call only. Blocks of a layer come in order of their rows, layers in
// order. Whoever pools every map (the overview's thumbnails) reads them here instead of making
// them all again after the forward.
using AttentionBlockSink = std::function<void(int64_t layer, const AttentionBlock& block)>;

// The start of a decoder's text run before, which a forward of a text beginning with the same
// tokens continues from. A causal layer's output at token i reads tokens 0 .. i alone, so the
// first `tokens` rows of every layer's input are those of the run before: only the later rows go
// through each layer's output projection and feed-forward block (most of a layer's work; the last
// layer's whole where it runs to the end, its kept output being normalised); the queries, keys
// and values, and the lenses' captures, are made for every row, the maps for every row too unless
// the run before's are given, and the captures are those of a forward from scratch (on the CPU to
// the bit: reproducible_products.h).
struct ForwardPrefix {
  // [L' >= L, k >= tokens, D]: its first L the input of each layer (TextCaptures::hidden_states)
  at::Tensor layer_inputs;
  int64_t tokens = 0;  // the leading tokens the two texts share; 0: none continued
  // That run's maps and head outputs ([L, H, k, k] and [L, H, k, d]: TextCaptures::attention and
  // head_outputs), or undefined. Given, a forward keeping every map makes only the later rows of
  // each map (a softmax row over keys it cannot see adds zeros alone, so the rows before are those
  // a forward from scratch makes): an appended token costs O(n) in attention, not O(n^2).
  at::Tensor attention, head_outputs;
  // That run's keys (as the scores use them) and values of every layer, [L, G, k, d] each
  // (TextCaptures::layer_keys and layer_values), or undefined. Given with its maps, to a forward
  // of a family that projects queries, keys and values apart (not GPT-2's or GPT-NeoX's fused
  // projection, made transposed: its tokens are a product's columns, which a few sum in another
  // order) into at least kFewestBlockColumns keys and values, only the later rows are projected:
  // the earlier rows' keys and values are these, and without the lenses no layer reads the
  // earlier rows' queries.
  at::Tensor keys, values;
  // That run's queries of every layer and head, [L, H, k, d] (TextCaptures::queries: a run with the
  // lenses keeps them), or undefined. A forward with the lenses keeps every row's queries: given
  // with the keys and values, the earlier rows' are these and the later rows alone are projected;
  // without them, such a forward projects every row.
  at::Tensor queries;
  // That run's value Gram matrices and norms, [L, k, H, H] and [L, H, k] (TextCaptures::value_gram
  // and value_norms), or undefined. Given with the queries, those of each slice of kValueGramSlice
  // tokens wholly before the first new row are taken (model/value_gram.h), not made again.
  at::Tensor value_gram, value_norms;
  // A long text's run before (its maps not kept, so `attention` undefined): each layer's column
  // sums over its rows before a few of its blocks' first rows (TextCaptures::column_sums_before).
  // Given with its head outputs and queries (and its keys and values, which a long text's forward
  // takes as the maps' does), a forward whose blocks hold as many rows makes the blocks from the
  // last of those rows at or before its first new row on alone, the head outputs before it taken
  // and the column sums summed on from these: the same bits as from scratch. Whoever reads the
  // blocks (ForwardOptions::attention_blocks) then gets those alone, so it must hold what the
  // earlier ones made.
  ColumnSumsBefore column_sums_before;
};

// What `run` kept (ForwardOptions::keep_layer_inputs) that a forward of a text sharing its first
// `tokens` tokens continues from: its layer inputs and whatever else of the above it holds.
ForwardPrefix continued_from(const TextCaptures& run, int64_t tokens);

struct ForwardOptions {
  // Keep the attention maps (or what recomputes them: `kept`) and head outputs of every layer;
  // without, attention runs fused.
  bool capture = true;
  // Without captures, a layer's scores are made whole (by the fused attention, whose fallback with a
  // mask holds [B, H, n, n] of them) up to this many bytes; past it, a block of query rows at a time
  // as a long text's captures are, in memory that grows as n (tests set 0).
  double most_whole_score_bytes = 256.0 * 1024 * 1024;
  KeptAttention kept = KeptAttention::Maps;
  // With KeptAttention::QueriesAndKeys: query rows per block of a layer's attention; 0: as many
  // as make about 32 MB of scores, at most 128 (block_step; tests set a few rows to cross many
  // blocks).
  int64_t block_rows = 0;
  AttentionBlockSink attention_blocks = {};  // with KeptAttention::QueriesAndKeys; none by default
  // Rows of each feed-forward block at a time; 0: as many as make about 32 MB of its activations
  // (tests set a few rows to cross many blocks).
  int64_t feed_forward_rows = 0;
  // With capture, also what the norm-based lens and the query/key view need
  // (BatchCaptures::all_value_norms, all_value_gram, all_queries, all_keys).
  bool lenses = false;
  LastLayer last_layer = LastLayer::Complete;  // the other two need capture
  // Keep every layer's input in BatchCaptures::hidden_states even for a long text (which otherwise
  // keeps its latest alone), a decoder's every layer's keys and values where a continued forward
  // reads them (BatchCaptures::all_layer_keys and all_layer_values), and a decoder's long text its
  // column sums before a few of its blocks of rows (BatchCaptures::column_sums_before): what a
  // later forward continues from (ForwardPrefix).
  bool keep_layer_inputs = false;
  // With keep_layer_inputs, a decoder's long text keeps its column sums before a block of rows at
  // about every this many rows (column_sums_rows; tests set a few rows).
  int64_t column_sums_every = 1024;
  // A decoder's single text continued from a run before; ignored for an encoder, a batch of more
  // than one text, or fewer than kFewestBlockRows new rows to run (then the prefix gives way to
  // enough rows that each product sums as from scratch).
  ForwardPrefix prefix = {};
  // Asked before each layer and between the slices its products are then cut into (about 2 ms of
  // work each on two CPU cores): a run made stale by a newer request stops within a slice.
  KeepGoing keep_going = {};
  // ("model", layers done / layers) after each layer: Gemma 3's forward keeping every map of 2,048
  // tokens takes some 5 s on two cores. A long text's blocks of maps report within a layer as well
  // (forward_progress.h).
  ProgressReport progress = {};
};

class Transformer {
 public:
  Transformer(ModelConfig config, TransformerWeights weights, ComputeDevice device);
  // config.json + model.safetensors of a checkpoint folder, or a decoder's GGUF file.
  static std::shared_ptr<const Transformer> load(const std::filesystem::path& dir, const ComputeDevice& device);
  static std::shared_ptr<const Transformer> load_gguf(const GgufFile& file, const ComputeDevice& device);

  // ids: one list of token ids per text (each at most max_positions long).
  BatchCaptures forward(const std::vector<std::vector<int64_t>>& ids, const ForwardOptions& options = {}) const;

  // The leading tokens a forward of `texts` texts, the longest of `tokens`, takes from `prefix`: 0
  // but for a decoder's single text, and never so many that fewer than kFewestBlockRows are left.
  int64_t tokens_continued(const ForwardPrefix& prefix, int64_t tokens, size_t texts) const;

  // A long text's continued forward (its maps not kept) of B texts of n tokens, `rows` of them
  // continued (tokens_continued), in blocks of `block_rows` (ForwardOptions::block_rows): the row
  // its blocks resume from (ForwardPrefix::column_sums_before), 0 where they start again from the
  // first. Throws where the run before's captures are given in the wrong shape.
  int64_t blocks_resumed_from(const ForwardPrefix& prefix, int64_t B, int64_t n, int64_t rows,
                              int64_t block_rows = 0) const;

  const ModelConfig& config() const { return config_; }
  // A decoder's next-token scores' matrix [V, D]; undefined for an encoder.
  const TokenMatrix& output_weight() const { return weights_.output_weight; }
  const ComputeDevice& device() const { return device_; }
  // How its layers make their maps from queries and keys (all of it but DeBERTa's relative terms).
  const AttentionScores& attention_scores() const { return scores_; }

  // One text's attention maps of layer `layer` again, [H, rows, n] for the query rows asked, from
  // the queries and keys the forward used ([H, n, d] each: TextCaptures::queries[layer] and
  // keys[layer], kept with the lenses or with KeptAttention::QueriesAndKeys): the same mask,
  // products and softmax as the forward, so the same maps to the bit (the products sum in one
  // order whatever their shape: reproducible_products.h). Throws attnscope::Error for DeBERTa
  // (its scores need more than queries and keys).
  at::Tensor recompute_attention(const at::Tensor& queries, const at::Tensor& keys, int64_t layer,
                                 RowSpan rows = {}) const;
  // The same for many blocks of one layer's rows (AttentionScores::recompute_inputs).
  using RecomputeInputs = AttentionScores::RecomputeInputs;
  RecomputeInputs recompute_inputs(const at::Tensor& queries, const at::Tensor& keys, int64_t layer,
                                   int64_t first_head = 0) const;
  at::Tensor recompute_attention(const RecomputeInputs& inputs, RowSpan rows = {}) const;

 private:
  struct Batch {
    at::Tensor ids;  // [B, n] on the host, pads 0
    std::vector<int64_t> lengths;
    int64_t n = 0;  // the longest text
    bool padded = false;
  };
  Batch checked_batch(const std::vector<std::vector<int64_t>>& ids) const;
  at::Tensor padding_mask(const Batch& batch) const;
  void allocate_captures(BatchCaptures& out, int64_t B, int64_t n, const ForwardOptions& options) const;
  // A decoder's long text's column sums before its blocks' rows (column_sums_rows), where kept
  // (ForwardOptions::keep_layer_inputs): those before `blocks_from`, where its blocks resume, taken
  // from the run before where it kept them (the same bits), the later ones made as the blocks come.
  void allocate_column_sums_before(BatchCaptures& out, int64_t B, int64_t n, const ForwardOptions& options,
                                   int64_t blocks_from) const;
  // positions: per-token position ids (RoBERTa's offsets), or undefined for 0 .. n - 1.
  at::Tensor embed(const at::Tensor& ids, const at::Tensor& positions) const;
  RotaryTables rotary_tables(int64_t n, double theta) const;
  // What a continued forward with the lenses takes of one layer's lens captures of the run before
  // (ForwardPrefix::queries, value_gram and value_norms: [H, k, d], [k, H, H] and [H, k] on the
  // device); undefined: made for every row.
  struct EarlierLensCaptures {
    at::Tensor queries, value_gram, value_norms;
  };
  // A layer's mask as attend reads it: whole when the maps are made whole; otherwise made for each
  // block of query rows from the padding mask (a whole n x n mask is what a long text cannot hold).
  struct LayerMask {
    at::Tensor whole;
    bool in_blocks = false, local = false;
    at::Tensor padding;
    int64_t block_rows = 0;
    const AttentionBlockSink* sink = nullptr;  // given: each block of maps goes there too
    // A continued forward keeping every map: the rows before `earlier_rows` of this layer's maps
    // and head outputs taken from the run before's ([B = 1, H, k >= earlier_rows, k] and [1, H, k,
    // d], on the device); 0: every row made.
    at::Tensor earlier_attention = {}, earlier_outputs = {};  // initialised: designated initializers omit them
    int64_t earlier_rows = 0;
    // And where the run before's keys and values serve (ForwardPrefix::keys): this layer's, [G, k, d]
    // on the device; undefined: every row projected. With the lenses its lens captures too.
    at::Tensor earlier_keys = {}, earlier_values = {};
    EarlierLensCaptures earlier_lenses = {};
    // A long text's continued forward (ForwardPrefix::column_sums_before): its blocks of rows from
    // row blocks_from on alone, this layer's column sums before it [1, H, s >= blocks_from] and its
    // head outputs (earlier_outputs) of the rows before it taken; 0: every block made.
    int64_t blocks_from = 0;
    at::Tensor earlier_column_sums = {};
  };
  at::Tensor normalize(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) const;
  struct Projected {
    at::Tensor q_t, k_t, v_t;  // [B * H, d, n]
  };
  // A layer's queries, keys and values from its input x: normalised first where the family does,
  // rotary positions applied when given. The normalised input lives only while it is projected
  // (at 32,768 tokens Gemma 3's is 84 MB, which the layer's attention no longer holds).
  Projected project(const LayerWeights& w, const at::Tensor& x, const RotaryTables* rotary,
                    const KeepGoing& keep_going) const;
  Projected project_fused(const LayerWeights& w, const at::Tensor& input, const KeepGoing& keep_going) const;
  Projected project_stacked(const LayerWeights& w, const at::Tensor& input, const RotaryTables* rotary,
                            const KeepGoing& keep_going) const;
  // A continued forward's: the queries of the rows from mask.earlier_rows on alone ([B * H, d,
  // later rows]), the keys and values of every row, the earlier ones from mask.earlier_keys and
  // earlier_values.
  Projected project_rows_after(const LayerWeights& w, const at::Tensor& x, const RotaryTables* rotary,
                               const LayerMask& mask, const KeepGoing& keep_going) const;
  // Layer l's keys and values of every key/value head, into BatchCaptures::all_layer_keys and
  // all_layer_values.
  void keep_keys_and_values(const Projected& qkv, int64_t l, BatchCaptures& keep) const;
  // A layer in two steps: self-attention to the head outputs (kept in `keep` when given; rotary
  // positions applied to queries and keys when given), then the output projection and feed-forward
  // block to the layer's output.
  // `relative`: DeBERTa's [n, n] index into the relative embeddings' 2 span rows, or undefined.
  at::Tensor attend(const LayerWeights& w, const at::Tensor& x, const LayerMask& mask, BatchCaptures* keep,
                    const RotaryTables* rotary, const at::Tensor& relative, const KeepGoing& keep_going) const;
  // softmax(q k^T scale (soft-capped where the family does) + mask) V, the maps kept in `keep`
  // when given (a causal or sliding-window layer's on the CPU then by maps_in_blocks_into).
  at::Tensor attend_explicitly(const LayerWeights& w, const Projected& qkv, const LayerMask& mask,
                               const at::Tensor& relative, BatchCaptures* keep, int64_t B) const;
  // The same for the rows from mask.earlier_rows on (made as a block of rows is: the same bits as
  // the whole maps'), the rows before taken from the run before (a continued forward).
  at::Tensor attend_rows_after(const Projected& qkv, const LayerMask& mask, BatchCaptures& keep, int64_t B) const;
  // The maps and head outputs of rows [from, n) of a causal or sliding-window layer on the CPU,
  // written into `attention` [B, H, n, n] and `context` [B, H, n, d] block by block of rows, each
  // block scored over the keys its rows may see alone (AttentionScores::attention_block) and the
  // others set to 0: the same bits as scoring every key, for about half the scores' product, mask
  // and softmax of a decoder's layer. q_t holds rows [n - q_t.size(2), n).
  void maps_in_blocks_into(const Projected& qkv, const LayerMask& mask, const at::Tensor& attention,
                           const at::Tensor& context, int64_t from, int64_t B) const;
  // Whether maps_in_blocks_into makes this layer's maps: scoring some keys alone saves work on the
  // CPU; elsewhere each block would be launches of its own (context_in_blocks.h).
  bool scores_visible_keys(const LayerMask& mask, const at::Tensor& relative) const;
  // The keys a layer's head outputs read (context_in_blocks.h): a decoder's up to each row, a
  // local layer's within its window.
  ContextReach reach_of(bool local_layer) const;
  // The same in blocks of query rows, keeping the queries, keys and column sums instead of the maps
  // in `keep`; without it (a long text's forward without captures) the head outputs alone.
  at::Tensor attend_in_blocks(const Projected& qkv, const LayerMask& mask, BatchCaptures* keep, int64_t B,
                              const KeepGoing& keep_going) const;
  // The query rows of each block of a layer's attention in blocks, for B texts of n tokens: about
  // 32 MB of scores and at most 128 rows, `asked` where asked (ForwardOptions::block_rows). The
  // same for every n up to the next power of two, so that a text typed on keeps its blocks
  // (ForwardPrefix::block_step).
  int64_t block_step(int64_t B, int64_t n, int64_t asked, ContextReach reach) const;
  // Such a forward's layer `layer`: the rows before `rows` from the run before (their projections
  // where it takes them, ForwardPrefix::keys), its blocks from `from` on.
  void take_earlier_blocks(LayerMask& mask, const ForwardPrefix& prefix, int64_t layer, int64_t rows,
                           int64_t from) const;
  // Layer l's column sums before a block of rows into BatchCaptures::column_sums_before where
  // kept before its first row: `columns` [B, H, n] as that block (rows.first on) comes. Whether
  // they were (a later forward may resume at the block: AttentionBlock::resumable).
  bool keep_column_sums_before(const at::Tensor& columns, RowSpan rows, int64_t step, int64_t l,
                               BatchCaptures& keep) const;
  // Whether a forward of B texts of n tokens runs its attention in blocks of query rows: a long
  // text's, its maps not kept (`kept`); without captures, where a layer's scores whole would take
  // more than options.most_whole_score_bytes (DeBERTa's relative terms are made whole always).
  bool attends_in_blocks(const ForwardOptions& options, int64_t B, int64_t n) const;
  // DeBERTa's content-to-position and position-to-content terms of the scores, [B, H, n, n], scaled.
  at::Tensor disentangled_scores(const LayerWeights& w, const Projected& qkv, const at::Tensor& relative,
                                 int64_t B) const;
  at::Tensor relative_index(int64_t n) const;  // DeBERTa's, on the device
  // The output projection and feed-forward block (`feed_forward_rows` as for feed_forward).
  at::Tensor finish(const LayerWeights& w, const at::Tensor& context, const at::Tensor& x, const KeepGoing& keep_going,
                    int64_t feed_forward_rows = 0) const;
  // The same for the rows from `first` on, the rows before taken from `earlier_rows` ([first, D]):
  // a continued forward (ForwardPrefix).
  at::Tensor finish_rows_after(const LayerWeights& w, const at::Tensor& context, const at::Tensor& x, int64_t first,
                               const at::Tensor& earlier_rows, const KeepGoing& keep_going,
                               int64_t feed_forward_rows = 0) const;
  // The rows of each layer's input a forward of `batch` takes from `prefix`, on the compute device,
  // [L', rows, D]; undefined where none are (ForwardOptions::prefix).
  at::Tensor continued_rows(const ForwardPrefix& prefix, const Batch& batch) const;
  void check_earlier_maps(const ForwardPrefix& prefix, int64_t rows) const;  // throws where they do not serve
  // What of the run before's projections a continued forward keeping every map takes: none (it
  // projects every row), its keys and values, or with the lenses its queries as well.
  enum class EarlierProjections { None, KeysAndValues, AndQueries };
  // A continued forward keeping every map: layer `layer`'s rows before `rows` from the run before,
  // and its projections where they are taken.
  void take_earlier_maps(LayerMask& mask, const ForwardPrefix& prefix, int64_t layer, int64_t rows,
                         EarlierProjections taken) const;
  // What such a forward takes of them (ForwardPrefix::keys, queries, value_gram); throws where they
  // are given in the wrong shape.
  EarlierProjections takes_earlier_projections(const ForwardPrefix& prefix, const ForwardOptions& options,
                                               int64_t rows) const;
  void check_earlier_value_gram(const ForwardPrefix& prefix, int64_t rows) const;
  // What a forward works out once before its layers: the checked batch, whether it attends in
  // blocks, the masks (whole, or the padding alone for blocks), rotary tables, DeBERTa's relative
  // index, and what a continued forward takes of the run before.
  struct ForwardPlan {
    Batch batch;
    bool in_blocks = false;
    at::Tensor padding;
    AttentionScores::Masks masks;
    RotaryTables global, local;
    at::Tensor relative;
    at::Tensor continued;  // continued_rows; undefined: every row made
    bool earlier_maps = false;
    EarlierProjections earlier_projections = EarlierProjections::None;
    int64_t blocks_from = 0;
  };
  ForwardPlan plan_forward(const std::vector<std::vector<int64_t>>& ids, const ForwardOptions& options) const;
  LayerMask layer_mask(const ForwardPlan& plan, size_t layer, const ForwardOptions& options) const;
  // Whether any continued forward may (a decoder projecting apart into wide enough products).
  bool continues_from_projections() const;
  void check_forward_options(const ForwardOptions& o) const;  // throws where no forward gives what they ask
  // The feed-forward block of every row of x, `step` rows at a time (0: as ForwardOptions::feed_forward_rows).
  at::Tensor feed_forward(const LayerWeights& w, const at::Tensor& x, const KeepGoing& keep_going,
                          int64_t step = 0) const;
  at::Tensor feed_forward_whole(const LayerWeights& w, const at::Tensor& x,
                                const KeepGoing& keep_going) const;  // every row at once
  at::Tensor finish_last_tokens(const LayerWeights& w, const at::Tensor& context, const at::Tensor& x,
                                const Batch& batch) const;
  static at::Tensor last_rows(const at::Tensor& t, const std::vector<int64_t>& lengths);
  // f_h(x_j) = v_j^h W_O^h of every head and token of layer l, kept as norms and per-token Gram
  // matrices in `keep` (v_t: the values as attend computed them, [B * H, d, n]); a continued
  // forward's first `earlier_rows` tokens' from `earlier` where it holds them, slice by slice.
  void keep_value_vectors(const at::Tensor& v_t, int64_t l, BatchCaptures& keep,
                          const EarlierLensCaptures& earlier = {}, int64_t earlier_rows = 0) const;
  // Layer l's queries and keys into `keep`; where qkv holds the later rows' queries alone (a
  // continued forward), the earlier rows' are `earlier_queries` ([H, k, d]).
  void keep_queries_and_keys(const Projected& qkv, int64_t l, BatchCaptures& keep,
                             const at::Tensor& earlier_queries = {}) const;
  // Layer l's maps and head outputs, with the lenses' vectors where they are taken, into `keep`.
  void keep_layer(const at::Tensor& attention, const at::Tensor& context, const Projected& qkv, int64_t l,
                  BatchCaptures& keep, const EarlierLensCaptures& earlier = {}) const;
  // W_O^T W_O of every layer, [D, D]: its block (h, h') is W_O^h W_O^h'^T, so the Gram matrix of
  // the f_h(x_j) of a token needs products of its values only. Independent of the text and D^3 per
  // layer (more than a whole 128-token forward of MiniLM), so made on the first forward with the
  // lenses and kept.
  const std::vector<at::Tensor>& output_products() const;
  at::Tensor activate(at::Tensor x) const;  // in place

  ModelConfig config_;
  TransformerWeights weights_;
  ComputeDevice device_;
  AttentionScores scores_;  // after config_, device_ and weights_, which it is made from
  mutable std::once_flag output_products_made_;
  mutable std::vector<at::Tensor> output_products_;
};

}  // namespace attnscope
