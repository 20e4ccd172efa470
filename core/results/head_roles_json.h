#pragma once
// Head roles as JSON (METHOD.md, "Head roles"): what `attnscope-cli heads --json` prints and what
// `analyze`'s result file keeps under "head_roles". Per layer its sink rate and per head every
// role's score (null where the text defines none) and its strongest role (null: none at or above
// the threshold); the thresholds and the induction probe's period beside them.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/head_roles.h"

namespace attnscope {

nlohmann::json head_roles_to_json(const HeadRoleScores& scores, const HeadRoleSettings& settings,
                                  int64_t induction_period);
// The scores back from that JSON, checked against the model's layers and heads; throws
// attnscope::Error naming `source` and what is wrong.
HeadRoleScores head_roles_from_json(const nlohmann::json& json, int64_t layers, int64_t heads,
                                    const std::string& source);

}  // namespace attnscope
