"""The export's tokenizer and text generation as a transformers user meets them, for the Go test
(oryx/hf/transformers_test.go TestTransformersTokenizerAndPipeline).

    python3 tokenizer_pipeline.py REQUEST.json OUT.json      (HF_HUB_OFFLINE=1 set by the test)

REQUEST: {"export": DIR, "corpus": [text], "go_ids": [[id]], "prompts": [text] (none: the tokenizer alone),
          "max_new_tokens": n}
OUT: {"tokenizer_class", "bos", "eos", "pad", "encoded": [[id]] (add_special_tokens=True), "encoded_plain":
      [[id]] (False), "decoded": [text] (decode of go_ids), "prompt", "prompt_ids", "free": [id] (greedy without
      stopping), "pipeline_ids": [id] (the pipeline's, prompt included), "pipeline_text", "decoded_free": the tokenizer's text of free before end of text}: the first prompt whose
      greedy continuation holds end of text; "prompt" null when none does.
"""

import json
import sys

import torch
import transformers
from transformers import AutoTokenizer, pipeline


def main():
    with open(sys.argv[1]) as f:
        req = json.load(f)
    export, n = req["export"], req["max_new_tokens"]
    tok = AutoTokenizer.from_pretrained(export)
    out = {"transformers": transformers.__version__, "tokenizer_class": type(tok).__name__,
           "bos": tok.bos_token_id, "eos": tok.eos_token_id, "pad": tok.pad_token_id,
           "encoded": [tok(s)["input_ids"] for s in req["corpus"]],
           "encoded_plain": [tok(s, add_special_tokens=False)["input_ids"] for s in req["corpus"]],
           "decoded": [tok.decode(ids) for ids in req["go_ids"]], "prompt": None}
    if not req["prompts"]:  # the tokenizer alone
        with open(sys.argv[2], "w") as f:
            json.dump(out, f)
        return
    pipe = pipeline("text-generation", model=export, trust_remote_code=True)
    model = pipe.model
    eos = model.generation_config.eos_token_id
    out["generation_eos"] = eos
    for text in req["prompts"]:
        ids = tok(text, return_tensors="pt").input_ids
        free = model.generate_greedy(ids, n)[0]  # the reference's greedy decoding, never stopping
        if eos in free[:n - 1]:
            res = pipe(text, max_new_tokens=n, do_sample=False, return_tensors=True)
            txt = pipe(text, max_new_tokens=n, do_sample=False)
            out.update(prompt=text, prompt_ids=ids[0].tolist(), free=free,
                       pipeline_ids=[int(x) for x in res[0]["generated_token_ids"]],
                       pipeline_text=txt[0]["generated_text"], decoded_free=tok.decode(free[:free.index(eos)]))
            break
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    with torch.no_grad():
        main()
