#!/usr/bin/env python3
"""PyTorch CPU peer of the whole-model benchmark (scripts/bench-model-peer.sh, `make bench-model-peer`): the
same Oryx-TG models, weights and shapes as bench/modelpeer, run through the PyTorch reference implementation
that `oryx export` writes (modeling_oryx.py, loaded from each export directory) with its chunked linear mixers
(linear_impl = "chunked": the WY form with one triangular solve per chunk for GDN, as fla's reference does),
float32, torch.set_num_threads(THREADS).

Rows (KIND:PRESET:SHAPE, as bench/modelpeer):
  train:PRESET:BxT   one optimizer step: forward, cross-entropy on the next token, backward,
                     clip_grad_norm_(1.0), AdamW (lr 1e-3, betas 0.9/0.95, eps 1e-8, weight decay 0.1);
                     block-random modes (blocks of T/4 tokens, p = 0.5)
  prefill:PRESET:T   one T-token prompt in attention mode, the memories kept (the linear state is computed too),
                     the logits of its last token
  decode:PRESET:L    one attention-mode step after L cached tokens (the cache filled with random keys, values and
                     states: its contents do not change the cost), the linear readout by its token loop (the
                     chunked form would pad one token to a chunk). modeling_oryx.py grows its KV cache with
                     torch.cat, as transformers' DynamicCache does, so a step also copies the cache.

Output: one JSON object per line (impl "torch"): peak_gflops (a 4096³ float32 matmul, best of 4), then per row
tok_s (train, prefill; decode: 1 / seconds per token), ms_per_token (decode), the fastest of REPS timed
repetitions after a warm-up.

  python3 scripts/peer_model.py --exports DIR [--rows ...] [--reps 3] [--decode-steps 8] [--threads 2]
"""

import argparse
import json
import math
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_mixers import blas_library  # noqa: E402 (the mixer peer's check of the BLAS torch loaded)

ATTENTION, LINEAR = 1, 0


def emit(obj):
    print(json.dumps(obj), flush=True)


def load(exports, preset):
    d = os.path.join(exports, preset, "export")
    if d not in sys.path:
        sys.path.insert(0, d)
    import modeling_oryx  # noqa: E402 (each preset's export ships the same file)

    model = modeling_oryx.OryxLM.from_export(d, dtype=torch.float32)
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    model.linear_impl = "chunked"
    model.chunk = cfg["oryx_config"]["chunk"]
    return model


def block_random(b, t, block, p, rng):
    rows = []
    for _ in range(b):
        row = []
        for start in range(0, t, block):
            m = ATTENTION if rng.random() < p else LINEAR
            row += [m] * min(block, t - start)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.long)


def peak_gflops(n=4096):
    a = torch.randn(n, n)
    torch.matmul(a, a)
    best = math.inf
    for _ in range(4):
        start = time.perf_counter()
        torch.matmul(a, a)
        best = min(best, time.perf_counter() - start)
    return 2 * n ** 3 / best / 1e9


def train_row(model, b, t, reps):
    rng = random.Random(1)
    gen = torch.Generator().manual_seed(1)
    seqs = torch.randint(0, 256, (b, t + 1), generator=gen)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
    best = math.inf
    for i in range(reps + 1):
        modes = block_random(b, t, max(t // 4, 1), 0.5, rng)
        start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        logits = model.logits(seqs[:, :t], modes)
        loss = torch.nn.functional.cross_entropy(logits.reshape(b * t, -1), seqs[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if i > 0:
            best = min(best, time.perf_counter() - start)
    return best


@torch.no_grad()
def prefill_row(model, t, reps):
    gen = torch.Generator().manual_seed(3)
    ids = torch.randint(0, 256, (1, t), generator=gen)
    modes = torch.full((1, t), ATTENTION, dtype=torch.long)
    best = math.inf
    for i in range(reps + 1):
        start = time.perf_counter()
        cache = model.new_cache(1, keep=True)
        h = model.hidden(ids, modes, cache)
        torch.matmul(h[:, -1], model.head_weight().t())
        if i > 0:
            best = min(best, time.perf_counter() - start)
    return best


def filled_cache(model, length):
    """A cache after `length` tokens: random keys, values, conv inputs and states (the step's cost does not
    depend on them)."""
    cache = model.new_cache(1, keep=True)
    gen = torch.Generator().manual_seed(5)
    for layer in cache.layers:
        for key in ("k", "v"):
            shape = list(layer[key].shape)
            shape[1] = length
            layer[key] = 0.1 * torch.randn(shape, generator=gen)
        for key in ("conv_k", "conv_v", "state"):
            layer[key] = 0.1 * torch.randn(layer[key].shape, generator=gen)
    cache.length = length
    return cache


@torch.no_grad()
def decode_row(model, length, reps, steps):
    best = math.inf
    mode = torch.full((1, 1), ATTENTION, dtype=torch.long)
    for i in range(reps + 1):
        cache = filled_cache(model, length)
        n = 1 if i == 0 else steps
        start = time.perf_counter()
        for j in range(n):
            h = model.hidden(torch.tensor([[j % 256]]), mode, cache)
            torch.matmul(h[:, -1], model.head_weight().t())
        if i > 0:
            best = min(best, (time.perf_counter() - start) / n)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exports", required=True, help="the directory bench/modelpeer wrote (PRESET/export)")
    ap.add_argument("--rows", default="train:tiny:32x128,train:small:16x256,prefill:small:2048,prefill:small:8192,"
                                      "decode:small:256,decode:small:4096,decode:small:16384,"
                                      "train:130m:4x512,prefill:130m:2048,decode:130m:256,decode:130m:4096,"
                                      "decode:130m:16384")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--decode-steps", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--any-blas", action="store_true", help="run even when torch does not use OpenBLAS")
    a = ap.parse_args()
    if a.reps < 1 or a.decode_steps < 1 or a.threads < 1:
        ap.error("--reps, --decode-steps and --threads must be ≥ 1")
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    blas = blas_library()
    if not any("openblas" in x for x in blas) and not a.any_blas:
        sys.exit(f"peer_model.py: torch uses {blas or 'no BLAS found in /proc/self/maps'}, not OpenBLAS: "
                 "`apt-get install libopenblas0-pthread`, or pass --any-blas")
    emit({"impl": "torch", "backend": f"torch {torch.__version__}, {a.threads} threads, "
          f"{os.path.basename(blas[0]) if blas else 'BLAS ?'}", "peak_gflops": peak_gflops()})
    models = {}
    for spec in a.rows.split(","):
        kind, preset, shape = spec.strip().split(":")
        if preset not in models:
            models[preset] = load(a.exports, preset)
        model = models[preset]
        out = {"impl": "torch", "row": f"{kind}:{preset}:{shape}"}
        if kind == "train":
            b, t = (int(x) for x in shape.split("x"))
            out["tok_s"] = b * t / train_row(model, b, t, a.reps)
        elif kind == "prefill":
            out["tok_s"] = int(shape) / prefill_row(model, int(shape), a.reps)
        elif kind == "decode":
            model.linear_impl = "loop"  # one token: the recurrence itself (the chunked form pads it to a chunk)
            sec = decode_row(model, int(shape), a.reps, a.decode_steps)
            model.linear_impl = "chunked"
            out["ms_per_token"], out["tok_s"] = sec * 1e3, 1 / sec
        else:
            sys.exit(f"peer_model.py: unknown row kind {kind!r}")
        emit(out)


if __name__ == "__main__":
    main()
