"""The schedule language of `go run ./evals` in Python (oryx/schedule and evals/oryxlm of
github.com/oryx-go/oryx), for the lm-eval adapter scripts/lmeval_oryx.py: the mode of every token of a
loglikelihood request and of every generated token under a --schedule string, equal to the Go side's, so that
lm-eval's scores equal `evals`'. Pure Python (no torch).

    request_modes(spec, n, attn_from, index, mixed, entropy=None) -> [0/1] * n   (1 attention)
    decode_mode(spec, pos, prompt_len) -> 0/1

Specs: attention, linear, prefill-attention, attention-last:N, linear-until:P, ranges ("A:0-9,L:10-"),
block[:LEN[:PROB]], sequence[:PROB] (random, seed 0, as evals draws them for every request), budget:F:POLICY
(last, question, random: one stream per request index, entropy: from the linear pass's entropies), and mixed
(each request linear up to its split point). `python3 oryx_schedule.py REQUEST.json OUT.json` answers a list of
{"spec", "n", "attn_from", "index", "mixed", "entropy"} (the Go test oryx_schedule_test.go).
"""

import json
import math
import sys

ATTENTION, LINEAR = 1, 0
NEVER = (1 << 63) - 1  # harness.Never: no split point
MIXED = "mixed"
DEFAULT_BLOCK_LEN, DEFAULT_ATTENTION_PROB = 128, 0.5  # schedule.DefaultBlockLen, DefaultAttentionProb
POLICIES = ("last", "question", "random", "entropy")
M64 = (1 << 64) - 1


class ScheduleError(ValueError):
    pass


# ------------------------------------------------------------------------------------------------ Go's random streams


def splitmix64(x):
    """internal/seedrand.SplitMix64."""
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class GoRand:
    """math/rand/v2's Rand over rand.NewPCG(seed1, seed2): Uint64 (PCG-DXSM), Float64, Perm."""

    MUL = (2549297995355413924 << 64) | 4865540595714422341
    INC = (6364136223846793005 << 64) | 1442695040888963407

    def __init__(self, seed1, seed2):
        self.state = ((seed1 & M64) << 64) | (seed2 & M64)

    def uint64(self):
        self.state = (self.state * self.MUL + self.INC) & ((1 << 128) - 1)
        hi, lo = self.state >> 64, self.state & M64
        hi ^= hi >> 32
        hi = (hi * 0xDA942042E4DD58B5) & M64
        hi ^= hi >> 48
        return (hi * (lo | 1)) & M64

    def float64(self):
        return ((self.uint64() << 11 & M64) >> 11) / (1 << 53)

    def uint64n(self, n):
        if n & (n - 1) == 0:
            return self.uint64() & (n - 1)
        prod = self.uint64() * n
        hi, lo = prod >> 64, prod & M64
        if lo < n:
            thresh = (-n) % (1 << 64) % n
            while lo < thresh:
                prod = self.uint64() * n
                hi, lo = prod >> 64, prod & M64
        return hi

    def perm(self, n):
        p = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.uint64n(i + 1)
            p[i], p[j] = p[j], p[i]
        return p


def row_rand(seed, b):
    """schedule.rowRand: the stream of row b."""
    return GoRand(seed, splitmix64(b))


def request_seed(i):
    """evals/oryxlm requestSeed: budget:F:random's stream of request i (its index in the task's requests)."""
    return splitmix64(i ^ 0x6275646765745F72)


# ------------------------------------------------------------------------------------------------ specs


def _int(s, what, spec):
    try:
        return int(s.strip())
    except ValueError:
        raise ScheduleError(f"schedule {spec!r}: {what} {s!r} is not an integer") from None


def _prob(s, spec):
    try:
        p = float(s.strip())
    except ValueError:
        raise ScheduleError(f"schedule {spec!r}: attention probability {s!r} is not a number") from None
    if math.isnan(p) or p < 0 or p > 1:
        raise ScheduleError(f"schedule {spec!r}: attention probability must be in [0, 1], got {p}")
    return p


def parse_budget(spec):
    """schedule.ParseBudget: (fraction, policy, threshold or NaN)."""
    args = spec.strip().split(":", 1)[1].split(":") if ":" in spec else []
    if len(args) < 2 or len(args) > 3:
        raise ScheduleError(f"schedule {spec!r}: want budget:F:POLICY or budget:F:entropy:H")
    try:
        f = float(args[0].strip())
    except ValueError:
        f = float("nan")
    if math.isnan(f) or f < 0 or f > 1:
        raise ScheduleError(f"schedule {spec!r}: budget fraction {args[0]!r}: want a number in [0, 1]")
    policy = args[1].strip().lower()
    if policy not in POLICIES:
        raise ScheduleError(f"schedule {spec!r}: unknown budget policy {args[1]!r} (want one of {', '.join(POLICIES)})")
    threshold = float("nan")
    if len(args) == 3:
        if policy != "entropy":
            raise ScheduleError(f"schedule {spec!r}: only the entropy policy takes a threshold")
        try:
            threshold = float(args[2].strip())
        except ValueError:
            threshold = float("nan")
        if math.isnan(threshold) or threshold < 0:
            raise ScheduleError(f"schedule {spec!r}: entropy threshold {args[2]!r}: want a number of nats ≥ 0")
    return f, policy, threshold


def parse(spec):
    """schedule.parseSpec: (kind, args)."""
    s = spec.strip()
    if s == "":
        raise ScheduleError(f"schedule {spec!r}: empty spec")
    head, has_args, rest = s.partition(":")
    head = head.strip().lower()
    args = rest.split(":") if has_args else []
    if head in ("attention", "all-attention", "a", "linear", "all-linear", "l") and not (has_args and head in ("a", "attention", "l", "linear")):
        if has_args:
            raise ScheduleError(f"schedule {spec!r}: {head!r} takes no arguments")
        return ("attention" if head in ("attention", "all-attention", "a") else "linear"), None
    if head == "prefill-attention":
        if has_args:
            raise ScheduleError(f"schedule {spec!r}: {head!r} takes no arguments")
        return "prefill-attention", None
    if head == "block":
        if len(args) > 2:
            raise ScheduleError(f"schedule {spec!r}: block takes at most 2 arguments (block:LEN:PROB)")
        n = _int(args[0], "block length", spec) if args else DEFAULT_BLOCK_LEN
        if n <= 0:
            raise ScheduleError(f"schedule {spec!r}: block length must be > 0, got {n}")
        return "block", (n, _prob(args[1], spec) if len(args) == 2 else DEFAULT_ATTENTION_PROB)
    if head == "sequence":
        if len(args) > 1:
            raise ScheduleError(f"schedule {spec!r}: sequence takes at most 1 argument (sequence:PROB)")
        return "sequence", _prob(args[0], spec) if args else DEFAULT_ATTENTION_PROB
    if head == "budget":
        return "budget", parse_budget(spec)
    if head in ("linear-until", "attention-last"):
        if len(args) != 1:
            raise ScheduleError(f"schedule {spec!r}: {head} needs exactly one argument")
        n = _int(args[0], head, spec)
        if n < 0:
            raise ScheduleError(f"schedule {spec!r}: {head} must be ≥ 0, got {n}")
        return head, n
    if not has_args:
        raise ScheduleError(f"schedule {spec!r}: unknown schedule {head!r}")
    return "ranges", parse_ranges(spec)


def parse_ranges(spec):
    out = []
    for item in spec.split(","):
        item = item.strip()
        if item == "":
            raise ScheduleError(f"schedule {spec!r}: empty range item")
        mode_s, ok, pos = item.partition(":")
        if not ok:
            raise ScheduleError(f"schedule {spec!r}: range {item!r}: want MODE:FROM-TO")
        mode = {"attention": ATTENTION, "a": ATTENTION, "linear": LINEAR, "l": LINEAR}.get(mode_s.strip().lower())
        if mode is None:
            raise ScheduleError(f"schedule {spec!r}: range {item!r}: unknown mode {mode_s!r}")
        frm_s, dash, to_s = pos.partition("-")
        try:
            frm = int(frm_s.strip())
        except ValueError:
            frm = -1
        if frm < 0:
            raise ScheduleError(f"schedule {spec!r}: range {item!r}: start {frm_s!r} is not a non-negative integer")
        to = frm
        if dash:
            to_s = to_s.strip()
            if to_s == "":
                to = -1
            else:
                try:
                    to = int(to_s)
                except ValueError:
                    to = -2
                if to < 0:
                    raise ScheduleError(f"schedule {spec!r}: range {item!r}: end {to_s!r} is not a non-negative integer")
                if to < frm:
                    raise ScheduleError(f"schedule {spec!r}: range {item!r}: end {to} is before start {frm}")
        out.append((mode, frm, to))
    return out


def _range_mode(ranges, t):
    m = LINEAR
    for mode, frm, to in ranges:
        if t >= frm and (to < 0 or t <= to):
            m = mode
    return m


def budget_count(f, t):
    """schedule.BudgetCount: round-half-up of F·T, within [0, T]."""
    return min(max(int(math.floor(f * t + 0.5)), 0), max(t, 0))


def budget_modes(budget, t, question=None, entropy=None, rng=None):
    """schedule.Budget.Modes."""
    f, policy, _ = budget
    n = budget_count(f, t)
    row = [LINEAR] * t
    if policy == "last":
        for p in range(t - n, t):
            row[p] = ATTENTION
        return row
    if policy == "random":
        order = rng.perm(t)
    elif policy == "question":
        order = sorted(range(t - 1, -1, -1), key=lambda p: int(question[p]), reverse=True)
    else:  # entropy: NaN lowest, ties the later position first
        order = sorted(range(t - 1, -1, -1), key=lambda p: (0, 0.0) if math.isnan(entropy[p]) else (1, entropy[p]), reverse=True)
    for p in order[:n]:
        row[p] = ATTENTION
    return row


def spec_row(spec, n, seed=0):
    """schedule.ParseScheduleRows(spec, [n], seed).Row(0) for every spec but the question and entropy budgets."""
    kind, arg = parse(spec)
    if kind in ("attention", "prefill-attention"):
        return [ATTENTION] * n
    if kind == "linear":
        return [LINEAR] * n
    if kind == "linear-until":
        return [ATTENTION if t >= arg else LINEAR for t in range(n)]
    if kind == "attention-last":
        return [ATTENTION if t >= n - arg else LINEAR for t in range(n)]
    if kind == "ranges":
        return [_range_mode(arg, t) for t in range(n)]
    rng = row_rand(seed, 0)
    if kind == "block":
        block, p = arg
        row = []
        for start in range(0, n, block):
            m = ATTENTION if rng.float64() < p else LINEAR
            row.extend([m] * (min(start + block, n) - start))
        return row
    if kind == "sequence":
        return [ATTENTION if rng.float64() < arg else LINEAR] * n
    if arg[1] in ("question", "entropy"):
        raise ScheduleError(f"schedule {spec!r}: the {arg[1]} policy needs the request (request_modes)")
    return budget_modes(arg, n, rng=rng)


def is_mixed(spec):
    """Whether the harness runs spec in mixed mode (split points reach the model): --mixed, and the question
    budget, which reads them (evals/evalrun)."""
    if spec.strip().lower() == MIXED:
        return True
    kind, arg = parse(spec)
    return kind == "budget" and arg[1] == "question"


def needs_entropy(spec):
    """Whether request_modes needs the linear pass's entropies (budget:F:entropy)."""
    if spec.strip().lower() == MIXED:
        return False
    kind, arg = parse(spec)
    return kind == "budget" and arg[1] == "entropy"


def request_modes(spec, n, attn_from, index, entropy=None):
    """The modes of the n input tokens of loglikelihood request index (its place among its task's requests)
    whose split point is attn_from (after truncation; the harness's AttentionFrom): evals/oryxlm modesOf."""
    if n <= 0:
        raise ScheduleError(f"schedule {spec!r}: row length must be > 0, got {n}")
    if spec.strip().lower() == MIXED:
        return spec_row(f"linear-until:{max(attn_from, 0)}", n)
    kind, arg = parse(spec)
    if kind != "budget":
        return spec_row(spec, n)
    question = [p >= max(attn_from, 0) for p in range(n)] if arg[1] == "question" else None
    if arg[1] == "entropy" and (entropy is None or len(entropy) != n):
        raise ScheduleError(f"schedule {spec!r}: the entropy policy needs the linear readout's entropy at each of the {n} positions")
    return budget_modes(arg, n, question, entropy, GoRand(request_seed(index), 0x6F727978))


def decode_mode(spec, pos, prompt_len):
    """schedule.DecodeMode: the mode of a generated token fed at pos (pos ≥ prompt_len); mixed is linear-until
    the request's split point, which the caller passes as the spec "linear-until:P"."""
    kind, arg = parse(spec)
    if kind in ("attention", "attention-last"):
        return ATTENTION
    if kind in ("linear", "prefill-attention"):
        return LINEAR
    if kind == "linear-until":
        return ATTENTION if pos >= arg else LINEAR
    if kind == "ranges":
        return _range_mode(arg, pos)
    if kind == "budget":
        f, policy, _ = arg
        if policy == "entropy" and f not in (0, 1):
            raise ScheduleError(f"schedule {spec!r}: the entropy policy decides each generated token's mode at run time")
        return ATTENTION if budget_count(f, pos + 1) > budget_count(f, pos) else LINEAR
    raise ScheduleError(f"schedule {spec!r}: random schedules do not define generated-token modes")


def entropy(logits):
    """schedule.Entropy of one position's logits (a list of floats): log Σe^(l−max) − Σe^(l−max)(l−max)/Σe^(l−max)."""
    mx = max(logits)
    s = w = 0.0
    for v in logits:
        if v == float("-inf"):
            continue
        e = math.exp(v - mx)
        s += e
        w += e * (v - mx)
    return math.log(s) - w / s


def main():
    out = []
    for r in json.load(open(sys.argv[1])):
        try:
            if "pos" in r:
                out.append(decode_mode(r["spec"], r["pos"], r["prompt_len"]))
            else:
                out.append(request_modes(r["spec"], r["n"], r["attn_from"], r["index"], r.get("entropy")))
        except ScheduleError as e:
            out.append(str(e))
    json.dump(out, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
