#!/usr/bin/env python3
"""The two real decoders' tokenizers as Hugging Face folders (tokenizer.json), written by
transformers from their GGUF files into models/smollm2-tokenizer and models/gemma3-tokenizer, so
that attnscope's tokenizer.json reader is checked on real decoder vocabularies (49,152 byte-level
BPE pieces; Gemma's 262,144 SentencePiece pieces with byte fallback). Each folder, read back by
transformers, must give the ids of tests/golden/gguf/tokens.json (transformers' ids from the GGUF
file itself), so that golden holds for the folders too. tools/setup.sh runs this once.
Run: .venv/bin/python tools/write_decoder_tokenizers.py
"""
import json
import sys
from pathlib import Path

import transformers as tf

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"smollm2": ("models/SmolLM2-135M-Instruct", "SmolLM2-135M-Instruct.Q4_1.gguf"),
           "gemma3": ("models/gemma-3-270m", "gemma-3-270m-q4_k_m.gguf")}


def main():
    golden = json.loads((ROOT / "tests" / "golden" / "gguf" / "tokens.json").read_text())
    for name, (folder, file) in SOURCES.items():
        out = ROOT / "models" / f"{name}-tokenizer"
        if (out / "tokenizer.json").exists():
            continue
        tf.AutoTokenizer.from_pretrained(ROOT / folder, gguf_file=file).save_pretrained(out.with_suffix(".tmp"))
        saved = tf.AutoTokenizer.from_pretrained(out.with_suffix(".tmp"))
        for case in golden[name]:
            if saved(case["text"])["input_ids"] != case["ids"]:
                sys.exit(f"{name}: the saved tokenizer differs from the GGUF file's on {case['text']!r}")
        out.with_suffix(".tmp").rename(out)
        print(name, "tokenizer written to", out)


if __name__ == "__main__":
    main()
