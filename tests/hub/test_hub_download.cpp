// Downloading a model by id, against a stand-in for the Hub on loopback serving the real MiniLM
// files: the cache layout, resuming after an interruption, a corrupted file, 404, a server that
// stops answering, tokens, offline mode, and refusing pickles.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <cstdlib>

#include "base/error.h"
#include "model/checkpoint.h"
#include "base/file_hash.h"
#include "hub/hub_download.h"
#include "model/model_locator.h"
#include "support/fake_hub.h"
#include "support/paths.h"

namespace attnscope {
namespace {

class HubDownload : public ::testing::Test {
 protected:
  HubOptions options() const {
    HubOptions o;
    o.endpoint = hub_.endpoint();
    o.cache = cache_.path();
    o.stall_seconds = 2;
    return o;
  }
  std::filesystem::path repo(const std::string& name) const { return cache_.path() / ("models--test-org--" + name); }
  test::FakeHub hub_;
  test::TempDir cache_;
};

std::string expect_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST_F(HubDownload, FillsTheHubCacheLayoutAndIsFoundOffline) {
  std::vector<DownloadProgress> seen;
  const auto snapshot = download_model("test-org/model", options(), [&](const DownloadProgress& p) {
    seen.push_back(p);
    return true;
  });
  EXPECT_EQ(snapshot, repo("model") / "snapshots" / "0123456789abcdef0123456789abcdef01234567");
  for (const char* f : {"config.json", "vocab.txt", "model.safetensors"}) {
    EXPECT_TRUE(std::filesystem::is_symlink(snapshot / f)) << f;
    EXPECT_EQ(std::filesystem::file_size(snapshot / f), std::filesystem::file_size(test::minilm_dir() / f)) << f;
  }
  EXPECT_EQ(sha256_file(snapshot / "model.safetensors"), sha256_file(test::minilm_dir() / "model.safetensors"));
  std::ifstream ref(repo("model") / "refs" / "main");
  std::string commit;
  ref >> commit;
  EXPECT_EQ(commit, "0123456789abcdef0123456789abcdef01234567");
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().file, "model.safetensors");
  EXPECT_EQ(seen.back().done, seen.back().total);
  EXPECT_EQ(seen.back().total, std::filesystem::file_size(test::minilm_dir() / "model.safetensors"));

  hub_.stop();  // the network is gone: the model opens from the cache by its id
  setenv("HF_HUB_CACHE", cache_.path().c_str(), 1);
  EXPECT_EQ(locate_model("test-org/model"), snapshot);
  const auto checkpoint = Checkpoint::load("test-org/model", ComputeDevice{});
  EXPECT_EQ(checkpoint->model().config().num_layers, 6);
  unsetenv("HF_HUB_CACHE");
}

TEST_F(HubDownload, ACheckpointWithTokenizerJsonAndNoVocabTxtDownloadsAndOpens) {
  const auto snapshot = download_model("test-org/roberta", options(), nullptr);
  for (const char* f : {"config.json", "tokenizer.json", "model.safetensors"})
    EXPECT_TRUE(std::filesystem::exists(snapshot / f)) << f;
  EXPECT_FALSE(std::filesystem::exists(snapshot / "vocab.txt"));
  const auto checkpoint = Checkpoint::load(snapshot, ComputeDevice{});
  EXPECT_EQ(checkpoint->model().config().architecture->family, "roberta");
  EXPECT_EQ(checkpoint->encode("The keeper", 16).tokens.front().text, "<s>");
}

// A GGUF repository: one file fetched (its Q4_K_M, or the one a tag names), which opens by its
// path, and by the id once it is the repository's only file in the cache.
TEST_F(HubDownload, AGgufRepositoryFetchesOneFileThatOpens) {
  const auto file = download_model("test-org/gguf", options(), nullptr);
  const auto snapshot = repo("gguf") / "snapshots" / "0123456789abcdef0123456789abcdef01234567";
  EXPECT_EQ(file, snapshot / "tiny-Q4_K_M.gguf");
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(snapshot)) ++files;
  EXPECT_EQ(files, 1u) << "the other quantisations, the projector and the split file are not fetched";
  EXPECT_EQ(sha256_file(file), sha256_file(test::golden_dir() / "gguf" / "gpt2_tiny.gguf"));
  EXPECT_EQ(Checkpoint::load(file, ComputeDevice{})->model().config().architecture->family, "gpt2");
  setenv("HF_HUB_CACHE", cache_.path().c_str(), 1);
  EXPECT_EQ(Checkpoint::load("test-org/gguf", ComputeDevice{})->model().config().architecture->family, "gpt2");
  unsetenv("HF_HUB_CACHE");

  EXPECT_EQ(download_model("test-org/gguf:q8_0", options(), nullptr), snapshot / "tiny-Q8_0.gguf");
  const std::string many = expect_error([&] { download_model("test-org/gguf-choice", options()); });
  EXPECT_NE(many.find("test-org/gguf-choice:tiny-Q8_0.gguf"), std::string::npos) << many;
  EXPECT_NE(expect_error([&] { download_model("test-org/model:Q8_0", options()); }).find("holds no GGUF file"),
            std::string::npos);
}

TEST_F(HubDownload, ASecondDownloadFetchesNothing) {
  download_model("test-org/model", options());
  const std::string log = hub_.requests();
  EXPECT_NE(log.find("\"method\": \"GET\", \"path\": \"/test-org"), std::string::npos) << log;
  download_model("test-org/model", options());
  const std::string after = hub_.requests().substr(log.size());
  EXPECT_EQ(after.find("\"method\": \"GET\", \"path\": \"/test-org"), std::string::npos) << after;
}

TEST_F(HubDownload, ResumesAnInterruptedTransfer) {
  HubOptions o = options();
  o.retries = 0;  // the first attempt fails, and says how to go on
  const std::string message = expect_error([&] { download_model("test-org/interrupt", o); });
  EXPECT_NE(message.find("run the download again to resume"), std::string::npos) << message;
  size_t partials = 0;
  for (const auto& e : std::filesystem::directory_iterator(repo("interrupt") / "blobs"))
    if (e.path().extension() == ".incomplete") {
      ++partials;
      EXPECT_EQ(std::filesystem::file_size(e.path()), 1u << 20);
    }
  EXPECT_EQ(partials, 1u);
  const auto snapshot = download_model("test-org/interrupt", o);
  EXPECT_EQ(sha256_file(snapshot / "model.safetensors"), sha256_file(test::minilm_dir() / "model.safetensors"));
  EXPECT_NE(hub_.requests().find("\"range\": \"bytes=1048576-\""), std::string::npos);  // it asked for the rest only
}

TEST_F(HubDownload, RetriesByItselfByDefault) {
  const auto snapshot = download_model("test-org/interrupt", options());
  EXPECT_EQ(sha256_file(snapshot / "model.safetensors"), sha256_file(test::minilm_dir() / "model.safetensors"));
}

TEST_F(HubDownload, RejectsACorruptedFile) {
  const std::string message = expect_error([&] { download_model("test-org/corrupt", options()); });
  EXPECT_NE(message.find("model.safetensors"), std::string::npos) << message;
  EXPECT_NE(message.find("SHA-256"), std::string::npos) << message;
  for (const auto& e : std::filesystem::directory_iterator(repo("corrupt") / "blobs"))
    EXPECT_NE(e.path().extension(), ".incomplete") << "the damaged download was kept";
  EXPECT_FALSE(std::filesystem::exists(repo("corrupt") / "snapshots" / "0123456789abcdef0123456789abcdef01234567" /
                                       "model.safetensors"));
}

TEST_F(HubDownload, UnknownModelIsA404WithAMessage) {
  const std::string message = expect_error([&] { download_model("test-org/nothing", options()); });
  EXPECT_NE(message.find("not found"), std::string::npos) << message;
  EXPECT_NE(message.find("test-org/nothing"), std::string::npos) << message;
}

TEST_F(HubDownload, AServerThatStopsAnsweringFailsInTime) {
  HubOptions o = options();
  o.retries = 0;
  const auto start = std::chrono::steady_clock::now();
  const std::string message = expect_error([&] { download_model("test-org/stall", o); });
  EXPECT_NE(message.find("stopped answering"), std::string::npos) << message;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

TEST_F(HubDownload, PrivateModelsNeedAToken) {
  EXPECT_NE(expect_error([&] { download_model("test-org/private", options()); }).find("HF_TOKEN"), std::string::npos);
  HubOptions o = options();
  o.token = "secret";
  EXPECT_TRUE(std::filesystem::exists(download_model("test-org/private", o) / "model.safetensors"));
}

TEST_F(HubDownload, RefusesPicklesAndOfflineAndBadIds) {
  EXPECT_NE(expect_error([&] { download_model("test-org/pickle", options()); }).find("pytorch_model.bin"),
            std::string::npos);
  HubOptions o = options();
  o.offline = true;
  EXPECT_NE(expect_error([&] { download_model("test-org/model", o); }).find("HF_HUB_OFFLINE"), std::string::npos);
  for (const char* bad : {"", "../etc", "/abs", "a/b/c"}) EXPECT_THROW(download_model(bad, options()), Error) << bad;
  o = options();
  o.endpoint = "http://127.0.0.1:1";  // nothing listens there
  EXPECT_NE(expect_error([&] { download_model("test-org/model", o); }).find("127.0.0.1:1"), std::string::npos);
}

TEST(HubOptionsFromEnvironment, ReadsTheVariables) {
  setenv("HF_ENDPOINT", "http://mirror.example/", 1);
  setenv("HF_TOKEN", "tok", 1);
  setenv("HF_HUB_OFFLINE", "1", 1);
  setenv("HF_HUB_CACHE", "/tmp/hub-cache-test", 1);
  const HubOptions o = hub_options_from_environment();
  EXPECT_EQ(o.endpoint, "http://mirror.example");
  EXPECT_EQ(o.token, "tok");
  EXPECT_TRUE(o.offline);
  EXPECT_EQ(o.cache, std::filesystem::path("/tmp/hub-cache-test"));
  for (const char* v : {"HF_ENDPOINT", "HF_TOKEN", "HF_HUB_OFFLINE", "HF_HUB_CACHE"}) unsetenv(v);
  EXPECT_FALSE(hub_options_from_environment().offline);
  EXPECT_EQ(hub_options_from_environment().endpoint, "https://huggingface.co");
}

TEST(FileHash, KnownValues) {
  const test::TempDir dir;
  test::write_text(dir / "abc", "abc");
  EXPECT_EQ(sha256_file(dir / "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // git hash-object of a file holding "abc"
  EXPECT_EQ(git_blob_sha1(dir / "abc"), "f2ba8f84ab5c1bce84a7b441cb1959cfc7093b7f");
  EXPECT_EQ(hash_mismatch(dir / "abc", "f2ba8f84ab5c1bce84a7b441cb1959cfc7093b7f"), "");
  EXPECT_NE(hash_mismatch(dir / "abc", std::string(64, '0')), "");
  EXPECT_THROW(hash_mismatch(dir / "abc", "xyz"), Error);
  EXPECT_THROW(sha256_file(dir / "missing"), Error);
}

}  // namespace
}  // namespace attnscope
