#pragma once
// Whether a forward keeps every attention map or what recomputes them (KeptAttention). Every map
// of a text is L H n^2 numbers and its analysis holds as many similarities: at 512 tokens that is
// a few hundred MB, at 8,192 tokens on a base-sized model 70 GB each. Past the length where they
// would take more than a share of the machine's memory (or a length the user sets), a text keeps
// its queries, keys and head outputs, O(L n D), and recomputes a map when one is asked for.
#include <cstdint>

#include "base/machine_memory.h"
#include "model/config.h"
#include "model/transformer.h"

namespace attnscope {

struct CapturePlan {
  // Keep every map of a text of at most this many tokens; 0: decided from the model's shape and
  // the memory (memory_share of it).
  int64_t maps_up_to = 0;
  double memory_share = 0.25;
  bool operator==(const CapturePlan&) const = default;
};

// Bytes of one text's maps (elements of `element_bytes`) and of its analysis' float32 similarity
// matrices, each L x H x n x n.
double map_bytes(const ModelConfig& config, int64_t n, int64_t element_bytes = 4);

// The memory a text's maps take room in on `device`: the machine's on the CPU; on a GPU the less of
// the machine's and the device's own (the maps are made there, and a run for the window copies
// them to the host), so that a card smaller than the machine's memory keeps queries and keys
// sooner. The device's alone where the machine's cannot be read; 0 when neither can.
int64_t capture_memory(const c10::Device& device);

// What a forward over a text of n tokens keeps. DeBERTa always keeps its maps (its scores need more
// than queries and keys); so does every text when `memory_bytes` is 0 and no length was set.
KeptAttention attention_to_keep(const ModelConfig& config, int64_t n, const CapturePlan& plan,
                                int64_t memory_bytes = physical_memory());

}  // namespace attnscope
