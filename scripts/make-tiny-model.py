#!/usr/bin/python3
"""Generates the tiny BERT-shaped embedding model of the tests (run with /usr/bin/python3, which
has Debian's python3-torch and python3-onnx):

    /usr/bin/python3 scripts/make-tiny-model.py

Output, in the layout transformers.js expects under `env.localModelPath`:
    test/fixtures/models/carrel/tiny-embedder/{config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx}

The model has BERT's interface (input_ids, attention_mask, token_type_ids -> last_hidden_state)
and one self-attention layer whose contribution is kept small, so mean pooling yields roughly a
weighted bag of words. Its vocabulary is the words of the fixture corpus plus single-letter
WordPiece pieces; a short list of related words share a direction, which gives the model a
little of the meaning a real embedding model has. Deterministic (fixed seed).
"""
import json
import re
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / 'test/fixtures/documents/corpus'
OUT = ROOT / 'test/fixtures/models/carrel/tiny-embedder'
HIDDEN = 48
HEADS = 2
MAX_POSITIONS = 512
SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
STOP_WORDS = set(
    'a an and are as at be by for from has have how i in is it its of on or that the this to was were what when where which who why will with you your does do did can my should about into than then there these they'.split()
)
# Words that mean nearly the same thing share most of their vector.
RELATED = [
    ['bread', 'loaf', 'bake', 'baking', 'oven', 'dough'],
    ['food', 'meal', 'meals', 'eat'],
    ['abroad', 'elsewhere', 'foreign'],
    ['cost', 'costs', 'price', 'euros', 'reimbursed', 'allowance'],
    ['capital', 'cities', 'city'],
    ['hotel', 'lodging', 'nights'],
    ['gas', 'oxygen', 'air'],
    ['sugar', 'glucose', 'starch'],
    ['wifi', 'wireless', 'router', 'broadcasts'],
    ['safe', 'security', 'secure', 'attackers', 'password', 'cracked'],
    ['access', 'administrator', 'admin'],
    ['point', 'router'],
    ['deadline', 'within', 'late'],
    ['bitter', 'sour', 'taste', 'tastes'],
    ['fineness', 'grind', 'coarse', 'fine'],
    ['dose', 'grams'],
    ['worn', 'wears', 'stretched', 'replaced', 'replace'],
    ['fly', 'flights', 'flight'],
]


def words_of(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def build_vocab():
    words = set()
    for path in sorted(CORPUS.glob('*')):
        words.update(words_of(path.read_text()))
    for group in RELATED:
        words.update(group)
    pieces = [c for c in 'abcdefghijklmnopqrstuvwxyz0123456789']
    vocab = SPECIAL + pieces + ['##' + c for c in pieces] + sorted(words - set(pieces))
    return {token: index for index, token in enumerate(vocab)}


def build_embeddings(vocab, generator):
    table = torch.randn(len(vocab), HIDDEN, generator=generator)
    for group in RELATED:
        base = torch.randn(HIDDEN, generator=generator)
        for word in group:
            table[vocab[word]] = base + 0.35 * table[vocab[word]]
    for token, index in vocab.items():
        if token in SPECIAL:
            table[index] = 0
        elif token in STOP_WORDS:
            table[index] *= 0.05
        elif token.startswith('##') or len(token) == 1:
            table[index] *= 0.2
    return table


class TinyBert(torch.nn.Module):
    def __init__(self, embeddings, generator):
        super().__init__()
        self.word_embeddings = torch.nn.Embedding.from_pretrained(embeddings, freeze=True)
        self.position_embeddings = torch.nn.Parameter(0.01 * torch.randn(MAX_POSITIONS, HIDDEN, generator=generator))
        self.token_type_embeddings = torch.nn.Parameter(torch.zeros(2, HIDDEN))
        self.attention = torch.nn.MultiheadAttention(HIDDEN, HEADS, batch_first=True)
        with torch.no_grad():
            self.attention.out_proj.weight.mul_(0.05)
            self.attention.out_proj.bias.zero_()

    def forward(self, input_ids, attention_mask, token_type_ids):
        positions = torch.arange(input_ids.shape[1]).unsqueeze(0)
        hidden = self.word_embeddings(input_ids) + self.position_embeddings[positions] + self.token_type_embeddings[token_type_ids]
        padding = attention_mask == 0
        attended, _ = self.attention(hidden, hidden, hidden, key_padding_mask=padding, need_weights=False)
        return hidden + attended


def tokenizer_json(vocab):
    special = lambda token: {'id': token, 'ids': [vocab[token]], 'tokens': [token]}
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [
            {'id': vocab[t], 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False, 'special': True}
            for t in SPECIAL
        ],
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True, 'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [{'SpecialToken': {'id': '[CLS]', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}}, {'SpecialToken': {'id': '[SEP]', 'type_id': 0}}],
            'pair': [
                {'SpecialToken': {'id': '[CLS]', 'type_id': 0}},
                {'Sequence': {'id': 'A', 'type_id': 0}},
                {'SpecialToken': {'id': '[SEP]', 'type_id': 0}},
                {'Sequence': {'id': 'B', 'type_id': 1}},
                {'SpecialToken': {'id': '[SEP]', 'type_id': 1}},
            ],
            'special_tokens': {'[CLS]': special('[CLS]'), '[SEP]': special('[SEP]')},
        },
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##', 'max_input_chars_per_word': 100, 'vocab': vocab},
    }


def main():
    generator = torch.Generator().manual_seed(7)
    vocab = build_vocab()
    model = TinyBert(build_embeddings(vocab, generator), generator).eval()
    (OUT / 'onnx').mkdir(parents=True, exist_ok=True)
    example = torch.tensor([[vocab['[CLS]'], vocab['bread'], vocab['[SEP]']]])
    torch.onnx.export(
        model,
        (example, torch.ones_like(example), torch.zeros_like(example)),
        str(OUT / 'onnx/model.onnx'),
        input_names=['input_ids', 'attention_mask', 'token_type_ids'],
        output_names=['last_hidden_state'],
        dynamic_axes={name: {0: 'batch', 1: 'sequence'} for name in ['input_ids', 'attention_mask', 'token_type_ids', 'last_hidden_state']},
        opset_version=14,
    )
    config = {
        'architectures': ['BertModel'],
        'model_type': 'bert',
        'hidden_size': HIDDEN,
        'num_hidden_layers': 1,
        'num_attention_heads': HEADS,
        'intermediate_size': HIDDEN,
        'max_position_embeddings': MAX_POSITIONS,
        'type_vocab_size': 2,
        'vocab_size': len(vocab),
        'pad_token_id': vocab['[PAD]'],
    }
    (OUT / 'config.json').write_text(json.dumps(config, indent=2) + '\n')
    (OUT / 'tokenizer.json').write_text(json.dumps(tokenizer_json(vocab)) + '\n')
    tokenizer_config = {
        'tokenizer_class': 'BertTokenizer',
        'do_lower_case': True,
        'model_max_length': MAX_POSITIONS,
        'cls_token': '[CLS]',
        'sep_token': '[SEP]',
        'pad_token': '[PAD]',
        'unk_token': '[UNK]',
        'mask_token': '[MASK]',
    }
    (OUT / 'tokenizer_config.json').write_text(json.dumps(tokenizer_config, indent=2) + '\n')
    print('vocabulary', len(vocab), 'tokens; wrote', OUT)


if __name__ == '__main__':
    main()
