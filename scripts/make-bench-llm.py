#!/usr/bin/python3
"""Write a RANDOM-weight decoder-only model with Qwen3-0.6B's dimensions in the optimum / transformers.js layout, for
speed benchmarks only (never commit its output; ~5 GB with fp32, ~2.2 GB without).

usage: /usr/bin/python3 scripts/make-bench-llm.py [OUT_DIR] [--seed 0] [--no-fp32] [--accuracy-level 4]
       (default OUT_DIR: ../bench-models/bench-llm-0.6b beside the repository)

Needs only Debian's python3-torch, python3-onnx and python3-numpy (no transformers, no onnxruntime).

Model: qwen3 as scripts/fixtures/llm.py writes it (RMSNorm, rotary embeddings with base 1,000,000, an RMSNorm over
each query and key head, SwiGLU, grouped-query attention, the output projection tied to the embedding): hidden 1024,
28 layers, 16 query heads over 8 key/value heads of 128, feed-forward 3072, vocabulary 151,936.

Files (onnx/), each graph the one torch exports (llm.export_optimum, as the fixtures' llm_export.py):
  model.onnx (+ model.onnx_data: fp32 passes protobuf's 2 GB), the embedding for the input and its transpose for the
    output projection, as torch's constant folding stores a tied head;
  model_quantized.onnx: dynamic int8 (scripts/fixtures/onnx_int8.py: every weight MatMul, the output projection too;
    the embedding stays fp32);
  model_q4.onnx: int4 MatMulNBits, block 32, asymmetric (scripts/fixtures/onnx_int4.py), over the same MatMuls,
    accuracy_level 4 by default (onnxruntime's int8-compute CPU kernel; --accuracy-level 0 for the float one).
Memory: torch exports the graph with a 320-row vocabulary (its structure does not depend on it) and the 151,936-row
table is written into the file afterwards, so torch never holds it.

Tokenizer: tiny-qwen3-mt's pieces keep their ids 0..999, the special tokens sit at Qwen3's ids (<|endoftext|>
151643, <|im_start|> 151644, <|im_end|> 151645) and every other id up to 151,935 is a filler piece
"<bench_filler_N>" (score -100, never chosen for real text). Real text therefore tokenizes as with tiny-qwen3-mt, the
chat template and dragoman.json are that fixture's, and every id the model can emit decodes. Outputs are gibberish:
it is a speed fixture, not a translator.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import onnx
import torch
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))
import llm  # noqa: E402
from onnx_int4 import quantize_matmuls  # noqa: E402
from onnx_int8 import quantize_int8  # noqa: E402

REPO = os.path.dirname(HERE)
TINY = os.path.join(REPO, "test", "fixtures", "models", "tiny-qwen3-mt")
VOCAB, EXPORT_VOCAB = 151936, 320
ENDOFTEXT, IM_START, IM_END = 151643, 151644, 151645
CONFIG = dict(
    architectures=["Qwen3ForCausalLM"], model_type="qwen3", hidden_size=1024, intermediate_size=3072,
    num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128, hidden_act="silu",
    max_position_embeddings=40960, rms_norm_eps=1e-6, rope_theta=1000000.0, rope_scaling=None, sliding_window=None,
    use_sliding_window=False, max_window_layers=28, tie_word_embeddings=True, attention_bias=False,
    attention_dropout=0.0, initializer_range=0.02, use_cache=True, torch_dtype="float32", vocab_size=VOCAB,
    bos_token_id=None, eos_token_id=IM_END, pad_token_id=ENDOFTEXT, transformers_version="4.57.0")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def dump(obj, path, indent=2):
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":"))
        fh.write("\n")


def weight_bytes(model):
    return sum(len(t.raw_data) for t in model.graph.initializer)


def save(model, path):
    """One file under 2 GB of weights (protobuf's limit), else the weights as external data beside it."""
    if weight_bytes(model) < 2 ** 31 - 2 ** 26:
        onnx.save(model, path)
    else:
        name = os.path.basename(path) + "_data"
        if os.path.exists(path + "_data"):
            os.remove(path + "_data")
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=name,
                        size_threshold=1024)
    size = os.path.getsize(path) + (os.path.getsize(path + "_data") if os.path.exists(path + "_data") else 0)
    log(f"wrote {path} ({size / 2 ** 20:.0f} MB)")


def set_initializer(model, name, array):
    for i, t in enumerate(model.graph.initializer):
        if t.name == name:
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(array, name))
            return
    raise KeyError(name)


def widen_vocabulary(model, seed):
    """The exported graph's 320-row embedding and its folded transpose (the tied head) become 151,936 rows."""
    inits = {t.name: t for t in model.graph.initializer}
    emb = [n.input[0] for n in model.graph.node if n.op_type == "Gather" and n.input[0] in inits
           and list(inits[n.input[0]].dims) == [EXPORT_VOCAB, CONFIG["hidden_size"]]]
    head = [n.input[1] for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in inits
            and list(inits[n.input[1]].dims) == [CONFIG["hidden_size"], EXPORT_VOCAB]]
    assert len(emb) == 1 and len(head) == 1, (emb, head)
    table = np.random.default_rng(seed).standard_normal((VOCAB, CONFIG["hidden_size"]), dtype=np.float32)
    table *= CONFIG["initializer_range"]
    set_initializer(model, emb[0], table)
    set_initializer(model, head[0], np.ascontiguousarray(table.T))
    # the graph's declared logits width; shapes inferred at 320 rows go
    del model.graph.value_info[:]
    for o in model.graph.output:
        if o.name == "logits":
            o.type.tensor_type.shape.dim[2].dim_value = VOCAB


def write_tokenizer(out):
    t = json.load(open(os.path.join(TINY, "tokenizer.json"), encoding="utf-8"))
    vocab = t["model"]["vocab"]
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    assert [p for p, _ in vocab[-3:]] == specials and len(vocab) == 1003, "tiny-qwen3-mt's layout changed"
    at = {ENDOFTEXT: specials[0], IM_START: specials[1], IM_END: specials[2]}
    wide = vocab[:1000] + [[at[i], 0.0] if i in at else [f"<bench_filler_{i}>", -100.0] for i in range(1000, VOCAB)]
    old_to_new = {1000: ENDOFTEXT, 1001: IM_START, 1002: IM_END}
    for a in t["added_tokens"]:
        a["id"] = old_to_new.get(a["id"], a["id"])
    t["model"]["vocab"] = wide
    dump(t, os.path.join(out, "tokenizer.json"), indent=None)
    config = json.load(open(os.path.join(TINY, "tokenizer_config.json"), encoding="utf-8"))
    config["model_max_length"] = CONFIG["max_position_embeddings"]
    dump(config, os.path.join(out, "tokenizer_config.json"))
    for f in ("special_tokens_map.json", "dragoman.json"):
        shutil.copy(os.path.join(TINY, f), os.path.join(out, f))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=os.path.join(REPO, "..", "bench-models", "bench-llm-0.6b"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-fp32", action="store_true", help="write only the int8 and int4 graphs")
    ap.add_argument("--accuracy-level", type=int, default=4, help="MatMulNBits' accuracy_level (0, 1, 2, 3 or 4)")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    onnx_dir = os.path.join(out, "onnx")
    os.makedirs(onnx_dir, exist_ok=True)
    torch.manual_seed(args.seed)

    dump(CONFIG, os.path.join(out, "config.json"))
    dump({"bos_token_id": ENDOFTEXT, "eos_token_id": [IM_END, ENDOFTEXT], "pad_token_id": ENDOFTEXT,
          "do_sample": False, "transformers_version": "4.57.0"}, os.path.join(out, "generation_config.json"))
    write_tokenizer(out)
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as fh:
        fh.write("# bench-llm-0.6b: random weights with Qwen3-0.6B's dimensions (speed benchmark only)\n\n"
                 "Written by `scripts/make-bench-llm.py` (see its header). Its answers are gibberish; "
                 "`npm run bench -- --llm <this folder>` measures it.\n")

    tmp = tempfile.mkdtemp(prefix="bench-llm-", dir=out)
    try:
        log("export (torch, vocabulary 320)")
        model = llm.CausalLM(dict(CONFIG, vocab_size=EXPORT_VOCAB)).eval()
        small = os.path.join(tmp, "model.onnx")
        llm.export_optimum(model, CONFIG, small)
        del model
        m = onnx.load(small)
        widen_vocabulary(m, args.seed)
        fp32 = os.path.join(onnx_dir if not args.no_fp32 else tmp, "model.onnx")
        save(m, fp32)
        del m
        log("int8")
        save(quantize_int8(onnx.load(fp32)), os.path.join(onnx_dir, "model_quantized.onnx"))
        log(f"int4 (accuracy_level {args.accuracy_level})")
        save(quantize_matmuls(onnx.load(fp32), args.accuracy_level), os.path.join(onnx_dir, "model_q4.onnx"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log(f"done: {out}")


if __name__ == "__main__":
    main()
