#include "results/safetensors_writer.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/error.h"
#include "base/atomic_file.h"

namespace attnscope {
namespace {

const char* dtype_tag(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return "F32";
    case at::kDouble: return "F64";
    case at::kInt: return "I32";
    case at::kLong: return "I64";
    case at::kByte: return "U8";
    case at::kBool: return "BOOL";
    default: throw Error(std::string("a tensor of ") + c10::toString(type) + " cannot be written to a result file");
  }
}

// A stream buffer over a block of memory, so that a streamed tensor writes straight into its whole.
class MemoryBuffer : public std::streambuf {
 public:
  MemoryBuffer(char* data, size_t size) { setp(data, data + size); }
  size_t written() const { return static_cast<size_t>(pptr() - pbase()); }
};

// Calls `write` and checks it wrote `bytes` bytes (a wrong count would shift every later tensor).
void write_streamed(const StreamedTensor& t, std::ostream& out, uint64_t written_before, uint64_t after) {
  t.write(out);
  if (!out) throw Error("could not write tensor \"" + t.name + "\"");
  if (static_cast<uint64_t>(out.tellp()) != after)
    throw Error("tensor \"" + t.name + "\" wrote " +
                std::to_string(static_cast<uint64_t>(out.tellp()) - written_before) + " bytes, " +
                std::to_string(t.bytes()) + " expected");
}

}  // namespace

uint64_t StreamedTensor::bytes() const {
  uint64_t count = c10::elementSize(dtype);
  for (const int64_t size : shape) count *= static_cast<uint64_t>(size);
  return count;
}

at::Tensor StreamedTensor::made() const {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(dtype));
  MemoryBuffer buffer(static_cast<char*>(t.data_ptr()), t.nbytes());
  std::ostream out(&buffer);
  write(out);
  if (!out || buffer.written() != t.nbytes()) throw Error("tensor \"" + name + "\" did not make its bytes");
  return t;
}

void write_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                       const std::map<std::string, std::string>& metadata, const std::vector<StreamedTensor>& streamed,
                       const ProgressReport& progress) {
  std::vector<at::Tensor> host;
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  const auto add = [&](const std::string& name, at::ScalarType type, std::vector<int64_t> shape, uint64_t bytes) {
    if (name == "__metadata__") throw Error("a tensor cannot be named __metadata__");
    header[name] = {
        {"dtype", dtype_tag(type)}, {"shape", std::move(shape)}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  };
  for (const auto& [name, tensor] : tensors) {
    host.push_back(tensor.cpu().contiguous());
    add(name, tensor.scalar_type(), tensor.sizes().vec(), static_cast<uint64_t>(host.back().nbytes()));
  }
  const uint64_t streamed_from = offset;
  for (const StreamedTensor& t : streamed) add(t.name, t.dtype, t.shape, t.bytes());
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the format's own writer does
  write_file_atomically(path, [&](std::ostream& out) {
    const uint64_t size = text.size();
    char length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<char>(size >> (8 * i) & 0xff);
    out.write(length, 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    const auto report = [&](uint64_t written) {
      if (progress)
        progress("writing", static_cast<double>(written) / static_cast<double>(std::max<uint64_t>(offset, 1)));
    };
    uint64_t written = 0;
    for (const at::Tensor& t : host) {
      const auto* bytes = static_cast<const char*>(t.data_ptr());
      for (uint64_t first = 0; first < t.nbytes(); first += kWrittenPiece) {
        const uint64_t count = std::min<uint64_t>(kWrittenPiece, t.nbytes() - first);
        out.write(bytes + first, static_cast<std::streamsize>(count));
        report(written += count);
      }
    }
    uint64_t at = 8 + text.size() + streamed_from;  // where the next streamed tensor ends
    for (const StreamedTensor& t : streamed) {
      const uint64_t before = at;
      at += t.bytes();
      write_streamed(t, out, before, at);
      report(written += t.bytes());
    }
  });
}

}  // namespace attnscope
