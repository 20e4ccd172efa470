#include "tokenizer/unigram.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "base/error.h"

namespace attnscope {

Unigram::Unigram(std::vector<std::pair<std::string, double>> pieces, int64_t unk_id, const std::string& source)
    : pieces_(std::move(pieces)) {
  if (unk_id < 0 || static_cast<size_t>(unk_id) >= pieces_.size())
    throw Error(source + ": the Unigram model's unk_id " + std::to_string(unk_id) + " is not one of its " +
                std::to_string(pieces_.size()) + " pieces");
  unk_id_ = static_cast<int32_t>(unk_id);
  double lowest = std::numeric_limits<double>::infinity();
  for (size_t id = 0; id < pieces_.size(); ++id) {
    ids_[pieces_[id].first] =
        static_cast<int32_t>(id);  // a piece listed twice: the later id, as the reference's map keeps it
    lowest = std::min(lowest, pieces_[id].second);
    longest_ = std::max(longest_, pieces_[id].first.size());
  }
  unk_score_ = lowest - 10.0;
}

void Unigram::tokenize(const CharString& word, std::vector<Token>& out) const {
  if (word.empty()) return;
  // The word's UTF-8 with the byte offset of each character, and one past the last.
  std::string text;
  std::vector<size_t> starts;
  starts.reserve(word.size() + 1);
  for (const SourceChar& c : word) {
    starts.push_back(text.size());
    append_utf8(text, c.cp);
  }
  starts.push_back(text.size());
  const std::string_view view = text;
  struct Node {
    std::optional<size_t> from;  // character where the best path's last piece starts
    int32_t id = 0;
    double score = 0;
  };
  const size_t n = word.size();
  std::vector<Node> best(n + 1);
  best[0].from = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!best[i].from) continue;
    bool single = false;
    for (size_t j = i + 1; j <= n && starts[j] - starts[i] <= longest_; ++j) {
      const auto it = ids_.find(view.substr(starts[i], starts[j] - starts[i]));
      if (it == ids_.end()) continue;
      const double score = best[i].score + pieces_[static_cast<size_t>(it->second)].second;
      if (!best[j].from || score > best[j].score) best[j] = {i, it->second, score};
      single |= j == i + 1;
    }
    if (!single) {
      const double score = best[i].score + unk_score_;
      if (!best[i + 1].from || score > best[i + 1].score) best[i + 1] = {i, unk_id_, score};
    }
  }
  // Back from the end; neighbouring unknown pieces fuse into one.
  std::vector<Token> pieces;
  for (size_t end = n; end > 0;) {
    const size_t from = *best[end].from;
    const int32_t id = best[end].id;
    Token t{id, text.substr(starts[from], starts[end] - starts[from]), word[from].begin, word[end - 1].end, false};
    if (id == unk_id_ && !pieces.empty() && pieces.back().id == unk_id_) {
      pieces.back().text = t.text + pieces.back().text;
      pieces.back().begin = t.begin;
    } else {
      pieces.push_back(std::move(t));
    }
    end = from;
  }
  for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
    // The reference looks the fused text up again: an unknown piece's text that is a listed piece
    // after all keeps that piece's id.
    if (it->id == unk_id_)
      if (const auto found = ids_.find(it->text); found != ids_.end()) it->id = found->second;
    out.push_back(*it);
  }
}

}  // namespace attnscope
