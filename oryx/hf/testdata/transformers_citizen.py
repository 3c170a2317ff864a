"""An export used as a transformers user uses a model, for the Go test (oryx/hf/transformers_test.go).

    python3 transformers_citizen.py REQUEST.json OUT.json      (HF_HOME, HF_HUB_OFFLINE=1 set by the test)

REQUEST: {"export": DIR, "repo_id": "org/name", "save": DIR, "prompts": [[ids], [ids]], "max_new_tokens": n,
          "modes": [...] | null, "pad_id": id}
OUT: what each check found (the Go test asserts); see main().
"""

import importlib.util
import json
import os
import shutil
import sys

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM

NEW_DTYPE_KW = tuple(int(x) for x in transformers.__version__.split(".")[:2]) >= (4, 56)


def load_reference(export_dir):
    spec = importlib.util.spec_from_file_location("modeling_oryx_reference", os.path.join(export_dir, "modeling_oryx.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def auto_model(path, dtype):
    kw = {"dtype": dtype} if NEW_DTYPE_KW else {"torch_dtype": dtype}
    return AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True, **kw).eval()


def hub_cache(export_dir, repo_id):
    """The export as huggingface_hub's cache holds a downloaded repo ($HF_HOME/hub/models--org--name: refs/main
    naming a snapshot of the files), so that from_pretrained(repo_id) finds it with HF_HUB_OFFLINE=1."""
    hub = os.path.join(os.environ["HF_HOME"], "hub")
    repo = os.path.join(hub, "models--" + repo_id.replace("/", "--"))
    commit = "0123456789abcdef0123456789abcdef01234567"
    snap = os.path.join(repo, "snapshots", commit)
    os.makedirs(snap, exist_ok=True)
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(commit)
    for name in ("config.json", "model.safetensors", "modeling_oryx.py"):
        shutil.copy(os.path.join(export_dir, name), os.path.join(snap, name))


def max_abs(a, b):
    return float((a - b).abs().max())


def generate(model, ids, n, **kw):
    out = model.generate(ids, max_new_tokens=n, min_new_tokens=n, **kw)
    return out[:, ids.shape[1]:].tolist()


def main():
    req = json.load(open(sys.argv[1]))
    torch.set_num_threads(1)
    export, n, pad = req["export"], req["max_new_tokens"], req["pad_id"]
    res = {"torch": torch.__version__, "transformers": transformers.__version__}
    ref = load_reference(export).OryxLM.from_export(export, torch.float64)
    p0, p1 = req["prompts"]
    ids0 = torch.tensor([p0])
    greedy = dict(do_sample=False, pad_token_id=pad)

    # Auto classes: by local folder and by Hub repo id (the offline cache), the same logits as the reference.
    local = auto_model(export, torch.float64)
    res["config_class"] = type(AutoConfig.from_pretrained(export, trust_remote_code=True)).__name__
    res["class_local"] = type(local).__name__
    res["logits_local"] = max_abs(local(ids0).logits, ref(ids0))
    hub_cache(export, req["repo_id"])
    hub = auto_model(req["repo_id"], torch.float64)
    res["class_hub"] = type(hub).__name__
    res["logits_hub"] = max_abs(hub(ids0).logits, ref(ids0))

    # generate(): greedy with the cache = the reference's greedy decoding; with modes; sampling, cached or not.
    with torch.no_grad():
        res["greedy"] = generate(local, ids0, n, **greedy)[0]
        res["greedy_reference"] = ref.generate_greedy(ids0, n)[0]
        if req["modes"] is not None:
            modes = torch.tensor(req["modes"])
            res["greedy_modes"] = generate(local, ids0, n, modes=modes, **greedy)[0]
            res["greedy_modes_reference"] = ref.generate_greedy(ids0, n, modes)[0]
        sample = dict(do_sample=True, top_k=0, top_p=1.0, temperature=1.0, pad_token_id=pad)
        runs = []
        for use_cache in (True, False, True):
            torch.manual_seed(7)
            runs.append(generate(local, ids0, n, use_cache=use_cache, **sample)[0])
        res["sample_cached"], res["sample_uncached"], res["sample_again"] = runs
        torch.manual_seed(8)
        res["sample_other_seed"] = generate(local, ids0, n, use_cache=True, **sample)[0]

        # attention_mask: a left-padded batch generates, row for row, what each prompt generates alone; the
        # padded forward's logits at the real tokens are each row's own.
        width = max(len(p0), len(p1))
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in (p0, p1)])
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in (p0, p1)])
        res["padded"] = generate(local, ids, n, attention_mask=mask, **greedy)
        res["alone"] = [generate(local, torch.tensor([p]), n, **greedy)[0] for p in (p0, p1)]
        padded_logits = local(ids, attention_mask=mask).logits
        right = torch.tensor([p + [pad] * (width - len(p)) for p in (p0, p1)])
        right_mask = torch.tensor([[1] * len(p) + [0] * (width - len(p)) for p in (p0, p1)])
        right_logits = local(right, attention_mask=right_mask).logits
        worst_left = worst_right = 0.0
        for r, p in enumerate((p0, p1)):
            own = ref(torch.tensor([p]))[0]
            scale = float(own.abs().max())
            worst_left = max(worst_left, max_abs(padded_logits[r, width - len(p):], own) / scale)
            worst_right = max(worst_right, max_abs(right_logits[r, :len(p)], own) / scale)
        res["padded_logits"], res["right_padded_logits"] = worst_left, worst_right
        hole = mask.clone()
        hole[0, -2] = 0
        try:
            local(ids, attention_mask=hole)
            res["hole"] = "accepted"
        except ValueError as e:
            res["hole"] = str(e)

    # save_pretrained: in bfloat16 (the usual conversion) from the local load, as it is from the Hub load; the
    # reference loads both (the Go test imports them).
    bf16, f64 = os.path.join(req["save"], "bf16"), os.path.join(req["save"], "f64")
    auto_model(export, torch.float32).to(torch.bfloat16).save_pretrained(bf16)
    hub.save_pretrained(f64)
    res["saved"] = {}
    for d in (bf16, f64):
        mod = load_reference(d)
        m = mod.OryxLM.from_export(d, torch.float64)
        res["saved"][d] = {"files": sorted(os.listdir(d)), "logits": m(ids0).reshape(-1).tolist(),
                           "config": json.load(open(os.path.join(d, "config.json")))}
    res["logits_reference"] = ref(ids0).reshape(-1).tolist()
    json.dump(res, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
