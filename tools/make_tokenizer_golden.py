#!/usr/bin/env python3
"""Writes tests/golden/tokenizers/<name>/tokenizer.json and expected.json: small but realistic
vocabularies trained here with the PyPI `tokenizers` trainers on text written for this project
(tests/golden/tokenizers/training_text.txt and assets/examples/*.txt), set up as the models ship
theirs (SentencePiece models through transformers' slow-to-fast converters), and the reference's ids and byte ranges for several hundred strings (accents, CJK, emoji,
control and zero-width characters, spaces, very long words, special tokens typed in the text).

  .venv/bin/python tools/make_tokenizer_golden.py [NAME...]
"""
import io
import json
import pathlib
import random
import tempfile

import sys

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "tokenizers"


def training_lines():
    lines = (OUT / "training_text.txt").read_text().splitlines()
    for p in sorted((ROOT / "assets" / "examples").glob("*.txt")):
        lines += p.read_text().splitlines()
    return [l for l in lines if l.strip()]


def byte_level_bpe(specials, normalizer, add_prefix_space, post, mask):
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, min_frequency=1, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(training_lines(), trainer)
    tok.add_special_tokens([AddedToken(mask, lstrip=True, special=True)])
    tok.post_processor = post(tok)
    return tok


def sentencepiece_unigram(slow_class, **spm_options):
    """A SentencePiece unigram model trained here (nmt_nfkc normalisation: the precompiled
    charsmap), turned into tokenizer.json by transformers' own slow-to-fast converter."""
    import sentencepiece as spm
    from transformers.convert_slow_tokenizer import convert_slow_tokenizer
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(training_lines()), model_writer=model, vocab_size=800, model_type="unigram",
                                   character_coverage=1.0, normalization_rule_name="nmt_nfkc", minloglevel=2, **spm_options)
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "spiece.model"
        path.write_bytes(model.getvalue())
        fast = convert_slow_tokenizer(slow_class(vocab_file=str(path)))
    return fast


def cased_wordpiece():
    """Multilingual cased BERT's setup: no lower-casing, accents kept, CJK characters split."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False, handle_chinese_chars=True, clean_text=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=1500, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tok.train_from_iterator(training_lines(), trainer)
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    return tok


def sentencepiece_bpe():
    """SentencePiece's BPE as the tokenizers library sets it up: NFKC, Metaspace, BPE on characters
    with an unknown piece (neighbouring unknown characters fused). A small alphabet leaves the rarer
    scripts unknown, so that path is exercised too."""
    from tokenizers import SentencePieceBPETokenizer
    tok = SentencePieceBPETokenizer(unk_token="<unk>", fuse_unk=True)
    tok.train_from_iterator(training_lines(), vocab_size=900, min_frequency=1, special_tokens=["<s>", "<pad>", "</s>", "<unk>"], limit_alphabet=150)
    inner = tok._tokenizer
    inner.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    return inner


def byte_fallback_bpe():
    """SentencePiece BPE with byte_fallback (as Llama-style vocabularies ship it): a character
    outside the vocabulary becomes its UTF-8 bytes as <0xAB> pieces. The vocabulary is the
    SentencePiece BPE one above plus the 256 byte pieces, with its merges."""
    base = json.loads(sentencepiece_bpe().to_str())["model"]
    vocab = dict(base["vocab"])
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in base["merges"]]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", fuse_unk=False, byte_fallback=True))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.add_special_tokens(["<s>", "</s>"])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", vocab["<s>"]), ("</s>", vocab["</s>"])])
    return tok


LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
                r"|\s+(?!\S)|\s+")
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)"
               r"|\s+")


def split_byte_level_bpe(pattern, normalizer, start):
    """Llama 3's and Qwen's byte-level BPE: a Regex Split cuts the words, then ByteLevel spells each
    in bytes without splitting again; a template that adds a start token only (Llama 3), or none."""
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    specials = ["<|begin_of_text|>", "<|end_of_text|>"]
    trainer = trainers.BpeTrainer(vocab_size=1200, min_frequency=1, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(training_lines(), trainer)
    if start:
        tok.post_processor = processors.TemplateProcessing(single="<|begin_of_text|> $A",
                                                           special_tokens=[("<|begin_of_text|>", tok.token_to_id("<|begin_of_text|>"))])
    return tok


def tokenizers_to_write():
    from transformers import AlbertTokenizer, XLMRobertaTokenizer
    return {
        "llama3_split_bpe": split_byte_level_bpe(LLAMA3_SPLIT, None, True),
        "qwen2_split_bpe": split_byte_level_bpe(QWEN2_SPLIT, normalizers.NFC(), False),
        "byte_fallback_bpe": byte_fallback_bpe(),
        "sentencepiece_bpe": sentencepiece_bpe(),
        "bert_cased_wordpiece": cased_wordpiece(),
        # XLM-R (and CamemBERT): Precompiled, Strip, Replace of repeated spaces, Metaspace, Unigram.
        "xlmr_unigram": sentencepiece_unigram(XLMRobertaTokenizer, bos_id=0, pad_id=1, eos_id=2, unk_id=3),
        # ALBERT: quotes replaced, NFKD, accents stripped, lower case, Precompiled, then Metaspace and Unigram.
        "albert_unigram": sentencepiece_unigram(AlbertTokenizer, pad_id=0, unk_id=1, bos_id=-1, eos_id=-1,
                                                control_symbols=["[CLS]", "[SEP]", "[MASK]"]),
        # RoBERTa, XLM-style BPE as RoBERTa ships it: no normalizer, no prefix space, <s> ... </s>.
        "roberta_bpe": byte_level_bpe(["<s>", "<pad>", "</s>", "<unk>"], None, False,
                                      lambda t: processors.RobertaProcessing(("</s>", t.token_to_id("</s>")), ("<s>", t.token_to_id("<s>")),
                                                                            trim_offsets=True, add_prefix_space=False), "<mask>"),
        # ModernBERT's way: NFC, no prefix space, a [CLS] $A [SEP] template (offsets not trimmed).
        "modernbert_bpe": byte_level_bpe(["[UNK]", "[CLS]", "[SEP]", "[PAD]"], normalizers.NFC(), False,
                                         lambda t: processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
                                                                                 special_tokens=[("[CLS]", t.token_to_id("[CLS]")), ("[SEP]", t.token_to_id("[SEP]"))]),
                                         "[MASK]"),
        # A prefix space added before the first word, offsets trimmed by the ByteLevel post-processor.
        "prefix_space_bpe": byte_level_bpe(["<|endoftext|>"], normalizers.Lowercase(), True,
                                           lambda t: processors.ByteLevel(trim_offsets=True), "<mask>"),
    }


def strings():
    rng = random.Random(3)
    lines = training_lines()
    out = ["", " ", "  ", "\n", "a", "A", "hello", " hello", "  hello  world  ", "hello\n\nworld", "tab\tseparated\tvalues",
           "don't", "it's", "they're", "we've", "I'm", "you'll", "he'd", "'s", "''", "O'Neil's", "DON'T",
           "café", "cafe\u0301", "naïve façade", "Ångström", "ÉCOLE", "straße", "İstanbul",
           "北京大学", "日本語のテキスト", "한국어 문장", "中文 and English", "Здравствуй, мир", "Γειά σου", "مرحبا بالعالم", "שלום",
           "emoji 😀 here", "👍🏽", "👨‍👩‍👧", "🇫🇷 flag", "a\u200bb", "zero\u200dwidth\u200cjoiner", "\ufeffbom", "soft\u00adhyphen",
           "control\x01char", "bell\x07", "nul\x00byte", "del\x7f", "line\u2028separator", "nbsp\u00a0space", "ideographic\u3000space",
           "x" * 300, "supercalifragilisticexpialidocious" * 3, "1234567890", "3.14159", "1,000,000", "$100", "#hashtag", "@user",
           "<mask>", "a <mask> b", "a<mask>b", "  <mask>  ", "[MASK]", "the [MASK] sat", "<s>", "</s>", "<pad>", "<unk>", "[CLS] x [SEP]",
           "<|endoftext|>", "end<|endoftext|>start", "<<mask>>", "<ma", "mask>",
           "e-mail: someone@example.com", "https://example.org/path?q=1", "C++ and C#", "snake_case_name", "CamelCaseWord",
           "...", "?!?!", "—dash—", "“quoted”", "‘single’", "(brackets) [square] {curly}", "a\r\nb", "   leading", "trailing   "]
    for line in lines:
        out.append(line)
    for _ in range(140):  # fragments of the training text cut at random places, and mixed with the hard cases
        line = rng.choice(lines)
        i, j = sorted(rng.sample(range(len(line) + 1), 2))
        out.append(line[i:j])
        out.append(line[i:j] + rng.choice(out[:90]) + line[j:])
    return list(dict.fromkeys(out))


def byte_offsets(text, offsets):
    starts = [len(text[:k].encode()) for k in range(len(text) + 1)]
    return [[starts[a], starts[b]] for a, b in offsets]


def main():
    cases = strings()
    only = set(sys.argv[1:])  # names to write again; all when none is given
    for name, tok in tokenizers_to_write().items():
        if only and name not in only:
            continue
        folder = OUT / name
        folder.mkdir(parents=True, exist_ok=True)
        tok.save(str(folder / "tokenizer.json"))
        rows = []
        for text in cases:
            enc = tok.encode(text)
            rows.append({"text": text, "ids": enc.ids, "offsets": byte_offsets(text, enc.offsets), "special": enc.special_tokens_mask})
        (folder / "expected.json").write_text(json.dumps({"cases": rows}, ensure_ascii=False))
        print(name, len(rows), "strings,", tok.get_vocab_size(), "entries")


if __name__ == "__main__":
    main()
