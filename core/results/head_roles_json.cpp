#include "results/head_roles_json.h"

#include "base/error.h"

namespace attnscope {

nlohmann::json head_roles_to_json(const HeadRoleScores& s, const HeadRoleSettings& settings, int64_t induction_period) {
  nlohmann::json layers = nlohmann::json::array();
  for (int64_t l = 0; l < s.layers(); ++l) {
    nlohmann::json heads = nlohmann::json::array();
    for (int64_t h = 0; h < s.heads(); ++h) {
      nlohmann::json scores = nlohmann::json::object();
      for (const HeadRole role : kHeadRoles) {
        const auto v = s.score(role, l, h);
        scores[std::string(head_role_name(role))] = v ? nlohmann::json(*v) : nlohmann::json();
      }
      const auto role = s.strongest(l, h, settings);
      heads.push_back({{"scores", scores}, {"role", role ? nlohmann::json(head_role_name(*role)) : nlohmann::json()}});
    }
    layers.push_back({{"layer", l}, {"sink_rate", s.sink_rate(settings, l)}, {"heads", heads}});
  }
  return {{"threshold", settings.threshold},
          {"sink_threshold", settings.sink_threshold},
          {"induction_period", induction_period},
          {"sink_rate", s.sink_rate(settings)},
          {"layers", layers}};
}

HeadRoleScores head_roles_from_json(const nlohmann::json& json, int64_t layers, int64_t heads,
                                    const std::string& source) {
  const auto bad = [&](const std::string& what) { return Error(source + ": head_roles: " + what); };
  if (!json.is_object() || !json.contains("layers") || !json["layers"].is_array() ||
      static_cast<int64_t>(json["layers"].size()) != layers)
    throw bad("\"layers\" must list " + std::to_string(layers) + " layers");
  HeadRoleScores s(layers, heads);
  for (int64_t l = 0; l < layers; ++l) {
    const nlohmann::json& layer = json["layers"][static_cast<size_t>(l)];
    if (!layer.is_object() || !layer.contains("heads") || !layer["heads"].is_array() ||
        static_cast<int64_t>(layer["heads"].size()) != heads)
      throw bad("layer " + std::to_string(l) + " must list " + std::to_string(heads) + " heads");
    for (int64_t h = 0; h < heads; ++h) {
      const nlohmann::json& head = layer["heads"][static_cast<size_t>(h)];
      if (!head.is_object() || !head.contains("scores") || !head["scores"].is_object())
        throw bad("layer " + std::to_string(l) + ", head " + std::to_string(h) + " has no \"scores\"");
      for (const HeadRole role : kHeadRoles) {
        const auto v = head["scores"].find(std::string(head_role_name(role)));
        if (v == head["scores"].end() || v->is_null()) continue;
        if (!v->is_number()) throw bad("a score must be a number or null, found " + v->dump());
        s.set(role, l, h, v->get<double>());
      }
    }
  }
  return s;
}

}  // namespace attnscope
