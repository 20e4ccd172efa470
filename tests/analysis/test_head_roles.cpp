// Head roles (METHOD.md) by hand on maps small enough to follow, an encoder's and a decoder's,
// the induction probe against SplitMix64 computed independently (Python, in the comment), and
// every role of every head of MiniLM against the independent numpy implementation
// (tools/reference_head_roles.py, on transformers' maps).
#include <c10/util/Exception.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/head_roles.h"
#include "base/error.h"
#include "model/captures.h"
#include "support/minilm.h"
#include "support/head_role_scores.h"
#include "support/paths.h"

namespace attnscope {
namespace {

// One layer, two heads over 4 tokens: head 0 looks at the token before (token 0 at itself),
// head 1 everywhere alike.
at::Tensor two_heads() {
  const at::Tensor previous = at::tensor({1., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.}).view({4, 4});
  return at::stack({previous, at::full({4, 4}, 0.25, at::kDouble)}).unsqueeze(0).to(at::kFloat);
}

void expect_score(const HeadRoleScores& s, HeadRole role, int64_t head, double want) {
  const auto got = s.score(role, 0, head);
  ASSERT_TRUE(got.has_value()) << head_role_name(role) << " of head " << head;
  EXPECT_NEAR(*got, want, 1e-7) << head_role_name(role) << " of head " << head;
}

TEST(HeadRoles, AnEncodersScoresByHand) {
  const HeadRoleScores s = head_role_scores(two_heads(), {5, 7, 5, 5}, {AttentionReach{}});
  expect_score(s, HeadRole::PreviousToken, 0, 1.0);
  expect_score(s, HeadRole::FirstToken, 0, 1.0 / 3);
  expect_score(s, HeadRole::NextToken, 0, 0.0);
  expect_score(s, HeadRole::EndToken, 0, 0.0);
  expect_score(s, HeadRole::DuplicateToken, 0, 0.5);  // row 2: A20 = 0; row 3: A30 + A32 = 1
  expect_score(s, HeadRole::Broad, 0, 0.0);
  for (const HeadRole role : {HeadRole::PreviousToken, HeadRole::FirstToken, HeadRole::NextToken, HeadRole::EndToken})
    expect_score(s, role, 1, 0.25);
  expect_score(s, HeadRole::DuplicateToken, 1, 3.0 / 8);  // (1/4 + 2/4) / 2
  expect_score(s, HeadRole::Broad, 1, 1.0);
  EXPECT_FALSE(s.score(HeadRole::Induction, 0, 0).has_value());  // no probe run
  EXPECT_EQ(s.strongest(0, 0), HeadRole::PreviousToken);
  EXPECT_EQ(s.strongest(0, 1), HeadRole::Broad);
  EXPECT_EQ(s.strongest(0, 1, {.threshold = 1.01}), std::nullopt);
  EXPECT_DOUBLE_EQ(s.sink_rate(), 0.5);  // head 0's first-token score 1/3 >= 0.3, head 1's 1/4 not
}

TEST(HeadRoles, ADecoderHasNoRolesAheadAndItsBroadnessCountsWhatEachRowSees) {
  // Each row spread evenly over the tokens it may see: broad exactly 1.
  at::Tensor causal = at::zeros({4, 4}, at::kFloat);
  for (int64_t i = 0; i < 4; ++i) causal[i].narrow(0, 0, i + 1).fill_(1.0 / static_cast<double>(i + 1));
  const HeadRoleScores s = head_role_scores(causal.view({1, 1, 4, 4}), {1, 2, 3, 4}, {AttentionReach{.after = 0}});
  EXPECT_FALSE(s.score(HeadRole::NextToken, 0, 0).has_value());
  EXPECT_FALSE(s.score(HeadRole::EndToken, 0, 0).has_value());
  EXPECT_FALSE(s.score(HeadRole::DuplicateToken, 0, 0).has_value());  // no token repeats
  expect_score(s, HeadRole::Broad, 0, 1.0);
  expect_score(s, HeadRole::FirstToken, 0, (1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3);
  // A sliding window of 2 sees at most 2 keys; a band of half-width 1 at most 3.
  EXPECT_EQ((AttentionReach{.before = 1, .after = 0}).visible(3, 4), 2);
  EXPECT_EQ((AttentionReach{.before = 1, .after = 1}).visible(2, 4), 3);
  EXPECT_EQ((AttentionReach{.before = 1, .after = 1}).visible(0, 4), 2);
}

TEST(HeadRoles, OneTokenGivesNoScoresThatNeedTwo) {
  const HeadRoleScores s = head_role_scores(at::ones({2, 3, 1, 1}), {9}, {AttentionReach{}});
  EXPECT_FALSE(s.score(HeadRole::PreviousToken, 1, 2).has_value());
  EXPECT_FALSE(s.score(HeadRole::Broad, 1, 2).has_value());
  EXPECT_EQ(s.strongest(1, 2), std::nullopt);
  EXPECT_THROW(head_role_scores(at::ones({2, 3, 1, 1}), {9, 9}, {AttentionReach{}}), Error);
}

TEST(HeadRoles, InductionOnTheProbe) {
  // start, a, b, a, b: the second copy's queries 3 and 4 should look at 2 and 3.
  at::Tensor a = at::zeros({1, 1, 5, 5}, at::kFloat);
  a[0][0][3][2] = 0.8;
  a[0][0][4][3] = 0.6;
  a[0][0][3][3] = 0.2;
  HeadRoleScores s(1, 1);
  add_induction_scores(s, a, 2, 1);
  expect_score(s, HeadRole::Induction, 0, 0.7);
  EXPECT_THROW(add_induction_scores(s, a, 3, 1), Error);  // 1 + 6 tokens needed
}

TEST(HeadRoles, TheProbeIsSplitMix64WithoutTheExcludedIds) {
  // Python: s = 2022; each draw s += 0x9E3779B97F4A7C15, z = s, z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9,
  // z = (z ^ z >> 27) * 0x94D049BB133111EB, z ^ z >> 31 (mod 2^64), then % 30522.
  EXPECT_EQ(induction_probe(30522, {}, 5), (std::vector<int64_t>{30103, 15073, 4555, 18879, 14081}));
  const auto without = induction_probe(30522, {15073}, 5);
  EXPECT_EQ(without.size(), 5u);
  EXPECT_EQ(without[1], 4555);
  EXPECT_THROW(induction_probe(2, {0, 1}), Error);
}

at::Tensor minilm_attention(const std::vector<int64_t>& ids) {
  const BatchCaptures batch = test::minilm_checkpoint().model().forward({ids});
  return text_captures(batch, 0, true).attention;
}

void expect_layer_head_scores(const HeadRoleScores& s, HeadRole role, const nlohmann::json& want) {
  for (int64_t l = 0; l < s.layers(); ++l)
    for (int64_t h = 0; h < s.heads(); ++h) {
      const auto got = s.score(role, l, h);
      ASSERT_TRUE(got.has_value()) << head_role_name(role) << " " << l << ":" << h;
      EXPECT_NEAR(*got, want[l][h].get<double>(), 1e-6) << head_role_name(role) << " " << l << ":" << h;
    }
}

TEST(HeadRoles, MiniLMAgreesWithTheIndependentReference) {
  const nlohmann::json& golden = test::golden("minilm_head_roles.json");
  for (const auto& text : golden["texts"]) {
    const auto ids = text["ids"].get<std::vector<int64_t>>();
    const HeadRoleScores s = head_role_scores(minilm_attention(ids), ids, {AttentionReach{}});
    for (const HeadRole role : kHeadRoles)
      if (role != HeadRole::Induction)
        expect_layer_head_scores(s, role, text["scores"][std::string(head_role_name(role))]);
  }
  const auto& probe = golden["probe"];
  const int64_t period = probe["period"];
  const auto tokens = induction_probe(30522, probe["excluded"].get<std::vector<int64_t>>(), period);
  ASSERT_EQ(tokens, probe["tokens"].get<std::vector<int64_t>>());
  std::vector<int64_t> ids = {101};
  for (int copy = 0; copy < 2; ++copy) ids.insert(ids.end(), tokens.begin(), tokens.end());
  ids.push_back(102);
  HeadRoleScores s(6, 12);
  add_induction_scores(s, minilm_attention(ids), period, 1);
  expect_layer_head_scores(s, HeadRole::Induction, probe["induction"]);
}

// Every warning libtorch gives while it lives.
class CollectedWarnings : public c10::WarningHandler {
 public:
  CollectedWarnings() : guard_(this) {}
  void process(const c10::Warning& warning) override { messages.push_back(warning.msg()); }
  std::vector<std::string> messages;

 private:
  c10::WarningUtils::WarningHandlerGuard guard_;
};

// A long text's roles come from its maps block by block of query rows (LayerRoleRows): the same
// scores as from the whole maps, for blocks of any height, an encoder's reach, a decoder's and a
// band; blocks of another height than the last one's give no warning (`analyze --out` printed
// libtorch's about resized outputs once a layer). Every role but one is a mean of values copied
// from the maps, equal to the bit. Broad sums each row's a log a, and libtorch takes the log of a
// tensor's last few elements one by one and of the others a vector at a time, which differ in the
// last bit on some processors (CI's did): where a row's elements fall depends on the block's
// height, so Broad is equal within rounding.
TEST(HeadRoles, BlocksOfRowsGiveTheWholeMapsScores) {
  const CollectedWarnings warnings;
  const nlohmann::json& golden = test::golden("minilm_head_roles.json");
  const auto ids = golden["texts"][0]["ids"].get<std::vector<int64_t>>();
  const at::Tensor maps = minilm_attention(ids).to(at::kDouble);
  const int64_t L = maps.size(0), H = maps.size(1), n = maps.size(2);
  for (const AttentionReach reach : {AttentionReach{}, AttentionReach{.after = 0}, AttentionReach{3, 3}}) {
    const HeadRoleScores whole = head_role_scores(maps, ids, {reach});
    for (const int64_t step : {int64_t{1}, int64_t{3}, int64_t{5}, n}) {
      HeadRoleScores blocks(L, H);
      for (int64_t l = 0; l < L; ++l) {
        LayerRoleRows rows(H, n, ids, reach);
        for (int64_t first = 0; first < n; first += step)
          rows.add(maps[l].narrow(1, first, std::min(step, n - first)), first);
        rows.finish(blocks, l);
      }
      for (const HeadRole role : kHeadRoles)
        for (int64_t l = 0; l < L; ++l)
          for (int64_t h = 0; h < H; ++h) {
            const auto got = blocks.score(role, l, h), want = whole.score(role, l, h);
            ASSERT_EQ(got.has_value(), want.has_value()) << head_role_name(role) << " " << l << ":" << h;
            if (!got) continue;
            if (role == HeadRole::Broad)
              EXPECT_NEAR(*got, *want, 1e-12) << l << ":" << h << ", blocks of " << step;
            else
              EXPECT_EQ(*got, *want) << head_role_name(role) << " " << l << ":" << h << ", blocks of " << step;
          }
    }
  }
  EXPECT_TRUE(warnings.messages.empty()) << warnings.messages.front();
}

// MiniLM's maps cut to a reach (zero at every key a row may not see, each row summing to 1 again).
at::Tensor within_reach(const at::Tensor& maps, AttentionReach reach) {
  const int64_t n = maps.size(-1);
  const at::Tensor offset = at::arange(n).unsqueeze(0) - at::arange(n).unsqueeze(1);  // key - query
  at::Tensor seen = at::ones({n, n}, at::kBool);
  if (reach.before >= 0) seen &= offset >= -reach.before;
  if (reach.after >= 0) seen &= offset <= reach.after;
  const at::Tensor cut = maps * seen.to(maps.scalar_type());
  return cut / cut.sum(-1, true);
}

// Blocks given with only the keys their rows may see (a decoder's up to the block's last row, a
// band's around it), at their first key: the scores of the whole maps, within rounding (each row's
// entropy sums fewer terms).
TEST(HeadRoles, BlocksOfTheKeysTheirRowsSeeGiveTheWholeMapsScores) {
  const nlohmann::json& golden = test::golden("minilm_head_roles.json");
  const auto ids = golden["texts"][0]["ids"].get<std::vector<int64_t>>();
  const at::Tensor all = minilm_attention(ids).to(at::kDouble);
  const int64_t L = all.size(0), H = all.size(1), n = all.size(2);
  for (const AttentionReach reach : {AttentionReach{.after = 0}, AttentionReach{3, 3}, AttentionReach{2, 0}}) {
    const at::Tensor maps = within_reach(all, reach);
    const HeadRoleScores whole = head_role_scores(maps, ids, {reach});
    for (const int64_t step : {int64_t{1}, int64_t{4}, n}) {
      HeadRoleScores blocks(L, H);
      for (int64_t l = 0; l < L; ++l) {
        LayerRoleRows rows(H, n, ids, reach);
        for (int64_t first = 0; first < n; first += step) {
          const int64_t count = std::min(step, n - first);
          const int64_t from = reach.before < 0 ? 0 : std::max<int64_t>(0, first - reach.before);
          const int64_t to = reach.after < 0 ? n : std::min(n, first + count + reach.after);
          rows.add(maps[l].narrow(1, first, count).narrow(2, from, to - from), first, from);
        }
        rows.finish(blocks, l);
      }
      test::expect_scores_near(blocks, whole, 1e-12, ", blocks of " + std::to_string(step));
    }
  }
}

// A causal layer's rows of the tokens two texts start with taken from the first text's, the later
// rows added: the scores of the second text's whole maps (within rounding: Broad's entropies).
// Taken from a layer that sees ahead, or from other tokens: refused.
TEST(HeadRoles, ACausalLayersEarlierRowsAreTakenFromTheTextBefore) {
  const nlohmann::json& golden = test::golden("minilm_head_roles.json");
  const auto ids = golden["texts"][0]["ids"].get<std::vector<int64_t>>();
  const AttentionReach causal{.after = 0}, sliding{2, 0};
  for (const AttentionReach reach : {causal, sliding}) {
    const at::Tensor maps = within_reach(minilm_attention(ids).to(at::kDouble), reach);
    const int64_t L = maps.size(0), H = maps.size(1), n = maps.size(2), before = n - 3;
    const std::vector<int64_t> earlier(ids.begin(), ids.begin() + before);
    const HeadRoleScores whole = head_role_scores(maps, ids, {reach});
    for (const int64_t taken : {int64_t{1}, before - 2, before}) {
      HeadRoleScores resumed(L, H);
      for (int64_t l = 0; l < L; ++l) {
        LayerRoleRows was(H, before, earlier, reach);
        was.add(maps[l].narrow(1, 0, before).narrow(2, 0, before), 0);
        LayerRoleRows rows(H, n, ids, reach);
        rows.take_rows(was, taken);
        rows.add(maps[l].narrow(1, taken, n - taken), taken);
        rows.finish(resumed, l);
      }
      test::expect_scores_near(resumed, whole, 1e-12, ", " + std::to_string(taken) + " rows taken");
    }
  }
  const LayerRoleRows was(12, 10, std::vector<int64_t>(ids.begin(), ids.begin() + 10), causal);
  LayerRoleRows rows(12, 20, std::vector<int64_t>(ids.begin(), ids.begin() + 20), causal);
  EXPECT_THROW(rows.take_rows(was, 11), Error) << "past the rows before";
  LayerRoleRows ahead(12, 20, std::vector<int64_t>(ids.begin(), ids.begin() + 20), AttentionReach{});
  EXPECT_THROW(ahead.take_rows(was, 5), Error) << "a layer that sees ahead";
  std::vector<int64_t> other(ids.begin(), ids.begin() + 20);
  other[3] += 1;
  LayerRoleRows edited(12, 20, other, causal);
  EXPECT_THROW(edited.take_rows(was, 5), Error) << "another token before";
  EXPECT_NO_THROW(edited.take_rows(was, 3));
}

}  // namespace
}  // namespace attnscope
