#!/usr/bin/env python3
"""Classify every Unicode code point the way the reference BERT tokenizer does.

The reference (Hugging Face `tokenizers`: BertNormalizer + BertPreTokenizer, which
transformers' BertTokenizer uses) carries its own, older Unicode tables. This script asks it,
code point by code point, and writes a compact map that the C++ tests compare against.

Output: tests/golden/unicode_classes.json
  control, whitespace, punctuation, chinese: sorted [first, last] ranges
  strip_accents, lowercase: {code point: [code points]} wherever the result differs from the input
"""
import json
import sys
from pathlib import Path

from tokenizers import normalizers, pre_tokenizers

CLEAN = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False,
                                   strip_accents=False, lowercase=False)
CHINESE = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=True,
                                     strip_accents=False, lowercase=False)
STRIP = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False,
                                   strip_accents=True, lowercase=False)
LOWER = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False,
                                   strip_accents=False, lowercase=True)
SPLIT = pre_tokenizers.BertPreTokenizer()


def ranges(points):
    out = []
    for p in points:
        if out and out[-1][1] == p - 1:
            out[-1][1] = p
        else:
            out.append([p, p])
    return out


def main(out_path):
    classes = {"control": [], "whitespace": [], "punctuation": [], "chinese": []}
    strip, lower = {}, {}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue  # surrogates cannot occur in valid UTF-8
        c = chr(cp)
        cleaned = CLEAN.normalize_str(c)
        if cleaned == "":
            classes["control"].append(cp)
        elif cleaned == " " and c != " ":
            classes["whitespace"].append(cp)
        elif c == " ":
            classes["whitespace"].append(cp)
        elif len(SPLIT.pre_tokenize_str("a" + c + "b")) == 3:
            classes["punctuation"].append(cp)
        if CHINESE.normalize_str(c) == " " + c + " ":
            classes["chinese"].append(cp)
        s = STRIP.normalize_str(c)
        if s != c:
            strip[cp] = [ord(x) for x in s]
        low = LOWER.normalize_str(c)
        if low != c:
            lower[cp] = [ord(x) for x in low]
    doc = {k: ranges(v) for k, v in classes.items()}
    doc["strip_accents"] = strip
    doc["lowercase"] = lower
    Path(out_path).write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {out_path}: " + ", ".join(f"{k} {len(v)} ranges" for k, v in classes.items())
          + f", strip {len(strip)}, lower {len(lower)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/golden/unicode_classes.json")
