# modeling_oryx.py: the PyTorch reference implementation of an `oryx export` (github.com/oryx-go/oryx).
#
# `oryx export` writes this file beside model.safetensors and config.json. It needs torch only (1.13 or
# 2.x); when transformers is importable it also defines a PreTrainedModel wrapper, so that
#
#     AutoModelForCausalLM.from_pretrained(EXPORT_DIR, trust_remote_code=True)
#
# loads the export (config.json's auto_map points here). Without transformers:
#
#     import sys; sys.path.insert(0, EXPORT_DIR)
#     from modeling_oryx import OryxLM
#     model = OryxLM.from_export(EXPORT_DIR, dtype=torch.float64)
#     logits = model(input_ids, modes=modes)            # [B, T, vocab]; modes [B, T]: 1 attention, 0 linear
#     tokens = model.generate_greedy(input_ids, 32)     # the cached recurrent/KV decoding
#
# or from a shell: python3 EXPORT_DIR/modeling_oryx.py EXPORT_DIR --ids 1,2,3 --max-new-tokens 16.
#
# One block (B batch, T tokens, H heads, K key dim, V value dim per head):
#
#     x  = RMSNorm(h)                                       attn_norm, eps rms_norm_eps
#     k  = act(conv_k(k_proj(x))), v = act(conv_v(v_proj(x)))    the shared keys and values: causal
#                                                           depthwise conv of width conv_size on K and V only,
#                                                           act = conv_activation; every token writes (k, v)
#                                                           to BOTH memories, the KV cache and the linear state
#     o_A = softmax(attention_scale · RoPE(q_A)·RoPE(k)) v  q_A = q_proj(x); attention reads the raw post-conv
#                                                           key (no L2 norm); RoPE on the attention path only
#     o_L = the linear readout with q_L = (linear_)q_proj(x)
#           Mamba-2: Δ = softplus(dt_proj(x) + dt_bias), S ← exp(−Δ·exp(A_log)) S + k (Δ·v)ᵀ,
#                    o_L = Sᵀ q_L + D·v                     no d_k^−1/2 scale; D multiplies the post-conv v
#           GDN:     g = −exp(A_log)·softplus(a_proj(x) + dt_bias), β = σ(b_proj(x)), k̂, q̂ L2-normalised,
#                    S ← exp(g)(I − β k̂ k̂ᵀ) S + β k̂ vᵀ,  o_L = d_k^−1/2 · Sᵀ q̂
#     o  = o_A where the token's mode is attention (1), else o_L (0); the same mode in every layer
#     h += o_proj(RMSNorm(o)·o_norm ⊙ silu(g_proj(x)))      the norm per head (or full width), eps
#                                                           output_norm_eps, before the gate
#     h += down(silu(gate(x')) ⊙ up(x')), x' = RMSNorm(h)   mlp_norm
#
# then the final RMSNorm and the LM head (the embeddings when tie_word_embeddings). Every one of these
# choices is a key of config.json, and OryxSpec refuses a config that asks for anything else.
#
# This file is a readable reference, not a fast one: attention is vectorised over the sequence, the linear
# mixers run token by token (the recurrence itself; `linear_impl="chunked"` gives the chunked forms, equal
# to it in float64 to rounding). It computes in the dtype of its weights (float32 or float64).

import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn

ATTENTION, LINEAR = 1, 0

_SAFETENSORS_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


# ------------------------------------------------------------------------------------------------ config


class OryxSpec:
    """The architecture read from config.json. Every key that states a semantic choice is checked against
    what this file implements, so that a hand-edited or foreign config fails here instead of computing
    something else."""

    def __init__(self, cfg):
        def need(key, *allowed):
            if key not in cfg:
                raise ValueError(f"config.json: missing key {key!r}")
            v = cfg[key]
            if allowed and v not in allowed:
                raise ValueError(f"config.json: {key} is {v!r}; modeling_oryx.py implements {allowed}")
            return v

        need("oryx_export_format", 2)
        self.variant = need("oryx_variant", "transformer", "mamba2", "gdn", "oryx-tm", "oryx-tg")
        need("hidden_act", "silu")
        self.vocab_size = need("vocab_size")
        self.hidden_size = need("hidden_size")
        self.num_layers = need("num_hidden_layers")
        self.intermediate_size = need("intermediate_size")
        self.tie_word_embeddings = need("tie_word_embeddings")
        self.eps = need("rms_norm_eps")
        self.heads = need("num_heads")
        self.key_dim = need("key_head_dim")
        self.value_dim = need("value_head_dim")
        readouts = need("readouts")
        if readouts not in (["attention"], ["linear"], ["attention", "linear"]):
            raise ValueError(f"config.json: readouts {readouts!r}")
        self.has_attention = "attention" in readouts
        self.default_mode = {"attention": ATTENTION, "linear": LINEAR}[need("default_mode", *readouts)]

        self.conv_size = need("conv_size") if need("use_short_conv", True, False) else 0
        self.conv_activation = need("conv_activation", "silu", "none")
        need("conv_inputs", ["key", "value"] if self.conv_size else [])
        if not self.conv_size and self.conv_activation != "none":
            raise ValueError("config.json: conv_activation without a conv")

        self.rope_theta = None
        if self.has_attention:
            self.attention_scale = need("attention_scale")
            need("attention_key", "post_conv")
            if need("position_encoding", "rope", "none") == "rope":
                self.rope_theta = float(need("rope_theta"))
                need("rope_inputs", ["attention_query", "attention_key"])
            else:
                need("rope_theta", None)
                need("rope_inputs", [])
        else:
            need("position_encoding", "none")
            need("rope_theta", None)

        self.linear_mixer = need("linear_mixer", "mamba2", "gated_deltanet") if "linear" in readouts else None
        if self.linear_mixer == "mamba2":
            need("linear_query", "raw")
            need("linear_key", "post_conv")
            need("linear_write", "dt_times_post_conv_value")
            need("d_skip_value", "post_conv_value")
            self.linear_scale = need("linear_readout_scale")
        elif self.linear_mixer == "gated_deltanet":
            need("linear_query", "l2_normalized")
            need("linear_key", "post_conv_l2_normalized")
            need("linear_write", "gated_delta_rule")
            self.l2_eps = need("l2_norm_eps")
            self.linear_scale = need("linear_readout_scale")
        self.multi_mixer = self.has_attention and self.linear_mixer is not None
        self.output_norm_full = need("output_norm", "per_head", "full_width") == "full_width"
        self.output_norm_eps = need("output_norm_eps")
        need("output_gate", "norm_then_silu_gate")


# ------------------------------------------------------------------------------------------------ layers


def softplus(x):
    """log(1 + exp(x)) as max(x, 0) + log1p(exp(−|x|)): exact for every x (torch's F.softplus returns x
    itself above 20)."""
    return torch.clamp(x, min=0) + torch.log1p(torch.exp(-x.abs()))


def silu(x):
    return x * torch.sigmoid(x)


def rms_norm(x, weight, eps):
    """x / sqrt(mean(x²) + eps) · weight over the last axis."""
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def l2_normalize(x, eps):
    """x / sqrt(Σ x² + eps) over the last axis."""
    return x / torch.sqrt(x.pow(2).sum(-1, keepdim=True) + eps)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return rms_norm(x, self.weight, self.eps)


def rope(x, positions, theta):
    """Rotary embedding, rotate-half pairs (x_i, x_{i+D/2}) by p·θ_i with θ_i = theta^(−2i/D): x [B, T, H, D],
    positions [T] (absolute). The angles are computed in float64 for float64 x, else in float32."""
    d = x.shape[-1]
    half = d // 2
    angle_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    inv_freq = torch.tensor([math.pow(theta, -2.0 * i / d) for i in range(half)], dtype=torch.float64)
    angles = positions.to(angle_dtype)[:, None] * inv_freq.to(angle_dtype)[None, :]  # [T, D/2]
    cos = torch.cos(angles).to(x.dtype)[None, :, None, :]
    sin = torch.sin(angles).to(x.dtype)[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def causal_conv(x, weight, state):
    """Depthwise causal conv over time: y_t[e] = Σ_j weight[e, 0, j] · x_{t−W+1+j}[e], x [B, T, E], weight
    [E, 1, W] (torch's Conv1d layout), state [B, W−1, E] the inputs before x (zeros at the start). Returns y
    and the new state."""
    w = weight.shape[-1]
    xp = torch.cat([state, x], dim=1)
    t = x.shape[1]
    y = sum(weight[:, 0, j] * xp[:, j:j + t] for j in range(w))
    return y, xp[:, xp.shape[1] - (w - 1):]


def causal_attention(q, k, v, positions, key_positions, scale):
    """Softmax attention, query at absolute position p reads keys at positions ≤ p. q [B, T, H, K], k [B, S,
    H, K], v [B, S, H, V] → [B, T, H, V]."""
    logits = torch.einsum("bthk,bshk->bhts", q, k) * scale
    mask = key_positions[None, :] > positions[:, None]  # [T, S]
    logits = logits.masked_fill(mask, float("-inf"))
    p = torch.softmax(logits, dim=-1)
    return torch.einsum("bhts,bshv->bthv", p, v)


def ssd_loop(q, k, v, log_decay, state):
    """Mamba-2's scalar-decay recurrence token by token: S_t = exp(g_t) S_{t−1} + k_t v_tᵀ, o_t = S_tᵀ q_t.
    q, k [B, T, H, K], v [B, T, H, V], log_decay [B, T, H], state [B, H, K, V] → o [B, T, H, V], state."""
    outs = []
    for t in range(q.shape[1]):
        state = torch.exp(log_decay[:, t])[..., None, None] * state + torch.einsum("bhk,bhv->bhkv", k[:, t], v[:, t])
        outs.append(torch.einsum("bhkv,bhk->bhv", state, q[:, t]))
    return torch.stack(outs, dim=1), state


def gated_delta_loop(q, k, v, log_decay, beta, state, scale):
    """The gated delta rule token by token: S_t = exp(g_t)(I − β_t k_t k_tᵀ) S_{t−1} + β_t k_t v_tᵀ,
    o_t = scale · S_tᵀ q_t (q, k already L2-normalised)."""
    outs = []
    for t in range(q.shape[1]):
        decayed = torch.exp(log_decay[:, t])[..., None, None] * state
        u = beta[:, t, :, None] * (v[:, t] - torch.einsum("bhkv,bhk->bhv", decayed, k[:, t]))
        state = decayed + torch.einsum("bhk,bhv->bhkv", k[:, t], u)
        outs.append(torch.einsum("bhkv,bhk->bhv", state, q[:, t]) * scale)
    return torch.stack(outs, dim=1), state


def _chunks(x, c):
    """[B, T, H, ...] → [B, H, N, C, ...] zero-padded to N·C tokens (padded tokens are identity steps: zero
    log decay, zero write)."""
    b, t = x.shape[:2]
    n = (t + c - 1) // c
    pad = n * c - t
    if pad:
        x = torch.cat([x, x.new_zeros((b, pad) + tuple(x.shape[2:]))], dim=1)
    x = x.reshape((b, n, c) + tuple(x.shape[2:]))
    return x.permute((0, 3, 1, 2) + tuple(range(4, x.dim()))), t


def _unchunk(x, t):
    b, h, n, c, d = x.shape
    return x.permute(0, 2, 3, 1, 4).reshape(b, n * c, h, d)[:, :t]


def _decay_matrix(cum, strict):
    """Γ_ij = exp(b_i − b_j) for j ≤ i (j < i when strict), else 0."""
    c = cum.shape[-1]
    keep = torch.ones(c, c, dtype=torch.bool, device=cum.device).tril(-1 if strict else 0)
    diff = cum[..., :, None] - cum[..., None, :]
    return torch.exp(diff.masked_fill(~keep, float("-inf")))


def ssd_chunked(q, k, v, log_decay, state, chunk):
    """ssd_loop in chunks: within a chunk O = ((Q Kᵀ) ⊙ Γ) V + (Q ⊙ γ) S₀, across chunks S ← exp(b_C) S₀ + U."""
    (qc, t), (kc, _), (vc, _) = _chunks(q, chunk), _chunks(k, chunk), _chunks(v, chunk)
    cum = torch.cumsum(_chunks(log_decay, chunk)[0], dim=-1)  # [B, H, N, C]
    outs = []
    for i in range(qc.shape[2]):
        b_i, q_i, k_i, v_i = cum[:, :, i], qc[:, :, i], kc[:, :, i], vc[:, :, i]
        o = torch.matmul(torch.matmul(q_i, k_i.transpose(-1, -2)) * _decay_matrix(b_i, False), v_i)
        o = o + torch.matmul(q_i * torch.exp(b_i)[..., None], state)
        k_end = k_i * torch.exp(b_i[..., -1:] - b_i)[..., None]
        state = torch.exp(b_i[..., -1])[..., None, None] * state + torch.matmul(k_end.transpose(-1, -2), v_i)
        outs.append(o)
    return _unchunk(torch.stack(outs, dim=2), t), state


def gated_delta_chunked(q, k, v, log_decay, beta, state, scale, chunk):
    """gated_delta_loop in chunks (the WY/UT form): T = (I + A)⁻¹ with A = (diag(β) K Kᵀ) ⊙ Γ⁻,
    W = T (K ⊙ βγ), Ũ = T (V ⊙ β), U = Ũ − W S₀, O = scale·[(Q ⊙ γ) S₀ + ((Q Kᵀ) ⊙ Γ) U]."""
    (qc, t), (kc, _), (vc, _) = _chunks(q, chunk), _chunks(k, chunk), _chunks(v, chunk)
    bc = _chunks(beta, chunk)[0]
    cum = torch.cumsum(_chunks(log_decay, chunk)[0], dim=-1)
    eye = torch.eye(chunk, dtype=q.dtype, device=q.device)
    outs = []
    for i in range(qc.shape[2]):
        b_i, q_i, k_i, v_i, beta_i = cum[:, :, i], qc[:, :, i], kc[:, :, i], vc[:, :, i], bc[:, :, i]
        gamma = torch.exp(b_i)
        a = torch.matmul(k_i, k_i.transpose(-1, -2)) * _decay_matrix(b_i, True) * beta_i[..., None]
        rhs = torch.cat([k_i * (beta_i * gamma)[..., None], v_i * beta_i[..., None]], dim=-1)
        sol = torch.linalg.solve_triangular(a + eye, rhs, upper=False, unitriangular=True)
        w, u_tilde = sol[..., :k_i.shape[-1]], sol[..., k_i.shape[-1]:]
        u = u_tilde - torch.matmul(w, state)
        o = torch.matmul(q_i * gamma[..., None], state)
        o = o + torch.matmul(torch.matmul(q_i, k_i.transpose(-1, -2)) * _decay_matrix(b_i, False), u)
        k_end = k_i * torch.exp(b_i[..., -1:] - b_i)[..., None]
        state = torch.exp(b_i[..., -1])[..., None, None] * state + torch.matmul(k_end.transpose(-1, -2), u)
        outs.append(o * scale)
    return _unchunk(torch.stack(outs, dim=2), t), state


# ------------------------------------------------------------------------------------------------ model


class OryxMixer(nn.Module):
    """The shared K/V/G/O projections and both readouts of one layer ("attn" in the tensor names). q_proj is
    the attention query where the variant has attention, else the linear query; the multi-mixer variants
    have both (linear_q_proj)."""

    def __init__(self, spec):
        super().__init__()
        self.spec = spec
        d, h, dk, dv = spec.hidden_size, spec.heads, spec.key_dim, spec.value_dim
        lin = lambda n_in, n_out: nn.Linear(n_in, n_out, bias=False)  # noqa: E731
        self.q_proj = lin(d, h * dk)
        if spec.multi_mixer:
            self.linear_q_proj = lin(d, h * dk)
        self.k_proj, self.v_proj = lin(d, h * dk), lin(d, h * dv)
        if spec.conv_size:
            self.k_conv1d = nn.Conv1d(h * dk, h * dk, spec.conv_size, groups=h * dk, bias=False)
            self.v_conv1d = nn.Conv1d(h * dv, h * dv, spec.conv_size, groups=h * dv, bias=False)
        if spec.linear_mixer == "mamba2":
            self.dt_proj = lin(d, h)
            self.D = nn.Parameter(torch.ones(h))
        elif spec.linear_mixer == "gated_deltanet":
            self.a_proj, self.b_proj = lin(d, h), lin(d, h)
        if spec.linear_mixer:
            self.dt_bias = nn.Parameter(torch.zeros(h))
            self.A_log = nn.Parameter(torch.zeros(h))
        self.g_proj = lin(d, h * dv)
        self.o_norm = RMSNorm(h * dv if spec.output_norm_full else dv, spec.output_norm_eps)
        self.o_proj = lin(h * dv, d)

    def _shared(self, proj, conv, state):
        if conv is None:
            return proj, state
        y, state = causal_conv(proj, conv.weight, state)
        if self.spec.conv_activation == "silu":
            y = silu(y)
        return y, state

    def forward(self, x, modes, positions, cache, linear_impl, chunk):
        """x [B, T, D] (the normed input), modes [B, T] (1 attention, 0 linear), positions [T] absolute,
        cache the layer's memory (updated in place) → the mixer output [B, T, D]."""
        s = self.spec
        b, t, _ = x.shape
        h, dk, dv = s.heads, s.key_dim, s.value_dim
        k, cache["conv_k"] = self._shared(self.k_proj(x), getattr(self, "k_conv1d", None), cache["conv_k"])
        v, cache["conv_v"] = self._shared(self.v_proj(x), getattr(self, "v_conv1d", None), cache["conv_v"])
        k, v = k.view(b, t, h, dk), v.view(b, t, h, dv)

        o_lin = o_att = None
        # The linear memory is kept up to date whenever it may be read: a token in linear mode now, or a later
        # call continuing from this cache (an all-attention forward on a throwaway cache skips it).
        if s.linear_mixer and (not s.has_attention or cache["keep"] or bool((modes == LINEAR).any())):
            q = (self.linear_q_proj if s.multi_mixer else self.q_proj)(x).view(b, t, h, dk)
            a = torch.exp(self.A_log)
            if s.linear_mixer == "mamba2":
                dt = softplus(self.dt_proj(x) + self.dt_bias)  # Δ [B, T, H]
                args = (q, k, v * dt[..., None], -dt * a, cache["state"])
                o_lin, cache["state"] = ssd_loop(*args) if linear_impl == "loop" else ssd_chunked(*args, chunk)
                o_lin = o_lin * s.linear_scale + self.D[:, None] * v
            else:
                g = -a * softplus(self.a_proj(x) + self.dt_bias)
                beta = torch.sigmoid(self.b_proj(x))
                args = (l2_normalize(q, s.l2_eps), l2_normalize(k, s.l2_eps), v, g, beta, cache["state"], s.linear_scale)
                if linear_impl == "loop":
                    o_lin, cache["state"] = gated_delta_loop(*args)
                else:
                    o_lin, cache["state"] = gated_delta_chunked(*args, chunk)
        if s.has_attention:
            k_att = rope(k, positions, s.rope_theta) if s.rope_theta is not None else k
            cache["k"] = torch.cat([cache["k"], k_att], dim=1)
            cache["v"] = torch.cat([cache["v"], v], dim=1)
            if o_lin is None or bool((modes == ATTENTION).any()):
                q = self.q_proj(x).view(b, t, h, dk)
                if s.rope_theta is not None:
                    q = rope(q, positions, s.rope_theta)
                key_positions = torch.arange(cache["k"].shape[1], device=x.device)
                o_att = causal_attention(q, cache["k"], cache["v"], positions, key_positions, s.attention_scale)
        if o_att is None:
            o = o_lin
        elif o_lin is None:
            o = o_att
        else:
            o = torch.where((modes == ATTENTION)[:, :, None, None], o_att, o_lin)

        gate = silu(self.g_proj(x))
        if s.output_norm_full:
            y = self.o_norm(o.reshape(b, t, h * dv)) * gate
        else:
            y = self.o_norm(o).reshape(b, t, h * dv) * gate
        return self.o_proj(y)


class OryxMLP(nn.Module):
    def __init__(self, spec):
        super().__init__()
        d, f = spec.hidden_size, spec.intermediate_size
        self.gate_proj = nn.Linear(d, f, bias=False)
        self.up_proj = nn.Linear(d, f, bias=False)
        self.down_proj = nn.Linear(f, d, bias=False)

    def forward(self, x):
        return self.down_proj(silu(self.gate_proj(x)) * self.up_proj(x))


class OryxBlock(nn.Module):
    def __init__(self, spec):
        super().__init__()
        self.attn_norm = RMSNorm(spec.hidden_size, spec.eps)
        self.attn = OryxMixer(spec)
        self.mlp_norm = RMSNorm(spec.hidden_size, spec.eps)
        self.mlp = OryxMLP(spec)

    def forward(self, h, modes, positions, cache, linear_impl, chunk):
        h = h + self.attn(self.attn_norm(h), modes, positions, cache, linear_impl, chunk)
        return h + self.mlp(self.mlp_norm(h))


class OryxModel(nn.Module):
    """The backbone ("model." in the tensor names): embeddings, the blocks, the final norm."""

    def __init__(self, spec):
        super().__init__()
        self.spec = spec
        self.embeddings = nn.Embedding(spec.vocab_size, spec.hidden_size)
        self.layers = nn.ModuleList(OryxBlock(spec) for _ in range(spec.num_layers))
        self.norm = RMSNorm(spec.hidden_size, spec.eps)

    def forward(self, input_ids, modes, cache, linear_impl, chunk):
        positions = torch.arange(cache.length, cache.length + input_ids.shape[1], device=input_ids.device)
        h = self.embeddings(input_ids)
        for block, layer_cache in zip(self.layers, cache.layers):
            h = block(h, modes, positions, layer_cache, linear_impl, chunk)
        cache.length += input_ids.shape[1]
        return self.norm(h)


class OryxCache:
    """What the model remembers after a prefix, per layer: the KV cache (keys after RoPE), the conv inputs
    of the last conv_size − 1 tokens, the linear state [B, H, K, V]; and the prefix length."""

    def __init__(self, spec, batch, dtype, device=None, keep=True):
        h, dk, dv, w = spec.heads, spec.key_dim, spec.value_dim, max(spec.conv_size - 1, 0)
        z = lambda *shape: torch.zeros(shape, dtype=dtype, device=device)  # noqa: E731
        self.length = 0
        # keep: every memory is kept up to date for later calls (False: a one-off forward, whose unread
        # linear state need not be computed).
        self.layers = [{"k": z(batch, 0, h, dk), "v": z(batch, 0, h, dv), "conv_k": z(batch, w, h * dk),
                        "conv_v": z(batch, w, h * dv), "state": z(batch, h, dk, dv), "keep": keep}
                       for _ in range(spec.num_layers)]


class OryxLMMixin:
    """The causal-LM API shared by the torch-only OryxLM and the transformers OryxForCausalLM. The class
    has self.model (OryxModel), self.lm_head (absent with tied embeddings) and self.spec."""

    linear_impl = "loop"  # or "chunked"
    chunk = 64

    def head_weight(self):
        return self.model.embeddings.weight if self.spec.tie_word_embeddings else self.lm_head.weight

    def new_cache(self, batch, keep=True):
        w = self.model.embeddings.weight
        return OryxCache(self.spec, batch, w.dtype, w.device, keep)

    def _modes(self, input_ids, modes):
        if modes is None:
            return torch.full(input_ids.shape, self.spec.default_mode, dtype=torch.long, device=input_ids.device)
        modes = torch.as_tensor(modes, dtype=torch.long, device=input_ids.device)
        if modes.dim() == 1:
            modes = modes[None, :].expand(input_ids.shape[0], -1)
        if modes.shape != input_ids.shape:
            raise ValueError(f"modes must be [B, T] like input_ids {tuple(input_ids.shape)}, got {tuple(modes.shape)}")
        if not self.spec.multi_mixer and bool((modes != self.spec.default_mode).any()):
            raise ValueError(f"{self.spec.variant} has only the {['linear', 'attention'][self.spec.default_mode]} readout")
        return modes

    def hidden(self, input_ids, modes=None, cache=None):
        """The final hidden states [B, T, D] (after the final norm) of input_ids [B, T] continued from cache
        (None: from the start; the cache is updated in place)."""
        input_ids = torch.as_tensor(input_ids, dtype=torch.long)
        if cache is None:
            cache = self.new_cache(input_ids.shape[0], keep=False)
        return self.model(input_ids, self._modes(input_ids, modes), cache, self.linear_impl, self.chunk)

    def logits(self, input_ids, modes=None, cache=None):
        """Logits [B, T, vocab] of input_ids [B, T]; modes [B, T] or [T] (1 attention, 0 linear; default: the
        config's default_mode), cache as in hidden."""
        return torch.matmul(self.hidden(input_ids, modes, cache), self.head_weight().t())

    @torch.no_grad()
    def generate_greedy(self, input_ids, max_new_tokens, modes=None, stop=()):
        """Greedy continuation of input_ids [B, T]: a prefill, then one cached step per token. modes, when
        given, is [T + max_new_tokens − 1] or [B, ...]: the mode of every position fed to the model (the
        prompt, then each generated token but the last). A row stops after a token in stop. Returns the new
        tokens per row (lists)."""
        input_ids = torch.as_tensor(input_ids, dtype=torch.long)
        b, t = input_ids.shape
        if modes is not None:
            modes = torch.as_tensor(modes, dtype=torch.long)
            if modes.dim() == 1:
                modes = modes[None, :].expand(b, -1)
        mode_at = lambda lo, hi: None if modes is None else modes[:, lo:hi]  # noqa: E731
        cache = self.new_cache(b)
        logits = self.logits(input_ids, mode_at(0, t), cache)[:, -1]
        out = [[] for _ in range(b)]
        done = [False] * b
        for i in range(max_new_tokens):
            nxt = torch.argmax(logits, dim=-1)
            for r in range(b):
                if not done[r]:
                    out[r].append(int(nxt[r]))
                    done[r] = int(nxt[r]) in stop
            if all(done) or i == max_new_tokens - 1:
                break
            logits = self.logits(nxt[:, None], mode_at(t + i, t + i + 1), cache)[:, -1]
        return out


def _read_safetensors(path):
    """Every tensor of a safetensors file by name, read with torch only."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        begin, end = e["data_offsets"]
        raw = bytearray(body[begin:end])
        t = torch.frombuffer(raw, dtype=_SAFETENSORS_DTYPES[e["dtype"]]) if raw else torch.empty(0, dtype=_SAFETENSORS_DTYPES[e["dtype"]])
        if sys.byteorder != "little":
            raise RuntimeError("modeling_oryx.py reads safetensors on little-endian machines only")
        out[name] = t.reshape(e["shape"])
    return out


class OryxLM(OryxLMMixin, nn.Module):
    """The torch-only model. OryxLM.from_export(dir, dtype) reads config.json and model.safetensors."""

    def __init__(self, config):
        super().__init__()
        self.spec = config if isinstance(config, OryxSpec) else OryxSpec(config)
        self.model = OryxModel(self.spec)
        if not self.spec.tie_word_embeddings:
            self.lm_head = nn.Linear(self.spec.hidden_size, self.spec.vocab_size, bias=False)

    def forward(self, input_ids, modes=None, cache=None):
        return self.logits(input_ids, modes, cache)

    @classmethod
    def from_export(cls, export_dir, dtype=torch.float32):
        with open(os.path.join(export_dir, "config.json"), encoding="utf-8") as f:
            model = cls(json.load(f)).to(dtype)  # first: load_state_dict copies into the parameters' dtype
        state = _read_safetensors(os.path.join(export_dir, "model.safetensors"))
        model.load_state_dict({k: v.to(dtype) for k, v in state.items()}, strict=True)
        return model.eval()


try:  # the transformers wrapper, when transformers is importable
    from transformers import PretrainedConfig, PreTrainedModel
    from transformers.modeling_outputs import CausalLMOutput
except ImportError:  # torch only
    PretrainedConfig = PreTrainedModel = None

if PreTrainedModel is not None:

    class OryxConfig(PretrainedConfig):
        """config.json as a transformers config: every key is kept as an attribute (OryxSpec reads them)."""

        model_type = "oryx"

    class OryxTransformerConfig(OryxConfig):
        model_type = "oryx_transformer"

    class OryxMamba2Config(OryxConfig):
        model_type = "oryx_mamba2"

    class OryxGDNConfig(OryxConfig):
        model_type = "oryx_gdn"

    class OryxTMConfig(OryxConfig):
        model_type = "oryx_tm"

    class OryxTGConfig(OryxConfig):
        model_type = "oryx_tg"

    class OryxForCausalLM(OryxLMMixin, PreTrainedModel):
        """OryxLM as a transformers model: forward(input_ids, modes=None, labels=None) → CausalLMOutput."""

        config_class = OryxConfig
        base_model_prefix = "model"
        _no_split_modules = ["OryxBlock"]

        def __init__(self, config):
            super().__init__(config)
            self.spec = OryxSpec(config.to_dict())
            self.model = OryxModel(self.spec)
            if not self.spec.tie_word_embeddings:
                self.lm_head = nn.Linear(self.spec.hidden_size, self.spec.vocab_size, bias=False)
            self.post_init()

        def _init_weights(self, module):
            pass  # every weight comes from model.safetensors

        def get_input_embeddings(self):
            return self.model.embeddings

        def forward(self, input_ids, modes=None, labels=None, **kwargs):
            logits = self.logits(input_ids, modes)
            loss = None
            if labels is not None:
                loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(),
                                                   labels[:, 1:].reshape(-1))
            return CausalLMOutput(loss=loss, logits=logits)
else:
    OryxForCausalLM = OryxLM


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description="Greedy continuation of token ids with an oryx export.")
    p.add_argument("export_dir")
    p.add_argument("--ids", required=True, help="comma-separated prompt token ids")
    p.add_argument("--max-new-tokens", type=int, default=16)
    p.add_argument("--mode", choices=["attention", "linear"], help="every token's mode (default: the config's)")
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    a = p.parse_args(argv)
    model = OryxLM.from_export(a.export_dir, getattr(torch, a.dtype))
    ids = torch.tensor([[int(x) for x in a.ids.split(",")]])
    modes = None
    if a.mode:
        modes = torch.full((ids.shape[1] + a.max_new_tokens - 1,), {"attention": ATTENTION, "linear": LINEAR}[a.mode])
    print(",".join(str(x) for x in model.generate_greedy(ids, a.max_new_tokens, modes)[0]))


if __name__ == "__main__":
    main()
