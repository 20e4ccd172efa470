#include "comparison_job.h"

#include <string_view>

#include "base/error_message.h"

namespace attnscope::ui {

void ComparisonJob::submit(std::shared_ptr<const AnalysisSnapshot> a, std::shared_ptr<const AnalysisSnapshot> b,
                           CompareSettings settings) {
  // Serials, not pointers: a pointer could be reused by a new snapshot.
  const std::string key =
      std::to_string(serial_of(a)) + "|" + std::to_string(serial_of(b)) + (settings.match_heads ? "|match" : "|");
  job_.submit(key, [this, a = std::move(a), b = std::move(b), settings](const JobControl& control) mutable {
    settings.progress = [&control](std::string_view, double fraction) { control.progress(fraction); };
    settings.keep_going = control.keep_going;
    auto result = std::make_shared<ComparisonSnapshot>();
    result->a = a;
    result->b = b;
    result->serial = ++made_;
    try {
      // A long text's maps made again by its model (or a result file's scores): AnalysisSnapshot::view.
      const ComparedRun run_a{a->encoding, a->text, a->captures, a->analysis, a->view().attention_blocks};
      const ComparedRun run_b{b->encoding, b->text, b->captures, b->analysis, b->view().attention_blocks};
      result->comparison = compare_texts(run_a, run_b, settings);
    } catch (const Cancelled&) {
      throw;  // a newer pair is compared instead: nothing is kept of this one
    } catch (const std::exception& e) {
      result->error = error_message(e);
    }
    return std::shared_ptr<const ComparisonSnapshot>(std::move(result));
  });
}

std::shared_ptr<const ComparisonSnapshot> ComparisonJob::latest() const {
  const auto made = job_.latest();
  return made ? made->value : nullptr;
}

}  // namespace attnscope::ui
