#!/usr/bin/env python3
"""Tiny GGUF files of the decoder families whose real GGUF weights are not reachable here (GPT-2,
Gemma 2), written as llama.cpp's converter writes them, and their golden captures as transformers
computes them on opening the file (eager attention, float32). Into tests/golden/gguf/:
  <family>_tiny.gguf    F32 tensors under llama.cpp's names and layouts: GPT-2's Conv1D matrices
                        stored [out, in], Gemma's norm weights plus one; the metadata llama.cpp
                        writes for the family; a vocabulary of placeholder pieces (the forward
                        is tested on ids)
  <family>_tiny.json    the ids, the configuration transformers derives from the file, and
                        attention [L][H][n][n] and head outputs [L][H][n][d] (C = A V)
The writer is checked against the checkpoint it was made from: transformers, opening the file,
must give that checkpoint's logits (so the layouts are the ones transformers and llama.cpp expect).
Run: .venv/bin/python tools/make_tiny_gguf_golden.py
"""
import json
import tempfile
from pathlib import Path

import gguf
import numpy as np
import torch
import transformers as tf

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "gguf"
IDS = [1, 17, 42, 5, 63, 8, 17, 42, 29, 90, 3, 17]
CONFIG_KEYS = ["model_type", "vocab_size", "n_embd", "n_layer", "n_head", "n_positions", "n_inner", "hidden_size",
               "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size",
               "rms_norm_eps", "layer_norm_epsilon", "sliding_window", "layer_types", "query_pre_attn_scalar",
               "attn_logit_softcapping", "final_logit_softcapping", "max_position_embeddings"]
CONV1D = (".attn.c_attn.weight", ".attn.c_proj.weight", ".mlp.c_fc.weight", ".mlp.c_proj.weight")


def gpt2():
    # 1,024 positions: transformers reads no position count from a GPT-2 GGUF file and keeps its default.
    config = tf.GPT2Config(vocab_size=96, n_embd=32, n_layer=3, n_head=4, n_positions=1024, bos_token_id=1,
                           eos_token_id=2)
    return config, gguf.MODEL_ARCH.GPT2


def gemma2():
    # Where transformers' GGUF reading keeps no value of the file (soft-caps, the query scale, which
    # layers slide), the checkpoint takes transformers' defaults, so that both readings agree.
    config = tf.Gemma2Config(vocab_size=96, hidden_size=32, num_hidden_layers=3, num_attention_heads=2,
                             num_key_value_heads=1, head_dim=16, intermediate_size=64, sliding_window=4,
                             max_position_embeddings=64, bos_token_id=1, eos_token_id=2, pad_token_id=0)
    return config, gguf.MODEL_ARCH.GEMMA2


def metadata(w, config, family):
    w.add_block_count(config.num_hidden_layers)
    w.add_context_length(config.max_position_embeddings)
    w.add_embedding_length(config.hidden_size)
    w.add_head_count(config.num_attention_heads)
    if family == "gpt2":
        w.add_feed_forward_length(4 * config.n_embd)
        w.add_layer_norm_eps(config.layer_norm_epsilon)
    else:
        w.add_feed_forward_length(config.intermediate_size)
        w.add_head_count_kv(config.num_key_value_heads)
        w.add_key_length(config.head_dim)
        w.add_value_length(config.head_dim)
        w.add_layer_norm_rms_eps(config.rms_norm_eps)
        w.add_sliding_window(config.sliding_window)
        w.add_attn_logit_softcapping(config.attn_logit_softcapping)
        w.add_final_logit_softcapping(config.final_logit_softcapping)
        w.add_rope_freq_base(config.rope_parameters["rope_theta"])
    w.add_tokenizer_model("gpt2")
    w.add_token_list([f"<piece{k}>" for k in range(config.vocab_size)])
    w.add_token_types([gguf.TokenType.NORMAL] * config.vocab_size)
    w.add_token_merges([])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)


def write_gguf(model, config, arch, family, path):
    w = gguf.GGUFWriter(path, gguf.MODEL_ARCH_NAMES[arch])
    metadata(w, config, family)
    names = gguf.get_tensor_name_map(arch, config.num_hidden_layers)
    for name, tensor in model.state_dict().items():
        if name.endswith(".attn.bias") or name.endswith("masked_bias") or name == "lm_head.weight":
            continue  # GPT-2's causal buffers; the output is tied to the embeddings
        data = tensor.float()
        if name.endswith(CONV1D):
            data = data.T  # llama.cpp stores GPT-2's Conv1D matrices [out, in]
        if family == "gemma2" and name.endswith("norm.weight"):
            data = data + 1  # and Gemma's norm weights plus one
        mapped = names.get_name(name, try_suffixes=(".weight", ".bias"))
        assert mapped, name
        w.add_tensor(mapped, np.ascontiguousarray(data.numpy()))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write(family, make):
    torch.manual_seed(7)
    config, arch = make()
    original = tf.AutoModelForCausalLM.from_config(config, attn_implementation="eager").eval()
    with torch.no_grad():  # larger weights than the initialiser's, so that attention is far from uniform
        for p in original.parameters():
            if p.dim() > 1:
                p.normal_(0, 0.3)
    path = OUT / f"{family}_tiny.gguf"
    write_gguf(original, config, arch, family, path)
    with tempfile.TemporaryDirectory():
        opened = tf.AutoModelForCausalLM.from_pretrained(OUT, gguf_file=path.name, dtype=torch.float32,
                                                         attn_implementation="eager").eval()
    ids = torch.tensor([IDS])
    values = []
    hooks = [m.register_forward_hook(lambda _m, _i, out: values.append(out))
             for n, m in opened.named_modules() if n.endswith(("v_proj", "attn.c_attn"))]
    with torch.no_grad():
        assert torch.allclose(original(ids).logits, opened(ids).logits, atol=1e-5), family
        out = opened(ids, output_attentions=True)
    for h in hooks:
        h.remove()
    c = opened.config
    heads = c.num_attention_heads
    groups = getattr(c, "num_key_value_heads", heads)
    d = getattr(c, "head_dim", None) or c.hidden_size // heads
    outputs = []
    for layer, attention in enumerate(out.attentions):
        v = values[layer][0]
        if family == "gpt2":
            v = v[:, 2 * c.hidden_size:]
        v = v.view(len(IDS), groups, d).transpose(0, 1).repeat_interleave(heads // groups, dim=0)
        outputs.append((attention[0] @ v).tolist())
    derived = {k: v for k, v in c.to_dict().items() if k in CONFIG_KEYS}
    (OUT / f"{family}_tiny.json").write_text(json.dumps({
        "file": path.name, "ids": IDS, "config": derived,
        "attention": [a[0].tolist() for a in out.attentions], "head_outputs": outputs}))
    print(family, path.stat().st_size, "bytes", derived)


def main():
    write("gpt2", gpt2)
    write("gemma2", gemma2)


if __name__ == "__main__":
    main()
