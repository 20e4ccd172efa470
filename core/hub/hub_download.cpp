// Downloads of a model from a Hugging Face-style server (libcurl). Sections, in order:
//   1. reading the server's answers: headers, ETags, bodies to a string or a file
//   2. what went wrong, in a sentence: status_problem, transfer_problem
//   3. the repository's listing (repo_info) and one file's HEAD (file_head)
//   4. one file fetched, resumably, hash-checked, and linked into the cache's snapshot
//   5. the options from the environment, the files a checkpoint needs (or a GGUF repository's
//      one), download_model
#include "hub/hub_download.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file_hash.h"
#include "hub/gguf_choice.h"
#include "model/model_locator.h"

namespace attnscope {
namespace {

// Sections: HTTP with libcurl; the repository's revision and files; one file into the cache.

struct Response {
  long status = 0;
  std::string body;
  std::string etag, linked_etag, commit;
  uint64_t linked_size = 0, length = 0;
};

std::string trimmed(std::string v) {
  while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
  while (!v.empty() && v.front() == ' ') v.erase(0, 1);
  return v;
}

// An etag as the Hub writes it: "W/" and quotes removed.
std::string bare_etag(std::string v) {
  if (v.rfind("W/", 0) == 0) v.erase(0, 2);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* r = static_cast<Response*>(user);
  const std::string line(data, size * count);
  const auto colon = line.find(':');
  if (line.rfind("HTTP/", 0) == 0) *r = Response{0, r->body, "", "", "", 0, 0};  // a redirect's next response
  if (colon == std::string::npos) return size * count;
  std::string name = line.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string value = trimmed(line.substr(colon + 1));
  if (name == "etag") r->etag = bare_etag(value);
  if (name == "x-linked-etag") r->linked_etag = bare_etag(value);
  if (name == "x-repo-commit") r->commit = value;
  if (name == "x-linked-size") r->linked_size = std::strtoull(value.c_str(), nullptr, 10);
  if (name == "content-length") r->length = std::strtoull(value.c_str(), nullptr, 10);
  return size * count;
}

size_t to_string(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t to_file(char* data, size_t size, size_t count, void* user) {
  auto* out = static_cast<std::ofstream*>(user);
  out->write(data, static_cast<std::streamsize>(size * count));
  return *out ? size * count : 0;
}

class Curl {
 public:
  Curl(const std::string& url, const HubOptions& o) : handle_(curl_easy_init()) {
    if (!handle_) throw Error("libcurl could not start");
    curl_easy_setopt(handle_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(handle_, CURLOPT_USERAGENT, "attnscope/0.1");
    curl_easy_setopt(handle_, CURLOPT_CONNECTTIMEOUT, 20L);
    curl_easy_setopt(handle_, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(handle_, CURLOPT_LOW_SPEED_TIME, o.stall_seconds);
    curl_easy_setopt(handle_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle_, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(handle_, CURLOPT_HEADERDATA, &response);
    if (!o.token.empty()) {
      headers_ = curl_slist_append(headers_, ("Authorization: Bearer " + o.token).c_str());
      curl_easy_setopt(handle_, CURLOPT_HTTPHEADER, headers_);
    }
  }
  ~Curl() {
    curl_slist_free_all(headers_);
    curl_easy_cleanup(handle_);
  }
  Curl(const Curl&) = delete;
  Curl& operator=(const Curl&) = delete;

  CURL* get() { return handle_; }
  // Runs the request; the status is in response.status.
  CURLcode perform() {
    const CURLcode code = curl_easy_perform(handle_);
    curl_easy_getinfo(handle_, CURLINFO_RESPONSE_CODE, &response.status);
    return code;
  }
  Response response;

 private:
  CURL* handle_;
  curl_slist* headers_ = nullptr;
};

std::string status_problem(long status, const std::string& what, const HubOptions& o) {
  if (status == 401 || status == 403)
    return what + ": the server refused access (HTTP " + std::to_string(status) + ")" +
           (o.token.empty() ? "; a gated or private model needs a token: set HF_TOKEN"
                            : "; check that HF_TOKEN may read it");
  if (status == 404) return what + ": not found on " + o.endpoint + " (HTTP 404); check the model id and revision";
  return what + ": the server answered HTTP " + std::to_string(status);
}

std::string transfer_problem(CURLcode code, const std::string& what, const HubOptions& o) {
  if (code == CURLE_OPERATION_TIMEDOUT)
    return what + ": the server stopped answering (nothing received for " + std::to_string(o.stall_seconds) + " s)";
  return what + ": " + curl_easy_strerror(code) + " (" + o.endpoint + ")";
}

struct RepoInfo {
  std::string commit;
  std::vector<std::string> files;
};

RepoInfo repo_info(const std::string& id, const HubOptions& o) {
  const std::string what = "model " + id + " at revision " + o.revision;
  Curl curl(o.endpoint + "/api/models/" + id + "/revision/" + o.revision, o);
  std::string body;
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, to_string);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 120L);
  if (const CURLcode code = curl.perform(); code != CURLE_OK) throw Error(transfer_problem(code, what, o));
  if (curl.response.status != 200) throw Error(status_problem(curl.response.status, what, o));
  RepoInfo info;
  try {
    const auto json = nlohmann::json::parse(body);
    info.commit = json.at("sha").get<std::string>();
    for (const auto& s : json.at("siblings")) info.files.push_back(s.at("rfilename").get<std::string>());
  } catch (const std::exception& e) {
    throw Error(what + ": the server's answer is not the Hub's model information (" + e.what() + ")");
  }
  if (info.commit.empty() || info.commit.find_first_of("/.\\") != std::string::npos)
    throw Error(what + ": the server gave no usable commit");
  return info;
}

// Where the file's content lives on the server, and its hash and size (HEAD, no redirects: the
// Hub puts an LFS file's SHA-256 in X-Linked-Etag on the redirect).
Response file_head(const std::string& url, const std::string& file, const HubOptions& o) {
  Curl curl(url, o);
  curl_easy_setopt(curl.get(), CURLOPT_NOBODY, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 60L);
  if (const CURLcode code = curl.perform(); code != CURLE_OK) throw Error(transfer_problem(code, file, o));
  Response r = curl.response;
  if (r.status >= 400) throw Error(status_problem(r.status, file, o));
  if (!r.linked_etag.empty()) r.etag = r.linked_etag;
  if (r.linked_size) r.length = r.linked_size;
  if (r.etag.empty()) throw Error(file + ": the server gave no hash (ETag) to check the download against");
  return r;
}

struct TransferState {
  const DownloadCallback* callback;
  DownloadProgress progress;
  uint64_t offset;
  std::chrono::steady_clock::time_point start;
};

int on_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* s = static_cast<TransferState*>(user);
  s->progress.done = s->offset + static_cast<uint64_t>(now);
  if (total > 0) s->progress.total = s->offset + static_cast<uint64_t>(total);
  s->progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s->start).count();
  return *s->callback && !(*s->callback)(s->progress) ? 1 : 0;
}

// One attempt: appends to `partial` from its current size. Returns the curl result.
CURLcode fetch_into(const std::string& url, const std::filesystem::path& partial, TransferState& state,
                    const HubOptions& o, long& status) {
  std::error_code ec;
  state.offset = std::filesystem::exists(partial, ec) ? std::filesystem::file_size(partial, ec) : 0;
  std::ofstream out(partial, std::ios::binary | std::ios::app);
  if (!out) throw Error(partial.string() + ": cannot be written (is the cache folder writable?)");
  Curl curl(url, o);
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, to_file);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &out);
  curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, &state);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);
  if (state.offset > 0) curl_easy_setopt(curl.get(), CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(state.offset));
  const CURLcode code = curl.perform();
  status = curl.response.status;
  out.flush();
  if (state.offset > 0 && code == CURLE_OK && status == 200) {
    // The server ignored the range and sent everything again: keep only what it sent now.
    out.close();
    std::filesystem::path fresh = partial;
    fresh += ".whole";
    std::ifstream in(partial, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(state.offset));
    std::ofstream copy(fresh, std::ios::binary);
    copy << in.rdbuf();
    std::filesystem::rename(fresh, partial);
  }
  return code;
}

void link_into_snapshot(const std::filesystem::path& repo, const std::string& commit, const std::string& file,
                        const std::string& etag) {
  const std::filesystem::path link = repo / "snapshots" / commit / file;
  std::filesystem::create_directories(link.parent_path());
  std::error_code ec;
  std::filesystem::remove(link, ec);
  std::filesystem::path target = std::filesystem::path("..") / "..";
  for (char c : file)
    if (c == '/') target /= "..";  // a file in a subfolder of the snapshot
  target /= std::filesystem::path("blobs") / etag;
  std::filesystem::create_symlink(target, link, ec);
  if (ec) std::filesystem::copy_file(repo / "blobs" / etag, link, ec);  // file systems without symlinks
  if (ec) throw Error(link.string() + ": cannot be created: " + ec.message());
}

void download_file(const std::string& id, const std::filesystem::path& repo, const RepoInfo& info,
                   const std::string& file, const HubOptions& o, const DownloadCallback& callback, int index,
                   int files) {
  const std::string url = o.endpoint + "/" + id + "/resolve/" + info.commit + "/" + file;
  const Response head = file_head(url, file, o);
  const std::filesystem::path blob = repo / "blobs" / head.etag;
  std::filesystem::create_directories(blob.parent_path());
  if (!std::filesystem::exists(blob)) {
    std::filesystem::path partial = blob;
    partial += ".incomplete";
    TransferState state{&callback, {file, index, files, 0, head.length, 0}, 0, std::chrono::steady_clock::now()};
    for (int attempt = 0;; ++attempt) {
      long status = 0;
      const CURLcode code = fetch_into(url, partial, state, o, status);
      if (code == CURLE_OK) break;
      if (code == CURLE_ABORTED_BY_CALLBACK)
        throw Error(file + ": download cancelled; run the download again to resume it");
      if (code == CURLE_HTTP_RETURNED_ERROR && status != 416) throw Error(status_problem(status, file, o));
      if (attempt >= o.retries)
        throw Error(transfer_problem(code, file, o) + "; " + std::to_string(std::filesystem::file_size(partial)) +
                    " bytes are kept, run the download again to resume");
    }
    if (const std::string found = hash_mismatch(partial, head.etag); !found.empty()) {
      std::filesystem::remove(partial);
      throw Error(file + ": the downloaded file has " + found + " but the server announced " + head.etag +
                  "; it was discarded (a damaged transfer or a corrupt mirror), nothing entered the cache");
    }
    std::filesystem::rename(partial, blob);
  }
  link_into_snapshot(repo, info.commit, file, head.etag);
}

}  // namespace

HubOptions hub_options_from_environment() {
  HubOptions o;
  if (const char* e = std::getenv("HF_ENDPOINT"); e && *e) o.endpoint = e;
  while (!o.endpoint.empty() && o.endpoint.back() == '/') o.endpoint.pop_back();
  if (const char* t = std::getenv("HF_TOKEN"); t && *t) o.token = t;
  if (const char* off = std::getenv("HF_HUB_OFFLINE"); off && *off) {
    const std::string v = off;
    o.offline = v == "1" || v == "true" || v == "TRUE" || v == "True" || v == "yes" || v == "on";
  }
  o.cache = hub_cache_dir();
  return o;
}

std::vector<std::string> checkpoint_files(const std::string& id, const std::vector<std::string>& repo) {
  const auto has = [&repo](const std::string& f) { return std::find(repo.begin(), repo.end(), f) != repo.end(); };
  std::vector<std::string> files = {"config.json"};
  if (!has("config.json"))
    throw Error(id +
                " has no config.json and no .gguf file: it is neither a transformers checkpoint nor a GGUF "
                "repository");
  if (!has("vocab.txt") && !has("tokenizer.json"))
    throw Error(id + " has neither tokenizer.json nor vocab.txt: attnscope reads the tokenizer from one of them");
  // tokenizer.json is what attnscope reads when there; the SentencePiece and BPE files beside it
  // are fetched too, so the cached folder is complete for other tools as well.
  for (const char* optional : {"tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json",
                               "sentencepiece.bpe.model", "spiece.model", "vocab.json", "merges.txt"})
    if (has(optional)) files.push_back(optional);
  if (!has("model.safetensors")) {
    if (has("pytorch_model.bin"))
      throw Error(
          id +
          " has only pytorch_model.bin, a Python pickle that can run code when read, which attnscope does not "
          "read; convert it to model.safetensors (the safetensors library's convert script) and open the folder");
    throw Error(id + " has no model.safetensors");
  }
  files.push_back("model.safetensors");
  return files;
}

namespace {

// What to fetch of repository `id` (as download_model takes it, "org/name" or "org/name:TAG"): a
// transformers checkpoint's files, or one file of a GGUF repository (gguf_choice.h), the file
// then what is opened.
struct Fetched {
  std::vector<std::string> files;
  std::string opened;  // below the snapshot; empty: the snapshot folder itself
};

Fetched files_to_fetch(const std::string& id, const std::string& tag, const std::vector<std::string>& repo) {
  const bool transformers = std::find(repo.begin(), repo.end(), "config.json") != repo.end();
  if (has_gguf_files(repo) && (!transformers || !tag.empty())) {
    const std::string file = chosen_gguf_file(id, repo, tag);
    return {{file}, file};
  }
  if (!tag.empty()) throw Error(id + " holds no GGUF file: a tag after the id (:" + tag + ") chooses one of those");
  return {checkpoint_files(id, repo), ""};
}

}  // namespace

std::filesystem::path download_model(const std::string& asked, const HubOptions& o, const DownloadCallback& progress) {
  const size_t colon = asked.find(':');
  const std::string id = asked.substr(0, colon), tag = colon == std::string::npos ? "" : asked.substr(colon + 1);
  if (id.empty() || id.find("..") != std::string::npos || id.front() == '/' ||
      std::count(id.begin(), id.end(), '/') > 1)
    throw Error("\"" + asked + "\" is not a model id (expected name or org/name, or org/name:TAG for a GGUF file)");
  if (o.offline)
    throw Error("HF_HUB_OFFLINE is set: not downloading " + asked + " (models already in the cache are still found)");
  static const bool ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!ready) throw Error("libcurl could not start");
  const RepoInfo info = repo_info(id, o);
  const Fetched fetched = files_to_fetch(id, tag, info.files);
  std::string folder = "models--" + id;
  for (size_t k = 0; (k = folder.find('/', k)) != std::string::npos;) folder.replace(k, 1, "--");
  const std::filesystem::path repo = o.cache / folder;
  for (size_t k = 0; k < fetched.files.size(); ++k)
    download_file(id, repo, info, fetched.files[k], o, progress, static_cast<int>(k),
                  static_cast<int>(fetched.files.size()));
  std::filesystem::create_directories(repo / "refs");
  if (o.revision != info.commit) std::ofstream(repo / "refs" / o.revision, std::ios::trunc) << info.commit;
  const std::filesystem::path snapshot = repo / "snapshots" / info.commit;
  return fetched.opened.empty() ? snapshot : snapshot / fetched.opened;
}

}  // namespace attnscope
