"""modeling_oryx.py's own checks, for the Go tests (oryx/hf/pyrefuse_test.go): torch only.

    python3 modeling_checks.py MODELING_ORYX.py refusals REQUEST.json OUT.json
        REQUEST: ["EXPORT_DIR", ...]; OUT: {dir: "ok" | "ValueError: ..."} from OryxLM.from_export(dir)
    python3 modeling_checks.py MODELING_ORYX.py expected REQUEST.json OUT.json
        REQUEST: [{"oryx_config": {...}, "torch_dtype": "..."}, ...]; OUT: [expected_config(...), ...]
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
    else:
        out = [mod.expected_config(r["oryx_config"], r["torch_dtype"]) for r in req]
    json.dump(out, open(sys.argv[4], "w"))


if __name__ == "__main__":
    main()
