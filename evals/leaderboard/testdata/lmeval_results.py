"""Writes results files with lm-evaluation-harness's own code, for `evals merge` (leaderboard_test.go).

    python3 lmeval_results.py OUT_DIR

Runs simple_evaluate with a deterministic stand-in model on four tasks (piqa, arc_easy: multiple choice;
lambada_openai: loglikelihood; wikitext: loglikelihood_rolling; lm-eval's own task yamls, included, on tiny
parquet files), twice: once with piqa and arc_easy in a group with an aggregate ("fixture_group": acc,
weighted by size, metadata version 1.0) beside the two others in a group without one, once with every task
on its own. EvaluationTracker saves
each run as OUT_DIR/<name>/fake__model/results_<date>.json (name: group, nogroup). The testdata/lmeval
files written by lm-eval 0.4.13 came from this script, with the absolute paths in them shortened.
"""

import hashlib
import os
import sys

import lm_eval
import pandas as pd
import yaml

from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.loggers import EvaluationTracker
from lm_eval.tasks import TaskManager


class StandIn(LM):
    @staticmethod
    def _h(s):
        return int(hashlib.sha256(s.encode()).hexdigest()[:8], 16) / 2 ** 32

    def loglikelihood(self, requests):
        return [(-self._h(r.args[0] + "|" + r.args[1]) * 5, self._h(r.args[1]) > 0.5) for r in requests]

    def loglikelihood_rolling(self, requests):
        return [-self._h(r.args[0]) * 100 for r in requests]

    def generate_until(self, requests):
        return ["x" for _ in requests]


def main():
    out = os.path.abspath(sys.argv[1])
    data = os.path.join(out, "data")
    os.makedirs(data, exist_ok=True)
    pd.DataFrame({"goal": ["How do I boil water?", "Open a jar", "Dry a towel"], "sol1": ["Heat it", "Twist lid", "Sun"],
                  "sol2": ["Freeze it", "Hit it", "Water"], "label": [0, 0, 0]}).to_parquet(data + "/piqa.parquet")
    pd.DataFrame({"id": ["a", "b"], "question": ["Sky color?", "2+2?"],
                  "choices": [{"text": ["blue", "red"], "label": ["A", "B"]}, {"text": ["3", "4", "5"], "label": ["1", "2", "3"]}],
                  "answerKey": ["A", "2"]}).to_parquet(data + "/arc.parquet")
    pd.DataFrame({"text": ["the cat sat on the mat", "a dog ran"]}).to_parquet(data + "/lambada.parquet")
    pd.DataFrame({"page": [" = Title = \n Hello world . \n", " = Two = \n More text here . \n"]}).to_parquet(data + "/wiki.parquet")

    tasks = {"piqa": "piqa/piqa.yaml", "arc_easy": "arc/arc_easy.yaml", "lambada_openai": "lambada/lambada_openai.yaml",
             "wikitext": "wikitext/wikitext.yaml"}
    files = {"piqa": "piqa.parquet", "arc_easy": "arc.parquet", "lambada_openai": "lambada.parquet", "wikitext": "wiki.parquet"}
    inc = os.path.join(out, "tasks")
    os.makedirs(inc, exist_ok=True)
    for task, rel in tasks.items():  # lm-eval's own task yaml, on the local parquet file
        path = os.path.join(data, files[task])
        yaml.safe_dump({"include": os.path.join(os.path.dirname(lm_eval.__file__), "tasks", rel), "task": task,
                        "dataset_path": "parquet", "dataset_name": None,
                        "dataset_kwargs": {"data_files": {"train": path, "validation": path, "test": path}}},
                       open(os.path.join(inc, task + ".yaml"), "w"))
    yaml.safe_dump({"group": "fixture_group", "task": ["piqa", "arc_easy"], "metadata": {"version": 1.0},
                    "aggregate_metric_list": [{"metric": "acc", "aggregation": "mean", "weight_by_size": True}]},
                   open(os.path.join(inc, "fixture_group.yaml"), "w"))
    yaml.safe_dump({"group": "fixture_other", "task": ["lambada_openai", "wikitext"]},
                   open(os.path.join(inc, "fixture_other.yaml"), "w"))
    runs = {"group": ["fixture_group", "fixture_other"], "nogroup": list(tasks)}
    manager = TaskManager(include_path=inc, include_defaults=False)  # the tasks above only: indexing all is slow
    for name, names in runs.items():
        res = simple_evaluate(model=StandIn(), tasks=names, task_manager=manager, bootstrap_iters=100)
        tracker = EvaluationTracker(output_path=os.path.join(out, name))
        tracker.general_config_tracker.model_name = "fake/model"
        tracker.general_config_tracker.model_name_sanitized = "fake__model"
        tracker.save_results_aggregated(results=res, samples=None)


if __name__ == "__main__":
    main()
