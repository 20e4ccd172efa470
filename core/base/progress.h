#pragma once
// How far a long piece of work has come, reported from the thread doing it, and whether it should
// go on: a long text's forward and analysis take minutes (Gemma 3 at 32,768 tokens: most of an
// hour on two cores); whoever started them shows a bar, and the explorer abandons a run an edit
// has made stale.
#include <functional>
#include <string_view>

#include "base/error.h"

namespace attnscope {

// `stage` names the work ("model", "pairs", "head roles"); `fraction` of it is done, in [0, 1],
// or kShareUnknown: the stage has begun and will say no more until the next one (a whole text's
// analysis, a few seconds of products with no steps between them).
using ProgressReport = std::function<void(std::string_view stage, double fraction)>;
constexpr double kShareUnknown = -1;

// Asked between steps of a long piece of work: false abandons it (attnscope::Cancelled is thrown).
// None given: the work runs to its end.
using KeepGoing = std::function<bool()>;

inline void stop_if_stale(const KeepGoing& keep_going) {
  if (keep_going && !keep_going()) throw Cancelled();
}

}  // namespace attnscope
