#!/usr/bin/python3
"""Write a RANDOM-weight model with NLLB-200-distilled-600M's dimensions in the Xenova layout, for speed
benchmarks only (never commit its output; ~5 GB).

usage: /usr/bin/python3 scripts/make-bench-nllb.py [OUT_DIR] [--seed 0] [--no-fp32]
       (default OUT_DIR: ../bench-models/bench-nllb-600m beside the repository)

Needs only Debian's python3-torch, python3-onnx and python3-numpy (no transformers, no onnxruntime).

Model: M2M100 as NLLB uses it (pre-norm layers, ReLU, sinusoidal positions from pad + 1, embeddings scaled by
sqrt(d_model), output projection tied to the shared embedding, no final_logits_bias): d_model 1024, 12 + 12 layers,
16 heads, FFN 4096, vocabulary 256,206, 1024 positions.

Files (onnx/): encoder_model.onnx and decoder_model_merged.onnx (optimum's merged decoder: an If on
use_cache_branch over the no-past and with-past graphs, weights stored once in the outer graph, the tied output
projection a Transpose of the embedding), and their dynamic-int8 `_quantized` twins (MatMul weights int8,
the embedding uint8 and read by the output projection through a Transpose of the same table). A file whose
weights pass 2 GB keeps them as external data beside it.

Memory: torch exports the graphs with a 320-row vocabulary (the graphs' structure does not depend on it), and the
embedding rows are written into the ONNX files afterwards, so the 1 GB table exists once at a time and torch never
holds it (peak ~4-5 GB).

Tokenizer: the tiny-nllb fixture's pieces keep their ids 0..6000, ids 6001..256000 are filler pieces
"<bench_filler_N>" (score -100, never chosen for real text), the 202 language codes sit at NLLB's ids
(ace_Arab 256001, eng_Latn 256047, fra_Latn 256057, ... zul_Latn 256202) and <mask> at 256203; rows 256204-256205
are unused, as in NLLB. Real text therefore tokenizes as with tiny-nllb. Outputs are gibberish: it is a speed
fixture, not a translator.
"""
import argparse
import gc
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
# The fixture models' own position table (scripts/fixtures/model.py), so both are M2M100's by one definition.
sys.path.insert(0, os.path.join(HERE, "fixtures"))
from model import fairseq_sinusoids  # noqa: E402
REPO = os.path.dirname(HERE)
TINY = os.path.join(REPO, "test", "fixtures", "models", "tiny-nllb")

D, LAYERS, HEADS, FFN, VOCAB, POSITIONS, PAD = 1024, 12, 16, 4096, 256206, 1024, 1
EXPORT_VOCAB = 320  # the vocabulary torch exports with; the real rows are written into the files afterwards
FIRST_CODE = 256001  # NLLB's id of the first language code (ace_Arab)
OPSET = 14
NEG = torch.finfo(torch.float32).min
EMB = "model.shared.weight"


# ---------------------------------------------------------------- the model (M2M100 as NLLB uses it)

def position_ids(ids, past_len=0):
    mask = ids.ne(PAD).long()
    return (torch.cumsum(mask, dim=1) + past_len) * mask + PAD


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = D // HEADS
        self.scaling = self.head_dim ** -0.5
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(D, D) for _ in range(4))

    def split(self, x):
        return x.view(x.shape[0], x.shape[1], HEADS, self.head_dim).transpose(1, 2)

    def attend(self, q, k, v, bias):
        s = torch.matmul(q, k.transpose(2, 3)) + bias
        o = torch.matmul(F.softmax(s, dim=-1), v).transpose(1, 2)
        return self.out_proj(o.reshape(o.shape[0], o.shape[1], D))


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn, self.self_attn_layer_norm = Attention(), nn.LayerNorm(D)
        self.fc1, self.fc2, self.final_layer_norm = nn.Linear(D, FFN), nn.Linear(FFN, D), nn.LayerNorm(D)

    def forward(self, x, bias):
        a = self.self_attn
        h = self.self_attn_layer_norm(x)
        x = x + a.attend(a.split(a.q_proj(h) * a.scaling), a.split(a.k_proj(h)), a.split(a.v_proj(h)), bias)
        return x + self.fc2(F.relu(self.fc1(self.final_layer_norm(x))))


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn, self.self_attn_layer_norm = Attention(), nn.LayerNorm(D)
        self.encoder_attn, self.encoder_attn_layer_norm = Attention(), nn.LayerNorm(D)
        self.fc1, self.fc2, self.final_layer_norm = nn.Linear(D, FFN), nn.Linear(FFN, D), nn.LayerNorm(D)

    def forward(self, x, self_bias, cross_bias, enc_h, past_self, past_cross):
        a = self.self_attn
        h = self.self_attn_layer_norm(x)
        k, v = a.split(a.k_proj(h)), a.split(a.v_proj(h))
        if past_self is not None:
            k, v = torch.cat([past_self[0], k], dim=2), torch.cat([past_self[1], v], dim=2)
        x = x + a.attend(a.split(a.q_proj(h) * a.scaling), k, v, self_bias)
        c = self.encoder_attn
        h = self.encoder_attn_layer_norm(x)
        ck, cv = (c.split(c.k_proj(enc_h)), c.split(c.v_proj(enc_h))) if past_cross is None else past_cross
        x = x + c.attend(c.split(c.q_proj(h) * c.scaling), ck, cv, cross_bias)
        x = x + self.fc2(F.relu(self.fc1(self.final_layer_norm(x))))
        return x, (k, v), (ck, cv)


class Stack(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.register_buffer("positions", fairseq_sinusoids(POSITIONS + 2, D, PAD), persistent=False)
        self.layers = nn.ModuleList([layer() for _ in range(LAYERS)])
        self.layer_norm = nn.LayerNorm(D)


class Inner(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.shared = nn.Embedding(vocab, D, padding_idx=PAD)
        self.encoder, self.decoder = Stack(EncoderLayer), Stack(DecoderLayer)


class M2M100(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.model = Inner(vocab)
        self.scale = math.sqrt(D)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0.0, 0.02)
                nn.init.normal_(m.bias, 0.0, 0.02)
            elif isinstance(m, nn.LayerNorm):
                nn.init.normal_(m.weight, 1.0, 0.02)

    @staticmethod
    def mask_bias(mask):
        return (1.0 - mask[:, None, None, :].to(torch.float32)) * NEG

    def embed(self, stack, ids, past_len=0):
        pos = position_ids(ids, past_len)
        p = stack.positions.index_select(0, pos.reshape(-1)).view(ids.shape[0], ids.shape[1], -1)
        return self.model.shared(ids) * self.scale + p

    def encode(self, ids, mask):
        enc = self.model.encoder
        x, bias = self.embed(enc, ids), self.mask_bias(mask)
        for layer in enc.layers:
            x = layer(x, bias)
        return enc.layer_norm(x)

    def decode(self, ids, enc_mask, enc_h=None, past=None):
        dec = self.model.decoder
        past_len = 0 if past is None else past[0][0].shape[2]
        x = self.embed(dec, ids, past_len)
        t = ids.shape[1]
        qpos = torch.arange(t).unsqueeze(1) + past_len
        kpos = torch.arange(t + past_len).unsqueeze(0)
        self_bias = (kpos > qpos).to(torch.float32)[None, None] * NEG
        cross_bias = self.mask_bias(enc_mask)
        presents = []
        for i, layer in enumerate(dec.layers):
            ps = None if past is None else past[i][:2]
            pc = None if past is None else past[i][2:]
            x, kv, ckv = layer(x, self_bias, cross_bias, enc_h, ps, pc)
            presents.append(kv + ckv)
        logits = torch.matmul(dec.layer_norm(x), self.model.shared.weight.t())
        return logits, presents


class Enc(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        return self.m.encode(input_ids, attention_mask)


class DecNoPast(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, encoder_attention_mask, input_ids, encoder_hidden_states):
        logits, presents = self.m.decode(input_ids, encoder_attention_mask, encoder_hidden_states)
        return (logits,) + tuple(t for p in presents for t in p)


class DecPast(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, encoder_attention_mask, input_ids, *flat):
        past = [tuple(flat[4 * i:4 * i + 4]) for i in range(LAYERS)]
        logits, presents = self.m.decode(input_ids, encoder_attention_mask, None, past)
        return (logits,) + tuple(t for p in presents for t in p[:2])


def kv_names(prefix, which=("decoder", "encoder")):
    return [f"{prefix}.{i}.{w}.{kv}" for i in range(LAYERS) for w in which for kv in ("key", "value")]


def export_graphs(tmp, seed):
    """torch.onnx.export of the encoder, the no-past and the with-past decoder (opset 14, constants folded)."""
    torch.manual_seed(seed)
    model = M2M100(EXPORT_VOCAB).eval()
    ids = torch.tensor([[250, 5, 6, 7, 2], [300, 8, 2, PAD, PAD]])
    mask = (ids != PAD).long()
    seq = {0: "batch_size", 1: "encoder_sequence_length"}
    with torch.no_grad():
        torch.onnx.export(Enc(model), (ids, mask), f"{tmp}/encoder.onnx", opset_version=OPSET,
                          input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": seq, "attention_mask": seq, "last_hidden_state": seq},
                          do_constant_folding=True)
        enc = model.encode(ids, mask)
        dec_ids = torch.tensor([[2, 300, 9], [2, 300, 10]])
        dyn = {"encoder_attention_mask": seq, "input_ids": {0: "batch_size", 1: "decoder_sequence_length"},
               "encoder_hidden_states": seq, "logits": {0: "batch_size", 1: "decoder_sequence_length"}}
        for n in kv_names("present"):
            dyn[n] = {0: "batch_size", 2: "decoder_sequence_length" if ".decoder." in n else "encoder_sequence_length"}
        torch.onnx.export(DecNoPast(model), (mask, dec_ids, enc), f"{tmp}/decoder.onnx", opset_version=OPSET,
                          input_names=["encoder_attention_mask", "input_ids", "encoder_hidden_states"],
                          output_names=["logits"] + kv_names("present"), dynamic_axes=dyn, do_constant_folding=True)
        _, presents = model.decode(dec_ids, mask, enc)
        flat = tuple(t for p in presents for t in p)
        dyn = {"encoder_attention_mask": seq, "input_ids": {0: "batch_size", 1: "decoder_sequence_length"},
               "logits": {0: "batch_size", 1: "decoder_sequence_length"}}
        for n in kv_names("past_key_values"):
            dyn[n] = {0: "batch_size",
                      2: "past_decoder_sequence_length" if ".decoder." in n else "encoder_sequence_length_out"}
        for n in kv_names("present", ("decoder",)):
            dyn[n] = {0: "batch_size", 2: "past_decoder_sequence_length + 1"}
        torch.onnx.export(DecPast(model), (mask, dec_ids[:, -1:]) + flat, f"{tmp}/decoder_with_past.onnx",
                          opset_version=OPSET, input_names=["encoder_attention_mask", "input_ids"] + kv_names("past_key_values"),
                          output_names=["logits"] + kv_names("present", ("decoder",)), dynamic_axes=dyn,
                          do_constant_folding=True)
    del model, enc, presents, flat
    gc.collect()


# ---------------------------------------------------------------- graph edits

def tidy(model, constants_to_initializers=False):
    """Initializers under their checkpoint names (model.shared.weight, ...); Constant nodes as initializers so the
    merge stores them once."""
    g = model.graph
    ren = {}
    for t in g.initializer:
        if t.name.startswith("m."):
            ren[t.name] = t.name[2:]
            t.name = ren[t.name]
    if constants_to_initializers:
        keep = []
        for n in g.node:
            if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value":
                t = onnx.TensorProto()
                t.CopyFrom(n.attribute[0].t)
                t.name = n.output[0]
                g.initializer.append(t)
            else:
                keep.append(n)
        del g.node[:]
        g.node.extend(keep)
    for n in g.node:
        for i, x in enumerate(n.input):
            if x in ren:
                n.input[i] = ren[x]
    del g.value_info[:]
    return model


def quantize(model):
    """Dynamic int8 as onnxruntime's quantize_dynamic writes it: MatMul(x, W) -> DynamicQuantizeLinear(x) ->
    MatMulInteger(x_q, W int8, x_zp, 0) -> Cast -> Mul(x_scale * W_scale); Gather(E, ids) -> Gather(E uint8) ->
    DequantizeLinear."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    new_inits, dq, nodes = {}, {}, []

    def scalar(name, value, dtype):
        return numpy_helper.from_array(np.array(value, dtype=dtype), name)

    def weight(name, signed):
        qn = name + "_quantized"
        if qn not in new_inits:
            w = numpy_helper.to_array(inits[name]).astype(np.float32)
            if signed:
                amax = float(np.abs(w).max())
                scale, zp, dt = np.float32(amax / 127.0 if amax > 0 else 1.0), 0, np.int8
                q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
            else:
                lo, hi = min(0.0, float(w.min())), max(0.0, float(w.max()))
                scale = np.float32((hi - lo) / 255.0 if hi > lo else 1.0)
                zp, dt = int(np.clip(np.round(-lo / scale), 0, 255)), np.uint8
                q = np.clip(np.round(w / scale) + zp, 0, 255).astype(np.uint8)
            new_inits[qn] = numpy_helper.from_array(q, qn)
            new_inits[name + "_scale"] = scalar(name + "_scale", scale, np.float32)
            new_inits[name + "_zero_point"] = scalar(name + "_zero_point", zp, dt)
        return qn, name + "_scale", name + "_zero_point"

    def is_weight(name):
        t = inits.get(name)
        return t is not None and t.data_type == TensorProto.FLOAT and len(t.dims) == 2

    for node in g.node:
        if node.op_type == "MatMul" and is_weight(node.input[1]):
            a, w, out = node.input[0], node.input[1], node.output[0]
            if a not in dq:
                dq[a] = (a + "_quantized", a + "_scale", a + "_zero_point")
                nodes.append(helper.make_node("DynamicQuantizeLinear", [a], list(dq[a]), name=a + "_QuantizeLinear"))
            aq, asc, azp = dq[a]
            wq, wsc, wzp = weight(w, True)
            base = node.name or out
            nodes += [
                helper.make_node("MatMulInteger", [aq, wq, azp, wzp], [out + "_output_quantized"], name=base + "_quant"),
                helper.make_node("Cast", [out + "_output_quantized"], [out + "_output_quantized_cast_output"],
                                 to=TensorProto.FLOAT, name=base + "_quant_cast"),
                helper.make_node("Mul", [asc, wsc], [base + "_quant_scales_mul:0"], name=base + "_quant_scales_mul"),
                helper.make_node("Mul", [out + "_output_quantized_cast_output", base + "_quant_scales_mul:0"], [out],
                                 name=base + "_quant_output_scale_mul"),
            ]
        elif node.op_type == "Gather" and node.input[0] in inits and inits[node.input[0]].data_type == TensorProto.FLOAT:
            e, ids, out = node.input[0], node.input[1], node.output[0]
            eq, esc, ezp = weight(e, False)
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            nodes += [
                helper.make_node("Gather", [eq, ids], [out + "_quantized"], name=(node.name or out) + "_quant", **attrs),
                helper.make_node("DequantizeLinear", [out + "_quantized", esc, ezp], [out],
                                 name=(node.name or out) + "_DequantizeLinear"),
            ]
        else:
            nodes.append(node)
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used] + [t for n, t in new_inits.items() if n in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    del g.value_info[:]
    return m


def tensor_key(t):
    return (t.data_type, tuple(t.dims), hashlib.sha1(t.raw_data if t.HasField("raw_data") else
                                                     numpy_helper.to_array(t).tobytes()).hexdigest())


def branch(model, prefix, outer_names, init_map, outputs, dummy_shape):
    g = model.graph

    def ren(n):
        return init_map.get(n, n if n in outer_names or n == "" else prefix + n)

    nodes = []
    for i, node in enumerate(g.node):
        nn_ = onnx.NodeProto()
        nn_.CopyFrom(node)
        nn_.name = prefix + (node.name or f"{node.op_type}_{i}")
        del nn_.input[:]
        nn_.input.extend(ren(x) for x in node.input)
        del nn_.output[:]
        nn_.output.extend(ren(x) for x in node.output)
        nodes.append(nn_)
    produced = {o.name for o in g.output}
    outs = []
    for name in outputs:
        if name not in produced:  # optimum: the with-past branch answers empty encoder K/V
            value = helper.make_tensor("const_tensor", TensorProto.FLOAT, dummy_shape, [])
            nodes.append(helper.make_node("Constant", [], [prefix + name], name=prefix + "Constant_dummy_" + name, value=value))
        outs.append(helper.make_tensor_value_info(prefix + name, TensorProto.FLOAT, None))
    return helper.make_graph(nodes, prefix.rstrip("/"), [], outs)


def merge(nopast, withpast):
    """optimum's decoder_model_merged: If(use_cache_branch) over the two graphs, initializers deduplicated by
    content and held once by the outer graph."""
    outer, by_key, maps, names = [], {}, [], set()
    for tag, m in (("np", nopast), ("wp", withpast)):
        mp = {}
        for t in m.graph.initializer:
            k = tensor_key(t)
            if k not in by_key:
                nt = onnx.TensorProto()
                nt.CopyFrom(t)
                nt.name = t.name if t.name not in names else f"{tag}::{t.name}"
                names.add(nt.name)
                outer.append(nt)
                by_key[k] = nt.name
            mp[t.name] = by_key[k]
        maps.append(mp)
    hd = D // HEADS
    past = kv_names("past_key_values")
    present = ["logits"] + kv_names("present")
    outer_names = ["encoder_attention_mask", "input_ids", "encoder_hidden_states"] + past + ["use_cache_branch"]
    else_g = branch(nopast, "nopast/", outer_names, maps[0], present, None)
    then_g = branch(withpast, "withpast/", outer_names, maps[1], present, [0, HEADS, 1, hd])
    vi = helper.make_tensor_value_info
    inputs = [vi("encoder_attention_mask", TensorProto.INT64, ["batch_size", "encoder_sequence_length"]),
              vi("input_ids", TensorProto.INT64, ["batch_size", "decoder_sequence_length"]),
              vi("encoder_hidden_states", TensorProto.FLOAT, ["batch_size", "encoder_sequence_length", D])]
    for n in past:
        seq = "past_decoder_sequence_length" if ".decoder." in n else "encoder_sequence_length_out"
        inputs.append(vi(n, TensorProto.FLOAT, ["batch_size", HEADS, seq, hd]))
    inputs.append(vi("use_cache_branch", TensorProto.BOOL, [1]))
    outputs = [vi("logits", TensorProto.FLOAT, ["batch_size", "decoder_sequence_length", VOCAB])]
    for n in present[1:]:
        seq = "past_decoder_sequence_length + 1" if ".decoder." in n else "encoder_sequence_length_out"
        outputs.append(vi(n, TensorProto.FLOAT, ["batch_size", HEADS, seq, hd]))
    if_node = helper.make_node("If", ["use_cache_branch"], present, name="optimum::if", then_branch=then_g, else_branch=else_g)
    graph = helper.make_graph([if_node], "merged_decoder", inputs, outputs, initializer=outer)
    opsets = {o.domain: o.version for o in list(nopast.opset_import) + list(withpast.opset_import)}
    merged = helper.make_model(graph, opset_imports=[helper.make_opsetid(k, v) for k, v in opsets.items()],
                               producer_name="dragoman-bench-nllb")
    merged.ir_version = nopast.ir_version
    return merged


def branches(model):
    return [a.g for n in model.graph.node for a in n.attribute if a.type == onnx.AttributeProto.GRAPH]


def prune(model):
    g = model.graph
    used = {i for n in g.node for i in n.input} | {i for b in branches(model) for n in b.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)


def tie_output(model):
    """The output projection reads Transpose(embedding), one outer node, instead of torch's folded copy of E^T."""
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    v, d = inits[EMB].dims
    copies = [t.name for t in g.initializer if tuple(t.dims) == (d, v) and t.data_type == TensorProto.FLOAT]
    assert len(copies) == 1, copies
    for b in branches(model):
        for n in b.node:
            for i, x in enumerate(n.input):
                if x == copies[0]:
                    n.input[i] = EMB + "_transposed"
    g.node.insert(0, helper.make_node("Transpose", [EMB], [EMB + "_transposed"], perm=[1, 0], name="lm_head_tied_transpose"))
    prune(model)


def tie_output_quantized(model):
    """int8 counterpart: the output projection's MatMulInteger reads Transpose(<embedding>_quantized), the uint8
    table the embedding Gather uses, with its scale and zero point, instead of a second quantized copy of E^T."""
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    eq, esc, ezp = EMB + "_quantized", EMB + "_scale", EMB + "_zero_point"
    v, d = inits[eq].dims
    copies = [t.name for t in g.initializer if tuple(t.dims) == (d, v) and t.data_type == TensorProto.INT8]
    assert len(copies) == 1, copies
    tname = eq + "_transposed"
    tied = 0
    for b in branches(model):
        by_name = {n.name: n for n in b.node}
        for n in b.node:
            if n.op_type == "MatMulInteger" and n.input[1] == copies[0]:
                n.input[1], n.input[3] = tname, ezp
                by_name[n.name[:-len("_quant")] + "_quant_scales_mul"].input[1] = esc
                tied += 1
    assert tied == 2, tied
    g.node.insert(0, helper.make_node("Transpose", [eq], [tname], perm=[1, 0], name="lm_head_tied_transpose_quantized"))
    prune(model)


# ---------------------------------------------------------------- the real-size embedding

def embedding(seed):
    rng = np.random.default_rng(seed + 1)
    e = rng.standard_normal((VOCAB, D), dtype=np.float32)
    e *= np.float32(0.02)
    e[PAD] = 0
    return e


def set_tensor(model, name, array):
    for t in model.graph.initializer:
        if t.name == name:
            t.CopyFrom(numpy_helper.from_array(array, name))
            return
    raise KeyError(name)


def set_embedding(model, e, quantized):
    """Write the 256,206 rows into a graph exported with EXPORT_VOCAB rows (uint8 as quantize() stores a Gather
    table)."""
    if not quantized:
        set_tensor(model, EMB, e)
        return
    lo, hi = min(0.0, float(e.min())), max(0.0, float(e.max()))
    scale = np.float32((hi - lo) / 255.0)
    zp = int(np.clip(np.round(-lo / scale), 0, 255))
    q = np.empty(e.shape, dtype=np.uint8)
    for s in range(0, e.shape[0], 16384):  # in slices: no second 1 GB float temporary
        q[s:s + 16384] = np.clip(np.round(e[s:s + 16384] / scale) + zp, 0, 255).astype(np.uint8)
    set_tensor(model, EMB + "_quantized", q)
    set_tensor(model, EMB + "_scale", np.array(scale, dtype=np.float32))
    set_tensor(model, EMB + "_zero_point", np.array(zp, dtype=np.uint8))


def save(model, path):
    """One file under 2 GB of weights (protobuf's limit), else the weights as external data beside it."""
    for f in (path, path + "_data"):
        if os.path.exists(f):
            os.remove(f)
    weights = sum(len(t.raw_data) for t in model.graph.initializer)
    if weights < 2_000_000_000:
        onnx.save(model, path)
    else:
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(path) + "_data", size_threshold=1024)
    print(f"wrote {path}", flush=True)


# ---------------------------------------------------------------- tokenizer and config files

def remap(i):
    return i + FIRST_CODE - 6001 if i >= 6001 else i


def write_tokenizer(out):
    tok = json.load(open(os.path.join(TINY, "tokenizer.json"), encoding="utf-8"))
    vocab = tok["model"]["vocab"]
    assert len(vocab) == 6001 and tok["added_tokens"][4]["content"] == "ace_Arab" and tok["added_tokens"][4]["id"] == 6001
    vocab += [[f"<bench_filler_{i}>", -100.0] for i in range(len(vocab), FIRST_CODE)]
    for t in tok["added_tokens"]:
        t["id"] = remap(t["id"])
    for t in tok["post_processor"]["special_tokens"].values():
        t["ids"] = [remap(i) for i in t["ids"]]
    json.dump(tok, open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False, separators=(",", ":"))
    cfg = json.load(open(os.path.join(TINY, "tokenizer_config.json"), encoding="utf-8"))
    cfg["added_tokens_decoder"] = {str(remap(int(k))): v for k, v in cfg["added_tokens_decoder"].items()}
    cfg["model_max_length"] = POSITIONS
    json.dump(cfg, open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8"), indent=2, ensure_ascii=False)
    for f in ("special_tokens_map.json", "generation_config.json"):
        shutil.copy(os.path.join(TINY, f), os.path.join(out, f))
    config = json.load(open(os.path.join(TINY, "config.json"), encoding="utf-8"))
    config.update({"_name_or_path": "bench-nllb-600m-random", "d_model": D, "encoder_layers": LAYERS,
                   "decoder_layers": LAYERS, "num_hidden_layers": LAYERS, "encoder_attention_heads": HEADS,
                   "decoder_attention_heads": HEADS, "encoder_ffn_dim": FFN, "decoder_ffn_dim": FFN,
                   "max_position_embeddings": POSITIONS, "vocab_size": VOCAB})
    json.dump(config, open(os.path.join(out, "config.json"), "w"), indent=2)
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("Random-weight model with NLLB-200-distilled-600M's dimensions, for speed benchmarks only "
                "(made by scripts/make-bench-nllb.py; its outputs are meaningless).\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=os.path.join(REPO, "..", "bench-models", "bench-nllb-600m"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-fp32", action="store_true", help="write the int8 files only")
    a = ap.parse_args()
    t0 = time.time()
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    out = os.path.abspath(a.out)
    onnx_dir = os.path.join(out, "onnx")
    os.makedirs(onnx_dir, exist_ok=True)
    write_tokenizer(out)
    tmp = tempfile.mkdtemp(prefix="bench-nllb-")
    try:
        export_graphs(tmp, a.seed)
        print(f"exported in {time.time() - t0:.0f}s", flush=True)
        e = embedding(a.seed)

        enc = tidy(onnx.load(f"{tmp}/encoder.onnx"))
        enc_q = quantize(enc)
        set_embedding(enc_q, e, True)
        save(enc_q, os.path.join(onnx_dir, "encoder_model_quantized.onnx"))
        del enc_q
        if not a.no_fp32:
            set_embedding(enc, e, False)
            save(enc, os.path.join(onnx_dir, "encoder_model.onnx"))
        del enc
        gc.collect()

        nopast = tidy(onnx.load(f"{tmp}/decoder.onnx"), constants_to_initializers=True)
        withpast = tidy(onnx.load(f"{tmp}/decoder_with_past.onnx"), constants_to_initializers=True)
        merged_q = merge(quantize(nopast), quantize(withpast))
        tie_output_quantized(merged_q)
        set_embedding(merged_q, e, True)
        save(merged_q, os.path.join(onnx_dir, "decoder_model_merged_quantized.onnx"))
        del merged_q
        gc.collect()
        if not a.no_fp32:
            merged = merge(nopast, withpast)
            del nopast, withpast
            gc.collect()
            tie_output(merged)
            set_embedding(merged, e, False)
            save(merged, os.path.join(onnx_dir, "decoder_model_merged.onnx"))
    finally:
        shutil.rmtree(tmp)
    print(f"done in {time.time() - t0:.0f}s")
    for root, _, files in os.walk(out):
        for fn in sorted(files):
            p = os.path.join(root, fn)
            print(f"{os.path.getsize(p):>14,d}  {os.path.relpath(p, out)}")


if __name__ == "__main__":
    main()
