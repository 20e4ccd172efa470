// Reading JSON with its long "data" strings left in the file's bytes: which strings are cut out,
// that each reads back as the parser would have read it, and bad input refused in one line.
#include <gtest/gtest.h>

#include "base/error.h"
#include "base/json_with_blobs.h"
#include "support/paths.h"

namespace attnscope {
namespace {

TEST(JsonWithBlobs, LongDataStringsAreCutOutAndReadBackAsTheParserReadsThem) {
  const std::string a(40, 'A'), b(50, 'B');
  const std::string text = "{\"x\": {\"data\": \"" + a + "\", \"shape\": [1]}, \"y\" : [{\"data\"\n :\t\"" + b +
                           "\"}], \"data\": \"short\", \"path\": \"" + a + "\", \"z\": {\"data\": \"" + a +
                           "\\/\"}, \"w\": \"\\\"data\\\": \\\"" + a + "\"}";
  const nlohmann::json parsed = nlohmann::json::parse(text);
  const JsonWithBlobs json(text, "t.json", 16);
  EXPECT_EQ(json.blobs(), 2u);  // x and y; not a short one, a key that is not "data", or one with escapes
  const nlohmann::json& d = json.document();
  EXPECT_NE(d["x"]["data"], parsed["x"]["data"]);  // a reference in its place
  for (const auto* key : {"x", "z"}) EXPECT_EQ(json.text(d[key]["data"]), parsed[key]["data"].get<std::string>());
  EXPECT_EQ(json.text(d["y"][0]["data"]), b);
  EXPECT_EQ(d["path"], parsed["path"]);
  EXPECT_EQ(d["w"], parsed["w"]);
  EXPECT_EQ(json.text(d["data"]), "short");
  EXPECT_EQ(d["x"]["shape"], parsed["x"]["shape"]);
  EXPECT_THROW(json.text(d["x"]["shape"]), Error);
}

TEST(JsonWithBlobs, AStringThatLooksLikeAReferenceIsItself) {
  const JsonWithBlobs json(std::string_view("{\"data\": \"\\u00017\", \"b\": \"\\u0001x\"}"), "t.json", 4);
  EXPECT_EQ(json.blobs(), 0u);
  EXPECT_EQ(json.text(json.document()["data"]),
            "\x01"
            "7");
  EXPECT_EQ(json.text(json.document()["b"]), "\x01x");
}

TEST(JsonWithBlobs, BadInputGetsOneLineNamingTheFile) {
  for (const std::string bad : {"", "{\"data\": \"AAAAAAAAAAAAAAAAAAAAAAAA", "{\"data\": \"AAAAAAAA\"", "[1, 2"}) {
    try {
      JsonWithBlobs(bad, "t.json", 4);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("t.json: not valid JSON (", 0), 0u) << e.what();
    }
  }
  test::TempDir dir;
  EXPECT_THROW(JsonWithBlobs(dir / "absent.json"), Error);
  EXPECT_THROW(JsonWithBlobs(dir.path()), Error);
  const std::string data(1 << 17, 'Q');
  test::write_text(dir / "f.json", "{\"data\": \"" + data + "\"}");
  const JsonWithBlobs file(dir / "f.json");
  EXPECT_EQ(file.blobs(), 1u);
  EXPECT_EQ(file.text(file.document()["data"]), data);
  file.release(file.text(file.document()["data"]));
  EXPECT_EQ(file.text(file.document()["data"]), data);  // read again from the file once released
}

}  // namespace
}  // namespace attnscope
