"""The lm-evaluation-harness adapter of Oryx in Go, as a package: `pip install ./python` (from a clone) installs
it, its schedule language (oryx_schedule) beside it, and the command `oryx-lmeval`, which is lm_eval's command
line with the model `oryx` registered:

    oryx-lmeval --model oryx --model_args export=DIR,dtype=float32 --tasks piqa --device cpu --batch_size 1

Importing the package registers the model with lm_eval (lm_eval 0.4.13 finds models by registration, not by
entry point; the package also declares the entry point lm_eval.models: oryx for tools that look there). The
model arguments, the helpers (`oryx-lmeval tasks`, `convert`, `compare`) and what the scores equal:
lmeval_oryx's docstring and docs/interop.md §2 of the repository. The two modules are the repository's
scripts/lmeval_oryx.py and scripts/oryx_schedule.py (linked here, copied into the package when it is built).
"""

from .lmeval_oryx import OryxEvalModel, main  # noqa: F401  (registers --model oryx)
