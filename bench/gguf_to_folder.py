#!/usr/bin/env python3
"""transformers opens a decoder's GGUF file (dequantising it to float32), timed, and saves it as an
ordinary Hugging Face folder (config.json, model.safetensors, tokenizer.json) for
bench/reference_forward.py, which then loads it in a second, not in a minute. Prints
{"load_s": seconds transformers took to open the GGUF file, model and tokenizer}.

  .venv/bin/python bench/gguf_to_folder.py FILE.gguf OUT_DIR
"""
import json
import sys
import time
from pathlib import Path

import torch
import transformers as tf


def main():
    gguf, out = Path(sys.argv[1]), Path(sys.argv[2])
    start = time.perf_counter()
    tokenizer = tf.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = tf.AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    seconds = time.perf_counter() - start
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer.remove_quantization_config(model)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    print(json.dumps({"load_s": seconds}))


if __name__ == "__main__":
    main()
