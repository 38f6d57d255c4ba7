#!/usr/bin/python3
"""Generates the Llama-shaped causal language model the built-in provider is tested on (run with
/usr/bin/python3, which has Debian's python3-torch and python3-onnx):

    /usr/bin/python3 scripts/make-tiny-chat-model.py

Output, in the layout transformers.js expects for a hub model (`<id>/...`):
    test/fixtures/models/carrel/tiny-chat/{config.json, generation_config.json, tokenizer.json,
        tokenizer_config.json, onnx/model_quantized.onnx}

The graph has the interface of the hub's ONNX exports of decoder-only models (what
transformers.js feeds a `llama` model): inputs `input_ids`, `attention_mask`, `position_ids` and
`past_key_values.<layer>.{key,value}`, outputs `logits` and `present.<layer>.{key,value}`. The
key/value head count and head size are fixed numbers in the graph: transformers.js builds the
first, empty cache by giving every named dimension but the batch the size 0.

Two layers, hidden size 64, 4 query heads sharing 2 key/value heads (grouped-query attention, as
SmolLM2 and Qwen2.5 have), RMSNorm, rotary positions, a SwiGLU feed-forward. The tokenizer is a
byte-level BPE (every byte is a token, as in GPT-2, SmolLM2 and Qwen2.5; merges only for the
answer's words) with ChatML's special tokens and Qwen2.5-Instruct's chat template, tools included (scripts/qwen2.5-chat-template.jinja).

The weights are chosen, not trained: the output head maps each token of a short English sentence
to the next one, and the layers' contributions are kept small, so whatever the prompt, the model
answers "Hello from the tiny built-in model. Hello from ..." and never stops on its own (Stop, or
the token limit, ends it). That makes a streamed answer easy to recognise and long enough to stop.

The 8-bit file is what ONNX Runtime's quantize_dynamic makes of the float graph (the quantizer of
scripts/make-tiny-model.py), the kind of file the app loads on the CPU.
"""
import importlib.util
import json
import math
import os
import shutil
import tempfile
from pathlib import Path

import onnx
import torch

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / 'test/fixtures/models/carrel/tiny-chat'
CHAT_TEMPLATE = (ROOT / 'scripts/qwen2.5-chat-template.jinja').read_text().rstrip('\n')

HIDDEN = 64
LAYERS = 2
HEADS = 4
KV_HEADS = 2
HEAD_DIM = HIDDEN // HEADS
INTERMEDIATE = 128
MAX_POSITIONS = 8192
ROPE_THETA = 10000.0
RMS_EPS = 1e-6
SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>']
# The answer, as tokens: "Hello from the tiny built-in model. " again and again.
ANSWER = ['Hello', 'Ġfrom', 'Ġthe', 'Ġtiny', 'Ġbuilt', '-in', 'Ġmodel', '.', 'Ġ']
# The prompt ends with "<|im_start|>assistant\n": a newline starts the answer.
ANSWER_START = 'Ċ'


def bytes_to_unicode():
    """GPT-2's map from each byte to a printable character (the byte-level BPE alphabet)."""
    printable = list(range(ord('!'), ord('~') + 1)) + list(range(ord('¡'), ord('¬') + 1)) + list(range(ord('®'), ord('ÿ') + 1))
    characters = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            characters.append(256 + extra)
            extra += 1
    return dict(zip(printable, (chr(c) for c in characters)))


def build_vocab():
    """Bytes, the answer's words and the pieces BPE builds them from, then the special tokens."""
    alphabet = [bytes_to_unicode()[byte] for byte in range(256)]
    pieces = []
    for word, _ in build_merges():
        if word not in alphabet and word not in pieces:
            pieces.append(word)
    tokens = alphabet + pieces + SPECIAL_TOKENS
    return {token: index for index, token in enumerate(tokens)}


def build_merges():
    """Left-to-right merges that make each answer word one token, so the answer, stored as text and
    read back in the next turn's prompt, encodes to the very tokens the model produced."""
    merges = []
    for word in ANSWER:
        for end in range(2, len(word) + 1):
            merge = (word[:end], f'{word[:end - 1]} {word[end - 1]}')
            if merge not in merges:
                merges.append(merge)
    return merges


def tokenizer_json(vocab):
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [
            {'id': vocab[token], 'content': token, 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False, 'special': True}
            for token in SPECIAL_TOKENS
        ],
        'normalizer': {'type': 'NFC'},
        'pre_tokenizer': {
            'type': 'Sequence',
            'pretokenizers': [
                {
                    'type': 'Split',
                    'pattern': {'Regex': "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
                    'behavior': 'Isolated',
                    'invert': False,
                },
                {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': False, 'use_regex': False},
            ],
        },
        'post_processor': {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': False, 'use_regex': False},
        'decoder': {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': False, 'use_regex': False},
        'model': {
            'type': 'BPE',
            'dropout': None,
            'unk_token': None,
            'continuing_subword_prefix': '',
            'end_of_word_suffix': '',
            'fuse_unk': False,
            'byte_fallback': False,
            'vocab': vocab,
            'merges': [merge for _, merge in build_merges()],
        },
    }


def rms_norm(x, weight):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + RMS_EPS) * weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Layer(torch.nn.Module):
    def __init__(self, generator):
        super().__init__()

        def weight(rows, columns, scale):
            return torch.nn.Parameter(scale * torch.randn(rows, columns, generator=generator))

        self.input_norm = torch.nn.Parameter(torch.ones(HIDDEN))
        self.q = weight(HIDDEN, HEADS * HEAD_DIM, 0.05)
        self.k = weight(HIDDEN, KV_HEADS * HEAD_DIM, 0.05)
        self.v = weight(HIDDEN, KV_HEADS * HEAD_DIM, 0.05)
        # Small output projections: the layers read and write the residual stream, barely moving it.
        self.o = weight(HEADS * HEAD_DIM, HIDDEN, 0.002)
        self.post_norm = torch.nn.Parameter(torch.ones(HIDDEN))
        self.gate = weight(HIDDEN, INTERMEDIATE, 0.05)
        self.up = weight(HIDDEN, INTERMEDIATE, 0.05)
        self.down = weight(INTERMEDIATE, HIDDEN, 0.002)

    def forward(self, hidden, cos, sin, mask_bias, past_key, past_value):
        batch, length = hidden.shape[0], hidden.shape[1]
        x = rms_norm(hidden, self.input_norm)
        q = (x @ self.q).reshape(batch, length, HEADS, HEAD_DIM).transpose(1, 2)
        k = (x @ self.k).reshape(batch, length, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = (x @ self.v).reshape(batch, length, KV_HEADS, HEAD_DIM).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        key = torch.cat([past_key, k], dim=2)
        value = torch.cat([past_value, v], dim=2)
        groups = HEADS // KV_HEADS
        # Each key/value head serves `groups` query heads (repeat_interleave, spelled with fixed sizes).
        keys = key.unsqueeze(2).repeat(1, 1, groups, 1, 1).reshape(batch, HEADS, -1, HEAD_DIM)
        values = value.unsqueeze(2).repeat(1, 1, groups, 1, 1).reshape(batch, HEADS, -1, HEAD_DIM)
        scores = q @ keys.transpose(-1, -2) / math.sqrt(HEAD_DIM) + mask_bias
        context = (scores.softmax(dim=-1) @ values).transpose(1, 2).reshape(batch, length, HEADS * HEAD_DIM)
        hidden = hidden + context @ self.o
        x = rms_norm(hidden, self.post_norm)
        hidden = hidden + (torch.nn.functional.silu(x @ self.gate) * (x @ self.up)) @ self.down
        return hidden, key, value


class TinyLlama(torch.nn.Module):
    def __init__(self, vocab, generator):
        super().__init__()
        size = len(vocab)
        table = torch.randn(size, HIDDEN, generator=generator)
        # Every row has the norm RMSNorm gives it, so the final norm leaves the token's row alone.
        table = table / table.norm(dim=-1, keepdim=True) * math.sqrt(HIDDEN)
        self.embed = torch.nn.Parameter(table)
        head = torch.zeros(size, HIDDEN)
        previous = ANSWER_START
        for token in ANSWER:
            # The logit of `token` is large exactly when the current token is the one before it.
            head[vocab[token]] = 10.0 * table[vocab[previous]] / math.sqrt(HIDDEN)
            previous = token
        # After the last word the sentence starts again: the first word follows the newline or it.
        head[vocab[ANSWER[0]]] += 10.0 * table[vocab[ANSWER[-1]]] / math.sqrt(HIDDEN)
        self.head = torch.nn.Parameter(head.t().contiguous())
        self.layers = torch.nn.ModuleList(Layer(generator) for _ in range(LAYERS))
        self.final_norm = torch.nn.Parameter(torch.ones(HIDDEN))
        self.inv_freq = 1.0 / (ROPE_THETA ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))

    def forward(self, input_ids, attention_mask, position_ids, *past):
        hidden = self.embed[input_ids]
        freqs = position_ids[:, :, None].float() * self.inv_freq[None, None, :]
        angles = torch.cat([freqs, freqs], dim=-1)[:, None, :, :]
        cos, sin = angles.cos(), angles.sin()
        # Causal and padding mask over past + current positions: query i (the i-th new token) sees
        # key j when j <= past length + i and the key is not padding.
        total = torch.cumsum(torch.ones_like(attention_mask[0]), dim=0)
        key_index = total - 1
        query_index = key_index[-input_ids.shape[1]:]
        causal = key_index[None, :] <= query_index[:, None]
        allowed = causal[None, None, :, :] & (attention_mask[:, None, None, :] > 0)
        mask_bias = (~allowed).float() * -1e9
        presents = []
        for index, layer in enumerate(self.layers):
            hidden, key, value = layer(hidden, cos, sin, mask_bias, past[2 * index], past[2 * index + 1])
            presents += [key, value]
        logits = rms_norm(hidden, self.final_norm) @ self.head
        return (logits, *presents)


def config_json(vocab):
    return {
        'architectures': ['LlamaForCausalLM'],
        'model_type': 'llama',
        'vocab_size': len(vocab),
        'hidden_size': HIDDEN,
        'intermediate_size': INTERMEDIATE,
        'num_hidden_layers': LAYERS,
        'num_attention_heads': HEADS,
        'num_key_value_heads': KV_HEADS,
        'head_dim': HEAD_DIM,
        'hidden_act': 'silu',
        'max_position_embeddings': MAX_POSITIONS,
        'rms_norm_eps': RMS_EPS,
        'rope_theta': ROPE_THETA,
        'tie_word_embeddings': False,
        'bos_token_id': vocab['<|endoftext|>'],
        'eos_token_id': vocab['<|im_end|>'],
        'pad_token_id': vocab['<|endoftext|>'],
        'torch_dtype': 'float32',
        'transformers_version': '4.46.0',
        'transformers.js_config': {'dtype': 'q8', 'kv_cache_dtype': 'float32'},
    }


def export(model, vocab, path):
    input_ids = torch.tensor([[vocab['Hello'], vocab['Ġfrom']]])
    attention_mask = torch.ones(1, 3, dtype=torch.int64)
    position_ids = torch.tensor([[1, 2]])
    past = []
    names_in = ['input_ids', 'attention_mask', 'position_ids']
    names_out = ['logits']
    axes = {
        'input_ids': {0: 'batch_size', 1: 'sequence_length'},
        'attention_mask': {0: 'batch_size', 1: 'total_sequence_length'},
        'position_ids': {0: 'batch_size', 1: 'sequence_length'},
        'logits': {0: 'batch_size', 1: 'sequence_length'},
    }
    for layer in range(LAYERS):
        for kind in ('key', 'value'):
            past.append(torch.zeros(1, KV_HEADS, 1, HEAD_DIM))
            names_in.append(f'past_key_values.{layer}.{kind}')
            names_out.append(f'present.{layer}.{kind}')
            axes[names_in[-1]] = {0: 'batch_size', 2: 'past_sequence_length'}
            axes[names_out[-1]] = {0: 'batch_size', 2: 'total_sequence_length'}
    torch.onnx.export(
        model,
        (input_ids, attention_mask, position_ids, *past),
        str(path),
        input_names=names_in,
        output_names=names_out,
        dynamic_axes=axes,
        opset_version=14,
        do_constant_folding=True,
    )


def load_quantizer():
    spec = importlib.util.spec_from_file_location('make_tiny_model', ROOT / 'scripts/make-tiny-model.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.quantize_dynamic_8bit


def main():
    generator = torch.Generator().manual_seed(20)
    vocab = build_vocab()
    model = TinyLlama(vocab, generator).eval()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / 'onnx').mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        float_path = Path(scratch) / 'model.onnx'
        with torch.no_grad():
            export(model, vocab, float_path)
        graph = onnx.load(str(float_path))
        counts = load_quantizer()(graph)
        onnx.checker.check_model(graph)
        onnx.save(graph, str(OUT / 'onnx/model_quantized.onnx'))
    (OUT / 'config.json').write_text(json.dumps(config_json(vocab), indent=2) + '\n')
    (OUT / 'generation_config.json').write_text(json.dumps({
        'bos_token_id': vocab['<|endoftext|>'],
        'eos_token_id': [vocab['<|im_end|>'], vocab['<|endoftext|>']],
        'pad_token_id': vocab['<|endoftext|>'],
        'do_sample': False,
    }, indent=2) + '\n')
    (OUT / 'tokenizer.json').write_text(json.dumps(tokenizer_json(vocab), ensure_ascii=False) + '\n')
    (OUT / 'tokenizer_config.json').write_text(json.dumps({
        'tokenizer_class': 'Qwen2Tokenizer',
        'model_max_length': MAX_POSITIONS,
        'bos_token': None,
        'eos_token': '<|im_end|>',
        'pad_token': '<|endoftext|>',
        'unk_token': None,
        'clean_up_tokenization_spaces': False,
        'errors': 'replace',
        'split_special_tokens': False,
        'add_prefix_space': False,
        'chat_template': CHAT_TEMPLATE,
    }, indent=2, ensure_ascii=False) + '\n')
    size = (OUT / 'onnx/model_quantized.onnx').stat().st_size
    print(f"quantized {counts['MatMul']} MatMuls and {counts['Gather']} Gathers; wrote {OUT} (model {size} bytes)")


if __name__ == '__main__':
    main()
