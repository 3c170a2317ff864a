# Oryx in Go. `make demo` is the main job, `make test` the test suite (what CI runs).
GO ?= go

.PHONY: consumer-check demo demo-run demo-quick study-scale study-scale-run study-attribution study-attribution-run study-decompose \
	study-decompose-run study-decompose-lr study-decompose-lr-run study-trend study-trend-run study-trend-synth study-trend-synth-run study-decide study-decide-run test test-full test-go test-go-fuzz test-xla vet lint vet-lint fuzz-short xla-cpu xla-cuda py-tools torch lmeval-check bench-mixers \
	bench-mixers-all bench-model bench-model-peer gpu-check bench-compile bench-train bench-train-xla bench-xla-vs-go bench-speculative build

# XLA: `make xla-cpu` installs the pinned XLA CPU PJRT plugin from the Python package index into .xla/ (project-local,
# git-ignored; scripts/install-xla.sh) and prints its path as the last line. Binaries built with -tags xla find it
# there by themselves (order: $$GOMLX_BACKEND > the installed plugin > pure Go).
XLA_PLUGIN = $(shell cat .xla/cpu.plugin 2>/dev/null)
# -tags xla when the plugin is installed (and cgo works): then the demo runs on XLA CPU, else on pure Go.
XLA_TAGS = $(if $(XLA_PLUGIN),-tags xla,)
# No allocator variable is needed: XLA CPU allocates 30-150 MiB of temporaries per execution and with glibc's
# defaults pays the kernel's page faults every time (a quarter of its CPU time in the mixer benchmarks), so every
# binary built with -tags xla sets glibc's allocator itself when it is loaded (four arenas, no mmap for large
# blocks, no trimming: internal/backend/xla_malloc.go; ORYX_XLA_MALLOC=default keeps glibc's defaults).

# The main job: the set-up self-check, then the study (recipes/study): the Transformer, GDN and Oryx-TG (p = 0.5)
# at tiny2x, 900 steps, seed 1, matched initialisation, trained on the same synthetic mixture and budget (on XLA
# CPU two at a time in worker processes: --jobs; 702 s quiet, README), evaluated all-attention / all-linear /
# mixed (validation loss, MQAR, the MQAR switch test, mini needle, copy), then Oryx-TG's attention-budget frontier on MQAR (accuracy vs FLOPs per budget and
# policy) -> runs/study/{study.json,report.md,leaderboard.*,*.png,frontier/} with a verdict per claim.
# The budget is configurable: make demo DEMO_FLAGS="--steps 400" (or --runs transformer,gdn,oryx-tg).
DEMO_FLAGS ?=
demo:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make demo: no XLA CPU plugin (pip missing or offline): running on the pure-Go backend"
	$(MAKE) demo-run

demo-run:
	$(GO) run $(XLA_TAGS) ./cmd/oryx selfcheck
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study $(DEMO_FLAGS)

# The same pipeline at a fraction of the budget (CI smoke; numbers meaningless): runs/study-quick. On the pure-Go
# backend: at 8 steps of 8 sequences XLA's compilation is the whole cost (179 s on XLA CPU vs 59 s on pure Go,
# docs/history.md §1.5).
demo-quick:
	$(GO) run ./recipes/tiny-study --quick

# study-scale (not in CI; sized for ≤ 90 min on XLA CPU with 2 cores, docs/studies.md §5): the Transformer, GDN
# and Oryx-TG (p = 0.5) at the tiny width and at tiny2x (d 128) × 3 seeds, each trained for 1.5× the demo's budget
# (both budgets read from one run: warm-up + constant LR; SCALE_FLAGS="--steps 1400" for 2×, estimated at 85–130
# min), nothing evaluated after training: claim (a)'s loss gaps and claim (b)'s recall ratio against width and
# tokens, over seeds -> runs/study-scale/{scale.json,report.md,scale.png,mqar_curves.png} (SCALE_FLAGS="--widths 1":
# the tiny width alone, in about a third of the time; a later full run resumes it). The one-seed spreads the demo's
# verdicts use come from study-decompose, below.
SCALE_FLAGS ?=
study-scale:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make study-scale: no XLA CPU plugin: running on the pure-Go backend (many hours)"
	$(MAKE) study-scale-run

# A sub-make, as demo-run: XLA_TAGS is read when make starts, before xla-cpu has installed the plugin.
study-scale-run:
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study --scale $(SCALE_FLAGS)

# The recall-gap attribution (not in CI): Oryx-TG at the demo's budget and seed with one change each — mode-block
# length 8 / 64 / 128, attention probability 0.25 / 0.75, attention reading the L2-normalised key or the key before the
# conv and SiLU, learning rate 1e-3, complementary mode training (both readouts on every token) — beside the unchanged model: MQAR per schedule, validation loss per mode,
# tokens to 50 % / 90 % MQAR -> runs/study-attribution/{attribution.json,report.md,mqar_curves.png}.
ATTRIBUTION_FLAGS ?=
study-attribution:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make study-attribution: no XLA CPU plugin: running on the pure-Go backend (hours)"
	$(MAKE) study-attribution-run

study-attribution-run:
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study --attribution $(ATTRIBUTION_FLAGS)

# The (a) decomposition (not in CI; docs/studies.md §4; its time: the README's results): at tiny2x, seeds 2-4,
# matched initialisation — the Transformer, GDN, Oryx-TG at p = 0.5, its controls at p = 1 and p = 0 and with
# complementary training, evaluated as the demo is — claim (a)'s gap split into the mixed-training cost (p 0.5 vs
# p 1 / p 0; complementary splits it into interference and token halving), the architecture cost
# (p 1 vs the Transformer, p 0 vs GDN) and the total, on the language alone and on the held-out mixture, with
# Student-t intervals; the claims over the three seeds; and the one-seed spreads the demo's verdicts use (printed for
# recipes/study/claims.go) -> runs/study-decompose/{decompose.json,report.md,...}. study-decompose-lr: the same five
# with a cosine decay of the learning rate to 0.1x (runs/study-decompose-lr).
DECOMPOSE_FLAGS ?=
study-decompose:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make study-decompose: no XLA CPU plugin: running on the pure-Go backend (many hours)"
	$(MAKE) study-decompose-run

study-decompose-run:
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study --decompose $(DECOMPOSE_FLAGS)

# The sequential study (not in CI; docs/studies.md §7): the demo's three models (tiny2x, 900 steps, constant LR,
# matched initialisation) on training seeds 2, 3, …, looks at 3 / 6 / 10 / 12 seeds under an O'Brien–Fleming-type
# alpha-spending boundary fixed in recipes/study/decide.go, until (a) in linear mode, (b) and (c) are decided or
# the budget runs out (DECIDE_FLAGS="--budget-time 3h" or "--budget-seeds 6"); resumable (each run and its
# evaluation are kept); decide.json records every look, and the look of seeds 2–11 prints the one-seed spreads
# for claims.go. About 12 minutes a seed at two runs at a time on 2 cores (one tiny2x triple ~700 s quiet), so
# all twelve seeds take about 2.5 hours -> runs/study-decide/{decide.json,report.md,...}.
DECIDE_FLAGS ?=
study-decide:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make study-decide: no XLA CPU plugin: running on the pure-Go backend (many hours)"
	$(MAKE) study-decide-run

study-decide-run:
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study --decide $(DECIDE_FLAGS)

study-decompose-lr:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make study-decompose-lr: no XLA CPU plugin: running on the pure-Go backend (many hours)"
	$(MAKE) study-decompose-lr-run

study-decompose-lr-run:
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study --decompose --lr-decay $(DECOMPOSE_FLAGS)

# The trend (not in CI; docs/studies.md, "The trend"): GDN, Oryx-TG (p = 0.5) and the Transformer at tiny2x and at the
# tiny width, seeds 2-4, matched initialisation, warm-up then a constant learning rate, trained 1,800 steps (7.37M
# tokens); every run scores a held-out set sequence by sequence at 225 / 450 / 900 / 1,350 / 1,800 steps; claim (a)'s
# gaps per seed and mean with the verdicts' one-sided 95 % bounds, and per-seed power-law and log-linear fits with
# where they would cross +1 % and 0 (or the statement that the data do not determine it). study-trend trains on real
# English (tinyshakespeare + WikiText-2 test, expected under ../shared/data: docs/data.md; elsewhere:
# TREND_FLAGS="--data-dir DIR") -> runs/study-trend/{trend.json,report.md,trend.png,loss.png,scores/};
# study-trend-synth the same on the synthetic mixture (runs/study-trend-synth). Expected time, each, quiet, XLA CPU,
# 2 cores (estimated, not yet measured): ~1 h 50 min at most — 3 seeds x 1,800 steps x (0.78 s a tiny2x triple step
# + 0.26 s a tiny one; the demo's 702 s for a tiny2x triple at 900 steps, its evaluations included) = 94 min of
# training, plus the held-out scoring (~15 min for English's 3,584 sequences, ~8 min for the synthetic 2,048). A rerun
# resumes unfinished runs.
TREND_FLAGS ?=
study-trend:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make study-trend: no XLA CPU plugin: running on the pure-Go backend (many hours)"
	$(MAKE) study-trend-run

study-trend-run:
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study --trend --english $(TREND_FLAGS)

study-trend-synth:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make study-trend-synth: no XLA CPU plugin: running on the pure-Go backend (many hours)"
	$(MAKE) study-trend-synth-run

study-trend-synth-run:
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study --trend $(TREND_FLAGS)

# The test suite (what CI runs), ≤ 15 minutes on 2 cores (README "The two commands", docs/testing.md):
#  1. the set-up, at once (-j): `make vet-lint` (`go vet` without, then with -tags xla: one after the other, so
#     that on a cold build cache the two do not compile GoMLX twice; then staticcheck the same two ways, `make
#     lint`, on the build cache vet filled), `make py-tools`, `make torch`, `make xla-cpu` and staticcheck's
#     install (the installs are no-ops when done; a fresh machine waits on the network while vet computes);
#  2. the pure-Go suite (`make test-go`, then the fuzz targets for $(FUZZTIME) each, then `make consumer-check`)
#     beside the XLA CPU suite (`make test-xla`, -short): the XLA suite, mostly XLA compiling graphs, leaves one
#     core idle about a third of its time (docs/testing.md §2), where the pure-Go chain runs.
# py-tools and torch come before the suites, so that the interop tests run (Python's safetensors, lm-eval's own
# code on the results and samples files, the exported PyTorch reference against the Go model, transformers
# loading an export). No GPU; the network only for pip and apt-get. TEST_JOBS=1 runs the two suites one after
# the other.
TEST_JOBS ?= 2
test:
	@$(MAKE) --no-print-directory -j5 vet-lint py-tools torch xla-cpu
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) test-go-fuzz test-xla

# The release check: the same, with every sweep and every quick study on both backends (XLA without -short:
# XLA_FULL=1); docs/testing.md §1: its time.
test-full:
	@$(MAKE) --no-print-directory -j5 vet-lint py-tools torch xla-cpu
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) test-go-fuzz test-xla XLA_FULL=1

test-go-fuzz: test-go
	@$(MAKE) --no-print-directory fuzz-short
	@$(MAKE) --no-print-directory consumer-check

# The package as a library: a throwaway Go module outside the repository that requires it (a replace to this
# checkout) builds and runs a smoke program (the tiny preset's logits, a prefill and a decode step equal to the
# parallel forward) against upstream GoMLX/go-xla and with the go.mod stanza of third_party/PATCHES.md, each on
# pure Go and with -tags xla (XLA: when cgo works and `make xla-cpu` installed the plugin); on XLA without the
# patched modules it must say once that it runs without in-place donation, and only when the program asks for the
# announcement: asking for nothing, it must print nothing on standard error and write no cache (scripts/consumer-check.sh). Needs
# the module proxy (or a module cache holding GoMLX v0.26.0 and go-xla v0.1.4).
consumer-check:
	@bash scripts/consumer-check.sh

# The pure-Go suite alone, for machines without pip. The timeout is per package: beside the XLA suite on 2 cores
# recipes/study's quick studies took over go test's default 10 minutes (2026-12-03, load 13).
test-go:
	$(GO) test -timeout 30m ./...

# The suite on XLA CPU (cgo, -tags xla): every package whose tests reach a backend, XLA's fast-compile settings,
# 4 host devices, -short (XLA_FULL=1 for every sweep); see scripts/test-xla.sh.
test-xla:
	XLA_FULL=$(XLA_FULL) bash scripts/test-xla.sh

vet:
	$(GO) vet ./...
	$(GO) vet -tags xla ./...

# staticcheck at a pinned version (honnef.co/go/tools v0.8.2 = staticcheck 2026.2.2, the newest release on the Go
# module proxy, for Go 1.26), with and without -tags xla; its checks: staticcheck.conf (the defaults; GoMLX's graph
# package may be dot-imported). `go install` puts it into bin/ (project-local, git-ignored) under a versioned name,
# so that the install is a no-op when done and a new pin installs anew; it needs the module proxy once.
STATICCHECK_VERSION = v0.8.2
STATICCHECK = bin/staticcheck-$(STATICCHECK_VERSION)
lint: $(STATICCHECK)
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags xla ./...

$(STATICCHECK):
	rm -rf bin/.staticcheck.tmp
	GOBIN=$(CURDIR)/bin/.staticcheck.tmp $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv bin/.staticcheck.tmp/staticcheck $@
	rm -rf bin/.staticcheck.tmp

# make test's checks of the source: vet, then staticcheck, one after the other on 2 cores (staticcheck reads the
# packages vet compiled); staticcheck's install runs beside vet.
vet-lint: vet $(STATICCHECK)
	@$(MAKE) --no-print-directory lint

xla-cpu:
	@bash scripts/install-xla.sh cpu

xla-cuda:
	@bash scripts/install-xla.sh cuda

# The pinned Python packages of the interop tests into .pytools (project-local, git-ignored; pip --target;
# scripts/install-pytools.sh lists them): safetensors, lm-evaluation-harness 0.4.13 (without its dependencies) and
# what its result and task code imports (datasets, pytablewriter, ...), transformers. The tests that use them skip
# with a message when absent.
py-tools:
	@bash scripts/install-pytools.sh

# lm_eval itself (0.4.13, through the model adapter scripts/lmeval_oryx.py and the export's modeling_oryx.py) against
# `go run ./evals` on the same float64 checkpoint, the nine LM tasks on the local data with --limit 5, schedules
# attention and linear: every metric and stderr equal to 1e-6 (scripts/lmeval-check.sh). Not part of `make test`:
# it needs the evaluation data ($ORYX_DATA or shared/data/hf) and takes minutes (wikitext's 2048-token windows).
lmeval-check: py-tools torch
	@bash scripts/lmeval-check.sh

# Debian's python3-torch for /usr/bin/python3 (apt-get when missing and root; scripts/install-torch.sh): the
# exported modeling_oryx.py is checked against the Go model with it (oryx/hf), and the lm-eval check runs on it.
torch:
	@bash scripts/install-torch.sh

# 10 s per fuzz target (seed corpora in each package's testdata/fuzz); longer: FUZZTIME=5m make fuzz-short.
# Targets are package:FuzzName; one at a time, one fuzzing worker each (FUZZ_PARALLEL): in `make test` they run
# beside the XLA suite on 2 cores, where a second worker only takes a core from it (docs/testing.md).
FUZZTIME ?= 10s
FUZZ_PARALLEL ?= 1
FUZZ_TARGETS = ./datasets/tokenizers:FuzzByteTokenizer ./datasets/tokenizers:FuzzBPE \
	./datasets/tokenizers:FuzzSentencePiece ./datasets/hfparquet:FuzzParquetReader ./oryx:FuzzLoadConfig \
	./oryx/schedule:FuzzParseSpec ./internal/rundir:FuzzRunJSON ./recipes/train:FuzzTrainerState
# scripts/fuzz-short.sh runs a target again once when Go's fuzzing coordinator fails it with a bare "context
# deadline exceeded" at the fuzztime boundary (golang/go#75804, Go < 1.27), never when an input failed.
fuzz-short:
	@bash scripts/fuzz-short.sh $(FUZZTIME) $(FUZZ_PARALLEL) $(FUZZ_TARGETS)

# Mixer-core benchmarks written up in BENCHMARKS.md (takes several minutes on 2 cores).
bench-mixers:
	$(GO) test ./layers -run '^$$' -bench 'Mixer' -benchtime 3x -timeout 60m

# The mixer cores side by side in one sitting: pure Go, XLA CPU (installed by `make xla-cpu`) and the PyTorch
# CPU peer (python3-torch + OpenBLAS, scripts/peer_mixers.py); prints one table (scripts/bench-mixers.sh).
bench-mixers-all:
	@plugin=$$($(MAKE) -s xla-cpu | tail -n 1) && test -n "$$plugin" && PLUGIN="$$plugin" bash scripts/bench-mixers.sh

# Model benchmarks written up in BENCHMARKS.md: forward tok/s (tiny, 130m) and decode ms/token (130m).
bench-model:
	$(GO) test ./oryx/infer -run '^$$' -bench 'Forward|Decode' -benchtime 3x -timeout 90m

# Self-speculative decoding vs plain attention-mode decoding (oryx/infer BenchmarkSpeculative): tokens/s, acceptance rate and
# the draft / verify / commit ms per round, greedy, batch 1, KV-cache capacities 512 -> 16384, K = 2, 4, 8. Weights:
# ORYX_BENCH_CHECKPOINT=DIR (a trained Oryx run), else the small Oryx-TG preset with random weights (timings only: its
# readouts rarely agree). XLA=1 runs it on XLA CPU. More knobs (ORYX_BENCH_CONTEXTS, _K, _TOKENS, _FILL, _PROMPT_FILE):
# see the benchmark's doc comment. Its duration was not measured (one quick run at context 512 only).
bench-speculative:
	$(if $(filter 1,$(XLA)),$(GO) test -tags xla,$(GO) test) ./oryx/infer -run '^$$' -bench 'Speculative' -benchtime 2x -timeout 240m

# The whole model next to the PyTorch peer, one sitting (scripts/bench-model-peer.sh; about 15 minutes without the
# 130m rows, which are not yet timed): Oryx-TG training tok/s (tiny 32 × 128, small 16 × 256, 130m 4 × 512), prefill
# tok/s (small, 2K and 8K; 130m, 2K), decode ms/token (small and 130m, 256 / 4K / 16K in the cache), this project on XLA CPU (or pure Go without the plugin) and PyTorch's modeling_oryx.py on the same
# weights, with each row's MFU against the measured matmul peak. Needs python3-torch (+ libopenblas0-pthread).
bench-model-peer:
	bash scripts/bench-model-peer.sh

# On a machine with an NVIDIA GPU, in under 15 minutes (scripts/gpu-check.sh): the CUDA plugin (and CUDA 13
# libraries unless the system has them), the layers suite on CUDA, 130m decoding at 256 / 16K slots, speculative
# auto at 16K, the 130m recipe's training MFU; one summary with the card's name -> results/gpu-check/summary.md.
# DRY_RUN=1 prints the commands; GPU_CHECK_CPU=1 runs the same steps on XLA CPU (a check of the script).
gpu-check:
	bash scripts/gpu-check.sh

# Compile cost per command on XLA CPU, without the persistent compilation cache, with it empty and with it warm:
# selfcheck, generate, the first training steps (scripts/bench-compile.sh, about 5 minutes).
bench-compile:
	bash scripts/bench-compile.sh

# Short XLA training benchmark: tokens/s, model TFLOP/s, MFU (scripts/bench-train-xla.sh). XLA CPU by default
# (MFU against the measured matmul peak); GPUs: make bench-train-xla PJRT=$$(make -s xla-cuda) PEAK_TFLOPS=989.
bench-train-xla:
	PJRT=$(PJRT) RECIPE=$(or $(RECIPE),oryx-tg-130m) DEVICES=$(or $(DEVICES),1) STEPS=$(or $(STEPS),30) \
		PEAK_TFLOPS=$(or $(PEAK_TFLOPS),auto) bash scripts/bench-train-xla.sh

# XLA CPU vs pure Go in one sitting: training tok/s (tiny, 130m), decode ms/token (130m), compile time, peak RSS.
bench-xla-vs-go:
	bash scripts/bench-xla-vs-go.sh

# Training throughput and peak memory per variant (tiny; 130m with BENCH_130M=1), for BENCHMARKS.md.
bench-train:
	$(GO) test ./recipes/train -run '^$$' -bench 'TrainStep' -benchtime 5x -timeout 90m

build:
	$(GO) build ./...
	CGO_ENABLED=0 $(GO) build ./...
