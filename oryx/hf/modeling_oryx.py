# modeling_oryx.py: the PyTorch reference implementation of an `oryx export` (github.com/oryx-go/oryx).
#
# `oryx export` writes this file beside model.safetensors and config.json. It needs torch only (1.13 or
# 2.x); when transformers is importable it also defines PreTrainedModel wrappers, one per variant, so that
#
#     model = AutoModelForCausalLM.from_pretrained(EXPORT_DIR_OR_REPO_ID, trust_remote_code=True)
#     out = model.generate(input_ids, attention_mask=mask, max_new_tokens=32)    # greedy, or do_sample=True
#
# works (config.json's auto_map points here; left padding through attention_mask is honoured; the cache is
# this file's OryxCache), and save_pretrained writes what `oryx import` reads. Without transformers:
#
#     import sys; sys.path.insert(0, EXPORT_DIR)
#     from modeling_oryx import OryxLM
#     model = OryxLM.from_export(EXPORT_DIR, dtype=torch.float64)
#     logits = model(input_ids, modes=modes)            # [B, T, vocab]; modes [B, T]: 1 attention, 0 linear
#     tokens = model.generate_greedy(input_ids, 32)     # the cached recurrent/KV decoding
#
# or from a shell: python3 EXPORT_DIR/modeling_oryx.py EXPORT_DIR --ids 1,2,3 --max-new-tokens 16. `oryx compare`
# runs it with --compare GO_LOGITS.json: the Go model's logits against this file's (compare()).
#
# One block (B batch, T tokens, H heads, K key dim, V value dim per head):
#
#     x  = RMSNorm(h)                                       attn_norm, eps rms_norm_eps
#     k  = act(conv_k(k_proj(x))), v = act(conv_v(v_proj(x)))    the shared keys and values: causal
#                                                           depthwise conv of width conv_size on K and V only,
#                                                           act = conv_activation; every token writes (k, v)
#                                                           to BOTH memories, the KV cache and the linear
#                                                           state (memory_writes "all_memories")
#     o_A = softmax(attention_scale · RoPE(q_A)·RoPE(k_A)) v   q_A = q_proj(x); k_A per attention_key: the
#                                                           post-conv k, or k_proj(x) ("projection…"), each
#                                                           L2-normalised for "…_l2_normalized"; RoPE
#                                                           (rotate-half pairs) on the attention path only
#     o_L = the linear readout with q_L = (linear_)q_proj(x)
#           Mamba-2: Δ = softplus(dt_proj(x) + dt_bias), S ← exp(−Δ·exp(A_log)) S + k (Δ·v)ᵀ,
#                    o_L = Sᵀ q_L + D·v                     no d_k^−1/2 scale; D multiplies the post-conv v
#           GDN:     g = −exp(A_log)·softplus(a_proj(x) + dt_bias), β = σ(b_proj(x)), k̂, q̂ L2-normalised,
#                    S ← exp(g)(I − β k̂ k̂ᵀ) S + β k̂ vᵀ,  o_L = d_k^−1/2 · Sᵀ q̂
#     o  = o_A where the token's mode is attention (1), else o_L (0); the same mode in every layer
#                                                           (mode_scope "per_token_all_layers")
#     h += o_proj(RMSNorm(o)·o_norm ⊙ silu(g_proj(x)))      the norm per head (or full width), eps
#                                                           output_norm_eps, before the gate
#     h += down(silu(gate(x')) ⊙ up(x')), x' = RMSNorm(h)   mlp_norm
#
# then the final RMSNorm and the LM head (the embeddings when tie_word_embeddings). Every one of these
# choices is a key of config.json, and check_config refuses a config.json that is not exactly what `oryx
# export` writes for its oryx_config — as `oryx import` does —, and read_safetensors a weights file whose
# tensors overlap or leave the data section.
#
# This file is a readable reference, not a fast one: attention is vectorised over the sequence, the linear
# mixers run token by token (the recurrence itself; `linear_impl="chunked"` gives the chunked forms, equal
# to it in float64 to rounding). It computes in the dtype of its weights (float32 or float64).

import json
import math
import os
import stat
import struct
import sys

import torch
import torch.nn as nn

ATTENTION, LINEAR = 1, 0

_SAFETENSORS_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


# ------------------------------------------------------------------------------------------------ config

EXPORT_FORMAT = 3  # config.json's oryx_export_format this file reads (oryx/hf/config.go FormatVersion)

# Keys transformers adds to a config.json it writes (save_pretrained): ignored, and only they.
TRANSFORMERS_KEYS = ("_name_or_path", "transformers_version")

TORCH_DTYPES = ("float32", "float64", "bfloat16", "float16")

# The special-token ids of the export's tokenizer (oryx/hf TokenIDKeys): each absent or an id of the vocabulary.
TOKEN_ID_KEYS = ("bos_token_id", "eos_token_id", "pad_token_id")
TOKENIZER_CLASS = "PreTrainedTokenizerFast"

L2_NORM_EPS = 1e-6  # every L2 norm of the model (the GDN readout's query and key, attention_key "…_l2_normalized")

# oryx_config variant → (its linear mixer, whether it has attention, the transformers class prefix, model_type).
_VARIANTS = {
    "transformer": ("", True, "Transformer", "oryx_transformer"),
    "mamba2": ("mamba2", False, "Mamba2", "oryx_mamba2"),
    "gdn": ("gdn", False, "GDN", "oryx_gdn"),
    "oryx-tm": ("mamba2", True, "TM", "oryx_tm"),
    "oryx-tg": ("gdn", True, "TG", "oryx_tg"),
}

# oryx_config's fields (the JSON names of the Go oryx.Config), and the optional ones with their values (absent:
# the default "").
ORYX_CONFIG_FIELDS = ("variant", "linear_mixer", "vocab", "d_model", "layers", "heads", "key_dim", "value_dim",
                      "mlp_hidden", "conv_width", "conv_activation", "rope", "rope_base", "tied_embeddings", "norm_eps",
                      "output_norm", "chunk", "inter_chunk")
ORYX_CONFIG_OPTIONAL = {"attention_key_norm": ("", "l2"), "attention_key_source": ("", "projection")}

# The largest sizes `oryx import` takes (internal/guard; a Go test compares them): a mistyped d_model 1e12 or
# layers 1e8 is refused here, not left to allocate (or build for hours) before the weights are read.
SIZE_LIMITS = {"vocab": 1 << 22, "d_model": 1 << 15, "layers": 1 << 10, "heads": 1 << 10, "key_dim": 1 << 12,
               "value_dim": 1 << 12, "mlp_hidden": 1 << 18, "chunk": 1 << 14}
MAX_CONV_WIDTH = 1 << 6
MAX_PARAMS = 1 << 40

# attention_key for oryx_config's (attention_key_source, attention_key_norm).
_ATTENTION_KEYS = {("", ""): "post_conv", ("", "l2"): "post_conv_l2_normalized", ("projection", ""): "projection",
                   ("projection", "l2"): "projection_l2_normalized"}


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def check_oryx_config(oc):
    """oryx_config checked as `oryx import` checks it (oryx.Config.Validate): no unknown or missing field, every
    value one this file implements. Raises ValueError naming every problem."""
    if not isinstance(oc, dict):
        raise ValueError("config.json: oryx_config is not a JSON object")
    unknown = sorted(set(oc) - set(ORYX_CONFIG_FIELDS) - set(ORYX_CONFIG_OPTIONAL))
    if unknown:
        raise ValueError(f"config.json: oryx_config: unknown field(s) {', '.join(unknown)}")
    missing = [f for f in ORYX_CONFIG_FIELDS if f not in oc]
    if missing:
        raise ValueError(f"config.json: oryx_config: missing field(s) {', '.join(missing)}")
    problems = []

    def bad(field, msg):
        problems.append(f"config field {field}: {msg}")

    v = oc["variant"]
    if v not in _VARIANTS:
        bad("variant", f"unknown variant {v!r}: want one of {list(_VARIANTS)}")
    elif oc["linear_mixer"] != _VARIANTS[v][0]:
        bad("linear_mixer", f"{oc['linear_mixer']!r} does not match variant {v!r} (which uses {_VARIANTS[v][0]!r})")
    sane = True
    for f in ("vocab", "d_model", "layers", "heads", "key_dim", "value_dim", "mlp_hidden", "chunk"):
        if not _is_int(oc[f]) or oc[f] <= 0:
            bad(f, f"must be an integer > 0, got {oc[f]!r}")
            sane = False
        elif oc[f] > SIZE_LIMITS[f]:
            bad(f, f"{oc[f]} is above the supported maximum {SIZE_LIMITS[f]}")
            sane = False
    if not _is_int(oc["conv_width"]) or not 0 <= oc["conv_width"] <= MAX_CONV_WIDTH:
        bad("conv_width", f"must be an integer in [0, {MAX_CONV_WIDTH}], got {oc['conv_width']!r}")
        sane = False
    if oc["conv_activation"] not in ("silu", "none"):
        bad("conv_activation", f'must be "silu" or "none", got {oc["conv_activation"]!r}')
    for f in ("rope", "tied_embeddings"):
        if not isinstance(oc[f], bool):
            bad(f, f"must be true or false, got {oc[f]!r}")
    if not _is_number(oc["rope_base"]):
        bad("rope_base", f"must be a number, got {oc['rope_base']!r}")
    elif oc["rope"] is True and not oc["rope_base"] > 0:
        bad("rope_base", f"must be > 0 with rope, got {oc['rope_base']!r}")
    if oc["rope"] is True and _is_int(oc["key_dim"]) and oc["key_dim"] % 2:
        bad("key_dim", f"must be even with rope, got {oc['key_dim']}")
    if not (_is_number(oc["norm_eps"]) and oc["norm_eps"] > 0):
        bad("norm_eps", f"must be a number > 0, got {oc['norm_eps']!r}")
    if oc["output_norm"] not in ("head", "full"):
        bad("output_norm", f'must be "head" or "full", got {oc["output_norm"]!r}')
    if oc["inter_chunk"] not in ("auto", "loop", "scan"):
        bad("inter_chunk", f'must be "auto", "loop" or "scan", got {oc["inter_chunk"]!r}')
    for f, allowed in ORYX_CONFIG_OPTIONAL.items():
        if oc.get(f, "") not in allowed:
            bad(f, f"must be one of {allowed}, got {oc[f]!r}")
    if (oc.get("attention_key_norm") or oc.get("attention_key_source")) and v in _VARIANTS and not _VARIANTS[v][1]:
        bad("attention_key_norm", f"attention_key_norm and attention_key_source apply to variants with attention, not {v!r}")
    if sane and not problems and param_count(oc) > MAX_PARAMS:
        problems.append(f"{param_count(oc)} parameters is above the supported maximum {MAX_PARAMS}")
    if problems:
        raise ValueError("config.json: oryx_config: " + "; ".join(problems))


def param_count(oc):
    """The number of parameters of the model oryx_config oc (checked) describes: the twin of oryx.CountParams
    (a Go test compares the two, and each with the model this file builds)."""
    d, h, dk, dv = oc["d_model"], oc["heads"], oc["key_dim"], oc["value_dim"]
    f, w, vocab = oc["mlp_hidden"], oc["conv_width"], oc["vocab"]
    mixer, has_attention = _VARIANTS[oc["variant"]][:2]
    layer = d + d * h * dk + d * h * dv  # attn_norm, wk, wv
    layer += h * dk * w + h * dv * w  # conv_k, conv_v
    if has_attention:
        layer += d * h * dk  # wq_attn
    if mixer == "mamba2":
        layer += d * h * dk + d * h + 3 * h  # wq_linear, dt_proj, dt_bias, a_log, d_skip
    elif mixer == "gdn":
        layer += d * h * dk + 2 * d * h + 2 * h  # wq_linear, decay_proj, beta_proj, dt_bias, a_log
    layer += d * h * dv + (h * dv if oc["output_norm"] == "full" else dv) + h * dv * d  # wg, the output norm, wo
    layer += d + 3 * d * f  # mlp_norm, mlp_gate, mlp_up, mlp_down
    return vocab * d + oc["layers"] * layer + d + (0 if oc["tied_embeddings"] else d * vocab)


def expected_config(oc, torch_dtype):
    """config.json as `oryx export` writes it (format 3) for the oryx_config oc (checked) and weights of
    torch_dtype: the Python twin of NewConfig in oryx/hf/config.go (a Go test compares the two)."""
    mixer, has_attention, prefix, model_type = _VARIANTS[oc["variant"]]
    conv, key_dim = oc["conv_width"], oc["key_dim"]
    hc = {
        "architectures": [f"Oryx{prefix}ForCausalLM"],
        "auto_map": {"AutoConfig": f"modeling_oryx.Oryx{prefix}Config",
                     "AutoModelForCausalLM": f"modeling_oryx.Oryx{prefix}ForCausalLM"},
        "model_type": model_type, "oryx_export_format": EXPORT_FORMAT, "oryx_variant": oc["variant"],
        "torch_dtype": torch_dtype, "vocab_size": oc["vocab"], "hidden_size": oc["d_model"],
        "num_hidden_layers": oc["layers"], "intermediate_size": oc["mlp_hidden"], "hidden_act": "silu",
        "tie_word_embeddings": oc["tied_embeddings"], "rms_norm_eps": oc["norm_eps"], "readouts": [],
        "num_heads": oc["heads"], "key_head_dim": key_dim, "value_head_dim": oc["value_dim"],
        "use_short_conv": conv > 0, "conv_size": conv, "conv_activation": oc["conv_activation"] if conv else "none",
        "conv_inputs": ["key", "value"] if conv else [], "memory_writes": "all_memories",
        "mode_scope": "per_token_all_layers", "position_encoding": "none", "rope_theta": None, "rope_pairing": None,
        "rope_inputs": [], "output_norm": {"head": "per_head", "full": "full_width"}[oc["output_norm"]],
        "output_norm_eps": oc["norm_eps"], "output_gate": "norm_then_silu_gate",
        "oryx_config": {**{k: oc[k] for k in ORYX_CONFIG_FIELDS},
                        **{k: oc[k] for k in ORYX_CONFIG_OPTIONAL if oc.get(k, "") != ""}},  # Go's omitempty
    }
    if has_attention:
        hc["readouts"].append("attention")
        hc["num_attention_heads"] = oc["heads"]
        hc["attention_scale"] = 1 / math.sqrt(key_dim)
        hc["attention_key"] = _ATTENTION_KEYS[(oc.get("attention_key_source", ""), oc.get("attention_key_norm", ""))]
        if oc.get("attention_key_norm") == "l2":
            hc["l2_norm_eps"] = L2_NORM_EPS
        if oc["rope"]:
            hc.update(position_encoding="rope", rope_theta=float(oc["rope_base"]), rope_pairing="rotate_half",
                      rope_inputs=["attention_query", "attention_key"])
    if mixer == "mamba2":
        hc["readouts"].append("linear")
        hc.update(linear_mixer="mamba2", linear_query="raw", linear_key="post_conv", linear_readout_scale=1.0,
                  linear_write="dt_times_post_conv_value", d_skip_value="post_conv_value", state_size=key_dim)
    elif mixer == "gdn":
        hc["readouts"].append("linear")
        hc.update(linear_mixer="gated_deltanet", linear_query="l2_normalized", linear_key="post_conv_l2_normalized",
                  l2_norm_eps=L2_NORM_EPS, linear_readout_scale=1 / math.sqrt(key_dim), linear_write="gated_delta_rule")
    hc["default_mode"] = hc["readouts"][0]
    return hc


def _same(a, b):
    """JSON values equal as Go's reflect.DeepEqual sees decoded JSON: numbers by value, booleans apart from
    numbers (Python's True == 1 is not equality here)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _diff(prefix, got, want):
    """Every key of got that is unknown, missing or different from want, by its dotted path (oryx/hf/config.go
    diffJSON)."""
    out = []
    for k in sorted(set(got) | set(want)):
        path = prefix + k
        if k not in want:
            out.append(f'unknown key "{path}"')
        elif k not in got:
            out.append(f'missing key "{path}" (want {json.dumps(want[k])})')
        elif isinstance(got[k], dict) and isinstance(want[k], dict):
            out.extend(_diff(path + ".", got[k], want[k]))
        elif not _same(got[k], want[k]):
            out.append(f"{path} is {json.dumps(got[k])} but oryx_config implies {json.dumps(want[k])}")
    return out


# The keys of config.json that count something (oryx/hf/config.go integerKeys, format 3): a number with a fraction
# (320.0) is refused there, equal as a number to what oryx_config implies but not a size torch takes.
CONFIG_INT_KEYS = ("conv_size", "hidden_size", "intermediate_size", "key_head_dim", "num_attention_heads", "num_heads",
                   "num_hidden_layers", "oryx_export_format", "state_size", "value_head_dim", "vocab_size")


def check_config(cfg):
    """Refuses config.json unless it is exactly what `oryx export` writes for its oryx_config (the keys of
    TRANSFORMERS_KEYS aside), as `oryx import` does: an unknown, missing or disagreeing key, a foreign variant
    label, a value this file does not implement. Returns the config without the transformers keys."""
    if not isinstance(cfg, dict):
        raise ValueError("config.json: not a JSON object")
    cfg = {k: v for k, v in cfg.items() if k not in TRANSFORMERS_KEYS}
    if "oryx_config" not in cfg:
        raise ValueError('config.json: no "oryx_config" key: not an export of this project (oryx export writes it)')
    for k in CONFIG_INT_KEYS:
        if isinstance(cfg.get(k), float):
            raise ValueError(f"config.json: {k} is {json.dumps(cfg[k])}: want an integer")
    fmt = cfg.get("oryx_export_format")
    if not _same(fmt, EXPORT_FORMAT):
        raise ValueError(f"config.json: oryx_export_format {fmt!r}: this modeling_oryx.py reads format {EXPORT_FORMAT}; "
                         "import the export (`oryx import`) and export it again (`oryx export`)")
    check_oryx_config(cfg["oryx_config"])
    dtype = cfg.get("torch_dtype")
    if dtype not in TORCH_DTYPES:
        raise ValueError(f"config.json: torch_dtype {dtype!r}: want one of {', '.join(TORCH_DTYPES)}")
    want = expected_config(cfg["oryx_config"], dtype)
    problems = []
    for k in TOKEN_ID_KEYS:
        if k in cfg:
            v, vocab = cfg[k], cfg["oryx_config"]["vocab"]
            if _is_int(v) and 0 <= v < vocab:
                want[k] = v
            else:
                problems.append(f"{k} is {json.dumps(v)}: want an integer id in [0, {vocab}) (vocab_size)")
    if "tokenizer_class" in cfg:  # present with tokenizer.json (transformers' pipeline() reads it)
        if cfg["tokenizer_class"] == TOKENIZER_CLASS:
            want["tokenizer_class"] = TOKENIZER_CLASS
        else:
            problems.append(f"tokenizer_class is {json.dumps(cfg['tokenizer_class'])}: want \"{TOKENIZER_CLASS}\" or no such key")
    problems += _diff("", cfg, want)
    if problems:
        raise ValueError("config.json: " + "; ".join(problems) + " (the keys must be exactly what `oryx export` "
                         "writes for its oryx_config; edit oryx_config and re-export instead)")
    return cfg


def _refuse_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"key {k!r} appears twice")
        out[k] = v
    return out


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def regular_size(path):
    """The size of path, a regular file (after links), as the Go side opens its files (internal/safefile): a
    FIFO (which would block forever), a device (/dev/zero: read until memory runs out) or a directory is a
    ValueError naming the path, before anything is read."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path}: not a regular file")
    return st.st_size


def read_regular(path):
    """The bytes of path, a regular file (regular_size), no more than its size when it was opened."""
    size = regular_size(path)
    with open(path, "rb") as f:
        return f.read(size)


def read_json(path, data=None):
    """A JSON file read strictly, as the Go side reads it: a file that is not a regular one, a repeated key,
    NaN or Infinity, nesting deeper than Python's parser goes, or anything after the value is an error
    naming the file."""
    if data is None:
        data = read_regular(path)
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_refuse_duplicates, parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError(f"{path}: {e}") from None


class OryxSpec:
    """The architecture read from config.json, after check_config: every key compared with what oryx_config
    implies, so that a hand-edited or foreign config fails here instead of computing something else."""

    def __init__(self, cfg):
        cfg = check_config(cfg)
        self.params = param_count(cfg["oryx_config"])
        self.variant = cfg["oryx_variant"]
        self.torch_dtype = cfg["torch_dtype"]
        self.vocab_size = cfg["vocab_size"]
        self.hidden_size = cfg["hidden_size"]
        self.num_layers = cfg["num_hidden_layers"]
        self.intermediate_size = cfg["intermediate_size"]
        self.tie_word_embeddings = cfg["tie_word_embeddings"]
        self.eps = cfg["rms_norm_eps"]
        self.heads = cfg["num_heads"]
        self.key_dim = cfg["key_head_dim"]
        self.value_dim = cfg["value_head_dim"]
        readouts = cfg["readouts"]
        self.has_attention = "attention" in readouts
        self.default_mode = {"attention": ATTENTION, "linear": LINEAR}[cfg["default_mode"]]
        self.conv_size = cfg["conv_size"]
        self.conv_activation = cfg["conv_activation"]
        self.rope_theta = cfg["rope_theta"]
        self.attention_key_projection = self.attention_key_l2 = False
        if self.has_attention:
            self.attention_scale = cfg["attention_scale"]
            self.attention_key_projection = cfg["attention_key"].startswith("projection")
            self.attention_key_l2 = cfg["attention_key"].endswith("_l2_normalized")
        self.l2_eps = cfg.get("l2_norm_eps")
        self.linear_mixer = cfg.get("linear_mixer")
        self.linear_scale = cfg.get("linear_readout_scale")
        self.multi_mixer = self.has_attention and self.linear_mixer is not None
        self.output_norm_full = cfg["output_norm"] == "full_width"
        self.output_norm_eps = cfg["output_norm_eps"]


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
    positions [B, T] (absolute, per row). The angles are computed in float64 for float64 x, else in float32."""
    d = x.shape[-1]
    half = d // 2
    angle_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    inv_freq = torch.tensor([math.pow(theta, -2.0 * i / d) for i in range(half)], dtype=torch.float64)
    angles = positions.to(angle_dtype)[..., None] * inv_freq.to(angle_dtype).to(x.device)  # [B, T, D/2]
    cos = torch.cos(angles).to(x.dtype)[:, :, None, :]
    sin = torch.sin(angles).to(x.dtype)[:, :, None, :]
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


def causal_attention(q, k, v, allowed, scale):
    """Softmax attention over the keys each query may read. q [B, T, H, K], k [B, S, H, K], v [B, S, H, V],
    allowed [B, T, S] (True: query t reads key s; at least one per query) → [B, T, H, V]."""
    logits = torch.einsum("bthk,bshk->bhts", q, k) * scale
    logits = logits.masked_fill(~allowed[:, None], float("-inf"))
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

    def forward(self, x, modes, at, cache, linear_impl, chunk):
        """x [B, T, D] (the normed input), modes [B, T] (1 attention, 0 linear), at the tokens' places (Places),
        cache the layer's memory (updated in place) → the mixer output [B, T, D]."""
        s = self.spec
        b, t, _ = x.shape
        h, dk, dv = s.heads, s.key_dim, s.value_dim
        k_proj, v_proj = self.k_proj(x), self.v_proj(x)
        if at.real is not None:  # a left-padding token writes nothing: its conv inputs are the zeros before a sequence
            k_proj, v_proj = k_proj * at.real[..., None], v_proj * at.real[..., None]
        k, cache["conv_k"] = self._shared(k_proj, getattr(self, "k_conv1d", None), cache["conv_k"])
        v, cache["conv_v"] = self._shared(v_proj, getattr(self, "v_conv1d", None), cache["conv_v"])
        k, v = k.view(b, t, h, dk), v.view(b, t, h, dv)

        o_lin = o_att = None
        # The linear memory is kept up to date whenever it may be read: a token in linear mode now, or a later
        # call continuing from this cache (an all-attention forward on a throwaway cache skips it).
        if s.linear_mixer and (not s.has_attention or cache["keep"] or bool((modes == LINEAR).any())):
            q = (self.linear_q_proj if s.multi_mixer else self.q_proj)(x).view(b, t, h, dk)
            a = torch.exp(self.A_log)
            if s.linear_mixer == "mamba2":
                dt = softplus(self.dt_proj(x) + self.dt_bias)  # Δ [B, T, H]
                if at.real is not None:
                    dt = dt * at.real[..., None]  # Δ = 0: the state neither decays nor is written
                args = (q, k, v * dt[..., None], -dt * a, cache["state"])
                o_lin, cache["state"] = ssd_loop(*args) if linear_impl == "loop" else ssd_chunked(*args, chunk)
                o_lin = o_lin * s.linear_scale + self.D[:, None] * v
            else:
                g = -a * softplus(self.a_proj(x) + self.dt_bias)
                beta = torch.sigmoid(self.b_proj(x))
                if at.real is not None:
                    g, beta = g * at.real[..., None], beta * at.real[..., None]  # an identity step
                args = (l2_normalize(q, s.l2_eps), l2_normalize(k, s.l2_eps), v, g, beta, cache["state"], s.linear_scale)
                if linear_impl == "loop":
                    o_lin, cache["state"] = gated_delta_loop(*args)
                else:
                    o_lin, cache["state"] = gated_delta_chunked(*args, chunk)
        if s.has_attention:
            # The key attention reads and caches: the shared post-conv key, or the projection before the conv
            # (attention_key "projection…"), L2-normalised per head for "…_l2_normalized".
            k_att = k_proj.view(b, t, h, dk) if s.attention_key_projection else k
            if s.attention_key_l2:
                k_att = l2_normalize(k_att, s.l2_eps)
            if s.rope_theta is not None:
                k_att = rope(k_att, at.positions, s.rope_theta)
            cache["k"] = torch.cat([cache["k"], k_att], dim=1)
            cache["v"] = torch.cat([cache["v"], v], dim=1)
            if o_lin is None or bool((modes == ATTENTION).any()):
                q = self.q_proj(x).view(b, t, h, dk)
                if s.rope_theta is not None:
                    q = rope(q, at.positions, s.rope_theta)
                o_att = causal_attention(q, cache["k"], cache["v"], at.allowed, s.attention_scale)
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

    def forward(self, h, modes, at, cache, linear_impl, chunk):
        h = h + self.attn(self.attn_norm(h), modes, at, cache, linear_impl, chunk)
        return h + self.mlp(self.mlp_norm(h))


class Places:
    """Where the tokens of one call sit, from the cache's length and its padding mask: positions [B, T] (each
    row's absolute positions, from 0 at its first real token: RoPE), real [B, T] (0 for a left-padding token,
    1 otherwise; None without padding) and allowed [B, T, S] (the keys each query reads: causal, no padding
    key; a padding query reads itself only, so that it stays finite)."""

    def __init__(self, cache, t, device):
        b, start = cache.batch, cache.length
        index = torch.arange(start, start + t, device=device)
        keys = torch.arange(start + t, device=device)
        allowed = keys[None, None, :] <= index[None, :, None]  # [1, T, S]
        if cache.mask is None:
            self.positions, self.real = index[None, :].expand(b, t), None
            self.allowed = allowed.expand(b, t, start + t)
            return
        lead = (torch.cumsum(cache.mask.long(), dim=-1) == 0).sum(-1)  # [B] left-padding tokens of each row
        self.positions = index[None, :] - lead[:, None]
        real = self.positions >= 0
        self.real = real.to(cache.dtype)
        key_real = (keys[None, :] - lead[:, None]) >= 0  # [B, S]
        self.allowed = allowed & (key_real[:, None, :] | (keys[None, None, :] == index[None, :, None]))


class OryxModel(nn.Module):
    """The backbone ("model." in the tensor names): embeddings, the blocks, the final norm."""

    def __init__(self, spec):
        super().__init__()
        self.spec = spec
        self.embeddings = nn.Embedding(spec.vocab_size, spec.hidden_size)
        self.layers = nn.ModuleList(OryxBlock(spec) for _ in range(spec.num_layers))
        self.norm = RMSNorm(spec.hidden_size, spec.eps)

    def forward(self, input_ids, modes, cache, linear_impl, chunk, attention_mask=None):
        t = input_ids.shape[1]
        cache.extend_mask(attention_mask, t, input_ids.device)
        at = Places(cache, t, input_ids.device)
        h = self.embeddings(input_ids)
        for block, layer_cache in zip(self.layers, cache.layers):
            h = block(h, modes, at, layer_cache, linear_impl, chunk)
        cache.length += t
        return self.norm(h)


class OryxCache:
    """What the model remembers after a prefix, per layer: the KV cache (keys after RoPE), the conv inputs
    of the last conv_size − 1 tokens, the linear state [B, H, K, V]; the prefix length; and the padding mask
    of the prefix (None while there is none). It is the past_key_values of the transformers wrapper."""

    def __init__(self, spec, batch, dtype, device=None, keep=True):
        h, dk, dv, w = spec.heads, spec.key_dim, spec.value_dim, max(spec.conv_size - 1, 0)
        z = lambda *shape: torch.zeros(shape, dtype=dtype, device=device)  # noqa: E731
        self.batch, self.dtype, self.length, self.mask = batch, dtype, 0, None
        # keep: every memory is kept up to date for later calls (False: a one-off forward, whose unread
        # linear state need not be computed).
        self.layers = [{"k": z(batch, 0, h, dk), "v": z(batch, 0, h, dv), "conv_k": z(batch, w, h * dk),
                        "conv_v": z(batch, w, h * dv), "state": z(batch, h, dk, dv), "keep": keep}
                       for _ in range(spec.num_layers)]

    def get_seq_length(self, layer_idx=0):
        return self.length

    def reorder_cache(self, beam_idx):
        """Beam search's reordering (transformers calls it between steps): row i of every memory and of the
        padding mask becomes what row beam_idx[i] was."""
        for layer in self.layers:
            for key in ("k", "v", "conv_k", "conv_v", "state"):
                layer[key] = layer[key].index_select(0, beam_idx.to(layer[key].device))
        if self.mask is not None:
            self.mask = self.mask.index_select(0, beam_idx.to(self.mask.device))

    def extend_mask(self, attention_mask, t, device):
        """Takes the padding mask of a call of t tokens: attention_mask [B, length + t] (transformers' layout: the
        prefix and the new tokens; 1 a token, 0 padding), or None (every new token real). Honoured: left padding
        (each row's zeros before its tokens) and right padding (zeros after them, read by nothing before them;
        a row cannot continue after it). Anything else, or a prefix that disagrees with the mask already
        taken, is a ValueError."""
        if attention_mask is None:
            if self.mask is not None:
                self.mask = torch.cat([self.mask, torch.ones(self.batch, t, dtype=torch.bool, device=device)], dim=1)
            return
        m = torch.as_tensor(attention_mask, device=device)
        want = (self.batch, self.length + t)
        if tuple(m.shape) != want:
            raise ValueError(f"attention_mask must be [B, past + new tokens] = {list(want)}, got {list(m.shape)}")
        if not bool(((m == 0) | (m == 1)).all()):
            raise ValueError("attention_mask holds values other than 0 and 1")
        m = m.bool()
        past = self.mask if self.mask is not None else torch.ones(self.batch, self.length, dtype=torch.bool, device=device)
        if not torch.equal(m[:, :self.length], past):
            raise ValueError("attention_mask disagrees with the padding of the tokens already in the cache")
        mi = m.long()
        started = torch.cumsum(mi, dim=-1) > 0
        if bool(((mi[:, 1:] > mi[:, :-1]) & started[:, :-1]).any()):
            raise ValueError("attention_mask: modeling_oryx.py honours left padding (zeros before a row's tokens) and "
                             "right padding (zeros after them), not a token after padding inside a row")
        self.mask = None if (self.mask is None and bool(m.all())) else m


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
        if modes.dim() == 0:
            modes = modes.expand(input_ids.shape)
        if modes.dim() == 1:
            modes = modes[None, :].expand(input_ids.shape[0], -1)
        if modes.shape != input_ids.shape:
            raise ValueError(f"modes must be [B, T] like input_ids {tuple(input_ids.shape)}, got {tuple(modes.shape)}")
        if not bool(((modes == ATTENTION) | (modes == LINEAR)).all()):
            raise ValueError(f"modes must be {ATTENTION} (attention) or {LINEAR} (linear)")
        if not self.spec.multi_mixer and bool((modes != self.spec.default_mode).any()):
            raise ValueError(f"{self.spec.variant} has only the {['linear', 'attention'][self.spec.default_mode]} readout")
        return modes

    def hidden(self, input_ids, modes=None, cache=None, attention_mask=None):
        """The final hidden states [B, T, D] (after the final norm) of input_ids [B, T] continued from cache
        (None: from the start; the cache is updated in place). attention_mask as OryxCache.extend_mask takes it."""
        input_ids = torch.as_tensor(input_ids, dtype=torch.long)
        if cache is None:
            cache = self.new_cache(input_ids.shape[0], keep=False)
        if cache.batch != input_ids.shape[0]:
            raise ValueError(f"a cache of {cache.batch} rows given {input_ids.shape[0]} rows of input_ids")
        return self.model(input_ids, self._modes(input_ids, modes), cache, self.linear_impl, self.chunk, attention_mask)

    def logits(self, input_ids, modes=None, cache=None, attention_mask=None):
        """Logits [B, T, vocab] of input_ids [B, T]; modes [B, T] or [T] (1 attention, 0 linear; default: the
        config's default_mode), cache and attention_mask as in hidden."""
        return torch.matmul(self.hidden(input_ids, modes, cache, attention_mask), self.head_weight().t())

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


# safetensors: an 8-byte little-endian header length, the JSON header, the data section. The checks are those
# of the Go reader (oryx/hf/safetensors.go).
_SAFETENSORS_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
_SAFETENSORS_SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2}
_TORCH_DTYPE_SIZES = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}
_MAX_HEADER = 100 << 20


def read_safetensors(path):
    """Every tensor of a safetensors file by name, read with torch only. Refused, naming the file and the
    tensor: a header that does not fit the file, a tensor named twice, an unknown dtype or entry key, a shape
    that disagrees with its byte range, and data offsets out of the data section, overlapping, leaving a gap
    or not reaching its end."""
    if sys.byteorder != "little":
        raise RuntimeError("modeling_oryx.py reads safetensors on little-endian machines only")
    data = read_regular(path)

    def bad(msg):
        return ValueError(f"safetensors {path}: {msg}")

    if len(data) < 8:
        raise bad(f"{len(data)} bytes: too short for the 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if n > _MAX_HEADER or n > len(data) - 8:
        raise bad(f"header length {n} does not fit the file ({len(data)} bytes)")
    try:
        header = read_json(path, bytes(data[8:8 + n]).rstrip(b" "))
    except ValueError as e:
        raise bad(f"header: {e} (tensor names must be unique)") from None
    if not isinstance(header, dict):
        raise bad("header is not a JSON object")
    body = memoryview(data)[8 + n:]
    out, spans = {}, []
    for name, e in header.items():
        if name == "__metadata__":
            if not isinstance(e, dict) or not all(isinstance(v, str) for v in e.values()):
                raise bad("__metadata__ is not a map of strings")
            continue
        if not isinstance(e, dict) or set(e) != {"dtype", "shape", "data_offsets"}:
            raise bad(f"tensor {name!r}: bad header entry {e!r} (want dtype, shape, data_offsets)")
        dtype, shape, offs = e["dtype"], e["shape"], e["data_offsets"]
        if dtype not in _SAFETENSORS_DTYPES:
            raise bad(f"tensor {name!r}: dtype {dtype!r}: want one of {', '.join(_SAFETENSORS_DTYPES)}")
        if not (isinstance(shape, list) and all(_is_int(d) and d >= 0 for d in shape)):
            raise bad(f"tensor {name!r}: bad shape {shape!r}")
        if not (isinstance(offs, list) and len(offs) == 2 and all(_is_int(o) for o in offs)):
            raise bad(f"tensor {name!r}: bad data_offsets {offs!r}")
        begin, end = offs
        if begin < 0 or end < begin or end > len(body):
            raise bad(f"tensor {name!r}: data offsets [{begin}, {end}] outside the data section ({len(body)} bytes)")
        size = _SAFETENSORS_SIZES[dtype] * math.prod(shape)
        if end - begin != size:
            raise bad(f"tensor {name!r}: {dtype} {shape} needs {size} bytes, has {end - begin}")
        spans.append((begin, end))
        raw = bytearray(body[begin:end])
        t = torch.frombuffer(raw, dtype=_SAFETENSORS_DTYPES[dtype]) if raw else torch.empty(0, dtype=_SAFETENSORS_DTYPES[dtype])
        out[name] = t.reshape(shape)
    at = 0
    for begin, end in sorted(spans):  # the tensors must tile the data section: no gap, no overlap
        if begin != at:
            raise bad(f"data offsets leave a gap or overlap at byte {at}")
        at = end
    if at != len(body):
        raise bad(f"{len(body) - at} bytes after the last tensor")
    return out


_read_safetensors = read_safetensors  # the name earlier scripts used


def _check_weights(state, spec, path):
    """The tensors of an export against its config, as `oryx import` checks them, before a model is built:
    each in config.json's torch_dtype and finite, and together as many numbers as the config's model has (a
    few bytes of weights beside a d_model of 32768 would otherwise allocate that model first; the names and
    shapes are load_state_dict(strict=True)'s)."""
    want = _SAFETENSORS_DTYPES[{"float64": "F64", "float32": "F32", "bfloat16": "BF16", "float16": "F16"}[spec.torch_dtype]]
    for name, t in sorted(state.items()):
        if t.dtype != want:
            raise ValueError(f"{path}: tensor {name!r} is {t.dtype}, but config.json says torch_dtype "
                             f"{spec.torch_dtype!r} (every tensor must have it)")
        bad = (~torch.isfinite(t)).reshape(-1).nonzero()
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"{path}: tensor {name!r}: element {i} is {float(t.reshape(-1)[i])}: a model's weights "
                             "are finite numbers")
    n = sum(t.numel() for t in state.values())
    if n != spec.params:
        raise ValueError(f"{path} holds {n} numbers, but the model of its config.json has {spec.params} parameters: "
                         "not this model's weights")


def _check_weights_file_size(path, spec):
    """Refuses, before reading it, a weights file larger than config.json's parameters take in its torch_dtype
    with the largest header (`oryx import`'s bound)."""
    size, n = regular_size(path), spec.params * _TORCH_DTYPE_SIZES[spec.torch_dtype]
    if size > 8 + _MAX_HEADER + n:
        raise ValueError(f"{path} is {size} bytes, more than the {spec.params} parameters of its config.json take in "
                         f"{spec.torch_dtype} ({n} bytes) plus the largest header: not this model's weights")


class OryxLM(OryxLMMixin, nn.Module):
    """The torch-only model. OryxLM.from_export(dir, dtype) reads config.json and model.safetensors."""

    def __init__(self, config):
        super().__init__()
        self.spec = config if isinstance(config, OryxSpec) else OryxSpec(config)
        self.model = OryxModel(self.spec)
        if not self.spec.tie_word_embeddings:
            self.lm_head = nn.Linear(self.spec.hidden_size, self.spec.vocab_size, bias=False)

    def forward(self, input_ids, modes=None, cache=None, attention_mask=None):
        return self.logits(input_ids, modes, cache, attention_mask)

    @classmethod
    def from_export(cls, export_dir, dtype=torch.float32):
        """The export in export_dir (or what transformers' save_pretrained wrote from one), computing in dtype.
        config.json and the weights are checked as `oryx import` checks them."""
        spec = OryxSpec(read_json(os.path.join(export_dir, "config.json")))
        path = os.path.join(export_dir, "model.safetensors")
        _check_weights_file_size(path, spec)
        state = read_safetensors(path)
        _check_weights(state, spec, path)  # before the model is allocated
        model = cls(spec).to(dtype)  # before load_state_dict, which copies into the parameters' dtype
        model.load_state_dict({k: v.to(dtype) for k, v in state.items()}, strict=True)
        return model.eval()


try:  # the transformers wrapper, when transformers is importable
    from transformers import PretrainedConfig, PreTrainedModel
    from transformers.modeling_outputs import CausalLMOutputWithPast
except ImportError:  # torch only
    PretrainedConfig = PreTrainedModel = None

if PreTrainedModel is not None:
    try:
        from transformers.generation import GenerationMixin
    except ImportError:
        GenerationMixin = object

    # Keys transformers itself puts into the dict a config is built from (not config.json's; transformers 5
    # passes from_pretrained's dtype as "dtype", config.json's key stays torch_dtype).
    _TRANSFORMERS_INTERNAL = ("_commit_hash", "attn_implementation", "_attn_implementation",
                              "_attn_implementation_internal", "_attn_implementation_autoset", "name_or_path", "dtype")

    class OryxConfig(PretrainedConfig):
        """config.json as a transformers config: every key kept as an attribute. It remembers which keys the file
        had, so that the model checks exactly them (OryxSpec) and save_pretrained writes exactly them (with
        their values now) plus transformers' TRANSFORMERS_KEYS, nothing of transformers' own defaults."""

        model_type = "oryx"

        def __init__(self, **kwargs):
            keys = [k for k in kwargs if k not in _TRANSFORMERS_INTERNAL and k not in TRANSFORMERS_KEYS]
            super().__init__(**kwargs)
            self.oryx_keys = keys

        def export_dict(self):
            """The keys of config.json with this config's values (torch_dtype as its name)."""
            out = {}
            for k in self.__dict__.get("oryx_keys", []):
                if k in ("torch_dtype", "dtype"):
                    v = self.__dict__.get("torch_dtype", None) or self.__dict__.get("dtype", None) or self.__dict__.get("_dtype", None)
                    out[k] = str(v).replace("torch.", "") if v is not None else None
                elif k == "auto_map" and isinstance(getattr(self, k, None), dict):
                    # transformers prefixes the classes of a model loaded by repo id with "REPO--" (code from that
                    # repo); this file travels with the weights, so the reference is to it
                    out[k] = {a: v.split("--")[-1] for a, v in self.auto_map.items()}
                else:
                    out[k] = getattr(self, k, None)
            return out

        def to_diff_dict(self):
            out = self.export_dict()
            name = getattr(self, "_name_or_path", "")
            if name:
                out["_name_or_path"] = name
            out["transformers_version"] = super().to_dict().get("transformers_version")
            return out

        def to_dict(self):
            out = super().to_dict()
            out.pop("oryx_keys", None)
            return out

    class OryxTransformerConfig(OryxConfig):
        model_type = "oryx_transformer"

        def __init__(self, **kwargs):  # its own: transformers 5 gives a config class without one a generated one
            super().__init__(**kwargs)

    class OryxMamba2Config(OryxConfig):
        model_type = "oryx_mamba2"

        def __init__(self, **kwargs):  # its own: transformers 5 gives a config class without one a generated one
            super().__init__(**kwargs)

    class OryxGDNConfig(OryxConfig):
        model_type = "oryx_gdn"

        def __init__(self, **kwargs):  # its own: transformers 5 gives a config class without one a generated one
            super().__init__(**kwargs)

    class OryxTMConfig(OryxConfig):
        model_type = "oryx_tm"

        def __init__(self, **kwargs):  # its own: transformers 5 gives a config class without one a generated one
            super().__init__(**kwargs)

    class OryxTGConfig(OryxConfig):
        model_type = "oryx_tg"

        def __init__(self, **kwargs):  # its own: transformers 5 gives a config class without one a generated one
            super().__init__(**kwargs)

    class OryxForCausalLM(OryxLMMixin, PreTrainedModel, GenerationMixin):
        """OryxLM as a transformers model: forward(input_ids, attention_mask=None, past_key_values=None,
        modes=None, labels=None, use_cache=None) → CausalLMOutputWithPast, with an OryxCache as
        past_key_values; generate() (greedy, sampling or beam search) prefills the prompt and then feeds one token
        per step, left padding honoured through attention_mask. modes, given to forward or generate, is the mode of every
        position (1 attention, 0 linear): [B, N] or [N] with N ≥ the positions fed, or a 0/1; default the
        config's default_mode. One subclass per variant (OryxTGForCausalLM, ...): transformers pairs each
        config class with one model class."""

        config_class = OryxConfig
        base_model_prefix = "model"
        main_input_name = "input_ids"
        _no_split_modules = ["OryxBlock"]
        _is_stateful = True  # a recurrent state: transformers must not give it a DynamicCache of its own
        _supports_cache_class = False

        def __init__(self, config):
            super().__init__(config)
            # (not isinstance: transformers may load this file as two modules, one for the config class and one
            # for the model class)
            cfg = config.export_dict() if hasattr(config, "export_dict") else config.to_dict()
            self.spec = OryxSpec(cfg)
            self.model = OryxModel(self.spec)
            if not self.spec.tie_word_embeddings:
                self.lm_head = nn.Linear(self.spec.hidden_size, self.spec.vocab_size, bias=False)
            self.post_init()

        def _init_weights(self, module):
            pass  # every weight comes from model.safetensors

        def get_input_embeddings(self):
            return self.model.embeddings

        def forward(self, input_ids=None, attention_mask=None, past_key_values=None, modes=None, labels=None,
                    use_cache=None, return_dict=None, inputs_embeds=None, **kwargs):
            if inputs_embeds is not None or input_ids is None:
                raise ValueError("OryxForCausalLM takes input_ids (inputs_embeds is not supported)")
            input_ids = torch.as_tensor(input_ids, dtype=torch.long)
            cache = past_key_values if isinstance(past_key_values, OryxCache) else None
            if cache is None and past_key_values is not None and _cache_length(past_key_values) > 0:
                raise ValueError(f"past_key_values must be the OryxCache this model returned, got {type(past_key_values).__name__}")
            if cache is None:
                cache = self.new_cache(input_ids.shape[0], keep=bool(use_cache))
            logits = self.logits(input_ids, modes, cache, attention_mask)
            loss = None
            if labels is not None:
                loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(),
                                                   labels[:, 1:].reshape(-1))
            return CausalLMOutputWithPast(loss=loss, logits=logits, past_key_values=cache if use_cache else None)

        def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, modes=None,
                                          use_cache=True, **kwargs):
            cache = past_key_values if isinstance(past_key_values, OryxCache) else None
            start = cache.length if cache is not None else 0
            if modes is not None:
                modes = torch.as_tensor(modes, dtype=torch.long, device=input_ids.device)
                if modes.dim() >= 1:
                    if modes.shape[-1] < input_ids.shape[1]:
                        raise ValueError(f"modes covers {modes.shape[-1]} positions; generation feeds position "
                                         f"{input_ids.shape[1] - 1}: give one mode per prompt token and per generated "
                                         "token but the last")
                    modes = modes[..., start:input_ids.shape[1]]
            return {"input_ids": input_ids[:, start:], "past_key_values": cache if cache is not None else past_key_values,
                    "attention_mask": attention_mask, "modes": modes, "use_cache": use_cache}

        def _expand_inputs_for_generation(self, *args, **model_kwargs):
            """transformers' expansion of the inputs to num_beams (or num_return_sequences) rows per prompt, which
            repeats every tensor along its first dimension: modes given as [N] or a 0-dim tensor (one row for
            all, or one mode) is first made [B, N] or a number, so that it is not repeated along its positions
            (a [N] became [N·beams], every mode repeated beams times) or refused (a 0-dim tensor: IndexError)."""
            modes, ids = model_kwargs.get("modes"), model_kwargs.get("input_ids")
            if isinstance(modes, torch.Tensor) and modes.dim() == 0:
                model_kwargs["modes"] = int(modes)
            elif isinstance(modes, torch.Tensor) and modes.dim() == 1 and isinstance(ids, torch.Tensor):
                model_kwargs["modes"] = modes[None, :].expand(ids.shape[0], -1)
            # super(): transformers' staticmethod (4.x) or a method of its own, whichever this version has
            return super()._expand_inputs_for_generation(*args, **model_kwargs)

        def save_pretrained(self, save_directory, *args, **kwargs):
            """transformers' save_pretrained, and this file beside the weights (transformers copies it only for a
            model loaded from a local folder)."""
            super().save_pretrained(save_directory, *args, **kwargs)
            dst = os.path.join(save_directory, "modeling_oryx.py")
            if not os.path.exists(dst):
                with open(__file__, "rb") as f, open(dst, "wb") as g:
                    g.write(f.read())

    class OryxTransformerForCausalLM(OryxForCausalLM):
        config_class = OryxTransformerConfig

    class OryxMamba2ForCausalLM(OryxForCausalLM):
        config_class = OryxMamba2Config

    class OryxGDNForCausalLM(OryxForCausalLM):
        config_class = OryxGDNConfig

    class OryxTMForCausalLM(OryxForCausalLM):
        config_class = OryxTMConfig

    class OryxTGForCausalLM(OryxForCausalLM):
        config_class = OryxTGConfig
else:
    OryxForCausalLM = OryxLM


def _cache_length(past):
    try:
        return int(past.get_seq_length())
    except (AttributeError, TypeError):
        return len(past) if hasattr(past, "__len__") else 0


def compare(export_dir, path):
    """The logits the Go model computed (`oryx compare` writes them: {"ids": [T], "modes": [T], "vocab": V, "logits":
    [T·V] row-major}) against this file's, in float64: a JSON object with the largest absolute difference, the
    largest relative to max(1, max |Go logit|), and at how many positions the two argmaxes agree."""
    req = read_json(path)
    model = OryxLM.from_export(export_dir, torch.float64)
    ids = torch.tensor([req["ids"]], dtype=torch.long)
    with torch.no_grad():
        ref = model.logits(ids, torch.tensor([req["modes"]], dtype=torch.long))[0]
    go = torch.tensor(req["logits"], dtype=torch.float64).reshape(ref.shape)
    d = float((go - ref).abs().max())
    scale = max(1.0, float(go.abs().max()))
    agree = int((go.argmax(dim=-1) == ref.argmax(dim=-1)).sum())
    return {"max_abs": d, "max_rel": d / scale, "argmax_agree": agree, "positions": int(ids.shape[1]),
            "torch": torch.__version__}


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description="Greedy continuation of token ids with an oryx export, or (--compare) "
                                            "the difference between the Go model's logits and this file's.")
    p.add_argument("export_dir")
    p.add_argument("--ids", help="comma-separated prompt token ids (required without --compare)")
    p.add_argument("--compare", metavar="GO_LOGITS.json",
                   help="print, as JSON, how the Go model's logits (written by `oryx compare`) differ from this file's "
                        "in float64")
    p.add_argument("--max-new-tokens", type=int, default=16)
    p.add_argument("--mode", choices=["attention", "linear"], help="every token's mode (default: the config's)")
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    a = p.parse_args(argv)
    if a.compare:
        print(json.dumps(compare(a.export_dir, a.compare)))
        return
    if not a.ids:
        p.error("--ids is required (or --compare)")
    model = OryxLM.from_export(a.export_dir, getattr(torch, a.dtype))
    ids = torch.tensor([[int(x) for x in a.ids.split(",")]])
    modes = None
    if a.mode:
        modes = torch.full((ids.shape[1] + a.max_new_tokens - 1,), {"attention": ATTENTION, "linear": LINEAR}[a.mode])
    print(",".join(str(x) for x in model.generate_greedy(ids, a.max_new_tokens, modes)[0]))


if __name__ == "__main__":
    main()
