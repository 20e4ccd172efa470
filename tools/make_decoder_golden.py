#!/usr/bin/env python3
"""Writes tests/golden/decoders/<family>/: a tiny random-weight checkpoint of every decoder family
attnscope reads (config.json and model.safetensors saved by transformers itself) and
expected.json: for a few token-id lists, transformers' eager attention maps, the head outputs
C = A V (V from the model's own value projection by a hook, each query head reading its group's
shared V), the hidden states attnscope keeps (the embeddings as the first layer sees them, each
layer's output, the last one through the final norm).

The families are chosen to cover every trait of the one forward: grouped key and value heads
(llama, qwen3, gemma3), biases on the projections (qwen2), query and key norms (qwen3, gemma3),
a head width apart from hidden_size / heads (qwen3, gemma3), sliding windows in every layer
(mistral) or some (gemma3), norms around each block, RMSNorm with 1 + w and scaled embeddings
(gemma3).

  .venv/bin/python tools/make_decoder_golden.py
"""
import json
import pathlib

import torch
import transformers as tf

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "decoders"
VOCAB = 96
LENGTHS = [13, 7, 1]  # windows of 4 (mistral) and 5 (gemma3) cut the long one


def common(**extra):
    settings = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
                    intermediate_size=40, max_position_embeddings=64, attn_implementation="eager", bos_token_id=1,
                    eos_token_id=2, pad_token_id=0)
    settings.update(extra)
    return settings


def families():
    return {
        "llama": (tf.LlamaConfig(**common(rope_theta=500.0)), tf.LlamaForCausalLM),
        "mistral": (tf.MistralConfig(**common(num_key_value_heads=1, sliding_window=4)), tf.MistralForCausalLM),
        "qwen2": (tf.Qwen2Config(**common(num_key_value_heads=4)), tf.Qwen2ForCausalLM),
        "qwen3": (tf.Qwen3Config(**common(head_dim=12)), tf.Qwen3ForCausalLM),
        "gemma3": (tf.Gemma3TextConfig(**common(num_hidden_layers=4, head_dim=16, sliding_window=5, query_pre_attn_scalar=24,
                                                layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"])),
                   tf.Gemma3ForCausalLM),
    }


def randomise(model):
    with torch.no_grad():  # norms and biases away from their defaults, so a missing or swapped one shows
        for name, p in model.named_parameters():
            if "norm" in name or name.endswith(".bias"):
                p.add_(torch.randn_like(p) * 0.2)


def run(model, ids):
    config = model.config
    values, layers, embedded = [], [], []
    inner = model.model
    hooks = [m.register_forward_hook(lambda _m, _i, out: values.append(out)) for n, m in model.named_modules() if n.endswith("v_proj")]
    hooks += [layer.register_forward_hook(lambda _m, _i, out: layers.append(out[0] if isinstance(out, tuple) else out)) for layer in inner.layers]
    hooks.append(inner.embed_tokens.register_forward_hook(lambda _m, _i, out: embedded.append(out)))
    with torch.no_grad():
        out = inner(input_ids=torch.tensor([ids]), output_attentions=True)
    for h in hooks:
        h.remove()
    heads, groups = config.num_attention_heads, config.num_key_value_heads
    d = getattr(config, "head_dim", None) or config.hidden_size // heads
    attention = [a[0] for a in out.attentions]
    head_outputs = []
    for a, v in zip(attention, values):
        v = v[0].view(len(ids), groups, d).transpose(0, 1).repeat_interleave(heads // groups, dim=0)  # [H, n, d]
        head_outputs.append(a @ v)
    hidden = [embedded[0][0]] + [x[0] for x in layers[:-1]] + [out.last_hidden_state[0]]
    return {"ids": ids, "attention": [a.tolist() for a in attention], "head_outputs": [c.tolist() for c in head_outputs],
            "hidden_states": [h.tolist() for h in hidden]}


def write(name, config, model_class):
    out_dir = OUT / name
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(17)
    model = model_class(config).eval()
    randomise(model)
    model.save_pretrained(out_dir, safe_serialization=True)
    (out_dir / "generation_config.json").unlink(missing_ok=True)
    generator = torch.Generator().manual_seed(9)
    cases = [run(model, [1] + torch.randint(3, VOCAB, (n - 1,), generator=generator).tolist()) for n in LENGTHS]
    (out_dir / "expected.json").write_text(json.dumps({"family": name, "model_type": config.model_type, "cases": cases}))
    print(name, sorted((p.name, p.stat().st_size) for p in out_dir.iterdir()))


def main():
    for name, (config, model_class) in families().items():
        write(name, config, model_class)


if __name__ == "__main__":
    main()
