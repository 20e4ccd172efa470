#!/usr/bin/env python3
"""Write the golden fixtures the C++ tests compare against, from the reference implementation.

The reference is Hugging Face transformers (BertTokenizer, BertModel with eager attention) on
the real all-MiniLM-L6-v2 checkpoint that tools/setup.sh unpacks into models/.

  tests/golden/tokenizer_cases.json  token ids and byte ranges of 300+ strings, uncased and cased
  tests/golden/tokenizer_long_text.json  the same for one text of 30,000 characters made of them
                                     (longer than the segments the tokenizer normalises at a time)
  tests/golden/minilm_captures.json  for 3 texts: attention maps and head outputs of a few heads,
                                     and (sum, sum of squares) of every head and hidden state

Run: .venv/bin/python tools/make_golden.py [--model models/all-MiniLM-L6-v2]
"""
import argparse
import base64
import json
import random
from pathlib import Path

import numpy as np
import torch
from transformers import BertModel, BertTokenizer

ROOT = Path(__file__).resolve().parent.parent


def handwritten_strings():
    return [
        "", " ", "   ", "\t\n\r ", "\u3000\u00a0\u2003", "\u2028\u2029",
        "Hello, world!", "hello world", "HELLO WORLD", "Hello,world!!!", "...", "?!?!", "--", "—–-",
        "café", "naïve façade", "Crème brûlée", "résumé", "Ångström", "Ørsted", "Straße", "ﬁnancial ﬂow",
        "e\u0301", "a\u0300\u0301\u0302b", "\u0301start", "n\u0303o\u0308", "İstanbul", "ǅemal", "ΣΊΣΥΦΟΣ", "Ελληνικά",
        "Москва", "Київ", "日本語のテキスト", "中文分词测试", "한국어 텍스트", "ภาษาไทย", "עברית", "العربية",
        "हिन्दी", "বাংলা", "తెలుగు", "ქართული", "Հայերեն", "አማርኛ", "ꦗꦮ", "𝐁𝐨𝐥𝐝 𝑖𝑡𝑎𝑙𝑖𝑐",
        "😀", "😀😃😄", "👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "I ❤️ NY", "✓ ✗ ★ ☆", "→ ← ↑ ↓", "∑ ∫ √ ∞ ≠ ≤",
        "x\u200by", "zero\u200bwidth\u200djoiner\u200cnon", "soft\u00adhyphen", "bom\ufeffhere", "\ufeff",
        "tab\there", "line\nbreak", "cr\rlf\r\n", "bell\x07char", "null\x00byte", "esc\x1b[31mred", "del\x7f",
        "\x85next", "\x0bvt\x0cff", "\ufffdreplacement", "\ue000private", "\U000F0001plane15", "\uffff\ufffe",
        "a" * 99, "b" * 100, "c" * 101, "d" * 250, "supercalifragilisticexpialidocious",
        "antidisestablishmentarianism", "pneumonoultramicroscopicsilicovolcanoconiosis",
        "1234567890", "3.14159", "1,000,000", "12:30pm", "2026-11-21", "$100", "€50", "¥1000", "100%",
        "+1 (555) 010-0000", "v1.2.3", "0x1F", "1e-12", "½ ¾ ①②", "Ⅻ", "٣٤٥",
        "email@example.com", "https://example.com/path?q=1&r=2#frag", "C:\\Users\\name", "#hashtag @mention",
        "don't", "won't've", "rock'n'roll", "``quoted''", "\"double\"", "«guillemets»", "„Anführung“", "「かぎ」",
        "(parens) [brackets] {braces} <angles>", "a/b\\c|d", "~tilde^caret`grave", "under_score", "hy-phen",
        "[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "hello[MASK]world", "[mask] lower", "[CLS][SEP]",
        "[[MASK]]", "[MAS", "[ MASK ]", "The [MASK] sat on the mat.", "[UNK]nown",
        "Mixed English и русский и 中文 and العربية", "naïve 北京 café", "ＦＵＬＬＷＩＤＴＨ", "ｶﾀｶﾅ",
        "The quick brown fox jumps over the lazy dog.", "It's 5 o'clock somewhere.",
        "Dr. Smith went to Washington, D.C., on Jan. 5th.", "U.S.A.", "e.g., i.e., etc.",
        "the the the the", "Buffalo buffalo Buffalo buffalo buffalo buffalo Buffalo buffalo.",
        "ALLCAPS lowercase MiXeD", "camelCaseWord", "snake_case_word", "kebab-case-word",
        "   leading and trailing   ", "multiple     spaces", "\n\n\nnewlines\n\n",
        "gerstenslager", "bookmobiles", "woostersurreys", "constabularies", "unaffable", "untranslatable",
        "ﬀ ﬃ ﬄ", "Ⓐⓑⓒ", "𝔊𝔬𝔱𝔥𝔦𝔠", "ꜰᴀᴋᴇ ꜱᴍᴀʟʟ ᴄᴀᴘꜱ", "ɪᴘᴀ ʃ ʒ ŋ", "Ωmega Ω", "Kelvin K",
        "\U0001F970 new emoji", "\U0001FAE0 melting", "\u0378 unassigned", "\u1b4e new punct", "\u2e5d",
        "\u08e2 arabic", "\u0890\u0891", "\U00013430 hiero", "\u061c mark", "\u180e mongolian",
        "\U0001D173 music", "\U000E0001 tag", "\U000E0041\U000E0042 tags",
    ]


def random_strings(count, seed=2512):
    rng = random.Random(seed)
    pools = [
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "0123456789",
        " \t\n",
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
        "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿÀÉÎÕÜßœŒ",
        "\u0300\u0301\u0302\u0303\u0308\u0327\u0345\u05b0\u064b",
        "αβγδεζηθικλμνξοπρστυφχψωΣΩ",
        "абвгдежзийклмнопрстуфхцчшщъыьэюяЖЩ",
        "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
        "あいうえおかきくけこアイウエオカキクケコ",
        "가나다라마바사아자차카타파하",
        "\u200b\u200c\u200d\u2060\ufeff\u00ad",
        "😀😂🤣😍🙏👍🔥💯🎉✨",
        "\u2028\u2029\u00a0\u3000\u2009",
        "\x00\x01\x07\x1b\x7f\x85\ufffd",
        "–—‘’“”…•€£¥©®™°±×÷",
    ]
    out = []
    for _ in range(count):
        k = rng.randint(1, 5)
        chosen = rng.sample(pools, k)
        length = rng.randint(1, 40)
        out.append("".join(rng.choice(rng.choice(chosen)) for _ in range(length)))
    return out


def byte_offsets(text, start, end):
    return [len(text[:start].encode("utf-8")), len(text[:end].encode("utf-8"))]


def tokenizer_cases(model_dir):
    strings = handwritten_strings() + random_strings(200)
    cases = []
    for lowercase in (True, False):
        tok = BertTokenizer.from_pretrained(model_dir, do_lower_case=lowercase)
        for text in strings:
            enc = tok(text, return_offsets_mapping=True)
            specials = tok.get_special_tokens_mask(enc["input_ids"], already_has_special_tokens=True)
            offsets = [byte_offsets(text, s, e) for s, e in enc["offset_mapping"]]
            cases.append({"text": text, "lowercase": lowercase, "ids": enc["input_ids"], "offsets": offsets,
                          "added": [bool(s) and i in (0, len(specials) - 1) for i, s in enumerate(specials)]})
    return cases


def long_text_cases(model_dir, min_chars=30000, seed=2611):
    """Every string above, shuffled and joined by assorted whitespace (or by nothing), until the
    text is min_chars long: segment boundaries fall next to accents, CJK and controls. The
    strings with special tokens typed in them come last, once: the tokenizer splits the text at
    those first, and the stretch before them must be longer than a segment."""
    rng = random.Random(seed)
    specials = ("[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]")
    strings = handwritten_strings() + random_strings(200)
    plain = [t for t in strings if not any(s in t for s in specials)]
    joints = [" ", "\n", "\n\n", "\t", "  ", "\u3000", "\u00a0", "\u2028", ""]
    parts = []
    while sum(len(p) for p in parts) < min_chars:
        rng.shuffle(plain)
        parts += [t + rng.choice(joints) for t in plain]
    parts += [t + " " for t in strings if t not in plain]
    text = "".join(parts)
    cases = []
    for lowercase in (True, False):
        tok = BertTokenizer.from_pretrained(model_dir, do_lower_case=lowercase)
        enc = tok(text, return_offsets_mapping=True)
        offsets = [byte_offsets(text, s, e) for s, e in enc["offset_mapping"]]
        cases.append({"lowercase": lowercase, "ids": enc["input_ids"], "offsets": offsets})
    return {"text": text, "cases": cases}


def matrix(m):
    m = np.ascontiguousarray(m.astype("<f4"))
    return {"rows": m.shape[0], "cols": m.shape[1], "encoding": "base64-f32le",
            "data": base64.b64encode(m.tobytes()).decode("ascii")}


def captures(model_dir, texts, heads, max_length=128):
    tok = BertTokenizer.from_pretrained(model_dir)
    model = BertModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    outputs = {}
    hooks = [layer.attention.self.register_forward_hook(
        lambda mod, inp, out, l=l: outputs.__setitem__(l, out[0].detach()))
        for l, layer in enumerate(model.encoder.layer)]
    cfg = model.config
    nh, hd = cfg.num_attention_heads, cfg.hidden_size // cfg.num_attention_heads
    result = []
    for text in texts:
        enc = tok(text, truncation=True, max_length=max_length, return_tensors="pt")
        with torch.inference_mode():
            out = model(**enc, output_attentions=True, output_hidden_states=True)
        n = enc["input_ids"].shape[1]
        attn = [a[0].double().numpy() for a in out.attentions]                       # [H, n, n]
        ctx = [outputs[l][0].view(n, nh, hd).transpose(0, 1).double().numpy() for l in range(cfg.num_hidden_layers)]
        entry = {
            "text": text, "ids": enc["input_ids"][0].tolist(),
            "checksums": [[{"attention": [float(attn[l][h].sum()), float((attn[l][h] ** 2).sum())],
                            "output": [float(ctx[l][h].sum()), float((ctx[l][h] ** 2).sum())]}
                           for h in range(nh)] for l in range(cfg.num_hidden_layers)],
            "hidden": [[float(hs[0].double().sum()), float((hs[0].double() ** 2).sum())] for hs in out.hidden_states],
            "heads": [{"layer": l, "head": h, "attention": matrix(attn[l][h]), "output": matrix(ctx[l][h])}
                      for l, h in heads],
        }
        result.append(entry)
    for h in hooks:
        h.remove()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(ROOT / "models" / "all-MiniLM-L6-v2"))
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden"))
    args = parser.parse_args()
    torch.set_num_threads(2)
    out = Path(args.out)
    cases = tokenizer_cases(args.model)
    (out / "tokenizer_cases.json").write_text(json.dumps({"cases": cases}, ensure_ascii=False, indent=0) + "\n")
    (out / "tokenizer_long_text.json").write_text(json.dumps(long_text_cases(args.model), ensure_ascii=False) + "\n")
    examples = ROOT / "assets" / "examples"
    texts = [(examples / "lighthouse.txt").read_text(), (examples / "classroom.txt").read_text(),
             "Crème brûlée in 北京? Ja! The [MASK] was naïve, and the naïve one laughed."]
    heads = [(0, 0), (2, 7), (5, 8)]
    caps = captures(args.model, texts, heads)
    (out / "minilm_captures.json").write_text(json.dumps({"texts": caps}) + "\n")
    print(f"wrote {len(cases)} tokenizer cases and {len(caps)} capture texts to {out}")


if __name__ == "__main__":
    main()
