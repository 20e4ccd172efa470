#include "base/file_hash.h"

#include <openssl/evp.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include "base/error.h"

namespace attnscope {
namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

DigestContext start(const EVP_MD* md) {
  DigestContext ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), md, nullptr);
  return ctx;
}

std::string finish(const DigestContext& ctx) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), out, &length);
  std::string hex;
  char two[3];
  for (unsigned int k = 0; k < length; ++k) {
    std::snprintf(two, sizeof two, "%02x", out[k]);
    hex += two;
  }
  return hex;
}

std::string digest(const std::filesystem::path& file, const EVP_MD* md, const std::string& prefix) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string() + ": cannot be read to check its hash");
  const DigestContext ctx = start(md);
  EVP_DigestUpdate(ctx.get(), prefix.data(), prefix.size());
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw Error(file.string() + ": read error while checking its hash");
  return finish(ctx);
}

bool is_hex(const std::string& s) { return s.find_first_not_of("0123456789abcdef") == std::string::npos; }

}  // namespace

std::string sha256_file(const std::filesystem::path& file) { return digest(file, EVP_sha256(), ""); }

std::string sha256_bytes(std::span<const std::byte> bytes) {
  const DigestContext ctx = start(EVP_sha256());
  EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size());
  return finish(ctx);
}

std::string git_blob_sha1(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw Error(file.string() + ": cannot be read to check its hash");
  std::string prefix = "blob " + std::to_string(size);
  prefix.push_back('\0');
  return digest(file, EVP_sha1(), prefix);
}

std::string hash_mismatch(const std::filesystem::path& file, const std::string& etag) {
  if (etag.size() == 64 && is_hex(etag)) {
    const std::string found = sha256_file(file);
    return found == etag ? "" : "SHA-256 " + found;
  }
  if (etag.size() == 40 && is_hex(etag)) {
    const std::string found = git_blob_sha1(file);
    return found == etag ? "" : "git SHA-1 " + found;
  }
  throw Error("the server gave \"" + etag + "\" as the hash of " + file.filename().string() +
              ", which is neither a SHA-256 nor a git SHA-1");
}

}  // namespace attnscope
