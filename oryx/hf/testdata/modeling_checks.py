"""modeling_oryx.py's own checks, for the Go tests (oryx/hf/pyrefuse_test.go): torch only.

    python3 modeling_checks.py MODELING_ORYX.py refusals REQUEST.json OUT.json
        REQUEST: ["EXPORT_DIR", ...]; OUT: {dir: "ok" | "ValueError: ..."} from OryxLM.from_export(dir)
    python3 modeling_checks.py MODELING_ORYX.py expected REQUEST.json OUT.json
        REQUEST: [{"oryx_config": {...}, "torch_dtype": "..."}, ...]; OUT: [expected_config(...), ...]
    python3 modeling_checks.py MODELING_ORYX.py params REQUEST.json OUT.json
        REQUEST: [{"oryx_config": {...}, "torch_dtype": "..."}, ...]; OUT: {"counts": [[param_count(oc), the
        parameters of the model built from expected_config], ...], "limits": {the size limits}, "int_keys": [the keys
        of config.json it refuses as non-integer numbers]}
"""

import importlib.util
import json
import sys

import torch


def main():
    spec = importlib.util.spec_from_file_location("modeling_oryx", sys.argv[1])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    req = json.load(open(sys.argv[3]))
    if sys.argv[2] == "refusals":
        out = {}
        for d in req:
            try:
                mod.OryxLM.from_export(d, torch.float64)
                out[d] = "ok"
            except Exception as e:  # noqa: BLE001 — the Go test checks the kind and the message
                out[d] = f"{type(e).__name__}: {e}"
    elif sys.argv[2] == "params":
        counts = []
        for r in req:
            model = mod.OryxLM(mod.expected_config(r["oryx_config"], r["torch_dtype"]))
            counts.append([mod.param_count(r["oryx_config"]), sum(p.numel() for p in model.parameters())])
        out = {"counts": counts, "limits": {**mod.SIZE_LIMITS, "conv_width": mod.MAX_CONV_WIDTH, "params": mod.MAX_PARAMS},
               "int_keys": list(mod.CONFIG_INT_KEYS)}
    else:
        out = [mod.expected_config(r["oryx_config"], r["torch_dtype"]) for r in req]
    json.dump(out, open(sys.argv[4], "w"))


if __name__ == "__main__":
    main()
