"""Runs exports through their own modeling_oryx.py for the Go tests (oryx/hf/torch_test.go).

    python3 torch_reference.py REQUEST.json OUT.json

REQUEST: {"jobs": [{"export": DIR, "dtype": "float64" | "float32", "tokens": [[...], ...],
                    "logits": [{"name": N, "modes": [[...], ...] | null}, ...],
                    "generate": [{"name": N, "prompt": [...], "max_new_tokens": n, "modes": [...] | null}, ...],
                    "transformers": bool}]}
OUT: per job and case the logits (flattened [B·T·V]) and the generated tokens; with "transformers", the
logits of AutoModelForCausalLM.from_pretrained(DIR, trust_remote_code=True) for the first case too.
"""

import importlib.util
import json
import sys

import torch


def load_module(export_dir):
    spec = importlib.util.spec_from_file_location("modeling_oryx_" + str(abs(hash(export_dir))), export_dir + "/modeling_oryx.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    req = json.load(open(sys.argv[1]))
    torch.set_num_threads(1)
    out = []
    for job in req["jobs"]:
        mod = load_module(job["export"])
        dtype = getattr(torch, job["dtype"])
        model = mod.OryxLM.from_export(job["export"], dtype)
        tokens = torch.tensor(job["tokens"], dtype=torch.long)
        res = {"logits": {}, "generate": {}}
        with torch.no_grad():
            for case in job["logits"]:
                modes = None if case["modes"] is None else torch.tensor(case["modes"])
                res["logits"][case["name"]] = model(tokens, modes=modes).reshape(-1).tolist()
                if case.get("chunked"):
                    model.linear_impl, model.chunk = "chunked", case["chunked"]
                    res["logits"][case["name"] + "/chunked"] = model(tokens, modes=modes).reshape(-1).tolist()
                    model.linear_impl = "loop"
            for g in job.get("generate") or []:
                prompt = torch.tensor([g["prompt"]], dtype=torch.long)
                res["generate"][g["name"]] = model.generate_greedy(prompt, g["max_new_tokens"], g["modes"])[0]
            if job.get("transformers"):
                from transformers import AutoModelForCausalLM

                hf = AutoModelForCausalLM.from_pretrained(job["export"], trust_remote_code=True, torch_dtype=dtype)
                case = job["logits"][0]
                modes = None if case["modes"] is None else torch.tensor(case["modes"])
                res["transformers_class"] = type(hf).__name__
                res["transformers_logits"] = hf(tokens, modes=modes).logits.reshape(-1).tolist()
        out.append(res)
    json.dump({"jobs": out, "torch": torch.__version__}, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
