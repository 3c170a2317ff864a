#!/usr/bin/env python3
"""lm-evaluation-harness (0.4.13) on an `oryx export`: a model adapter that scores through the export's own
modeling_oryx.py (PyTorch), and two helpers for running it on the project's local data.

    # lm_eval itself, with the adapter registered as --model oryx (every lm_eval CLI flag works):
    python3 scripts/lmeval_oryx.py --model oryx --model_args export=hf/tiny,dtype=float64 \\
        --tasks piqa,lambada_openai --include_path tasks-local --limit 5 --output_path results-lmeval

    # task yamls for lm-eval's own LM tasks on the local parquet files (what `go run ./evals` reads):
    python3 scripts/lmeval_oryx.py tasks --data-root ../shared/data/hf --out tasks-local

    # an export's weights as float64 (or float32), for a check in float64 (`oryx import` reads it):
    python3 scripts/lmeval_oryx.py convert --dtype float64 hf/tiny hf/tiny-f64

    # lm-eval's results (the newest results_*.json under a folder) against a `go run ./evals` results file:
    python3 scripts/lmeval_oryx.py compare results/run.json results-lmeval

Model arguments (--model_args k=v,...): export (the export directory, required), dtype (float32 default, or
float64), max_length (2048: lm-eval's, the project's LM max length), tokenizer ("bytes", the project's byte
tokenizer, default; or a Hugging Face tokenizer.json, read with the tokenizers package), schedule (every
--schedule string of `go run ./evals`: mixed, attention, linear, attention-last:N, linear-until:P, ranges such
as A:0-9;L:10- (";" for "," inside model_args), block:LEN:PROB, sequence:PROB, budget:F:POLICY with POLICY
last, question, random or entropy; scripts/oryx_schedule.py computes the modes as evals does, request by
request, so the scores are evals'; default the config's default_mode: attention for the multi-mixer models;
mode= is its old name), linear_impl (chunked, default, or loop: modeling_oryx's two exact forms of the linear
mixers). lm_eval's --device is honoured (the model and every request on it; a CUDA device torch does not have
means the CPU, as lm_eval's HFLM does, said on standard error); --batch_size N scores N
loglikelihood requests per forward (right-padded; generation and budget:F:entropy one at a time), "auto" is
refused. budget:F:random numbers requests within each task in lm-eval's order, as evals does; budget:F:entropy
runs a linear pass first; in generation (generate_until, none of the LM tasks) mixed reads the prompt in
linear mode and the generated tokens in attention, and budget:F:entropy is refused.

The requests follow lm-eval's TemplateLM (the encoding of context and continuation, the empty-context
prefix token) and HFLM (left truncation to max_length, rolling windows of max_length with context 1,
generation greedy up to max_gen_toks, the context left-truncated to max_length − max_gen_toks, EOS added to
the stop strings). Needs torch (Debian's python3-torch) and lm_eval with the packages of `make py-tools`.
"""

import argparse
import importlib.util
import json
import os
import struct
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no scripts/__pycache__ in the checkout
import oryx_schedule  # noqa: E402  (beside this file)

from lm_eval import utils
from lm_eval.api.model import TemplateLM
from lm_eval.api.registry import register_model

# The project's LM tasks: lm-eval 0.4.13's task yaml (under lm_eval/tasks/) and the local parquet file
# (relative to the data root; the same files as evals/lmeval.DefaultPaths).
LM_TASKS = {
    "wikitext": ("wikitext/wikitext.yaml", "wikitext_document_level/wikitext-2-raw-v1-test.parquet"),
    "lambada_openai": ("lambada/lambada_openai.yaml", "lambada_openai/test.parquet"),
    "piqa": ("piqa/piqa.yaml", "piqa/validation.parquet"),
    "hellaswag": ("hellaswag/hellaswag.yaml", "hellaswag/validation.parquet"),
    "winogrande": ("winogrande/default.yaml", "winogrande/winogrande_xl-validation.parquet"),
    "arc_easy": ("arc/arc_easy.yaml", "arc_easy/test.parquet"),
    "arc_challenge": ("arc/arc_challenge.yaml", "arc_challenge/test.parquet"),
    "social_iqa": ("siqa/siqa.yaml", "social_iqa/validation.parquet"),
    "boolq": ("super_glue/boolq/default.yaml", "boolq/validation.parquet"),
}


def load_modeling(export_dir):
    """The export's own modeling_oryx.py as a module."""
    path = os.path.join(export_dir, "modeling_oryx.py")
    spec = importlib.util.spec_from_file_location("modeling_oryx", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class ByteTokenizer:
    """The project's byte tokenizer: ids 0–255 the UTF-8 bytes, "<|endoftext|>" 256 (EOS), "<|pad|>" 257."""

    specials = {"<|endoftext|>": 256, "<|pad|>": 257}
    eos = 256

    def encode(self, text):
        out, i = [], 0
        b = text.encode("utf-8")
        while i < len(b):
            for s, sid in self.specials.items():
                if b.startswith(s.encode(), i):
                    out.append(sid)
                    i += len(s)
                    break
            else:
                out.append(b[i])
                i += 1
        return out

    def decode(self, ids):
        inv = {v: k.encode() for k, v in self.specials.items()}
        return b"".join(bytes([i]) if i < 256 else inv.get(i, "\ufffd".encode()) for i in ids).decode("utf-8", "replace")


class HFTokenizer:
    """A Hugging Face tokenizer.json (no special tokens added, as lm-eval encodes for these models)."""

    def __init__(self, path):
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(path)
        self.eos = self.tok.token_to_id("<|endoftext|>")
        if self.eos is None:
            self.eos = self.tok.token_to_id("</s>")

    def encode(self, text):
        return self.tok.encode(text, add_special_tokens=False).ids

    def decode(self, ids):
        return self.tok.decode(ids, skip_special_tokens=False)


@register_model("oryx")
class OryxEvalModel(TemplateLM):
    """An oryx export scored by its modeling_oryx.py (see the module docstring for the arguments)."""

    def __init__(self, export, dtype="float32", max_length=2048, tokenizer="bytes", schedule=None, mode=None,
                 linear_impl="chunked", batch_size=1, device=None, **kwargs):
        super().__init__()
        # lm_eval's --batch_size: loglikelihood requests are scored that many at a time (right-padded rows with an
        # attention_mask; each row's logits are its own), generation one request at a time; "auto" is refused.
        bs = str(batch_size).strip()
        if bs in ("None", ""):
            bs = "1"
        if not bs.isdigit() or int(bs) < 1:
            raise ValueError(f"batch_size {batch_size!r}: the oryx adapter takes a number of requests ≥ 1 "
                             "(no \"auto\"); pass --batch_size N")
        self.batch_size = int(bs)
        # lm_eval's --device: the model and every tensor of a request go there (cpu, cuda, cuda:N, mps).
        self._device = torch.device(device if device not in (None, "") else "cpu")  # LM.device reads it
        if self.device.type == "cuda" and not torch.cuda.is_available():
            # As lm_eval's own HFLM: lm_eval passes "cuda:0" when --device is not given, so no CUDA means the CPU,
            # said on standard error rather than silently.
            print(f"oryx adapter: device {device!r}: this torch ({torch.__version__}) has no CUDA device: scoring on "
                  "the CPU (lm_eval passes cuda:0 when --device is not given; --device cpu says so)", file=sys.stderr)
            self._device = torch.device("cpu")
        mod = load_modeling(export)
        self.model = mod.OryxLM.from_export(export, getattr(torch, dtype)).to(self.device)
        self.model.linear_impl = linear_impl
        with open(os.path.join(export, "config.json"), encoding="utf-8") as f:
            self.model.chunk = json.load(f)["oryx_config"]["chunk"]
        self.tok = ByteTokenizer() if tokenizer == "bytes" else HFTokenizer(tokenizer)
        self._max_length = int(max_length)
        spec = schedule if schedule not in (None, "") else mode
        # lm-eval splits model_args at commas: a range list is written with ";" there.
        self.schedule = None if spec in (None, "") else str(spec).replace(";", ",")
        if self.schedule is not None and self.schedule.strip().lower() != oryx_schedule.MIXED:
            oryx_schedule.parse(self.schedule)  # a bad string fails here, naming the part
        # Single-mixer exports have one readout: their modes are their own whatever the schedule says (as evals).
        self.multi_mixer = self.model.spec.multi_mixer
        self._pending = None

    @property
    def eot_token_id(self):
        return self.tok.eos

    @property
    def max_length(self):
        return self._max_length

    def tok_encode(self, string, add_special_tokens=None, **kwargs):
        return self.tok.encode(string)

    def tok_decode(self, tokens, **kwargs):
        return self.tok.decode(tokens)

    @torch.no_grad()
    def _log_probs(self, tokens, split, index):
        """log_softmax of the logits at every position of tokens (one sequence, the model's inputs), over the
        whole vocabulary, under the schedule: split is the request's split point after truncation (evals'
        AttentionFrom), index its place among its task's requests."""
        ids = torch.tensor([tokens], dtype=torch.long, device=self.device)
        modes = None
        if self.schedule is not None and self.multi_mixer:
            spec, n = self.schedule, len(tokens)
            entropy = None
            if oryx_schedule.needs_entropy(spec):  # the linear pass: its entropy at every position
                linear = self.model(ids, modes=torch.zeros(n, dtype=torch.long, device=self.device))[0].double()
                entropy = [oryx_schedule.entropy(row) for row in linear.tolist()]
            modes = torch.tensor(oryx_schedule.request_modes(spec, n, split, index, entropy), dtype=torch.long,
                                 device=self.device)
        return F.log_softmax(self.model(ids, modes=modes)[0], dim=-1).cpu()

    def loglikelihood(self, requests, disable_tqdm=False):
        """TemplateLM's, with each request's place among its task's requests noted for the schedule
        (budget:F:random draws one stream per request index, as evals does)."""
        seen = {}
        self._pending = []
        for r in requests:
            task = getattr(r, "task_name", None)
            self._pending.append(seen.get(task, 0))
            seen[task] = seen.get(task, 0) + 1
        try:
            return super().loglikelihood(requests, disable_tqdm=disable_tqdm)
        finally:
            self._pending = None

    def _loglikelihood_tokens(self, requests, disable_tqdm=False, rolling=False, first_index=0, **kwargs):
        rows = []
        mixed = self.schedule is not None and oryx_schedule.is_mixed(self.schedule)
        for i, (_, context_enc, continuation_enc) in enumerate(requests):
            index = self._pending[i] if self._pending is not None and not rolling else first_index + i
            seq = context_enc + continuation_enc
            # evals' split point (harness TruncateLL): the last context token in mixed mode (never for rolling
            # windows), else the request's end; shifted by the tokens truncation drops, clamped to the request.
            split = (oryx_schedule.NEVER if rolling else len(context_enc) - 1) if mixed else len(seq)
            drop = max(len(seq) - (self.max_length + 1), 0)
            if split != oryx_schedule.NEVER:
                split -= drop
            split = max(0, min(split, len(seq) - drop))
            rows.append((seq[drop:][:-1], split, index, continuation_enc))
        batched = self.batch_size > 1 and not (self.schedule is not None and oryx_schedule.needs_entropy(self.schedule))
        step = self.batch_size if batched else 1
        out = []
        for lo in range(0, len(rows), step):
            group = rows[lo:lo + step]
            if len(group) == 1:
                logps = [self._log_probs(*group[0][:3])]
            else:
                logps = self._log_probs_batch(group)
            for logp, (_, _, _, cont_enc) in zip(logps, group):
                logp = logp[-len(cont_enc):]
                cont = torch.tensor(cont_enc, dtype=torch.long)
                ll = logp.gather(1, cont[:, None]).sum()
                greedy = bool((logp.argmax(dim=-1) == cont).all())
                out.append((float(ll), greedy))
        return out

    @torch.no_grad()
    def _log_probs_batch(self, group):
        """_log_probs of several requests (tokens, split, index, _) in one forward: the rows right-padded (token
        0, and each row's last mode) with an attention_mask, which leaves every row's logits at its own tokens
        what it computes alone (causal: the padding after a row is read by nothing before it)."""
        n = max(len(g[0]) for g in group)
        ids = torch.zeros(len(group), n, dtype=torch.long)
        mask = torch.zeros(len(group), n, dtype=torch.long)
        modes = None
        if self.schedule is not None and self.multi_mixer:
            modes = torch.zeros(len(group), n, dtype=torch.long)
        for r, (tokens, split, index, _) in enumerate(group):
            ids[r, :len(tokens)] = torch.tensor(tokens, dtype=torch.long)
            mask[r, :len(tokens)] = 1
            if modes is not None:
                m = oryx_schedule.request_modes(self.schedule, len(tokens), split, index)
                modes[r, :len(tokens)] = torch.tensor(m, dtype=torch.long)
                modes[r, len(tokens):] = m[-1]
        dev = self.device
        logits = self.model(ids.to(dev), modes=None if modes is None else modes.to(dev), attention_mask=mask.to(dev))
        return [F.log_softmax(logits[r, :len(g[0])], dim=-1).cpu() for r, g in enumerate(group)]

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        out, windows_seen = [], {}
        for r in requests:
            (string,), task = r.args, getattr(r, "task_name", None)
            windows = list(map(utils.make_disjoint_window, utils.get_rolling_token_windows(
                token_list=self.tok_encode(string), prefix_token=self.prefix_token_id, max_seq_len=self.max_length,
                context_len=1)))
            # Each window is a request of its task, numbered across the task's documents as evals numbers them.
            lls = self._loglikelihood_tokens([(None, ctx, cont) for ctx, cont in windows], rolling=True,
                                             first_index=windows_seen.get(task, 0))
            windows_seen[task] = windows_seen.get(task, 0) + len(windows)
            out.append(sum(ll for ll, _ in lls))
        return out

    @torch.no_grad()
    def generate_until(self, requests, disable_tqdm=False):
        out = []
        for context, gen_kwargs in [r.args for r in requests]:
            until = list(gen_kwargs.get("until") or [])
            eos = self.tok_decode([self.eot_token_id])
            if eos not in until:
                until.append(eos)
            max_gen = int(gen_kwargs.get("max_gen_toks", 256))
            ids = self.tok_encode(context)[-(self.max_length - max_gen):]
            modes = None
            if self.schedule is not None and self.multi_mixer:
                spec = self.schedule
                if spec.strip().lower() == oryx_schedule.MIXED:  # the prompt linear, the generated tokens attention
                    spec = f"linear-until:{len(ids)}"
                modes = oryx_schedule.request_modes(spec, len(ids), len(ids) + max_gen, len(out))
                modes += [oryx_schedule.decode_mode(spec, p, len(ids)) for p in range(len(ids), len(ids) + max_gen - 1)]
                modes = torch.tensor(modes, dtype=torch.long, device=self.device)
            new = self.model.generate_greedy(torch.tensor([ids], device=self.device), max_gen, modes,
                                             stop=(self.eot_token_id,))[0]
            text = self.tok_decode(new)
            for stop in until:
                if stop:
                    text = text.split(stop)[0]
            out.append(text)
        return out


def write_tasks(data_root, out):
    """Task yamls for lm-eval's LM tasks on the local parquet files: each includes lm-eval's own yaml and
    points its dataset at the file (every split the yaml names reads it)."""
    import lm_eval
    import yaml

    base = os.path.join(os.path.dirname(lm_eval.__file__), "tasks")
    os.makedirs(out, exist_ok=True)
    for task, (rel_yaml, rel_data) in LM_TASKS.items():
        path = os.path.abspath(os.path.join(data_root, rel_data))
        if not os.path.exists(path):
            raise SystemExit(f"{task}: no data file {path}")
        cfg = {"include": os.path.join(base, rel_yaml), "task": task, "dataset_path": "parquet", "dataset_name": None,
               "dataset_kwargs": {"data_files": {"train": path, "validation": path, "test": path}}}
        with open(os.path.join(out, task + ".yaml"), "w", encoding="utf-8") as f:
            yaml.safe_dump(cfg, f)


def convert(src, dst, dtype):
    """Copies an export with its weights in dtype (float32 or float64) and config.json's torch_dtype set."""
    mod = load_modeling(src)
    tensors = mod._read_safetensors(os.path.join(src, "model.safetensors"))
    code = {"float32": "F32", "float64": "F64"}[dtype]
    header, body, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        data = tensors[name].to(getattr(torch, dtype)).contiguous().numpy().tobytes()
        header[name] = {"dtype": code, "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(data)]}
        body.append(data)
        offset += len(data)
    hj = json.dumps(header).encode()
    hj += b" " * ((8 - len(hj) % 8) % 8)
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(hj)) + hj + b"".join(body))
    with open(os.path.join(src, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    cfg["torch_dtype"] = dtype
    with open(os.path.join(dst, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(src, "modeling_oryx.py"), "rb") as f, open(os.path.join(dst, "modeling_oryx.py"), "wb") as g:
        g.write(f.read())


def compare(go_file, lmeval_dir, tol=1e-6):
    """Every "<metric>,none" value and stderr of lm-eval's results file (the newest results_*.json under
    lmeval_dir) against the Go results file: a table, and False when one differs by more than tol relative to
    max(1, |value|)."""
    import glob
    import math

    def num(v):
        return float("nan") if v in ("N/A", None) else float(v)

    theirs = json.load(open(max(glob.glob(os.path.join(lmeval_dir, "*", "results_*.json"))), encoding="utf-8"))
    ours = json.load(open(go_file, encoding="utf-8"))
    ok, worst = True, 0.0
    print(f"{'task':<16}{'metric':<18}{'lm_eval':>22}{'go run ./evals':>22}{'|diff|':>10}   stderr |diff|")
    for task in sorted(theirs["results"]):
        if task not in ours["results"]:
            print(f"{task}: missing from {go_file}")
            ok = False
            continue
        for key, v in sorted(theirs["results"][task].items()):
            metric, _, flt = key.partition(",")
            if flt != "none" or metric.endswith("_stderr"):
                continue
            a, b = num(v), num(ours["results"][task].get(key))
            d = abs(a - b)
            sa = num(theirs["results"][task].get(metric + "_stderr,none"))
            sb = num(ours["results"][task].get(metric + "_stderr,none"))
            ds = 0.0 if (math.isnan(sa) and math.isnan(sb)) else abs(sa - sb)
            bad = not (d <= tol * max(1.0, abs(a))) or not (ds <= tol * max(1.0, abs(sa) if not math.isnan(sa) else 1.0))
            worst = max(worst, d / max(1.0, abs(a)))
            ok = ok and not bad
            print(f"{task:<16}{metric:<18}{a:>22.12g}{b:>22.12g}{d:>10.1e}   {ds:.1e}{'   DIFFERS' if bad else ''}")
    print(f"largest |lm_eval − go| / max(1, |value|): {worst:.2e} ({'within' if ok else 'NOT within'} {tol:g})")
    return ok


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "compare":
        sys.exit(0 if compare(sys.argv[2], sys.argv[3]) else 1)
    if len(sys.argv) > 1 and sys.argv[1] in ("tasks", "convert"):
        p = argparse.ArgumentParser(prog="lmeval_oryx.py " + sys.argv[1])
        if sys.argv[1] == "tasks":
            p.add_argument("--data-root", required=True, help="folder of the HF-layout parquet sets (shared/data/hf)")
            p.add_argument("--out", required=True, help="folder for the task yamls (lm_eval --include_path)")
            a = p.parse_args(sys.argv[2:])
            write_tasks(a.data_root, a.out)
        else:
            p.add_argument("--dtype", choices=["float32", "float64"], required=True)
            p.add_argument("src")
            p.add_argument("dst")
            a = p.parse_args(sys.argv[2:])
            convert(a.src, a.dst, a.dtype)
        return
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()


if __name__ == "__main__":
    main()
