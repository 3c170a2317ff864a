#!/usr/bin/env python3
"""PyTorch CPU peer of the mixer-core benchmarks (layers/bench_test.go), as described in
docs/mixers.md §10: float32, torch.set_num_threads(2), B = 4, H = 4, head dims 64, chunk 64,
mixer cores only (no projections).

Algorithms (the same math as layers/, written with torch ops):
  attention[sdpa]      torch 1.13's F._scaled_dot_product_attention(is_causal=True) (its math path on CPU)
  attention[explicit]  masked softmax(scale·QKᵀ)·V, dense T×T
  gdn[blocks,loop]     chunked WY form, T = (I + A)⁻¹ by blockwise doubling on batched s×s blocks
                       (docs/mixers.md §5, method 4), inter-chunk state by an unrolled Python loop
  gdn[trsm,loop]       the same with one LAPACK triangular solve (I + A)[W | Ũ] = [K⊙βγ | V⊙β]
  ssd[loop]            chunked scalar decay, inter-chunk state by an unrolled loop
  ssd[dense]           the same with the loop-free dense chunk-segsum (an (N+1)×(N+1) matrix)

Inputs and outputs use the Go benchmark's layout ([B, T, H, D], g and β [B, T, H]) and distributions
(q, k ~ 0.125·N(0,1), v ~ N(0,1), g ~ U(−0.1, −0.001), β ~ U(0.1, 0.9)). "fwd" runs under torch.no_grad();
"fwd+bwd" is the forward pass plus autograd gradients of every input (q, k, v for attention; + g for SSD;
+ g, β for GDN) of loss = Σ out ⊙ w, as the Go benchmark does.

Before timing, every chunked form is checked in float64 against a naive token-by-token recurrence (and
attention against a per-row softmax loop) at a small T that needs padding; the script exits non-zero when
one disagrees by more than 1e-10 relative to max|ref|.

Output: one JSON object per line on standard output (mixer, variant, T, pass, ms = fastest repetition,
tok_s = B·T / ms, cpu_ms = the least process CPU time (all threads) of a repetition, reps, peak_rss_mb = peak resident memory above the level before the first call, from
VmHWM after resetting it through /proc/self/clear_refs).

  python3 scripts/peer_mixers.py [--T 512,1024,2048] [--reps 5] [--only ssd,gdn,attention] [--check-only]
"""

import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

B, H, D, CHUNK = 4, 4, 64, 64


# ---------------------------------------------------------------------------------------------- layout

def to_chunks(x, c):
    """[B, T, H, D] -> [B, H, N, C, D], zero-padded to N·C tokens (padded tokens are identity steps)."""
    b, t, h, d = x.shape
    n = (t + c - 1) // c
    if n * c != t:
        x = F.pad(x, (0, 0, 0, 0, 0, n * c - t))
    return x.reshape(b, n, c, h, d).permute(0, 3, 1, 2, 4)


def scalars_to_chunks(x, c):
    """[B, T, H] -> [B, H, N, C], zero-padded."""
    b, t, h = x.shape
    n = (t + c - 1) // c
    if n * c != t:
        x = F.pad(x, (0, 0, 0, n * c - t))
    return x.reshape(b, n, c, h).permute(0, 3, 1, 2)


def from_chunks(x, t):
    """[B, H, N, C, D] -> [B, T, H, D]."""
    b, h, n, c, d = x.shape
    return x.permute(0, 2, 3, 1, 4).reshape(b, n * c, h, d)[:, :t]


def decay_mask(cum, strict):
    """Γ_ij = exp(b_i − b_j) for j ≤ i (j < i when strict), else 0; the exponent is masked before exp."""
    c = cum.shape[-1]
    diff = cum.unsqueeze(-1) - cum.unsqueeze(-2)
    keep = torch.ones(c, c, dtype=torch.bool).tril(-1 if strict else 0)
    return torch.exp(diff.masked_fill(~keep, -math.inf))


# ---------------------------------------------------------------------------------------------- attention

def attention_sdpa(q, k, v, scale):
    # torch 1.13: _scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, need_attn_weights, is_causal)
    # scales by 1/sqrt(D) itself, which is our scale.
    qh, kh, vh = (x.transpose(1, 2) for x in (q, k, v))  # [B, H, T, D]
    out, _ = F._scaled_dot_product_attention(qh, kh, vh, None, 0.0, False, True)
    return out.transpose(1, 2)


def attention_explicit(q, k, v, scale):
    qh, kh, vh = (x.transpose(1, 2) for x in (q, k, v))
    t = q.shape[1]
    logits = torch.matmul(qh, kh.transpose(-1, -2)) * scale
    mask = torch.ones(t, t, dtype=torch.bool).triu(1)
    p = torch.softmax(logits.masked_fill(mask, -math.inf), dim=-1)
    return torch.matmul(p, vh).transpose(1, 2)


# ---------------------------------------------------------------------------------------------- SSD

def ssd(q, k, v, g, inter, c=CHUNK):
    t = q.shape[1]
    c = min(c, t)
    qc, kc, vc = to_chunks(q, c), to_chunks(k, c), to_chunks(v, c)  # [B, H, N, C, D]
    cum = torch.cumsum(scalars_to_chunks(g, c), dim=-1)  # b: [B, H, N, C]
    last = cum[..., -1]  # b_C: [B, H, N]
    out = torch.matmul(torch.matmul(qc, kc.transpose(-1, -2)) * decay_mask(cum, False), vc)
    k_end = kc * torch.exp(last.unsqueeze(-1) - cum).unsqueeze(-1)
    contrib = torch.matmul(k_end.transpose(-1, -2), vc)  # U_n: [B, H, N, K, V]
    b, h, n, dk, dv = contrib.shape
    if inter == "loop":
        decay = torch.exp(last)
        state = contrib.new_zeros(b, h, dk, dv)
        states = []
        for i in range(n):
            states.append(state)
            state = decay[:, :, i, None, None] * state + contrib[:, :, i]
        entering = torch.stack(states, dim=2)
    elif inter == "dense":
        # Z = [S_init, U_0, …, U_{N−1}], G̃ = cumsum([0, G_0, …]); S_z = Σ_{z' ≤ z} exp(G̃_z − G̃_z') Z_z'.
        z = torch.cat([contrib.new_zeros(b, h, 1, dk, dv), contrib], dim=2).reshape(b, h, n + 1, dk * dv)
        gt = torch.cumsum(F.pad(last, (1, 0)), dim=-1)  # [B, H, N+1]
        seg = decay_mask(gt, False)  # [B, H, N+1, N+1]
        entering = torch.matmul(seg, z)[:, :, :n].reshape(b, h, n, dk, dv)
    else:
        raise ValueError(inter)
    out = out + torch.matmul(qc * torch.exp(cum).unsqueeze(-1), entering)
    return from_chunks(out, t)


# ---------------------------------------------------------------------------------------------- GDN

def unit_lower_inverse(a):
    """(I + A)⁻¹ for strictly lower-triangular A [..., C, C], C a power of two: blockwise doubling on batched
    s×s diagonal blocks, inv([[L11, 0], [L21, L22]]) = [[X11, 0], [−X22 L21 X11, X22]] (docs/mixers.md §5, method 4)."""
    *lead, c, _ = a.shape
    if c & (c - 1):
        raise ValueError(f"chunk {c} is not a power of two")
    m = a.reshape(-1, c, c)
    bsz = m.shape[0]
    x = m.new_ones(bsz, c, 1, 1)  # [M, blocks, s, s]
    s = 1
    while s < c:
        pairs = c // (2 * s)
        xp = x.reshape(bsz, pairs, 2, s, s)
        x11, x22 = xp[:, :, 0], xp[:, :, 1]
        # L21 of pair p: rows of s-block 2p+1, columns of s-block 2p.
        ab = m.reshape(bsz, pairs, 2, s, pairs, 2, s)[:, :, 1, :, :, 0, :]  # [M, p, s, q, s]
        idx = torch.arange(pairs)
        l21 = ab[:, idx, :, idx, :].permute(1, 0, 2, 3)  # diagonal p = q: [M, pairs, s, s]
        lower = -torch.matmul(torch.matmul(x22, l21), x11)
        top = torch.cat([x11, torch.zeros_like(x11)], dim=-1)
        bottom = torch.cat([lower, x22], dim=-1)
        x = torch.cat([top, bottom], dim=-2)  # [M, pairs, 2s, 2s]
        s *= 2
    return x.reshape(*lead, c, c)


def gdn(q, k, v, g, beta, solve, scale, c=CHUNK):
    t = q.shape[1]
    c = min(c, t)
    qc, kc, vc = to_chunks(q, c), to_chunks(k, c), to_chunks(v, c)
    bc = scalars_to_chunks(beta, c)
    cum = torch.cumsum(scalars_to_chunks(g, c), dim=-1)
    last = cum[..., -1]
    gamma = torch.exp(cum)
    decay = decay_mask(cum, False)
    strict = decay_mask(cum, True)
    a = torch.matmul(kc, kc.transpose(-1, -2)) * strict * bc.unsqueeze(-1)  # β_i (k_i·k_j) Γ_ij, j < i
    kb = kc * (bc * gamma).unsqueeze(-1)
    vb = vc * bc.unsqueeze(-1)
    if solve == "blocks":
        tinv = unit_lower_inverse(a)
        w, ut = torch.matmul(tinv, kb), torch.matmul(tinv, vb)
    elif solve == "trsm":
        eye = torch.eye(c, dtype=a.dtype)
        rhs = torch.cat([kb, vb], dim=-1)
        sol = torch.linalg.solve_triangular(a + eye, rhs, upper=False, unitriangular=True)
        w, ut = sol[..., : kc.shape[-1]], sol[..., kc.shape[-1]:]
    else:
        raise ValueError(solve)
    k_end = kc * torch.exp(last.unsqueeze(-1) - cum).unsqueeze(-1)
    qk = torch.matmul(qc, kc.transpose(-1, -2)) * decay
    b, h, n, _, dk = kc.shape
    dv = vc.shape[-1]
    edecay = torch.exp(last)
    state = qc.new_zeros(b, h, dk, dv)
    states, values = [], []
    for i in range(n):  # U_n = Ũ_n − W_n S_n;  S_{n+1} = exp(G_n) S_n + K̂_nᵀ U_n
        states.append(state)
        u = ut[:, :, i] - torch.matmul(w[:, :, i], state)
        values.append(u)
        state = edecay[:, :, i, None, None] * state + torch.matmul(k_end[:, :, i].transpose(-1, -2), u)
    entering, u = torch.stack(states, dim=2), torch.stack(values, dim=2)
    out = torch.matmul(qc * gamma.unsqueeze(-1), entering) + torch.matmul(qk, u)
    return from_chunks(out * scale, t)


# ---------------------------------------------------------------------------------------------- references

def naive_ssd(q, k, v, g):
    b, t, h, dk = q.shape
    s = q.new_zeros(b, h, dk, v.shape[-1])
    outs = []
    for i in range(t):
        s = torch.exp(g[:, i])[..., None, None] * s + k[:, i, :, :, None] * v[:, i, :, None, :]
        outs.append(torch.einsum("bhkv,bhk->bhv", s, q[:, i]))
    return torch.stack(outs, dim=1)


def naive_gdn(q, k, v, g, beta, scale):
    b, t, h, dk = q.shape
    s = q.new_zeros(b, h, dk, v.shape[-1])
    outs = []
    for i in range(t):
        s = torch.exp(g[:, i])[..., None, None] * s
        u = beta[:, i, :, None] * (v[:, i] - torch.einsum("bhkv,bhk->bhv", s, k[:, i]))
        s = s + k[:, i, :, :, None] * u[:, :, None, :]
        outs.append(scale * torch.einsum("bhkv,bhk->bhv", s, q[:, i]))
    return torch.stack(outs, dim=1)


def naive_attention(q, k, v, scale):
    t = q.shape[1]
    outs = []
    for i in range(t):
        logits = torch.einsum("bhk,bshk->bhs", q[:, i], k[:, : i + 1]) * scale
        outs.append(torch.einsum("bhs,bshv->bhv", torch.softmax(logits, dim=-1), v[:, : i + 1]))
    return torch.stack(outs, dim=1)


# ---------------------------------------------------------------------------------------------- benchmark

def inputs(t, dtype=torch.float32, seed=1):
    gen = torch.Generator().manual_seed(seed)
    vec = lambda s: torch.randn(B, t, H, D, generator=gen, dtype=dtype) * s
    sca = lambda lo, hi: lo + (hi - lo) * torch.rand(B, t, H, generator=gen, dtype=dtype)
    return vec(0.125), vec(0.125), vec(1.0), sca(-0.1, -0.001), sca(0.1, 0.9), vec(1.0)


def variants():
    scale = 1 / math.sqrt(D)
    return [
        ("attention", "sdpa", 3, lambda q, k, v, g, bt: attention_sdpa(q, k, v, scale)),
        ("attention", "explicit", 3, lambda q, k, v, g, bt: attention_explicit(q, k, v, scale)),
        ("ssd", "loop", 4, lambda q, k, v, g, bt: ssd(q, k, v, g, "loop")),
        ("ssd", "dense", 4, lambda q, k, v, g, bt: ssd(q, k, v, g, "dense")),
        ("gdn", "blocks,loop", 5, lambda q, k, v, g, bt: gdn(q, k, v, g, bt, "blocks", scale)),
        ("gdn", "trsm,loop", 5, lambda q, k, v, g, bt: gdn(q, k, v, g, bt, "trsm", scale)),
    ]


def check(only):
    """Every variant against its naive recurrence in float64, T = 150 (three chunks, the last padded)."""
    t, worst = 150, 0.0
    q, k, v, g, beta, _ = inputs(t, torch.float64, seed=7)
    k = k / k.norm(dim=-1, keepdim=True)  # GDN's contract: unit keys
    scale = 1 / math.sqrt(D)
    refs = {
        "attention": naive_attention(q, k, v, scale),
        "ssd": naive_ssd(q, k, v, g),
        "gdn": naive_gdn(q, k, v, g, beta, scale),
    }
    ok = True
    for mixer, variant, _, fn in variants():
        if mixer not in only:
            continue
        got, ref = fn(q, k, v, g, beta), refs[mixer]
        err = ((got - ref).abs().max() / ref.abs().max()).item()
        worst = max(worst, err)
        good = err <= 1e-10
        ok &= good
        print(f"check {mixer}[{variant}] T={t} float64: max|diff|/max|ref| = {err:.2e} {'ok' if good else 'FAIL'}",
              file=sys.stderr)
    return ok


def rss_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak():
    """Resets VmHWM to the current RSS (Linux ≥ 4.0); False where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def bench(mixer, variant, nin, fn, t, backward, reps):
    ins = inputs(t)
    args, w = list(ins[:5]), ins[5]
    grad_of = args[:nin]  # attention: q, k, v; SSD: + g; GDN: + β

    def step():
        if not backward:
            with torch.no_grad():
                fn(*args)
            return
        xs = [a.detach().requires_grad_(True) for a in grad_of]
        full = xs + args[len(xs):]
        loss = (fn(*full) * w).sum()
        torch.autograd.grad(loss, xs)

    base = rss_kb("VmRSS")
    can_peak = reset_peak()
    step()  # warm-up (allocator, OpenBLAS threads)
    times, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        step()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    best = min(times)
    peak = (rss_kb("VmHWM") - base) / 1024 if can_peak else None
    return {
        "impl": "peer", "mixer": mixer, "variant": variant, "T": t, "pass": "fwd+bwd" if backward else "fwd",
        "ms": best * 1e3, "tok_s": B * t / best, "cpu_ms": min(cpu) * 1e3, "reps": reps, "peak_rss_mb": peak,
    }


def blas_library():
    """The BLAS shared library this process actually loaded (Debian picks it through update-alternatives)."""
    torch.mm(torch.ones(8, 8), torch.ones(8, 8))
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    return sorted(os.path.realpath(x) for x in libs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--T", default="512,1024,2048", help="comma-separated sequence lengths")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per row (the fastest is reported)")
    ap.add_argument("--only", default="attention,ssd,gdn", help="comma-separated mixers")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads (the peer uses 2)")
    ap.add_argument("--any-blas", action="store_true", help="run even when torch does not use OpenBLAS")
    ap.add_argument("--no-check", action="store_true", help="skip the float64 checks (already run)")
    ap.add_argument("--check-only", action="store_true", help="run the float64 checks and stop")
    a = ap.parse_args()
    try:
        ts = [int(x) for x in a.T.split(",")]
    except ValueError:
        ap.error(f"--T {a.T!r}: want comma-separated integers")
    only = set(a.only.split(","))
    if not only <= {"attention", "ssd", "gdn"} or a.reps < 1 or any(t < 1 for t in ts):
        ap.error(f"--only {a.only!r} must name attention, ssd, gdn; --reps and --T must be positive")
    torch.set_num_threads(a.threads)
    blas = blas_library()
    print(f"peer: torch {torch.__version__}, {torch.get_num_threads()} threads, BLAS {blas}", file=sys.stderr)
    if not any("openblas" in x for x in blas) and not a.any_blas:
        sys.exit("peer_mixers.py: torch is not running on OpenBLAS (the peer's setup, docs/mixers.md §10) but on "
                 f"{blas}: `apt-get install libopenblas0-pthread` (Debian switches libblas.so.3 to it), "
                 "or pass --any-blas")
    if not a.no_check and not check(only):
        sys.exit("peer_mixers.py: a chunked form disagrees with its naive recurrence (see above)")
    if a.check_only:
        return
    for t in ts:
        for mixer, variant, nin, fn in variants():
            if mixer not in only:
                continue
            for backward in (False, True):
                print(json.dumps(bench(mixer, variant, nin, fn, t, backward, a.reps)), flush=True)


if __name__ == "__main__":
    main()
