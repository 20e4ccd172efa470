#!/usr/bin/env python3
"""Writes tests/golden/decoders/<family>/: a tiny random-weight checkpoint of every decoder family
attnscope reads (config.json and model.safetensors saved by transformers itself) and
expected.json: for a few token-id lists, transformers' eager attention maps, the head outputs
C = A V (V from the model's own value projection by a hook, each query head reading its group's
shared V), the hidden states attnscope keeps (the embeddings as the first layer sees them, each
layer's output, the last one through the final norm).

The families are chosen to cover every trait of the one forward: grouped key and value heads
(llama, qwen3, gemma2, gemma3), biases on the projections (qwen2, gpt2, gpt_neox), query and key
norms (qwen3, gemma3), a head width apart from hidden_size / heads (qwen3, gemma2, gemma3), sliding
windows in every layer (mistral) or some (gemma2, gemma3, qwen2_sliding), norms around each block, RMSNorm with
1 + w and scaled embeddings (gemma2, gemma3), soft-capped scores (gemma2), learned positions and
Conv1D weights stored [in, out] (gpt2), a fused projection grouped by head, rotation of part of
each head and attention beside the feed-forward block (gpt_neox; gpt_neox_sequential without it),
and scaled rotary frequencies (llama3_rope: Llama 3's; linear_rope: linear).

  .venv/bin/python tools/make_decoder_golden.py [family ...]
"""
import json
import pathlib
import sys

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


def small(**extra):  # GPT-2 and GPT-NeoX: no grouped heads
    settings = dict(vocab_size=VOCAB, attn_implementation="eager", bos_token_id=1, eos_token_id=2, pad_token_id=0)
    settings.update(extra)
    return settings


def families():
    neox = dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=40, max_position_embeddings=64,
                rotary_pct=0.5, rotary_emb_base=300)
    return {
        "llama": (tf.LlamaConfig(**common(rope_theta=500.0)), tf.LlamaForCausalLM),
        "mistral": (tf.MistralConfig(**common(num_key_value_heads=1, sliding_window=4)), tf.MistralForCausalLM),
        "qwen2": (tf.Qwen2Config(**common(num_key_value_heads=4)), tf.Qwen2ForCausalLM),
        "qwen3": (tf.Qwen3Config(**common(head_dim=12)), tf.Qwen3ForCausalLM),
        "gemma3": (tf.Gemma3TextConfig(**common(num_hidden_layers=4, head_dim=16, sliding_window=5, query_pre_attn_scalar=24,
                                                layer_types=["sliding_attention", "full_attention", "sliding_attention", "full_attention"])),
                   tf.Gemma3ForCausalLM),
        "gemma2": (tf.Gemma2Config(**common(num_hidden_layers=4, head_dim=16, sliding_window=5, query_pre_attn_scalar=24,
                                            attn_logit_softcapping=1.5, final_logit_softcapping=3.0)), tf.Gemma2ForCausalLM),
        "gpt2": (tf.GPT2Config(**small(n_embd=32, n_layer=3, n_head=4, n_positions=64)), tf.GPT2LMHeadModel),
        "gpt_neox": (tf.GPTNeoXConfig(**small(**neox)), tf.GPTNeoXForCausalLM),
        "gpt_neox_sequential": (tf.GPTNeoXConfig(**small(**neox, use_parallel_residual=False)), tf.GPTNeoXForCausalLM),
        "llama3_rope": (tf.LlamaConfig(**common(rope_parameters=dict(rope_type="llama3", rope_theta=500.0, factor=8.0, low_freq_factor=1.0,
                                                                     high_freq_factor=4.0, original_max_position_embeddings=16)
                                             )), tf.LlamaForCausalLM),
        "qwen2_sliding": (tf.Qwen2Config(**common(use_sliding_window=True, sliding_window=4, max_window_layers=1)), tf.Qwen2ForCausalLM),
        "linear_rope": (tf.Qwen2Config(**common(rope_parameters=dict(rope_type="linear", rope_theta=1000.0, factor=4.0))),
                        tf.Qwen2ForCausalLM),
    }


def randomise(model):
    with torch.no_grad():  # norms and biases away from their defaults, so a missing or swapped one shows
        for name, p in model.named_parameters():
            if "norm" in name or "ln_" in name or name.endswith(".bias"):
                p.add_(torch.randn_like(p) * 0.2)


OUT_PROJECTIONS = ("o_proj", "attn.c_proj", "attention.dense")  # each family's attention output projection


def run(model, ids):
    """A, C and the hidden states of one text. C is read where every family has it: the input of the attention's
    output projection is the heads' A V side by side (each query head reading its group's V)."""
    config = model.config
    merged = []
    hooks = [m.register_forward_pre_hook(lambda _m, args: merged.append(args[0])) for n, m in model.named_modules()
             if n.endswith(OUT_PROJECTIONS)]
    with torch.no_grad():
        out = model.base_model(input_ids=torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    for h in hooks:
        h.remove()
    heads = config.num_attention_heads
    attention = [a[0] for a in out.attentions]
    head_outputs = [m[0].view(len(ids), heads, -1).transpose(0, 1) for m in merged]  # [H, n, d]
    hidden = list(out.hidden_states[:-1]) + [out.last_hidden_state]
    return {"ids": ids, "attention": [a.tolist() for a in attention], "head_outputs": [c.tolist() for c in head_outputs],
            "hidden_states": [h[0].tolist() for h in hidden]}


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
    only = sys.argv[1:]  # the families to write (all when none are named)
    for name, (config, model_class) in families().items():
        if not only or name in only:
            write(name, config, model_class)


if __name__ == "__main__":
    main()
