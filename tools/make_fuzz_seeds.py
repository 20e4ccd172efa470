#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/): valid inputs of each
reader and a few damaged ones, so fuzzing starts from the formats' structure.

  .venv/bin/python tools/make_fuzz_seeds.py
"""
import json
import pathlib
import struct
import subprocess
import tempfile

import numpy as np
from safetensors.numpy import save

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "corpus"
MINILM = ROOT / "models" / "all-MiniLM-L6-v2"


def write(target, name, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def tokenizer_seeds():
    cases = json.loads((ROOT / "tests" / "golden" / "tokenizer_cases.json").read_text())
    texts = sorted({c["text"] for c in cases["cases"]}, key=lambda t: (len(t), t))[:60] if isinstance(cases, dict) else []
    for k, t in enumerate(texts):
        write("tokenizer", f"case{k:02d}", bytes([k % 8]) + t.encode("utf-8"))
    for p in sorted((ROOT / "assets" / "examples").glob("*.txt")):
        write("tokenizer", p.stem, b"\x01" + p.read_bytes()[:600])
    write("tokenizer", "invalid-utf8", b"\x03ab\xff\xfecd\xc3")
    write("tokenizer", "specials", b"\x01[CLS] a [MASK] b [SEP] [UNK]")


def gguf_seeds():
    # The golden file of every metadata kind and converted type (tools/make_gguf_golden.py), the
    # same as version 2, cut inside its tensor table, and cut inside its data.
    good = (ROOT / "tests" / "golden" / "gguf" / "types.gguf").read_bytes()
    write("gguf", "types", good)
    write("gguf", "version2", good[:4] + struct.pack("<I", 2) + good[8:])
    write("gguf", "cut-table", good[:900])
    write("gguf", "cut-data", good[:-100])


def safetensors_seeds():
    tensors = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones((3,), dtype=np.float16),
               "c": np.zeros((1, 2, 2), dtype=np.int64)}
    good = save(tensors)
    write("safetensors", "three-tensors", good)
    write("safetensors", "empty-tensor", save({"e": np.zeros((0, 4), dtype=np.float32)}))
    write("safetensors", "truncated", good[:-5])
    header = json.dumps({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "__metadata__": {"format": "pt"}}).encode()
    write("safetensors", "hand-made", struct.pack("<Q", len(header)) + header + b"\0" * 8)
    write("safetensors", "huge-length", struct.pack("<Q", 1 << 62) + b"{}")


def config_seeds():
    write("config", "minilm", (MINILM / "config.json").read_bytes())
    base = {"model_type": "bert", "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
            "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2, "hidden_act": "gelu"}
    write("config", "bert-base", json.dumps(base))
    write("config", "not-a-multiple", json.dumps({**base, "hidden_size": 100}))
    write("config", "distilbert", json.dumps({"model_type": "distilbert", "dim": 768, "n_layers": 6, "n_heads": 12}))
    write("config", "strings", json.dumps({**base, "num_hidden_layers": "12", "hidden_act": 3}))


def result_seeds():
    # Version 1 seeds (v1-result0, v1-result1) were written by attnscope before version 2 and stay
    # as they are: nothing writes version 1 any more. Version 2, both containers, from the tiny
    # DistilBERT fixture (small enough for a quick fuzzer), with every choice of captures.
    tiny = ROOT / "tests" / "golden" / "tiny_distilbert"
    with tempfile.TemporaryDirectory() as tmp:
        cases = [("all", "r.safetensors", []), ("attention", "r.safetensors", []), ("none", "r.safetensors", []),
                 ("all", "r.json", ["--encoding", "decimal"]), ("none", "r.json", [])]
        for k, (captures, name, extra) in enumerate(cases):
            out = pathlib.Path(tmp) / name
            subprocess.run([str(ROOT / "build" / "app" / "attnscope-cli"), "analyze", "--model", str(tiny), "--text", "The cat sat. A dog.",
                            "--max-len", "8", "--captures", captures, "--out", str(out), *extra], check=True, capture_output=True)
            write("result_json", f"v2-{captures}-{k}{out.suffix}", out.read_bytes())


def corpus_seeds():
    tiny = ROOT / "tests" / "golden" / "tiny_distilbert"  # small enough for a small result
    with tempfile.TemporaryDirectory() as tmp:
        text = pathlib.Path(tmp) / "c.txt"
        text.write_text("the cat sat on the mat . a dog ran to it . " * 20)
        out = pathlib.Path(tmp) / "c.json"
        subprocess.run([str(ROOT / "build" / "app" / "attnscope-cli"), "corpus", "--model", str(tiny), "--input", str(text),
                        "--max-len", "8", "--out", str(out)], check=True, capture_output=True)
        write("corpus_json", "tiny-run", out.read_bytes())


def tokenizer_json_seeds():
    """Small tokenizer.json files of each kind attnscope reads (and the XLM-R one with its
    precompiled charsmap), each followed by a NUL and a text to tokenize."""
    from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    lines = ["The keeper's lamp was lit at dusk.", "北京 café naïve 😀 don't", "1871, 38 metres, 212 steps"] * 3
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=300, special_tokens=["<s>", "<pad>", "</s>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bpe.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    bpe.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    write("tokenizer_json", "bpe-roberta", bpe.to_str() + "\0" + "a <mask> b café 北京\t\n  x")
    bpe.normalizer = normalizers.NFC()
    bpe.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    write("tokenizer_json", "bpe-template-nfc", bpe.to_str() + "\0" + "cafe\u0301 x")
    uni = Tokenizer(models.Unigram())
    uni.normalizer = normalizers.Sequence([normalizers.Replace("``", '"'), normalizers.NFKD(), normalizers.StripAccents(),
                                           normalizers.Lowercase(), normalizers.Strip(left=False, right=True),
                                           normalizers.Replace(Regex(" {2,}"), "\u2581")])
    uni.pre_tokenizer = pre_tokenizers.Metaspace()
    uni.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=60, special_tokens=["<s>", "<pad>", "</s>", "<unk>"], unk_token="<unk>"))
    uni.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    write("tokenizer_json", "unigram-metaspace", uni.to_str() + "\0" + "``Hello''   wörld  ")
    xlmr = ROOT / "tests" / "golden" / "tokenizers" / "xlmr_unigram" / "tokenizer.json"
    write("tokenizer_json", "unigram-precompiled-xlmr", xlmr.read_bytes() + b"\0" + "ﬁ ① Ⅻ ｶﾀｶﾅ \u200b x".encode())


if __name__ == "__main__":
    tokenizer_json_seeds()
    corpus_seeds()
    tokenizer_seeds()
    safetensors_seeds()
    gguf_seeds()
    config_seeds()
    result_seeds()
    for d in sorted(OUT.iterdir()):
        print(d.name, len(list(d.iterdir())), "seeds")
