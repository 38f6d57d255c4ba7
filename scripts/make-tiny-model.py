#!/usr/bin/python3
"""Generates the BERT-shaped embedding models of the tests and the embeddings benchmark (run with
/usr/bin/python3, which has Debian's python3-torch and python3-onnx):

    /usr/bin/python3 scripts/make-tiny-model.py
    /usr/bin/python3 scripts/make-tiny-model.py --shape minilm --out test/bench/.models/carrel/minilm-shape --quantized

Output, in the layout transformers.js expects under `env.localModelPath`:
    <out>/{config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx}
and with `--quantized` also <out>/onnx/model_quantized.onnx, the file transformers.js loads for
dtype 'q8' (the app's `isQuantized: true`). `--quantize-existing` writes only that file, from the
folder's existing onnx/model.onnx (the bench adds it without regenerating the float model).

Both models have BERT's interface (input_ids, attention_mask, token_type_ids -> last_hidden_state)
and a WordPiece tokenizer.

`--shape tiny` (default, into test/fixtures/models/carrel/tiny-embedder): one self-attention layer
whose contribution is kept small, so mean pooling yields roughly a weighted bag of words. Its
vocabulary is the words of the fixture corpus plus single-letter WordPiece pieces; a short list of
related words share a direction, which gives the model a little of the meaning a real embedding
model has. The word table is seeded; the attention projections take torch's unseeded default
initialisation, so a rerun changes them slightly: the committed fixture is the reference.

`--shape minilm` (the bench generates it into the ignored test/bench/.models/): exactly the shape
of sentence-transformers/all-MiniLM-L6-v2 (6 layers, hidden 384, 12 heads, intermediate 1536,
vocabulary 30522, 512 positions, 22.7M parameters, ~91 MB float32) with random weights (BERT's
N(0, 0.02) initialisation) and a generated vocabulary: as fast as the real model, its vectors
mean nothing. Deterministic (every weight comes from one seeded generator).

The 8-bit file is what ONNX Runtime's `quantize_dynamic` (default options, as used for the hub's
model_quantized.onnx files) makes of the float graph, written here with the `onnx` package alone:
each MatMul whose second input is a float initializer becomes DynamicQuantizeLinear on the
activation (uint8, one per activation tensor, shared by the MatMuls reading it), MatMulInteger
with the weight as int8 (symmetric, one scale per tensor, zero point 0, range ±127), Cast to float,
and Mul by activation scale × weight scale; each Gather from a float initializer (the embedding
tables) reads a uint8 copy (asymmetric, per tensor) followed by DequantizeLinear. Everything else
(attention score MatMuls, LayerNorm, GELU, Softmax) stays float32.
"""
import argparse
import json
import math
import os
import re
from pathlib import Path

import numpy
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / 'test/fixtures/documents/corpus'
TINY_OUT = ROOT / 'test/fixtures/models/carrel/tiny-embedder'
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


def write_model_folder(out, model, vocab, shape):
    """Exports `model` and writes the config and tokenizer files transformers.js reads."""
    (out / 'onnx').mkdir(parents=True, exist_ok=True)
    example = torch.tensor([[vocab['[CLS]'], vocab['bread'], vocab['[SEP]']]])
    torch.onnx.export(
        model,
        (example, torch.ones_like(example), torch.zeros_like(example)),
        str(out / 'onnx/model.onnx'),
        input_names=['input_ids', 'attention_mask', 'token_type_ids'],
        output_names=['last_hidden_state'],
        dynamic_axes={name: {0: 'batch', 1: 'sequence'} for name in ['input_ids', 'attention_mask', 'token_type_ids', 'last_hidden_state']},
        opset_version=14,
    )
    config = {
        'architectures': ['BertModel'],
        'model_type': 'bert',
        'hidden_size': shape['hidden'],
        'num_hidden_layers': shape['layers'],
        'num_attention_heads': shape['heads'],
        'intermediate_size': shape['intermediate'],
        'max_position_embeddings': MAX_POSITIONS,
        'type_vocab_size': 2,
        'vocab_size': len(vocab),
        'pad_token_id': vocab['[PAD]'],
    }
    (out / 'config.json').write_text(json.dumps(config, indent=2) + '\n')
    (out / 'tokenizer.json').write_text(json.dumps(tokenizer_json(vocab)) + '\n')
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
    (out / 'tokenizer_config.json').write_text(json.dumps(tokenizer_config, indent=2) + '\n')
    print('vocabulary', len(vocab), 'tokens; wrote', out)


def make_tiny(out):
    generator = torch.Generator().manual_seed(7)
    vocab = build_vocab()
    model = TinyBert(build_embeddings(vocab, generator), generator).eval()
    write_model_folder(out, model, vocab, {'hidden': HIDDEN, 'layers': 1, 'heads': HEADS, 'intermediate': HIDDEN})


# ── all-MiniLM-L6-v2's shape ───────────────────────────────────────────────────────────────────

MINILM = {'hidden': 384, 'layers': 6, 'heads': 12, 'intermediate': 1536}
MINILM_VOCAB_SIZE = 30522
LAYER_NORM_EPS = 1e-12


def build_minilm_vocab():
    """Special tokens, WordPiece letter pieces, punctuation, the fixture corpus's words, then
    made-up consonant-vowel words up to BERT's 30522 entries."""
    vocab = build_vocab()
    tokens = list(vocab) + ['.', ',']
    seen = set(tokens)
    syllables = [c + v for c in 'bcdfghjklmnprstvwz' for v in 'aeiou']
    length = 2
    while len(tokens) < MINILM_VOCAB_SIZE:
        for index in range(len(syllables) ** length):
            word = ''
            for _ in range(length):
                index, syllable = divmod(index, len(syllables))
                word += syllables[syllable]
            if word not in seen:
                tokens.append(word)
                seen.add(word)
                if len(tokens) == MINILM_VOCAB_SIZE:
                    break
        length += 1
    return {token: index for index, token in enumerate(tokens)}


def bert_linear(inputs, outputs, generator):
    layer = torch.nn.Linear(inputs, outputs)
    with torch.no_grad():
        layer.weight.copy_(0.02 * torch.randn(outputs, inputs, generator=generator))
        layer.bias.zero_()
    return layer


class BertLayer(torch.nn.Module):
    """One BERT encoder layer: self-attention, add & norm, GELU feed-forward, add & norm."""

    def __init__(self, generator):
        super().__init__()
        hidden, intermediate = MINILM['hidden'], MINILM['intermediate']
        self.heads = MINILM['heads']
        self.head_size = hidden // self.heads
        self.query = bert_linear(hidden, hidden, generator)
        self.key = bert_linear(hidden, hidden, generator)
        self.value = bert_linear(hidden, hidden, generator)
        self.attention_output = bert_linear(hidden, hidden, generator)
        self.attention_norm = torch.nn.LayerNorm(hidden, eps=LAYER_NORM_EPS)
        self.intermediate = bert_linear(hidden, intermediate, generator)
        self.output = bert_linear(intermediate, hidden, generator)
        self.output_norm = torch.nn.LayerNorm(hidden, eps=LAYER_NORM_EPS)

    def split_heads(self, x):
        return x.reshape(x.shape[0], x.shape[1], self.heads, self.head_size).transpose(1, 2)

    def forward(self, hidden, mask_bias):
        query, key, value = (self.split_heads(f(hidden)) for f in (self.query, self.key, self.value))
        scores = query @ key.transpose(-1, -2) / math.sqrt(self.head_size) + mask_bias
        context = (scores.softmax(dim=-1) @ value).transpose(1, 2)
        context = context.reshape(hidden.shape[0], hidden.shape[1], hidden.shape[2])
        hidden = self.attention_norm(hidden + self.attention_output(context))
        feed_forward = self.output(torch.nn.functional.gelu(self.intermediate(hidden)))
        return self.output_norm(hidden + feed_forward)


class MiniLmShapedBert(torch.nn.Module):
    def __init__(self, vocab_size, generator):
        super().__init__()
        hidden = MINILM['hidden']
        self.word_embeddings = torch.nn.Parameter(0.02 * torch.randn(vocab_size, hidden, generator=generator))
        self.position_embeddings = torch.nn.Parameter(0.02 * torch.randn(MAX_POSITIONS, hidden, generator=generator))
        self.token_type_embeddings = torch.nn.Parameter(0.02 * torch.randn(2, hidden, generator=generator))
        self.embedding_norm = torch.nn.LayerNorm(hidden, eps=LAYER_NORM_EPS)
        self.layers = torch.nn.ModuleList(BertLayer(generator) for _ in range(MINILM['layers']))

    def forward(self, input_ids, attention_mask, token_type_ids):
        positions = torch.arange(input_ids.shape[1]).unsqueeze(0)
        hidden = self.word_embeddings[input_ids] + self.position_embeddings[positions] + self.token_type_embeddings[token_type_ids]
        hidden = self.embedding_norm(hidden)
        # Padding gets a large negative score before the softmax, as in BERT.
        mask_bias = (1.0 - attention_mask[:, None, None, :].to(hidden.dtype)) * -10000.0
        for layer in self.layers:
            hidden = layer(hidden, mask_bias)
        return hidden


def make_minilm(out):
    generator = torch.Generator().manual_seed(6)
    vocab = build_minilm_vocab()
    model = MiniLmShapedBert(len(vocab), generator).eval()
    write_model_folder(out, model, vocab, MINILM)


# ── 8-bit quantized copy (ONNX Runtime's dynamic quantization pattern) ─────────────────────────


def quantize_symmetric_int8(weights):
    """int8 in [-127, 127], zero point 0, one scale for the tensor (ORT's default weight type)."""
    scale = float(numpy.abs(weights).max()) / 127 or 1.0
    quantized = numpy.clip(numpy.rint(weights / scale), -127, 127).astype(numpy.int8)
    return quantized, numpy.float32(scale), numpy.int8(0)


def quantize_asymmetric_uint8(values):
    """uint8 over [min(values, 0), max(values, 0)], as ORT quantizes Gather tables in dynamic mode."""
    low = min(float(values.min()), 0.0)
    high = max(float(values.max()), 0.0)
    scale = (high - low) / 255 or 1.0
    zero_point = int(numpy.clip(numpy.rint(-low / scale), 0, 255))
    quantized = numpy.clip(numpy.rint(values / scale) + zero_point, 0, 255).astype(numpy.uint8)
    return quantized, numpy.float32(scale), numpy.uint8(zero_point)


def quantize_dynamic_8bit(model):
    """Rewrites `model` (in place) as ONNX Runtime's quantize_dynamic would; returns the counts of
    quantized MatMuls and Gathers."""
    graph = model.graph
    floats = {
        tensor.name: tensor
        for tensor in graph.initializer
        if tensor.data_type == TensorProto.FLOAT
    }
    added = []
    quantized_activations = {}
    nodes = []
    counts = {'MatMul': 0, 'Gather': 0}

    quantized_initializers = {}

    def add_quantized(tensor, quantize):
        """The names of the quantized copy of `tensor`, its scale and zero point (made once)."""
        if tensor.name not in quantized_initializers:
            names = tuple(f'{tensor.name}_{suffix}' for suffix in ('quantized', 'scale', 'zero_point'))
            for array, name in zip(quantize(numpy_helper.to_array(tensor)), names):
                added.append(numpy_helper.from_array(numpy.asarray(array), name))
            quantized_initializers[tensor.name] = names
        return quantized_initializers[tensor.name]

    for node in graph.node:
        weight = floats.get(node.input[1]) if node.op_type == 'MatMul' else None
        table = floats.get(node.input[0]) if node.op_type == 'Gather' else None
        if weight is not None and len(weight.dims) == 2:
            activation = node.input[0]
            if activation not in quantized_activations:
                names = tuple(f'{activation}_{suffix}' for suffix in ('quantized', 'scale', 'zero_point'))
                nodes.append(helper.make_node('DynamicQuantizeLinear', [activation], list(names), name=f'{activation}_QuantizeLinear'))
                quantized_activations[activation] = names
            activation_q, activation_scale, activation_zero = quantized_activations[activation]
            weight_q, weight_scale, weight_zero = add_quantized(weight, quantize_symmetric_int8)
            output = node.output[0]
            nodes += [
                helper.make_node('MatMulInteger', [activation_q, weight_q, activation_zero, weight_zero], [f'{output}_output_quantized'], name=f'{node.name}_quant'),
                helper.make_node('Cast', [f'{output}_output_quantized'], [f'{output}_output_quantized_cast_output'], to=TensorProto.FLOAT, name=f'{node.name}_quant_cast'),
                helper.make_node('Mul', [activation_scale, weight_scale], [f'{output}_scales_mul'], name=f'{node.name}_quant_scales_mul'),
                helper.make_node('Mul', [f'{output}_output_quantized_cast_output', f'{output}_scales_mul'], [output], name=f'{node.name}_quant_output_scale_mul'),
            ]
            counts['MatMul'] += 1
        elif table is not None:
            table_q, table_scale, table_zero = add_quantized(table, quantize_asymmetric_uint8)
            output = node.output[0]
            gathered = helper.make_node('Gather', [table_q, *node.input[1:]], [f'{output}_quantized'], name=node.name)
            gathered.attribute.extend(node.attribute)
            nodes += [
                gathered,
                helper.make_node('DequantizeLinear', [f'{output}_quantized', table_scale, table_zero], [output], name=f'{output}_DequantizeLinear'),
            ]
            counts['Gather'] += 1
        else:
            nodes.append(node)

    graph.ClearField('node')
    graph.node.extend(nodes)
    # The float weights are gone unless another node still reads them.
    still_read = {name for node in graph.node for name in node.input}
    kept = [tensor for tensor in graph.initializer if tensor.name in still_read]
    graph.ClearField('initializer')
    graph.initializer.extend(kept + added)
    inputs = [value for value in graph.input if value.name not in floats or value.name in still_read]
    graph.ClearField('input')
    graph.input.extend(inputs)
    return counts


def write_quantized(out):
    """Writes <out>/onnx/model_quantized.onnx from <out>/onnx/model.onnx (never half-written)."""
    source = out / 'onnx/model.onnx'
    if not source.is_file():
        raise SystemExit(f'{source} does not exist: generate the float model first')
    model = onnx.load(str(source))
    counts = quantize_dynamic_8bit(model)
    onnx.checker.check_model(model)
    target = out / 'onnx/model_quantized.onnx'
    partial = target.with_name(target.name + '.partial')
    onnx.save(model, str(partial))
    os.replace(partial, target)
    print(f"quantized {counts['MatMul']} MatMuls and {counts['Gather']} Gathers to 8 bits; wrote {target} ({target.stat().st_size} bytes)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--shape', choices=['tiny', 'minilm'], default='tiny')
    parser.add_argument('--out', type=Path, help='model folder (default for tiny: the test fixture)')
    quantization = parser.add_mutually_exclusive_group()
    quantization.add_argument(
        '--quantized',
        action='store_true',
        help='also write onnx/model_quantized.onnx, the dynamic 8-bit copy (transformers.js dtype q8)',
    )
    quantization.add_argument(
        '--quantize-existing',
        action='store_true',
        help='write only onnx/model_quantized.onnx, from the existing onnx/model.onnx in --out',
    )
    args = parser.parse_args()
    if args.quantize_existing:
        if args.out is None:
            parser.error('--quantize-existing needs --out')
        write_quantized(args.out.resolve())
        return
    if args.shape == 'tiny':
        out = (args.out or TINY_OUT).resolve()
        make_tiny(out)
    elif args.out is None:
        parser.error('--shape minilm needs --out (the bench uses test/bench/.models/carrel/minilm-shape)')
    else:
        out = args.out.resolve()
        make_minilm(out)
    if args.quantized:
        write_quantized(out)


if __name__ == '__main__':
    main()
