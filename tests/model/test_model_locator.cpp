// Model ids found in a Hugging Face cache laid out as huggingface_hub lays it out: blobs, and
// snapshots of symbolic links to them, with refs/main naming the revision.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/error.h"
#include "model/checkpoint.h"
#include "model/model_locator.h"
#include "support/paths.h"
#include "support/tiny_bert.h"

namespace attnscope {
namespace {

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// models--ORG--NAME/{blobs, snapshots/REV/<links>, refs/main}, holding the tiny BERT.
std::filesystem::path cache_repo(const std::filesystem::path& hub, const std::string& folder,
                                 const std::string& revision, bool with_ref) {
  const test::TempDir source;
  test::write_tiny_bert(source.path(), {});
  const auto repo = hub / folder;
  std::filesystem::create_directories(repo / "blobs");
  std::filesystem::create_directories(repo / "snapshots" / revision);
  for (const char* name : {"config.json", "vocab.txt", "model.safetensors"}) {
    const auto blob = repo / "blobs" / (std::string(name) + "-" + revision);
    std::filesystem::copy_file(source.path() / name, blob);
    std::filesystem::create_symlink(std::filesystem::path("../../blobs") / blob.filename(),
                                    repo / "snapshots" / revision / name);
  }
  if (with_ref) {
    std::filesystem::create_directories(repo / "refs");
    test::write_text(repo / "refs" / "main", revision);
  }
  return repo / "snapshots" / revision;
}

TEST(ModelLocator, AFolderIsTakenAsItIs) {
  const test::TempDir dir;
  EXPECT_EQ(locate_model(dir.path().string()), dir.path());
}

// A folder without config.json opens its one GGUF file; with several it says which, not which to pick.
TEST(ModelLocator, AFolderOfGgufFilesNamesThemWhenThereAreSeveral) {
  const test::TempDir dir;
  test::write_text(dir.path() / "b.Q8_0.gguf", "GGUF");
  EXPECT_EQ(locate_model(dir.path().string()), dir.path() / "b.Q8_0.gguf");
  test::write_text(dir.path() / "a.Q4_1.gguf", "GGUF");
  try {
    locate_model(dir.path().string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds 2 GGUF files (a.Q4_1.gguf, b.Q8_0.gguf)"), std::string::npos)
        << e.what();
  }
}

TEST(ModelLocator, CacheFolderFollowsHfHubCacheThenHfHome) {
  const ScopedEnv hub("HF_HUB_CACHE", "/x/hub");
  EXPECT_EQ(hub_cache_dir(), "/x/hub");
  ::unsetenv("HF_HUB_CACHE");
  const ScopedEnv home("HF_HOME", "/y");
  EXPECT_EQ(hub_cache_dir(), "/y/hub");
}

TEST(ModelLocator, ClassicIdsAlsoMatchTheirGoogleBertNames) {
  EXPECT_EQ(cached_repo_names("bert-base-uncased"),
            (std::vector<std::string>{"bert-base-uncased", "google-bert/bert-base-uncased"}));
  EXPECT_EQ(cached_repo_names("google-bert/bert-base-cased"),
            (std::vector<std::string>{"google-bert/bert-base-cased", "bert-base-cased"}));
  EXPECT_EQ(cached_repo_names("org/name"), (std::vector<std::string>{"org/name"}));
}

TEST(ModelLocator, IdsAreFoundInTheCacheAndLoad) {
  const test::TempDir hub;
  const ScopedEnv env("HF_HUB_CACHE", hub.path().string());
  const auto snapshot = cache_repo(hub.path(), "models--google-bert--bert-base-uncased", "abc123", true);
  EXPECT_EQ(locate_model("bert-base-uncased"), snapshot);
  EXPECT_EQ(locate_model("google-bert/bert-base-uncased"), snapshot);
  const auto checkpoint = Checkpoint::load("bert-base-uncased", select_device("cpu"));
  EXPECT_EQ(checkpoint->model().config().num_layers, 2);
  EXPECT_EQ(checkpoint->dir(), snapshot);

  const auto only = cache_repo(hub.path(), "models--someone--my-bert", "rev1", false);  // no refs/main, one snapshot
  EXPECT_EQ(locate_model("someone/my-bert"), only);
}

TEST(ModelLocator, MissingOrAmbiguousIdsSayWhy) {
  const test::TempDir hub;
  const ScopedEnv env("HF_HUB_CACHE", hub.path().string());
  try {
    locate_model("nobody/nothing");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(hub.path().string()), std::string::npos) << e.what();
  }
  cache_repo(hub.path(), "models--a--b", "r1", false);
  cache_repo(hub.path(), "models--a--b", "r2", false);
  try {
    locate_model("a/b");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("several snapshots"), std::string::npos) << e.what();
  }
  EXPECT_THROW(locate_model("/definitely/not/here"), Error);
  EXPECT_THROW(locate_model("a/b/c"), Error);
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

TEST(ModelLocator, ListsTheCachedModelsOfEveryArchitectureItReads) {
  const test::TempDir hub;
  cache_repo(hub.path(), "models--google-bert--bert-base-uncased", "abc", true);
  cache_repo(hub.path(), "models--my-model", "def", false);
  std::filesystem::create_directories(hub.path() / "models--broken" / "snapshots" / "x");  // no config.json
  std::filesystem::create_directories(hub.path() / "datasets--some--data");
  const auto gpt = cache_repo(hub.path(), "models--bigcode--starcoder", "g", true);
  std::filesystem::remove(gpt / "config.json");  // a link; the blob stays
  test::write_text(gpt / "config.json", R"({"model_type": "gpt_bigcode"})");
  const auto roberta = cache_repo(hub.path(), "models--FacebookAI--roberta-base", "r", true);
  std::filesystem::remove(roberta / "config.json");
  std::filesystem::copy_file(test::golden_dir() / "checkpoints" / "roberta" / "config.json", roberta / "config.json");
  const auto models = list_cached_models(hub.path());
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[0].id, "FacebookAI/roberta-base");
  EXPECT_EQ(models[0].model_type, "roberta");
  EXPECT_EQ(models[1].id, "google-bert/bert-base-uncased");
  EXPECT_EQ(models[1].snapshot, hub.path() / "models--google-bert--bert-base-uncased" / "snapshots" / "abc");
  EXPECT_EQ(models[2].id, "my-model");
  EXPECT_TRUE(list_cached_models(hub.path() / "missing").empty());
}

// A repository of GGUF files (no config.json) offers each file it can open, by its path, with the
// model type its architecture reads as; a damaged one is not offered.
TEST(ModelLocator, ListsTheCachedGgufFilesItCanOpen) {
  const auto real = test::real_model_file("models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf");
  if (!std::filesystem::exists(real)) return;
  const test::TempDir hub;
  const auto repo = cache_repo(hub.path(), "models--HuggingFaceTB--SmolLM2-GGUF", "s", false);
  std::filesystem::remove(repo / "config.json");  // a GGUF repository has none
  std::filesystem::create_symlink(std::filesystem::absolute(real), repo / "smollm2.Q4_1.gguf");
  test::write_text(repo / "broken.gguf", "GGUF but not really");
  const auto models = list_cached_models(hub.path());
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].id, "HuggingFaceTB/SmolLM2-GGUF/smollm2.Q4_1.gguf");
  EXPECT_EQ(models[0].model_type, "llama");
  EXPECT_EQ(locate_model(models[0].snapshot.string()), models[0].snapshot);
}

}  // namespace
}  // namespace attnscope
