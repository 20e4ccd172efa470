#!/usr/bin/env python3
"""Golden fixture of the GGUF reader: a small GGUF file written by the gguf package (the format's
reference implementation in Python) with a metadata value of every kind and one tensor of every
type attnscope converts, the bytes of each chosen at random (scales kept finite), and what the
gguf package reads back: the metadata, each tensor's shape, type and offset, and each tensor
dequantised to float32 by gguf.quants.dequantize. Also gguf's table of block sizes, which
core/model/ggml_types.cpp must equal.

Writes tests/golden/gguf/{types.gguf, expected.json, expected.f32}. With --real, also
tests/golden/gguf/real.json: for the two real decoders tools/setup.sh fetches, every tensor's name,
type, dimensions and offset, and the SHA-256 of its values dequantised to float32 by the gguf
package, with the metadata the decoders are built from; and tests/golden/gguf/tokens.json: the ids
transformers' tokenizer for each file gives some written texts and 300 random strings.
Run: .venv/bin/python tools/make_gguf_golden.py [--real]
"""
import hashlib
import sys
import json
from pathlib import Path

import numpy as np
import gguf
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "gguf"

# Where each block keeps its float16 scales (offsets in bytes), so that they can be made finite.
HALF_FIELDS = {T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
               T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208]}
# Half-precision patterns worth seeing converted: zeros, subnormals, the largest, infinities, NaN.
SPECIAL_HALVES = [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0xC000]


def random_blocks(rng, qtype, rows, cols):
    elements, size = GGML_QUANT_SIZES[qtype]
    n_blocks = rows * cols // elements
    if qtype == T.F32:
        return rng.standard_normal(rows * cols).astype(np.float32).view(np.uint8)
    if qtype == T.F16:
        halves = (rng.standard_normal(rows * cols) * 4).astype(np.float16).view(np.uint16)
        halves[: len(SPECIAL_HALVES)] = SPECIAL_HALVES
        return halves.view(np.uint8)
    if qtype == T.BF16:
        floats = rng.standard_normal(rows * cols).astype(np.float32).view(np.uint32)
        return (floats >> 16).astype(np.uint16).view(np.uint8)
    raw = rng.integers(0, 256, size=(n_blocks, size), dtype=np.uint8)
    for offset in HALF_FIELDS[qtype]:
        scales = (rng.standard_normal(n_blocks) * 0.05).astype(np.float16).view(np.uint8).reshape(n_blocks, 2)
        raw[:, offset:offset + 2] = scales
    return raw.reshape(-1)


def metadata(writer):
    writer.add_uint8("test.u8", 200)
    writer.add_int8("test.i8", -100)
    writer.add_uint16("test.u16", 60000)
    writer.add_int16("test.i16", -30000)
    writer.add_uint32("test.u32", 4000000000)
    writer.add_int32("test.i32", -2000000000)
    writer.add_float32("test.f32", 0.1)
    writer.add_bool("test.bool", True)
    writer.add_string("test.string", "Grüße, 世界")
    writer.add_uint64("test.u64", 2**63 + 5)
    writer.add_int64("test.i64", -(2**62))
    writer.add_float64("test.f64", 1e-300)
    writer.add_array("test.strings", ["a", "", "ĠHello", "<0x0A>"])
    writer.add_array("test.reals", [0.5, -1.25, 3.0])
    writer.add_array("test.ints", [1, -2, 3])


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(30)
    shapes = {}  # name -> (rows, cols, type)
    for qtype in (T.F32, T.F16, T.BF16, T.Q8_0, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1):
        shapes[qtype.name.lower()] = (3, 64, qtype)
    for qtype in (T.Q4_K, T.Q5_K, T.Q6_K):
        shapes[qtype.name.lower()] = (2, 512, qtype)
    writer = gguf.GGUFWriter(OUT / "types.gguf", "llama")
    metadata(writer)
    raws = {}
    for name, (rows, cols, qtype) in shapes.items():
        raws[name] = random_blocks(rng, qtype, rows, cols)
        writer.add_tensor(name, raws[name], raw_shape=[rows, cols * GGML_QUANT_SIZES[qtype][1] // GGML_QUANT_SIZES[qtype][0]],
                          raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    reader = gguf.GGUFReader(OUT / "types.gguf")
    expected = {"tensors": [], "metadata": {}, "block_sizes": {}}
    values = []
    for t in reader.tensors:
        deq = gguf.quants.dequantize(np.asarray(t.data), t.tensor_type).astype(np.float32).reshape(-1)
        expected["tensors"].append({"name": t.name, "type": t.tensor_type.name, "dims": [int(d) for d in t.shape],
                                    "offset": int(t.data_offset), "values_at": sum(len(v) for v in values),
                                    "count": int(deq.size)})
        values.append(deq)
    for field in reader.fields.values():
        if field.name.startswith("test."):
            expected["metadata"][field.name] = field.contents()
    expected["metadata"]["general.architecture"] = reader.fields["general.architecture"].contents()
    for qtype, (elements, size) in GGML_QUANT_SIZES.items():
        expected["block_sizes"][qtype.name] = [int(qtype.value), elements, size]
    np.concatenate(values).astype("<f4").tofile(OUT / "expected.f32")
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}: {len(expected['tensors'])} tensors")


REAL = {"smollm2": ROOT / "models" / "SmolLM2-135M-Instruct" / "SmolLM2-135M-Instruct.Q4_1.gguf",
        "gemma3": ROOT / "models" / "gemma-3-270m" / "gemma-3-270m-q4_k_m.gguf"}


def scalar_metadata(reader):
    out = {}
    for field in reader.fields.values():
        if field.types and field.types[0] != gguf.GGUFValueType.ARRAY:
            out[field.name] = field.contents()
        elif field.types:
            out[field.name + "#length"] = len(field.data)
    return out


def real_files():
    result = {}
    for key, path in REAL.items():
        reader = gguf.GGUFReader(path)
        tensors = []
        for t in reader.tensors:
            values = gguf.quants.dequantize(np.asarray(t.data), t.tensor_type).astype("<f4")
            tensors.append({"name": t.name, "type": t.tensor_type.name, "dims": [int(d) for d in t.shape],
                            "offset": int(t.data_offset), "sha256": hashlib.sha256(values.tobytes()).hexdigest()})
        result[key] = {"file": str(path.relative_to(ROOT)), "metadata": scalar_metadata(reader), "tensors": tensors}
        print(f"{key}: {len(tensors)} tensors")
    (OUT / "real.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")


TEXTS = [
    "The keeper climbed the stairs at dusk, as he had for thirty years.",
    "  Two  spaces,\tTabs\tand\nnew lines\n\n\nthree of them.  ",
    "Grüße aus Köln! Ça va? ¿Qué tal? Привет, мир. 你好，世界。こんにちは 🌍🚀👩‍👩‍👧",
    "def f(x):\n    return x ** 2  # squares 1234567890 and 3.14159",
    "<|im_start|>user\nHi<|im_end|> <start_of_turn>model\n<end_of_turn><bos>",
    "He said \"don't\" -- isn't it? I'LL go; we'd've gone.",
    "",
    " ",
    "\u2581already\u2581marked \u00a0non-breaking\u3000ideographic",
]


def random_strings(rng, n):
    pools = ["abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " \t\n\r  ", ".,;:!?'\"()[]{}<>-_/\\|@#$%^&*+=~`",
             "éèêëàâäôöûüçñßøåæœ", "αβγδεζηθ", "абвгдеёжз", "的一是不了人我在有他这", "あいうえおカタカナ", "한국어",
             "😀🎉🌍🚀❤️", "\u00a0\u2009\u200b\u3000\u2581", "<|im_start|><|im_end|><bos><eos><start_of_turn>"]
    out = []
    for _ in range(n):
        length = int(rng.integers(1, 40))
        chars = []
        for _ in range(length):
            pool = pools[int(rng.integers(0, len(pools)))]
            chars.append(pool[int(rng.integers(0, len(pool)))])
        out.append("".join(chars))
    return out


def tokens():
    from transformers import AutoTokenizer
    rng = np.random.default_rng(300)
    texts = TEXTS + random_strings(rng, 300)
    result = {}
    for key, path in REAL.items():
        tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        result[key] = [{"text": t, "ids": tok(t)["input_ids"]} for t in texts]
        print(f"{key}: {len(texts)} texts")
    (OUT / "tokens.json").write_text(json.dumps(result, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
    if "--real" in sys.argv:
        real_files()
        tokens()
