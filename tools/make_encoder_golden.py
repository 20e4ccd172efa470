#!/usr/bin/env python3
"""Writes tests/golden/encoders/<architecture>/: a tiny random-weight checkpoint of every encoder
architecture attnscope reads besides BERT (config.json and model.safetensors saved by transformers
itself) and expected.json: for a few token-id lists, transformers' eager attention maps, the head
outputs C = A V (V taken from the model's own value projection by a hook) and the hidden states.

The ids are given directly, so these fixtures test the encoders alone; the tokenizers have their
own fixtures. tests/golden/checkpoints/ holds whole checkpoints (weights sized to a trained
tokenizer.json beside them) for the tests that go from text to maps, the command line and the
explorer among them. Before writing, the script checks that transformers gives the same maps for a
padded batch as for each text alone, so the C++ tests may compare their batched runs with these.

  .venv/bin/python tools/make_encoder_golden.py [name ...]
"""
import json
import pathlib
import sys

import torch
import transformers as tf

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "encoders"
ROOT_CHECKPOINTS = OUT.parent / "checkpoints"
VOCAB = 96
# Lengths chosen so that ModernBERT's local window (4 tokens each side here) bands the long ones.
LENGTHS = [13, 6, 1]


def common(**extra):
    settings = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=40,
                    max_position_embeddings=40, attn_implementation="eager")
    settings.update(extra)
    return settings


def architectures():
    return {
        "roberta": (tf.RobertaConfig(**common(pad_token_id=1, bos_token_id=0, eos_token_id=2, type_vocab_size=1)), tf.RobertaModel, "value"),
        "xlm-roberta": (tf.XLMRobertaConfig(**common(pad_token_id=1, bos_token_id=0, eos_token_id=2, type_vocab_size=1, hidden_act="gelu_new")),
                        tf.XLMRobertaModel, "value"),
        "electra": (tf.ElectraConfig(**common(embedding_size=16, pad_token_id=0)), tf.ElectraModel, "value"),
        "albert": (tf.AlbertConfig(**common(embedding_size=16, num_hidden_groups=1, inner_group_num=1, pad_token_id=0, hidden_act="gelu_new")),
                   tf.AlbertModel, "value"),
        "albert-groups": (tf.AlbertConfig(**common(embedding_size=16, num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2, pad_token_id=0)),
                          tf.AlbertModel, "value"),
        # BERT-large's shape (24 layers, 16 heads of 64 dimensions... here 16 heads of 4), narrow.
        "bert-large-shape": (tf.BertConfig(**common(hidden_size=64, num_hidden_layers=24, num_attention_heads=16, intermediate_size=96)),
                             tf.BertModel, "value"),
        "modernbert": (tf.ModernBertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=4, num_attention_heads=4, intermediate_size=24,
                                           max_position_embeddings=64, local_attention=8, global_attn_every_n_layers=3, pad_token_id=0,
                                           bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2, attn_implementation="eager"),
                       tf.ModernBertModel, "Wqkv"),
        # MPNet: RoBERTa's positions and a relative position bias shared by the layers; lengths up
        # to 13 reach its logarithmic buckets (distances of 8 and more).
        "mpnet": (tf.MPNetConfig(**common(pad_token_id=1, bos_token_id=0, eos_token_id=2, relative_attention_num_buckets=32)),
                  tf.MPNetModel, "v"),
        # DeBERTa v3's layout: disentangled attention (content to position and position to
        # content, the key and query projections shared with the relative embeddings), no absolute
        # positions; 8 log buckets (exact within 4) reach past the lengths' offsets of 12.
        "deberta-v2": (tf.DebertaV2Config(**common(pad_token_id=0, bos_token_id=1, eos_token_id=2, relative_attention=True,
                                                   position_buckets=8, max_relative_positions=16, share_att_key=True,
                                                   norm_rel_ebd="layer_norm", pos_att_type=["p2c", "c2p"],
                                                   position_biased_input=False, type_vocab_size=0, layer_norm_eps=1e-7)),
                       tf.DebertaV2Model, "value_proj"),
    }


def texts(generator, first, last):
    return [[first] + torch.randint(3, VOCAB, (n - 2,), generator=generator).tolist() + [last] if n >= 2 else [first] for n in LENGTHS]


def value_rows(name, module_name, config):
    """Turns the hooked projection's output [1, n, .] into V per head [H, n, d]."""
    heads = config.num_attention_heads
    def split(out):
        n = out.shape[1]
        if module_name == "Wqkv":  # [q | k | v], each [H * d]
            out = out.view(1, n, 3, heads, -1)[:, :, 2]
        return out.view(1, n, heads, -1).transpose(1, 2)[0]
    return split


def run(model, module_name, config, ids, mask=None):
    values = []
    hooks = [m.register_forward_hook(lambda _m, _i, out: values.append(out))
             for name, m in model.named_modules() if name.split(".")[-1] == module_name]
    with torch.no_grad():
        out = model(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)
    for h in hooks:
        h.remove()
    return out, values


def randomise_norms(model):
    with torch.no_grad():  # non-trivial layer norms, so a missing or swapped one shows; a relative bias that matters
        for name, p in model.named_parameters():
            if "norm" in name.lower():
                p.add_(torch.randn_like(p) * 0.1)
            if "relative_attention_bias" in name or "rel_embeddings" in name:
                p.add_(torch.randn_like(p))


def write(name, config, model_class, module_name):
    out_dir = OUT / name
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(11)
    model = model_class(config).eval()
    randomise_norms(model)
    model.save_pretrained(out_dir, safe_serialization=True)
    generator = torch.Generator().manual_seed(5)
    first = getattr(config, "cls_token_id", None) or config.bos_token_id or 2
    last = getattr(config, "sep_token_id", None) or config.eos_token_id or 3
    cases = []
    split = value_rows(name, module_name, config)
    for ids in texts(generator, first, last):
        out, values = run(model, module_name, config, torch.tensor([ids]))
        attention = [a[0] for a in out.attentions]
        heads = [a @ split(v) for a, v in zip(attention, values)]
        cases.append({"ids": ids, "attention": [a.tolist() for a in attention], "head_outputs": [c.tolist() for c in heads],
                      "hidden_states": [h[0].tolist() for h in out.hidden_states]})
    check_padding(model, module_name, config, cases)
    (out_dir / "expected.json").write_text(json.dumps({"architecture": name, "cases": cases}))
    print(name, sorted((p.name, p.stat().st_size) for p in out_dir.iterdir()))


def check_padding(model, module_name, config, cases):
    n = max(len(c["ids"]) for c in cases)
    pad = config.pad_token_id
    ids = torch.tensor([c["ids"] + [pad] * (n - len(c["ids"])) for c in cases])
    mask = torch.tensor([[1] * len(c["ids"]) + [0] * (n - len(c["ids"])) for c in cases])
    out, _ = run(model, module_name, config, ids, mask)
    for b, c in enumerate(cases):
        k = len(c["ids"])
        for layer, a in enumerate(out.attentions):
            gap = (a[b, :, :k, :k] - torch.tensor(c["attention"][layer])).abs().max().item()
            assert gap < 1e-6, f"padded batch differs from the text alone: {gap}"


CHECKPOINT_TEXTS = ["The lighthouse keeper climbed the stairs. He lit the lamp at dusk!", "Ships passed the <mask> cape ."]


def write_checkpoint(name, tokenizer_name, config, model_class, module_name):
    """A whole checkpoint folder: a tiny random model sized to a trained tokenizer of
    tests/golden/tokenizers, so text goes in and maps come out as in the product; expected.json
    holds transformers' ids (through the tokenizers library) and maps for a few texts."""
    from tokenizers import Tokenizer
    out_dir = ROOT_CHECKPOINTS / name
    out_dir.mkdir(parents=True, exist_ok=True)
    source = OUT.parent / "tokenizers" / tokenizer_name / "tokenizer.json"
    (out_dir / "tokenizer.json").write_bytes(source.read_bytes())
    tokenizer = Tokenizer.from_file(str(source))
    torch.manual_seed(13)
    model = model_class(config).eval()
    randomise_norms(model)
    model.save_pretrained(out_dir, safe_serialization=True)
    split = value_rows(name, module_name, config)
    cases = []
    for text in CHECKPOINT_TEXTS:
        ids = tokenizer.encode(text).ids
        out, values = run(model, module_name, config, torch.tensor([ids]))
        attention = [a[0] for a in out.attentions]
        heads = [a @ split(v) for a, v in zip(attention, values)]
        cases.append({"text": text, "ids": ids, "attention": [a.tolist() for a in attention], "head_outputs": [c.tolist() for c in heads],
                      "hidden_states": [h[0].tolist() for h in out.hidden_states]})
    (out_dir / "expected.json").write_text(json.dumps({"architecture": name, "cases": cases}))
    print(name, sorted((p.name, p.stat().st_size) for p in out_dir.iterdir()))


def checkpoints():
    size = 1201  # the trained tokenizers' entries
    roberta = tf.RobertaConfig(**common(vocab_size=size, pad_token_id=1, bos_token_id=0, eos_token_id=2, type_vocab_size=1,
                                        max_position_embeddings=514, num_hidden_layers=4))
    modern = tf.ModernBertConfig(vocab_size=size, hidden_size=32, num_hidden_layers=4, num_attention_heads=4, intermediate_size=24,
                                 max_position_embeddings=512, local_attention=16, global_attn_every_n_layers=3, pad_token_id=3,
                                 bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2, attn_implementation="eager")
    xlmr = tf.XLMRobertaConfig(**common(vocab_size=802, pad_token_id=1, bos_token_id=0, eos_token_id=2, type_vocab_size=1,
                                        max_position_embeddings=514))
    albert = tf.AlbertConfig(**common(vocab_size=800, embedding_size=16, pad_token_id=0, bos_token_id=2, eos_token_id=3,
                                      max_position_embeddings=512, hidden_act="gelu_new"))
    return {"roberta": ("roberta_bpe", roberta, tf.RobertaModel, "value"), "modernbert": ("modernbert_bpe", modern, tf.ModernBertModel, "Wqkv"),
            "xlm-roberta": ("xlmr_unigram", xlmr, tf.XLMRobertaModel, "value"), "albert": ("albert_unigram", albert, tf.AlbertModel, "value")}


def main():
    only = sys.argv[1:]  # the fixtures to write (all when none are named)
    for name, (config, model_class, module_name) in architectures().items():
        if not only or name in only:
            write(name, config, model_class, module_name)
    for name, (tokenizer_name, config, model_class, module_name) in checkpoints().items():
        if not only or name in only:
            write_checkpoint(name, tokenizer_name, config, model_class, module_name)


if __name__ == "__main__":
    main()
