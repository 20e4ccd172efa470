#!/usr/bin/env python3
"""Golden fixture of the two real decoders opened from their GGUF files (SmolLM2-135M-Instruct,
Gemma 3 270M; tools/setup.sh fetches them): transformers loads each file itself (dequantised to
float32, the layouts it restores, its defaults where the file is silent), then runs one held-out
text with eager attention. Written per model, into tests/golden/gguf/:
  <name>_decoder.json        the ids (transformers' tokenizer of the same file), the configuration
                             transformers derived (the keys attnscope's reader must agree on),
                             which layers' head outputs are kept, and the model's ten most likely
                             next tokens after the text with their probabilities and pieces
  <name>_decoder.safetensors attention [L, H, n, n] of every layer; head_outputs [3, H, n, d] of
                             the first, a middle and the last layer (C = A V, each query head
                             reading its group's V); last_hidden [n, D], the final norm's output
Run: .venv/bin/python tools/make_decoder_gguf_golden.py
"""
import json
from pathlib import Path

import torch
import transformers as tf
from safetensors.torch import save_file

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "gguf"
MODELS = {"smollm2": "models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf",
          "gemma3": "models/gemma-3-270m/gemma-3-270m-q4_k_m.gguf"}
TEXT = "Across the harbour, the old ferryman counted the lanterns twice before he untied the boat."
CONFIG_KEYS = ["model_type", "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
               "head_dim", "intermediate_size", "rms_norm_eps", "sliding_window", "layer_types", "query_pre_attn_scalar",
               "rope_parameters", "hidden_act", "hidden_activation"]


def write(name, relative):
    path = ROOT / relative
    tokenizer = tf.AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = tf.AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32,
                                                    attn_implementation="eager").eval()
    config = model.config
    ids = tokenizer(TEXT, add_special_tokens=True)["input_ids"]
    values = []
    inner = model.model
    hooks = [m.register_forward_hook(lambda _m, _i, out: values.append(out)) for n, m in model.named_modules() if n.endswith("v_proj")]
    with torch.no_grad():
        out = inner(input_ids=torch.tensor([ids]), output_attentions=True)
        logits = model(input_ids=torch.tensor([ids])).logits[0, -1]
    probabilities = torch.softmax(logits.double(), -1)
    top = torch.topk(probabilities, 10)
    for h in hooks:
        h.remove()
    heads, groups, d = config.num_attention_heads, config.num_key_value_heads, config.head_dim
    layers = config.num_hidden_layers
    kept = [0, layers // 2, layers - 1]
    outputs = []
    for layer in kept:
        v = values[layer][0].view(len(ids), groups, d).transpose(0, 1).repeat_interleave(heads // groups, dim=0)
        outputs.append(out.attentions[layer][0] @ v)
    save_file({"attention": torch.stack([a[0] for a in out.attentions]).contiguous(),
               "head_outputs": torch.stack(outputs).contiguous(),
               "last_hidden": out.last_hidden_state[0].contiguous()}, OUT / f"{name}_decoder.safetensors")
    derived = {k: v for k, v in config.to_dict().items() if k in CONFIG_KEYS}
    (OUT / f"{name}_decoder.json").write_text(json.dumps({"file": relative, "text": TEXT, "ids": ids, "kept_layers": kept,
                                                          "config": derived, "next_tokens": {"ids": top.indices.tolist(),
                                                          "probabilities": top.values.tolist(),
                                                          "pieces": tokenizer.convert_ids_to_tokens(top.indices.tolist())}}, indent=1))
    print(name, len(ids), "tokens", derived)


def main():
    for name, relative in MODELS.items():
        write(name, relative)


if __name__ == "__main__":
    main()
