#include "typing_bench.h"

#include <algorithm>
#include <cmath>

namespace attnscope::ui {
namespace {

// Words typed, each followed by a space; varied so that every burst changes the tokens.
const char* const kWords[] = {"quiet", "harbor", "lamp", "winter", "stone", "letter", "north", "bright"};

}  // namespace

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

std::string TypingBench::keys_due(double now) {
  if (done()) return {};
  if (state_ == State::Starting && o_.after_first_run && !opened_shown_) {
    if (asked_first_ < 0) asked_first_ = now;
    if (now - asked_first_ < o_.first_run_wait) {
      next_key_ = now + o_.first_run_look;
      return {};
    }
  }
  if (state_ == State::Starting && opened_shown_ && o_.first_pause > 0) {
    state_ = State::Pausing;
    pause_until_ = now + o_.first_pause;
  }
  if (state_ == State::Starting || (state_ == State::Pausing && now >= pause_until_)) {
    state_ = State::Typing;
    typed_in_burst_ = 0;
    next_key_ = now;
  }
  if (state_ != State::Typing || now < next_key_) return {};
  const std::string word = std::string(kWords[word_ % std::size(kWords)]) + " ";
  const auto k = static_cast<size_t>(typed_in_burst_) % word.size();
  ++typed_in_burst_;
  last_key_ = now;
  next_key_ = now + o_.key_interval;
  if (typed_in_burst_ >= o_.keys_per_burst) {
    state_ = State::Waiting;
    frames_since_key_ = 0;
    ++word_;
  }
  return std::string(1, word[k]);
}

void TypingBench::frame_presented(double now, double frame_seconds, bool shows_current_text, bool whole) {
  if (state_ == State::Starting) return;
  frames_.push_back(frame_seconds);
  if (whole) whole_frames_.push_back(frame_seconds);
  if (state_ != State::Waiting) return;
  ++frames_since_key_;
  if (!shows_current_text) return;
  latencies_.push_back(now - last_key_);
  frames_to_show_.push_back(frames_since_key_);
  state_ = State::Pausing;
  pause_until_ = now + o_.pause;
}

void TypingBench::analysis_shown(double forward_seconds, double analysis_seconds, double thumbnail_seconds,
                                 int64_t tokens_continued) {
  if (state_ == State::Starting) {  // the text's analysis from before the first key: not counted
    opened_shown_ = true;
    return;
  }
  continued_.push_back(static_cast<double>(tokens_continued));
  forwards_.push_back(forward_seconds);
  analyses_.push_back(analysis_seconds);
  thumbnails_.push_back(thumbnail_seconds);
}

size_t typing_position(const std::string& text, TypingPlace place) {
  if (place == TypingPlace::Start) return 0;
  if (place == TypingPlace::End) return text.size();
  const size_t space = text.find_first_of(" \n", text.size() / 2);
  return space == std::string::npos ? text.size() : space + 1;
}

const char* typing_place_name(TypingPlace place) {
  return place == TypingPlace::End ? "end" : place == TypingPlace::Middle ? "middle" : "start";
}

TypingPlace typing_place_named(const std::string& name) {
  for (const TypingPlace place : {TypingPlace::End, TypingPlace::Middle})
    if (name == typing_place_name(place)) return place;
  return TypingPlace::Start;
}

nlohmann::json TypingBench::summary(size_t tokens, int abandoned, bool last_text_shown) const {
  const auto to_ms = [](double seconds) { return std::round(seconds * 1e4) / 10; };  // to a tenth of a ms
  const auto ms = [&](const std::vector<double>& v, double q) { return to_ms(percentile(v, q)); };
  const auto each_ms = [&](const std::vector<double>& v) {
    std::vector<double> out;
    for (const double x : v) out.push_back(to_ms(x));
    return out;
  };
  return {{"tokens", tokens},
          {"typed_at", typing_place_name(o_.place)},
          {"typed_after_first_run", o_.after_first_run},
          {"first_pause_s", o_.first_pause},
          {"tokens_continued_median", percentile(continued_, 0.5)},
          {"tokens_continued", continued_},
          {"bursts", latencies_.size()},
          {"keys_per_burst", o_.keys_per_burst},
          {"key_interval_ms", o_.key_interval * 1000},
          {"latency_median_ms", ms(latencies_, 0.5)},
          {"latency_p95_ms", ms(latencies_, 0.95)},
          {"latency_max_ms", ms(latencies_, 1.0)},
          {"latencies_ms", each_ms(latencies_)},  // each burst's, in order: which bursts make the tail
          {"forwards_ms", each_ms(forwards_)},
          {"analyses_ms", each_ms(analyses_)},
          {"forward_median_ms", ms(forwards_, 0.5)},
          {"analysis_median_ms", ms(analyses_, 0.5)},
          {"thumbnails_median_ms", ms(thumbnails_, 0.5)},
          {"frame_median_ms", ms(frames_, 0.5)},
          {"whole_frame_median_ms", ms(whole_frames_, 0.5)},
          {"whole_frames", whole_frames_.size()},
          {"frames", frames_.size()},
          {"frames_to_show_min",
           frames_to_show_.empty() ? 0 : *std::min_element(frames_to_show_.begin(), frames_to_show_.end())},
          {"frames_to_show_max",
           frames_to_show_.empty() ? 0 : *std::max_element(frames_to_show_.begin(), frames_to_show_.end())},
          {"abandoned_runs", abandoned},
          {"last_text_shown", last_text_shown}};
}

}  // namespace attnscope::ui
