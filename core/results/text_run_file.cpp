#include "results/text_run_file.h"
#include "results/head_roles_json.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "analysis/lens_maps.h"
#include "base/byte_size.h"
#include "base/error.h"
#include "results/analysis_json.h"
#include "base/atomic_file.h"
#include "base/json_fields.h"
#include "results/result_json.h"
#include "results/json_stream.h"
#include "results/safetensors_writer.h"
#include "results/tensor_json.h"
#include "base/mapped_file.h"
#include "model/safetensors.h"

namespace attnscope {
namespace {

// Sections: names; writing (the document and its tensors, then either container); reading.

constexpr int kVersion = 2;

struct ResultContent {
  nlohmann::json document;
  NamedTensors tensors;
  std::vector<StreamedTensor> streamed;  // made as the file is written (the pair masks and values)
};

// Bytes of one head's pair mask packed over the upper triangle.
int64_t packed_mask_bytes(int64_t tokens) { return (PairMask::triangle(static_cast<int>(tokens)) + 7) / 8; }

nlohmann::json token_to_json(const Token& t, size_t index) {
  return {{"index", index}, {"id", t.id}, {"text", t.text}, {"begin", t.begin}, {"end", t.end}, {"special", t.special}};
}

// Every head's mask, [L, H, bytes], packed one head at a time as it is written (packed whole they
// were 1.1 GB beside the chunked masks at 8,192 tokens), and (when the head outputs are not kept)
// the pairs' S_hat in mask order: without the outputs they could not be recomputed. The values
// are written head by head too: a long text's come from S made again block by block, and Gemma 3
// at 32,768 tokens has some 2.9 billion pairs (11.5 GB of values); their size is known from the
// counts, so a result over its limit is refused before any is made (check_size).
void add_pairs(const TextAnalysis& a, bool with_values, ResultContent& content) {
  const int64_t bytes = packed_mask_bytes(a.length);
  content.streamed.push_back(
      {"pair_mask", at::kByte, {a.num_layers, a.num_heads, bytes}, [&a, bytes](std::ostream& out) {
         for (int64_t l = 0; l < a.num_layers; ++l)
           for (int64_t h = 0; h < a.num_heads; ++h) {  // a mask not kept is made again here
             const std::vector<uint8_t> bits = a.pair_mask(l, h).bits();
             out.write(reinterpret_cast<const char*>(bits.data()), bytes);
           }
       }});
  if (!with_values) return;
  int64_t total = 0;
  for (const HeadAnalysis& head : a.heads) total += head.pair_count;
  content.streamed.push_back({"pair_value", at::kFloat, {total}, [&a, total](std::ostream& out) {
                                std::vector<float> values;
                                int64_t written = 0;
                                for (int64_t l = 0; l < a.num_layers; ++l)
                                  for (int64_t h = 0; h < a.num_heads; ++h) {
                                    values.clear();
                                    for (const TokenPair& p : head_pairs(a, l, h)) values.push_back(p.value);
                                    out.write(reinterpret_cast<const char*>(values.data()),
                                              static_cast<std::streamsize>(values.size() * sizeof(float)));
                                    written += static_cast<int64_t>(values.size());
                                  }
                                // The header said `total`: any other count would leave a file that
                                // reads wrong, so none is left (the write is atomic).
                                if (written != total)
                                  throw Error("pairs found again do not match their count (" + std::to_string(written) +
                                              " against " + std::to_string(total) + "): nothing was written");
                              }});
}

// The lenses (docs/lenses.md), when the run captured them: what each head moves from each token,
// the layers' norm-based maps, every layer's rollout, and the queries and keys.
void add_lenses(const TextCaptures& c, NamedTensors& tensors) {
  tensors.emplace_back("value_norms", c.value_norms.to(at::kCPU, at::kFloat).contiguous());
  tensors.emplace_back("norm_layer_maps",
                       layer_norm_maps(c, 0, static_cast<int>(c.attention.size(0))).to(at::kCPU).contiguous());
  tensors.emplace_back("rollout", rollout_maps(c, static_cast<int>(c.attention.size(0))).to(at::kCPU).contiguous());
  tensors.emplace_back("queries", c.queries.to(at::kCPU, at::kFloat).contiguous());
  tensors.emplace_back("keys", c.keys.to(at::kCPU, at::kFloat).contiguous());
}

// What makes a map again from the queries and keys (docs/result-format.md shows it in Python):
// the scale of q k^T, its soft cap, the causal mask, the local layers' band.
nlohmann::json how_maps_are_made(const ModelConfig& config) {
  nlohmann::json local = nlohmann::json::array();
  for (int64_t l = 0; l < config.num_layers; ++l)
    if (config.is_local_layer(static_cast<size_t>(l))) local.push_back(l);
  return {{"scale", config.scores_scale()},
          {"softcap", config.attention_softcap},
          {"causal", config.causal()},
          {"local_layers", std::move(local)},
          {"local_window", config.rotary.local_window},
          {"relative_bias", config.relative_buckets > 0}};
}

bool keeps_head_outputs(CaptureSet captures) {
  return captures == CaptureSet::All || captures == CaptureSet::QueriesAndKeys;
}

// A capture set writes what its run kept: a long text keeps queries and keys, not maps.
void require_kept(CaptureSet captures, bool maps_kept, bool queries_kept) {
  if (captures == CaptureSet::QueriesAndKeys && !queries_kept)
    throw Error(
        "this run kept no queries and keys to write (captures \"queries-keys\"): a long text keeps them, a "
        "shorter one with --lenses");
  if (captures != CaptureSet::QueriesAndKeys && captures != CaptureSet::None && !maps_kept)
    throw Error("this run kept no attention maps to write (captures \"" + std::string(capture_set_name(captures)) +
                "\"): a long text writes \"queries-keys\"");
}

void add_captures(const TextCaptures& c, CaptureSet captures, NamedTensors& tensors) {
  const auto host = [](const at::Tensor& t) { return t.to(at::kCPU, at::kFloat).contiguous(); };
  if (c.pieces) require_captures_of_long_words(captures);
  require_kept(captures, c.attention.defined(), c.queries.defined() && c.keys.defined());
  if (captures == CaptureSet::QueriesAndKeys) {
    tensors.emplace_back("queries", host(c.queries));
    tensors.emplace_back("keys", host(c.keys));
    if (c.column_sums.defined()) tensors.emplace_back("column_sums", host(c.column_sums));
    tensors.emplace_back("head_outputs", host(c.head_outputs));
    return;
  }
  if (captures != CaptureSet::None) tensors.emplace_back("attention", host(c.attention));
  if (captures == CaptureSet::All) tensors.emplace_back("head_outputs", host(c.head_outputs));
  if (captures != CaptureSet::None && c.value_norms.defined()) add_lenses(c, tensors);
}

ResultContent content_of(const TextRunFile& file, const TextAnalysis* analysis, CaptureSet captures) {
  ResultContent r;
  nlohmann::json tokens = nlohmann::json::array();
  for (size_t i = 0; i < file.run.encoding.tokens.size(); ++i)
    tokens.push_back(token_to_json(file.run.encoding.tokens[i], i));
  r.document = {{"format", kTextRunFormat},
                {"version", kVersion},
                {"model", {{"path", file.model_path}, {"config", file.model_config}}},
                {"device", file.device},
                {"max_length", file.max_length},
                {"text", file.text},
                {"truncated", file.run.encoding.truncated},
                {"full_length", file.run.encoding.full_length},
                {"tokens", std::move(tokens)},
                {"captures", capture_set_name(captures)}};
  if (captures == CaptureSet::QueriesAndKeys)
    r.document["attention"] = how_maps_are_made(ModelConfig::from_json(file.model_config, "model.config"));
  add_captures(file.run.captures, captures, r.tensors);
  if (!file.head_roles.is_null()) r.document["head_roles"] = file.head_roles;
  if (analysis) {
    r.document["analysis"] = analysis_to_json(*analysis, file.run.encoding);
    // With the head outputs the values of pairs of S follow from them; pairs of another matrix keep theirs.
    add_pairs(*analysis, !keeps_head_outputs(captures) || analysis->settings.pairs_from != PairInput::Similarity, r);
  }
  return r;
}

// Refuses a result of `all` bytes over the limit, with what the analysis alone would take (its
// masks, and then every pair's value: 4 bytes a pair); `at_least` where both are known only in
// part (before the run, the pairs not yet found).
void refuse_over_limit(double all, double analysis, CaptureSet captures, double limit_bytes, bool at_least) {
  const std::string least_word = at_least ? "at least " : "";
  const std::string over = std::string("the result with captures \"") + capture_set_name(captures) + "\" would take " +
                           least_word + byte_size(all) + ", more than its limit of " + byte_size(limit_bytes);
  if (analysis <= limit_bytes)
    throw Error(over + ": give --captures none (the analysis alone: " + least_word + byte_size(analysis) +
                "), or a larger --max-size");
  // The analysis alone may take more than the captures beside it (a long text's pairs of S keep
  // their values only without the head outputs): the smaller of the two is what to allow.
  char least[32];
  std::snprintf(least, sizeof least, "%g", std::ceil(std::min(all, analysis) / 1e6) / 1e3);  // GB, rounded up
  throw Error(over + ", the analysis alone (--captures none) " + least_word + byte_size(analysis) +
              ": give --max-size " + least + " or more" + (analysis < all ? " with --captures none" : ""));
}

// A result over the limit is refused before anything is written.
void check_size(const ResultContent& content, const TextAnalysis* a, CaptureSet captures, double limit_bytes) {
  double all = 0, analysis = 0;
  for (const auto& [name, t] : content.tensors)
    all += static_cast<double>(t.numel()) * static_cast<double>(t.element_size());
  for (const StreamedTensor& t : content.streamed) {
    all += static_cast<double>(t.bytes());
    if (t.name == "pair_mask") analysis += static_cast<double>(t.bytes());
  }
  if (all <= limit_bytes) return;
  if (a)
    for (const HeadAnalysis& h : a->heads) analysis += 4.0 * static_cast<double>(h.pair_count);
  refuse_over_limit(all, analysis, captures, limit_bytes, false);
}

// Bytes of every head's packed pair mask (add_pairs).
double pair_mask_bytes(int64_t layers, int64_t heads, int64_t tokens) {
  return static_cast<double>(layers * heads) * static_cast<double>(packed_mask_bytes(tokens));
}

nlohmann::json as_json(ResultContent content, bool decimal) {
  nlohmann::json tensors = nlohmann::json::object();
  for (const auto& [name, t] : content.tensors) tensors[name] = tensor_to_json(t, decimal);
  for (const StreamedTensor& t : content.streamed) tensors[t.name] = tensor_to_json(t.made(), decimal);
  content.document["tensors"] = std::move(tensors);
  return std::move(content.document);
}

// Reading: the tensors of either container, looked up by name and checked against the shape and
// dtype the document implies.
using TensorSource =
    std::function<at::Tensor(const std::string& name, const at::Tensor& like)>;  // undefined when absent

struct ReadOptions {
  // Told of each tensor's bytes (each head's, of the pair masks) once they are copied out or
  // counted: a mapped file then lets their pages go (a long text's result is gigabytes).
  std::function<void(std::span<const std::byte>)> copied = {};
  TextRunLoad load = {};
};

// A result's stored analysis: its summary, each head's scale, pair mask and count, and the values
// of its pairs where they do not follow from the head outputs. `required` reads a tensor that must
// be there.
template <typename Required>
StoredAnalysis stored_analysis(const nlohmann::json& summary, CaptureSet captures, const TextCaptures& c,
                               const Required& required, const std::string& source, const ReadOptions& read) {
  const int64_t n = c.length, L = c.num_layers, H = c.num_heads;
  StoredAnalysis stored;
  stored.summary = summary;
  const auto& layers = json_field(stored.summary, "layers", source + ": analysis");
  if (!layers.is_array() || static_cast<int64_t>(layers.size()) != L)
    throw Error(source + ": analysis: \"layers\" must list " + std::to_string(L) + " layers");
  for (int64_t l = 0; l < L; ++l) {
    const std::string where = source + ": analysis.layers[" + std::to_string(l) + "]";
    const auto& heads = json_field(layers[static_cast<size_t>(l)], "heads", where);
    if (!heads.is_array() || static_cast<int64_t>(heads.size()) != H)
      throw Error(where + ": \"heads\" must list " + std::to_string(H) + " heads");
    for (const auto& head : heads)
      stored.scales.push_back(json_float(json_field(head, "scale", where), where + ": \"scale\""));
  }
  const int64_t bytes = packed_mask_bytes(n);
  const at::Tensor masks = required("pair_mask", at::empty({L, H, bytes}, at::kByte));
  PairMaskBudget kept(captures == CaptureSet::QueriesAndKeys ? read.load.long_pair_mask_bytes : kEveryPairMask);
  int64_t total = 0;
  for (int64_t k = 0; k < L * H; ++k) {
    const std::span<const uint8_t> m(masks.data_ptr<uint8_t>() + k * bytes, static_cast<size_t>(bytes));
    PairMask& mask = stored.pairs.emplace_back(kept.any() ? PairMask(static_cast<int>(n), m) : PairMask());
    stored.pair_counts.push_back(mask.tokens() ? mask.count() : PairMask::count_packed(static_cast<int>(n), m));
    kept.keep(mask);
    if (read.copied) read.copied(std::as_bytes(m));
    total += stored.pair_counts.back();
  }
  // Pairs of S beside the head outputs keep no values (they follow from them); pairs of another matrix keep theirs.
  const auto settings = stored.summary.find("settings");
  const bool of_s = settings == stored.summary.end() || !settings->is_object() || !settings->contains("pairs_from") ||
                    (*settings)["pairs_from"] == "similarity";
  if (!keeps_head_outputs(captures) || !of_s)
    stored.pair_values = required("pair_value", at::empty({total}, at::kFloat));
  return stored;
}

TextRunFile from_document(const nlohmann::json& doc, const TensorSource& tensor, const std::string& source,
                          const ReadOptions& read = {}) {
  TextRunFile file = text_run_header(doc, source);
  file.version = kVersion;
  const ModelConfig config = ModelConfig::from_json(file.model_config, source + ": model.config");
  file.captures = capture_set_by_name(json_typed<std::string>(doc, "captures", source));
  const int64_t n = static_cast<int64_t>(file.run.encoding.size()), L = config.num_layers, H = config.num_heads,
                d = config.head_dim();
  TextCaptures& c = file.run.captures;
  c.num_layers = L;
  c.num_heads = H;
  c.length = n;
  c.head_dim = d;
  c.hidden_size = config.hidden_size;
  c.visibility = config.visibility();
  const auto required = [&](const char* name, const at::Tensor& like) {
    at::Tensor t = tensor(name, like);
    if (!t.defined())
      throw Error(source + ": tensor \"" + name + "\" is missing (captures \"" + capture_set_name(file.captures) +
                  "\")");
    return t;
  };
  if (file.captures == CaptureSet::QueriesAndKeys) {
    c.queries = required("queries", at::empty({L, H, n, d}, at::kFloat));
    c.keys = required("keys", at::empty({L, config.kv_heads(), n, d}, at::kFloat));
    c.column_sums = tensor("column_sums", at::empty({L, H, n}, at::kFloat));
  } else if (file.captures != CaptureSet::None) {
    c.attention = required("attention", at::empty({L, H, n, n}, at::kFloat));
  }
  if (keeps_head_outputs(file.captures)) c.head_outputs = required("head_outputs", at::empty({L, H, n, d}, at::kFloat));
  if (doc.contains("head_roles")) {
    head_roles_from_json(doc["head_roles"], L, H, source);  // checked; kept as written
    file.head_roles = doc["head_roles"];
  }
  if (doc.contains("analysis"))
    file.analysis = stored_analysis(doc["analysis"], file.captures, c, required, source, read);
  return file;
}

void check_format(const nlohmann::json& format, const std::string& source) {
  if (format != kTextRunFormat)
    throw Error(source + ": not an attnscope result (\"format\" must be \"" + std::string(kTextRunFormat) + "\")");
}

TextRunFile from_json(const nlohmann::json& json, const std::string& source, const TextRunLoad& load,
                      const JsonWithBlobs* blobs) {
  if (!json.is_object() || !json.contains("format")) check_format(nullptr, source);
  check_format(json["format"], source);
  const int version = json_typed<int>(json, "version", source);
  if (version == 1) return text_run_from_v1_json(json, source);
  if (version != kVersion)
    throw Error(source + ": result version " + std::to_string(version) +
                " is not supported (this attnscope reads versions 1 and 2)");
  const auto& tensors = json_field(json, "tensors", source);
  if (!tensors.is_object()) throw Error(source + ": \"tensors\" must be an object");
  return from_document(json,
                       [&](const std::string& name, const at::Tensor& like) {
                         return tensors.contains(name)
                                    ? tensor_from_json(tensors[name], like, source + ": tensors." + name, blobs)
                                    : at::Tensor();
                       },
                       source, {.load = load});
}

at::ScalarType scalar_type_of(DType dtype) {
  switch (dtype) {
    case DType::F32: return at::kFloat;
    case DType::U8: return at::kByte;
    default: return at::kDouble;  // nothing of a result file is another type: refused by the caller's comparison
  }
}

TextRunFile from_binary(std::span<const std::byte> bytes, const std::string& source, const ReadOptions& read) {
  SafetensorsMetadata metadata;
  const std::vector<TensorInfo> infos = parse_safetensors(bytes, source, &metadata);
  if (!metadata.contains("format")) check_format(nullptr, source);
  check_format(metadata["format"], source);
  if (metadata["version"] != std::to_string(kVersion))
    throw Error(source + ": result version " + metadata["version"] +
                " is not supported (this attnscope reads versions 1 and 2)");
  nlohmann::json doc = nlohmann::json::parse(metadata["document"], nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw Error(source + ": the result's document is not a JSON object");
  // The pair masks are read once, into each head's mask, straight from the bytes: not copied whole first.
  return from_document(
      doc,
      [&](const std::string& name, const at::Tensor& like) {
        const auto info = std::find_if(infos.begin(), infos.end(), [&](const TensorInfo& t) { return t.name == name; });
        if (info == infos.end()) return at::Tensor();
        if (scalar_type_of(info->dtype) != like.scalar_type() || info->shape != like.sizes().vec())
          throw Error(source + ": tensor \"" + name + "\" is " + std::string(dtype_name(info->dtype)) + " " +
                      c10::str(at::IntArrayRef(info->shape)) + ", expected " + c10::toString(like.scalar_type()) + " " +
                      c10::str(like.sizes()) + " (this model and text)");
        if (name == "pair_mask" && info->size)
          return at::from_blob(const_cast<std::byte*>(bytes.data() + info->offset), like.sizes(), like.options());
        at::Tensor out = at::empty_like(like);
        if (info->size) std::memcpy(out.data_ptr(), bytes.data() + info->offset, info->size);
        if (read.copied) read.copied(bytes.subspan(info->offset, info->size));
        return out;
      },
      source, read);
}

}  // namespace

const char* capture_set_name(CaptureSet set) {
  switch (set) {
    case CaptureSet::All: return "all";
    case CaptureSet::Attention: return "attention";
    case CaptureSet::None: return "none";
    case CaptureSet::QueriesAndKeys: return "queries-keys";
  }
  return "?";
}

CaptureSet capture_set_by_name(const std::string& name) {
  for (CaptureSet s : {CaptureSet::All, CaptureSet::Attention, CaptureSet::None, CaptureSet::QueriesAndKeys})
    if (name == capture_set_name(s)) return s;
  throw Error("unknown captures \"" + name + "\": expected all, attention, none or queries-keys");
}

CaptureSet written_captures(CaptureSet asked, bool maps_kept) {
  return !maps_kept && asked == CaptureSet::All ? CaptureSet::QueriesAndKeys : asked;
}

void require_captures_of_long_words(CaptureSet written) {
  if (written != CaptureSet::None)
    throw Error(
        "a long text's analysis on words keeps no maps of its words, nor queries and keys that make them "
        "again (its pieces' do): write it with --captures none, or on word pieces");
}

CaptureSet written_captures(CaptureSet asked, const TextCaptures& kept) {
  if (kept.pieces && asked == CaptureSet::All) return CaptureSet::None;
  return written_captures(asked, kept.attention.defined());
}

// What add_captures and add_pairs will write, in the shapes TextCaptures gives (keys: one per key
// head).
double planned_result_bytes(const PlannedResult& p, CaptureSet captures) {
  const ModelConfig& c = *p.config;
  const double layers = static_cast<double>(c.num_layers), heads = static_cast<double>(c.num_heads),
               n = static_cast<double>(p.tokens), d = static_cast<double>(c.head_dim());
  const double queries_keys = layers * (heads + static_cast<double>(c.kv_heads())) * n * d * 4;
  const double head_outputs = layers * heads * n * d * 4, maps = layers * heads * n * n * 4;
  double bytes = 0;
  if (captures == CaptureSet::QueriesAndKeys)  // the maps' column sums: a long text's
    bytes = queries_keys + head_outputs + (p.maps_kept ? 0 : layers * heads * n * 4);
  if (captures == CaptureSet::All || captures == CaptureSet::Attention) {
    bytes = maps + (captures == CaptureSet::All ? head_outputs : 0);
    // add_lenses: value norms, each layer's norm-based map and rollout, queries and keys
    if (p.lenses) bytes += layers * heads * n * 4 + 2 * layers * n * n * 4 + queries_keys;
  }
  return bytes + (p.analysis ? pair_mask_bytes(c.num_layers, c.num_heads, p.tokens) : 0);
}

void check_planned_result(const PlannedResult& p, const ResultWriteOptions& o) {
  require_kept(o.captures, p.maps_kept, !p.maps_kept || p.lenses);
  const double all = planned_result_bytes(p, o.captures);
  if (all <= o.limit_bytes) return;
  const double analysis = p.analysis ? pair_mask_bytes(p.config->num_layers, p.config->num_heads, p.tokens) : 0;
  refuse_over_limit(all, analysis, o.captures, o.limit_bytes, true);
}

nlohmann::json text_run_to_json(const TextRunFile& file, const TextAnalysis* analysis, const ResultWriteOptions& o) {
  ResultContent content = content_of(file, analysis, o.captures);
  check_size(content, analysis, o.captures, o.limit_bytes);
  return as_json(std::move(content), o.decimal);
}

void check_text_run_size(const TextRunFile& file, const TextAnalysis* analysis, const ResultWriteOptions& o) {
  check_size(content_of(file, analysis, o.captures), analysis, o.captures, o.limit_bytes);
}

void write_text_run_json(std::ostream& out, const TextRunFile& file, const TextAnalysis* analysis,
                         const ResultWriteOptions& o) {
  const ResultContent content = content_of(file, analysis, o.captures);
  check_size(content, analysis, o.captures, o.limit_bytes);
  write_json_with_tensors(out, content.document, content.tensors, content.streamed,
                          {.decimal = o.decimal, .progress = o.progress});
  out << '\n';
}

void save_text_run(const std::filesystem::path& path, const TextRunFile& file, const TextAnalysis* analysis,
                   const ResultWriteOptions& o) {
  if (o.container == ResultContainer::Json) {
    write_file_atomically(path, [&](std::ostream& out) { write_text_run_json(out, file, analysis, o); });
    return;
  }
  ResultContent content = content_of(file, analysis, o.captures);
  check_size(content, analysis, o.captures, o.limit_bytes);
  write_safetensors(
      path, content.tensors,
      {{"format", kTextRunFormat}, {"version", std::to_string(kVersion)}, {"document", content.document.dump()}},
      content.streamed, o.progress);
}

namespace {

TextRunFile from_bytes(std::span<const std::byte> bytes, const std::string& source, const ReadOptions& read) {
  size_t first = 0;
  while (first < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[first]))) ++first;
  if (first < bytes.size() && bytes[first] == std::byte{'{'}) {
    // A JSON result's tensors are read where they lie in the file (json_with_blobs.h); version 1
    // files, which read their matrices their own way, from the whole parsed document.
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const JsonWithBlobs json(text, source);
    if (!json.document().is_object() || !json.document().contains("version") || json.document()["version"] != 1)
      return from_json(json.document(), source, read.load, &json);
    const nlohmann::json whole = nlohmann::json::parse(text, nullptr, false);
    if (whole.is_discarded()) throw Error(source + ": not valid JSON (a version 1 result file was expected)");
    return from_json(whole, source, read.load, nullptr);
  }
  if (bytes.empty()) throw Error(source + ": the file is empty");
  return from_binary(bytes, source, read);
}

}  // namespace

TextRunFile text_run_from_bytes(std::span<const std::byte> bytes, const std::string& source, const TextRunLoad& load) {
  return from_bytes(bytes, source, {.load = load});
}

TextRunFile load_text_run(const std::filesystem::path& path, const TextRunLoad& load) {
  if (!std::filesystem::exists(path)) throw Error(path.string() + ": no such file");
  const MappedFile map(path);
  return from_bytes(map.bytes(), path.string(),
                    {.copied = [&map](std::span<const std::byte> part) { map.release(part); }, .load = load});
}

std::vector<TokenPair> stored_pairs(const TextRunFile& file, int layer, int head) {
  if (!file.analysis) throw Error("this result file holds no analysis");
  const TextCaptures& c = file.run.captures;
  if (layer < 0 || layer >= c.num_layers || head < 0 || head >= c.num_heads)
    throw Error("layer " + std::to_string(layer) + " head " + std::to_string(head) + " is not in this result");
  const StoredAnalysis& a = *file.analysis;
  const size_t k = static_cast<size_t>(layer * c.num_heads + head);
  if (k >= a.pairs.size() || a.pairs[k].tokens() != static_cast<int>(file.run.encoding.size()))
    throw Error("this result file was read without that head's pair mask");
  const PairMask& mask = a.pairs[k];
  std::vector<TokenPair> pairs;
  if (a.pair_values.defined()) {
    int64_t offset = 0;
    for (size_t m = 0; m < k; ++m) offset += a.pair_counts[m];
    const float* values = a.pair_values.data_ptr<float>() + offset;
    mask.for_each([&](int i, int j) { pairs.push_back({i, j, *values++}); });
    return pairs;
  }
  // The values follow from the head outputs, as the analysis computed them (S = C C^T / scale).
  // This head's S alone: every head's at once is 2 L H n^2 bytes, 71 GB for a long text of 8,192 tokens.
  const at::Tensor s = context_similarity(c.head_outputs[layer][head]).similarity.contiguous();
  return list_pairs(mask, s.data_ptr<float>(), a.scales[k]);
}

}  // namespace attnscope
