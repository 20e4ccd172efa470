#pragma once
// How far a long piece of work has come, reported from the thread doing it: a long text's forward
// and analysis take minutes (Gemma 3 at 32,768 tokens: most of an hour on two cores), and whoever
// started them shows a bar.
#include <functional>
#include <string_view>

namespace attnscope {

// `stage` names the work ("model", "pairs", "head roles"); `fraction` of it is done, in [0, 1].
using ProgressReport = std::function<void(std::string_view stage, double fraction)>;

}  // namespace attnscope
