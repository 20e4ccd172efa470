#!/usr/bin/env python3
"""Random strings no fixture holds, and what the Rust `tokenizers` library (PyPI) makes of them
with a given tokenizer.json: ids, byte ranges and the special-token mask, as JSON on stdout.
The parity test runs it with a seed of its own (ATTNSCOPE_PARITY_SEED picks another).

  .venv/bin/python tools/tokenizer_parity.py TOKENIZER_JSON SEED COUNT
"""
import json
import random
import sys

from tokenizers import Tokenizer

POOLS = [
    "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", ".,;:!?'\"()[]{}<>-_/\\@#$%^&*+=~`|",
    "  ", " \t\n\r", "éèêëàâäîïôöùûüçñßøåæœ", "e\u0301a\u0300o\u0308n\u0303", "ÅÉÎÕÜ", "İıŞşĞğ",
    "北京大学日本語中文汉字", "한국어문장", "ひらがなカタカナ", "प्रकाशस्तंभ", "ผู้ดูแลประภาคาร", "مرحبابالعالم", "שלוםעולם", "Здравствуймир", "Γειάσου",
    "😀👍🏽🚀🌧️💡", "\u200b\u200c\u200d\ufeff\u00ad\u2060", "\x01\x07\x1b\x7f\x00", "\u00a0\u2028\u3000\u2009", "ﬁﬂ①²½Ⅻ㎞ｶﾀｶﾅＡＢＣ", "``''“”‘’—…",
]
WORDS = ["the", "lighthouse", "keeper", "don't", "it's", "we'll", "attention", "head", "layer", "North", "Sea", "1871"]


def random_text(rng, specials):
    parts = []
    for _ in range(rng.randint(0, 12)):
        r = rng.random()
        if r < 0.35:
            parts.append(rng.choice(WORDS))
        elif r < 0.45 and specials:
            parts.append(rng.choice(specials))
        elif r < 0.5:
            parts.append(rng.choice(POOLS[0]) * rng.randint(20, 80))  # a very long word
        else:
            pool = rng.choice(POOLS)
            parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 6))))
        parts.append(rng.choice(["", " ", " ", "  ", "\n", "\t"]))
    return "".join(parts)


def byte_offsets(text, offsets):
    starts = [len(text[:k].encode()) for k in range(len(text) + 1)]
    return [[starts[a], starts[b]] for a, b in offsets]


def main():
    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    tok = Tokenizer.from_file(path)
    specials = [t.content for t in tok.get_added_tokens_decoder().values()]
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        text = random_text(rng, specials)
        enc = tok.encode(text)
        cases.append({"text": text, "ids": enc.ids, "offsets": byte_offsets(text, enc.offsets), "special": enc.special_tokens_mask})
    json.dump({"cases": cases}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
