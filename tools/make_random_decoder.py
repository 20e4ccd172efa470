#!/usr/bin/env python3
"""Random decoders that cost what the two real ones cost, for a GPU machine their GGUF files
(93 and 253 MB) cannot travel to. Two steps, on two machines:

  shape  (development machine, with gguf) the configuration and tokenizer of a GGUF file, as a
         Hugging Face folder without weights. --vocab-from DIR takes the tokenizer from another
         shape folder instead and sets the vocabulary's size and special ids to its own: Gemma 3's
         262,144-piece tokenizer.json (33 MB) does not travel, so its shape borrows SmolLM2's
         49,152 pieces. Only the embedding table shrinks; every layer keeps Gemma 3's shape.
  random (GPU machine) a randomly initialised model of a shape folder's configuration, with its
         tokenizer files beside it: what tools/gpu_check.sh benchmarks and checks on the GPU.

Run: python tools/make_random_decoder.py shape GGUF OUT_DIR [--vocab-from DIR]
     python tools/make_random_decoder.py random SHAPE_DIR OUT_DIR
"""
import argparse
import json
import shutil
from pathlib import Path

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
SPECIAL_IDS = ("bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id")


def write_shape(gguf: Path, out: Path, vocab_from: Path | None):
    import transformers as tf

    config = tf.AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
    out.mkdir(parents=True, exist_ok=True)
    if vocab_from is None:
        tokenizer = tf.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        tokenizer.save_pretrained(out)
    else:
        donor = json.loads((vocab_from / "config.json").read_text())
        config.vocab_size = donor["vocab_size"]
        for key in SPECIAL_IDS:
            setattr(config, key, donor.get(key))
        for name in TOKENIZER_FILES:
            if (vocab_from / name).exists():
                shutil.copy(vocab_from / name, out / name)
    config.save_pretrained(out)
    print(f"wrote {out}: {config.model_type}, {config.num_hidden_layers} layers, vocabulary {config.vocab_size}")


def write_random(shape: Path, out: Path):
    import torch
    import transformers as tf

    if (out / "model.safetensors").exists():
        print(f"{out}: present")
        return
    torch.manual_seed(0)
    config = tf.AutoConfig.from_pretrained(shape)
    tf.AutoModelForCausalLM.from_config(config).eval().save_pretrained(out, safe_serialization=True)
    for name in TOKENIZER_FILES:
        if (shape / name).exists():
            shutil.copy(shape / name, out / name)
    print(f"wrote {out}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("step", choices=["shape", "random"])
    p.add_argument("source", type=Path, help="a GGUF file (shape) or a shape folder (random)")
    p.add_argument("out", type=Path)
    p.add_argument("--vocab-from", type=Path, help="shape: take the tokenizer from this shape folder")
    a = p.parse_args()
    if a.step == "shape":
        write_shape(a.source, a.out, a.vocab_from)
    else:
        write_random(a.source, a.out)


if __name__ == "__main__":
    main()
