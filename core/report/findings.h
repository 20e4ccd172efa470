#pragma once
// The paper's findings about BERT-base, each as a claim, the number that decides it on any model's
// corpus run, the rule by which it holds, and the paper's own value where it gives one. The
// thresholds of the rules are this project's choices (docs/findings.md says why); the report
// prints them beside every verdict.
#include <string>
#include <vector>

#include "report/run_measures.h"

namespace attnscope {

enum class Verdict { Holds, DoesNotHold, Undecided };
const char* verdict_name(Verdict v);  // "holds", "does not hold", "undecided"

struct Measured {
  std::string value;  // the deciding number(s), as the report writes them
  Verdict verdict = Verdict::Undecided;
  std::string detail;  // why undecided, or the numbers beside the deciding one
};

struct Finding {
  std::string key;            // a short name for files and anchors: "separators"
  std::string claim;          // the paper's claim in one sentence
  std::string paper_figure;   // where the paper shows it: "Fig. 4"
  std::string paper_value;    // what the paper reports for BERT-base
  std::string measure;        // what the deciding number is
  std::string rule;           // when the finding holds
  std::string corpus_figure;  // the paper-style figure of a corpus run (`attnscope-cli figure --fig NAME --corpus`)
  Measured (*evaluate)(const RunMeasures&);
};

// The findings in the paper's order of presentation.
const std::vector<Finding>& paper_findings();

// "0.412", or "n/a" when undefined.
std::string format_value(const MaybeValue& v, int digits = 3);

}  // namespace attnscope
