"""lm-evaluation-harness 0.4.13's own code on the files `go run ./evals` writes (evals/evalrun/lmeval_test.go).

    python3 lmeval_files.py RESULTS_DIR DATA_JSON OUT_JSON

RESULTS_DIR is the folder the evaluation wrote into (the dirname of --out): lm-eval's layout
<RESULTS_DIR>/<model_name_sanitized>/{results_<date>.json, samples_<task>_<date>.jsonl}. DATA_JSON maps each
task to its parquet file and the --limit used. The script

  1. finds the files as lm-eval's loaders do (utils.get_results_filenames, get_latest_filename,
     get_sample_results_filenames, get_file_task_name: the Zeno uploader's discovery) and reads every
     field the Zeno uploader (scripts/zeno_visualize.py: generate_dataset, generate_system_df) and the W&B
     logger (WandbLogger._generate_dataset, on the records in memory) read;
  2. gives the results and the samples to EvaluationTracker, which saves them again: save_results_aggregated
     computes the task hashes from the records, save_results_samples rewrites each record — the lines it
     writes are compared with the project's;
  3. runs lm-eval itself (simple_evaluate, a deterministic stand-in model, the same parquet files and limit)
     and reports its records' doc, arguments, target and three hashes, to compare with the project's.

It prints nothing; OUT_JSON gets the findings.
"""

import glob
import hashlib
import json
import os
import sys
import tempfile

import yaml

import lm_eval
from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.loggers import EvaluationTracker
from lm_eval.loggers.wandb_logger import WandbLogger
from lm_eval.tasks import TaskManager
from lm_eval.utils import (
    get_file_task_name,
    get_latest_filename,
    get_results_filenames,
    get_sample_results_filenames,
)


def zeno_read(model_dir):
    """What zeno_visualize.py reads, per task: the dataset and system columns it builds."""
    files = [os.path.join(model_dir, f) for f in os.listdir(model_dir)]
    latest = get_latest_filename(get_results_filenames(files))
    results = json.load(open(latest, encoding="utf-8"))
    model_args = results["config"]["model_args"]
    out = {"results_file": os.path.basename(latest), "model_args": model_args, "tasks": {}}
    for task, config in results["configs"].items():
        samples = [f for f in get_sample_results_filenames(files) if get_file_task_name(os.path.basename(f)) == task]
        data = [json.loads(line) for line in open(get_latest_filename(samples), encoding="utf-8")]
        ot = config["output_type"]
        ids = [x["doc_id"] if not config.get("filter_list") else f"{x['doc_id']}.{x['filter']}" for x in data]
        labels = [x["target"] for x in data]
        if ot == "loglikelihood":
            instance = [x["arguments"]["gen_args_0"]["arg_0"] for x in data]
            labels = [x["arguments"]["gen_args_0"]["arg_1"] for x in data]
            output = ["correct" if x["filtered_resps"][0][1] is True else "incorrect" for x in data]
        elif ot == "multiple_choice":
            instance = [x["arguments"]["gen_args_0"]["arg_0"] + "\n\n" + "\n".join(f"- {y[1]}" for y in x["arguments"]) for x in data]
            output = [", ".join(str(y[0]) for y in x["filtered_resps"]) for x in data]
        else:
            instance = [x["arguments"]["gen_args_0"]["arg_0"] for x in data]
            output = [str(x["filtered_resps"][0]) for x in data]
        metrics = {m["metric"]: [x[m["metric"]] for x in data] for m in config["metric_list"]}
        mean_metrics = [m["metric"] for m in config["metric_list"] if m.get("aggregation") == "mean"]
        out["tasks"][task] = {"ids": ids, "labels": labels, "instance": instance, "output": output,
                              "metrics": sorted(metrics), "mean_metrics": mean_metrics, "output_type": ot,
                              "dataset_path": config.get("dataset_path"), "data_file": config.get("data_file")}
    return out, results


def in_memory(record):
    """A record as the evaluator holds it before saving (arguments as tuples)."""
    r = dict(record)
    r["arguments"] = [tuple(a.values()) for a in record["arguments"].values()]
    return r


def tracker_roundtrip(model_dir, results):
    """EvaluationTracker saves the project's results and samples again; its lines and task hashes."""
    files = [os.path.join(model_dir, f) for f in os.listdir(model_dir)]
    samples = {}
    for task in results["configs"]:
        paths = [f for f in get_sample_results_filenames(files) if get_file_task_name(os.path.basename(f)) == task]
        samples[task] = [json.loads(line) for line in open(get_latest_filename(paths), encoding="utf-8")]
    with tempfile.TemporaryDirectory() as d:
        tracker = EvaluationTracker(output_path=d)
        tracker.general_config_tracker.model_name = results["model_name"]
        tracker.general_config_tracker.model_name_sanitized = results["model_name_sanitized"]
        res = {k: v for k, v in results.items() if k not in ("task_hashes",)}
        tracker.save_results_aggregated(results=res, samples=samples)
        saved = glob.glob(os.path.join(d, results["model_name_sanitized"], "results_*.json"))
        if len(saved) != 1:
            raise SystemExit(f"EvaluationTracker saved {saved}")
        their = json.load(open(saved[0], encoding="utf-8"))
        lines = {}
        wandb = {}
        for task, recs in samples.items():
            tracker.save_results_samples(task_name=task, samples=[in_memory(r) for r in recs])
            path = glob.glob(os.path.join(d, results["model_name_sanitized"], f"samples_{task}_*.jsonl"))[0]
            lines[task] = open(path, encoding="utf-8").read().split("\n")[:-1]  # not splitlines(): U+2028 is inside records
            df = WandbLogger._generate_dataset(None, [in_memory(r) for r in recs], results["configs"][task])
            wandb[task] = sorted(df.columns)
        return {"task_hashes": their["task_hashes"], "lines": lines, "wandb_columns": wandb}


# lm-eval 0.4.13's task yamls of the project's LM tasks (lm_eval/tasks/...).
TASK_YAMLS = {"wikitext": "wikitext/wikitext.yaml", "lambada_openai": "lambada/lambada_openai.yaml",
              "piqa": "piqa/piqa.yaml", "hellaswag": "hellaswag/hellaswag.yaml", "winogrande": "winogrande/default.yaml",
              "arc_easy": "arc/arc_easy.yaml", "arc_challenge": "arc/arc_challenge.yaml", "social_iqa": "siqa/siqa.yaml",
              "boolq": "super_glue/boolq/default.yaml"}


class StandIn(LM):
    """A deterministic model: lm-eval's requests are what is compared, not its scores."""

    @staticmethod
    def _h(s):
        return int(hashlib.sha256(s.encode()).hexdigest()[:8], 16) / 2 ** 32

    def loglikelihood(self, requests):
        return [(-self._h(r.args[0] + "|" + r.args[1]) * 5, False) for r in requests]

    def loglikelihood_rolling(self, requests):
        return [-self._h(r.args[0]) * 100 for r in requests]

    def generate_until(self, requests):
        return ["x" for _ in requests]


def lmeval_records(data):
    """lm-eval's own records for the tasks on the same parquet files: doc_id → the fields compared."""
    with tempfile.TemporaryDirectory() as inc:
        limit = None
        for task, spec in sorted(data.items()):  # lm-eval's own task yaml, on the fixture's parquet file
            path, limit = spec["file"], spec["limit"]
            yaml.safe_dump({"include": os.path.join(os.path.dirname(lm_eval.__file__), "tasks", TASK_YAMLS[task]),
                            "task": task, "dataset_path": "parquet", "dataset_name": None,
                            "dataset_kwargs": {"data_files": {"train": path, "validation": path, "test": path}}},
                           open(os.path.join(inc, task + ".yaml"), "w"))
        res = simple_evaluate(model=StandIn(), tasks=sorted(data), task_manager=TaskManager(include_path=inc, include_defaults=False),
                              log_samples=True, limit=limit, bootstrap_iters=0)
    out = {}
    for task, recs in res["samples"].items():
        out[task] = {str(r["doc_id"]): {"doc": r["doc"], "target": str(r["target"]),
                                        "arguments": [list(a) for a in r["arguments"]],
                                        "doc_hash": r["doc_hash"], "prompt_hash": r["prompt_hash"],
                                        "target_hash": r["target_hash"], "metrics": r["metrics"]} for r in recs}
    return out


def main():
    results_dir, data_json, out_json = sys.argv[1:4]
    data = json.load(open(data_json))
    dirs = sorted({os.path.dirname(p) for p in get_results_filenames(glob.glob(os.path.join(results_dir, "*", "*")))})
    if len(dirs) != 1:
        raise SystemExit(f"want one model folder with results_*.json under {results_dir}, found {dirs}")
    zeno, results = zeno_read(dirs[0])
    report = {"model_dir": os.path.basename(dirs[0]), "zeno": zeno, "tracker": tracker_roundtrip(dirs[0], results),
              "lm_eval": lmeval_records(data)}
    json.dump(report, open(out_json, "w"), ensure_ascii=False)


if __name__ == "__main__":
    main()
