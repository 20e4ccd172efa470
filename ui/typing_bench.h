#pragma once
// The typing benchmark (`attnscope --bench-typing N`): scripted edits typed into the real editor
// of the real window, and the time from the last keystroke of each burst to the end of the first
// frame that shows the analysis of the text as it then stands. Pure bookkeeping: the explorer
// asks what to type now and says when a frame was presented.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnscope::ui {

// Where the keys go: at the text's start (the cursor then moves on with what is typed), so that
// every edit changes the tokens after it; at its end, writing on, where a decoder's run continues
// from the last (TextPipelineOptions::continues); in its middle, where a decoder's run takes the
// tokens before the edit from the last.
enum class TypingPlace { Start, End, Middle };

// The byte the cursor starts at: 0, the end, or the start of the first word from the middle on.
size_t typing_position(const std::string& text, TypingPlace place);
const char* typing_place_name(TypingPlace place);
// The place of that name ("start", "end", "middle"); Start for any other.
TypingPlace typing_place_named(const std::string& name);

struct TypingBenchOptions {
  int bursts = 20;
  int keys_per_burst = 6;      // a short word and a space
  double key_interval = 0.08;  // seconds between keystrokes: a quick typist
  double pause = 0.25;         // after a burst's analysis is shown, before the next burst
  TypingPlace place = TypingPlace::Start;
  // The first burst waits until the text as opened is analysed and shown, as a user who opens a
  // text and then types (its first run is no edit's: on a long text it took most of the first
  // burst's latency); false: it starts at once, during that run (--typing-at-once).
  bool after_first_run = true;
  double first_run_wait = 900;  // seconds the first burst waits at most (a text never analysed)
  // How often the script looks, while the first burst waits, whether the run was shown: the window
  // may draw no frame when its worker falls idle after it, and each look draws one.
  double first_run_look = 0.25;
  // Seconds from the text as opened shown to the first burst, as a user reads it before typing (0:
  // at once; the worker meanwhile makes blocks ready for the first edit's run, AnalysisWorker).
  double first_pause = 0;
};

class TypingBench {
 public:
  explicit TypingBench(TypingBenchOptions options) : o_(options) {}
  // The characters due at `now` (usually one, often none).
  std::string keys_due(double now);
  // A frame was presented at `now`; `shows_current_text`: it drew the analysis of the editor's text;
  // `whole`: it redrew the whole window (a key's frame may redraw the text side only).
  void frame_presented(double now, double frame_seconds, bool shows_current_text, bool whole = true);
  // Timings the worker reported for a snapshot that was shown (`thumbnail_seconds`: colouring the
  // overview's thumbnails after the analysis, 0 when another view was shown).
  // `tokens_continued`: the leading tokens the run took from the one before (0: all run). One shown
  // before the first key is not counted.
  void analysis_shown(double forward_seconds, double analysis_seconds, double thumbnail_seconds,
                      int64_t tokens_continued = 0);
  const TypingBenchOptions& options() const { return o_; }
  bool done() const { return latencies_.size() >= static_cast<size_t>(o_.bursts); }
  bool waiting() const { return state_ == State::Waiting; }
  // When the script next has something to do (a key, the end of a pause, a look while the first burst
  // waits); 0: now, or at the next event.
  double next_moment() const {
    return state_ == State::Typing || state_ == State::Starting ? next_key_
           : state_ == State::Pausing                           ? pause_until_
                                                                : 0;
  }
  // `abandoned`: runs the worker stopped because a newer edit came; `last_text_shown`: the views
  // show the analysis of the editor's text as it stands at the end.
  nlohmann::json summary(size_t tokens, int abandoned, bool last_text_shown) const;

 private:
  enum class State { Starting, Typing, Waiting, Pausing };
  TypingBenchOptions o_;
  State state_ = State::Starting;
  double next_key_ = 0, last_key_ = 0, pause_until_ = 0;
  double asked_first_ = -1;    // when keys were first asked for
  bool opened_shown_ = false;  // the text as opened was analysed and shown
  int typed_in_burst_ = 0;
  size_t word_ = 0;
  std::vector<double> latencies_, frames_, whole_frames_, forwards_, analyses_, thumbnails_, continued_;
  int frames_since_key_ = 0;         // presented since the burst's last key
  std::vector<int> frames_to_show_;  // per burst: frames presented from its last key to the one showing its analysis
};

// The median and the 95th percentile (nearest rank) of a list; 0 when empty.
double percentile(std::vector<double> values, double q);

}  // namespace attnscope::ui
