#include "results/json_stream.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <variant>

#include "base/base64.h"
#include "base/error.h"
#include "results/tensor_json.h"

namespace attnscope {
namespace {

// `object`'s members in its own order (nlohmann's: by key) with `key` written by `write_value` in
// its place among them (replacing a member of that name): what dump() gives with that member in it.
void write_object_with(std::ostream& out, const nlohmann::json& object, const std::string& key,
                       const std::function<void()>& write_value) {
  if (!object.is_object()) throw Error("a JSON document with tensors must be an object");
  bool first = true, written = false;
  const auto member = [&](const std::string& name) {
    out << (first ? "{" : ",") << nlohmann::json(name).dump() << ':';
    first = false;
  };
  const auto write_key = [&] {
    member(key);
    write_value();
    written = true;
  };
  for (const auto& [name, value] : object.items()) {
    if (!written && key <= name) write_key();
    if (name == key) continue;
    member(name);
    out << value.dump();
  }
  if (!written) write_key();
  out << '}';
}

// Reports the share of the tensors' bytes written.
struct Written {
  double done = 0, total = 0;
  const ProgressReport& progress;
  void add(size_t bytes) {
    done += static_cast<double>(bytes);
    if (progress) progress("writing", total > 0 ? done / total : 1.0);
  }
};

// A float tensor's elements [first, first + count) as dump() writes them in a list, no brackets.
std::string decimal_piece(const at::Tensor& t, int64_t first, int64_t count) {
  const std::string text =
      t.scalar_type() == at::kFloat
          ? nlohmann::json(std::vector<float>(t.data_ptr<float>() + first, t.data_ptr<float>() + first + count)).dump()
          : nlohmann::json(std::vector<double>(t.data_ptr<double>() + first, t.data_ptr<double>() + first + count))
                .dump();
  return text.substr(1, text.size() - 2);
}

// The "data" of tensor_to_json(t), a piece at a time: base64 of whole groups of three bytes (whose
// codes join into the whole's), or pieces of the decimal list.
void write_data(std::ostream& out, const at::Tensor& t, bool decimal, size_t piece_bytes, Written& written) {
  if (decimal) {
    const auto step = static_cast<int64_t>(std::max<size_t>(1, piece_bytes / t.element_size()));
    out << '[';
    for (int64_t first = 0; first < t.numel(); first += step) {
      const int64_t count = std::min(step, t.numel() - first);
      out << (first > 0 ? "," : "") << decimal_piece(t, first, count);
      written.add(static_cast<size_t>(count) * t.element_size());
    }
    out << ']';
    return;
  }
  const size_t step = std::max<size_t>(3, piece_bytes / 3 * 3);
  const auto* bytes = static_cast<const std::byte*>(t.data_ptr());
  out << '"';
  for (size_t first = 0; first < t.nbytes(); first += step) {
    const size_t count = std::min(step, t.nbytes() - first);
    out << base64_encode({bytes + first, count});
    written.add(count);
  }
  out << '"';
}

void write_tensor(std::ostream& out, const at::Tensor& tensor, const JsonTensorStream& o, Written& written) {
  const at::Tensor t = tensor.cpu().contiguous();
  const nlohmann::json fields = tensor_json_fields(t, o.decimal);
  const bool decimal = fields["encoding"] == "decimal";
  write_object_with(out, fields, "data", [&] { write_data(out, t, decimal, o.piece_bytes, written); });
}

}  // namespace

void write_json_with_tensors(std::ostream& out, const nlohmann::json& document, const NamedTensors& tensors,
                             const std::vector<StreamedTensor>& streamed, const JsonTensorStream& o) {
  // By name, as a JSON object orders them (a name given twice: its last tensor, as assigning does).
  std::map<std::string, std::variant<const at::Tensor*, const StreamedTensor*>> named;
  Written written{.progress = o.progress};
  for (const auto& [name, t] : tensors) {
    named[name] = &t;
    written.total += static_cast<double>(t.nbytes());
  }
  for (const StreamedTensor& t : streamed) {
    named[t.name] = &t;
    written.total += static_cast<double>(t.bytes());
  }
  write_object_with(out, document, o.member, [&] {
    out << '{';
    bool first = true;
    for (const auto& [name, t] : named) {
      out << (first ? "" : ",") << nlohmann::json(name).dump() << ':';
      first = false;
      if (const auto* whole = std::get_if<const at::Tensor*>(&t))
        write_tensor(out, **whole, o, written);
      else
        write_tensor(out, std::get<const StreamedTensor*>(t)->made(), o, written);
    }
    out << '}';
  });
  if (!out) throw Error("writing the JSON result failed (disk full?)");
}

}  // namespace attnscope
