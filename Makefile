# Oryx in Go. `make demo` is the main job, `make test` the test suite (what CI runs).
GO ?= go

.PHONY: demo demo-run demo-quick test test-go test-xla vet fuzz-short xla-cpu xla-cuda bench-mixers bench-model bench-train \
	bench-train-xla build

# XLA: `make xla-cpu` installs the pinned XLA CPU PJRT plugin from the Python package index into .xla/ (project-local,
# git-ignored; scripts/install-xla.sh) and prints its path as the last line. Binaries built with -tags xla find it
# there by themselves (order: $$GOMLX_BACKEND > the installed plugin > pure Go).
XLA_PLUGIN = $(shell cat .xla/cpu.plugin 2>/dev/null)
# -tags xla when the plugin is installed (and cgo works): then the demo runs on XLA CPU, else on pure Go.
XLA_TAGS = $(if $(XLA_PLUGIN),-tags xla,)
# The XLA test suite compiles hundreds of small graphs once each: XLA's fast-compile settings (no LLVM
# optimisation, the same HLO passes) cut its time about 2x. Benchmarks use XLA's defaults.
XLA_TEST_FLAGS = --xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true

# The main job: the set-up self-check, then the tiny study (recipes/study): Transformer, GDN and Oryx-TG with
# Oryx-TG's controls (p = 1, p = 0) and ablation (complementary mode training), trained on the same synthetic
# mixture and budget, evaluated all-attention / all-linear / mixed (validation loss, MQAR, the MQAR switch
# test, mini needle, copy) -> runs/study/{study.json,report.md,leaderboard.*,*.png} with a verdict per claim.
# The budget is configurable: make demo DEMO_FLAGS="--steps 400" (or --runs transformer,gdn,oryx-tg).
DEMO_FLAGS ?=
demo:
	-@$(MAKE) -s xla-cpu >/dev/null || echo "make demo: no XLA CPU plugin (pip missing or offline): running on the pure-Go backend"
	$(MAKE) demo-run

demo-run:
	$(GO) run $(XLA_TAGS) ./cmd/oryx selfcheck
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study $(DEMO_FLAGS)

# The same pipeline at a fraction of the budget (CI smoke; numbers meaningless): runs/study-quick.
demo-quick:
	$(GO) run $(XLA_TAGS) ./recipes/tiny-study --quick

# The test suite (what CI runs): vet, every package on the pure-Go backend, the same suite again on XLA CPU (the
# plugin installed first by `make xla-cpu`), then a short run of every fuzz test. No GPU; the network only for pip.
test: vet test-go test-xla fuzz-short

# The pure-Go suite alone, for machines without pip.
test-go:
	$(GO) test ./...

# The whole suite on XLA CPU (cgo, -tags xla), with 4 host devices for the data-parallel tests.
test-xla:
	@plugin=$$($(MAKE) -s xla-cpu | tail -n 1) && test -n "$$plugin" && \
	echo "test-xla: GOMLX_BACKEND=xla:$$plugin" && \
	GOMLX_BACKEND="xla:$$plugin" XLA_FLAGS="$(XLA_TEST_FLAGS) --xla_force_host_platform_device_count=4" \
		$(GO) test -tags xla -timeout 30m ./...

vet:
	$(GO) vet ./...
	$(GO) vet -tags xla ./...

xla-cpu:
	@bash scripts/install-xla.sh cpu

xla-cuda:
	@bash scripts/install-xla.sh cuda

# 10 s per fuzz target (seed corpora in datasets/testdata/fuzz); longer: FUZZTIME=5m make fuzz-short.
FUZZTIME ?= 10s
FUZZ_TARGETS = FuzzByteTokenizer FuzzBPE FuzzSentencePiece FuzzParquetReader
fuzz-short:
	@for f in $(FUZZ_TARGETS); do \
		$(GO) test ./datasets -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

# Mixer-core benchmarks written up in BENCHMARKS.md (takes several minutes on 2 cores).
bench-mixers:
	$(GO) test ./layers -run '^$$' -bench 'Mixer' -benchtime 3x -timeout 60m

# Model benchmarks written up in BENCHMARKS.md: forward tok/s (tiny, 130m) and decode ms/token (130m).
bench-model:
	$(GO) test ./oryx -run '^$$' -bench 'Forward|Decode' -benchtime 3x -timeout 90m

# Short XLA training benchmark (GPU): make bench-train-xla PJRT=/abs/path/pjrt_c_api_cuda_plugin.so [RECIPE=..]
# [DEVICES=n] [STEPS=30] [PEAK_TFLOPS=989]; prints tokens/s and MFU (scripts/bench-train-xla.sh).
bench-train-xla:
	PJRT=$(PJRT) RECIPE=$(or $(RECIPE),oryx-tg-130m) DEVICES=$(or $(DEVICES),1) STEPS=$(or $(STEPS),30) \
		PEAK_TFLOPS=$(or $(PEAK_TFLOPS),989) bash scripts/bench-train-xla.sh

# Training throughput and peak memory per variant (tiny; 130m with BENCH_130M=1), for BENCHMARKS.md.
bench-train:
	$(GO) test ./recipes/recipe -run '^$$' -bench 'TrainStep' -benchtime 5x -timeout 90m

build:
	$(GO) build ./...
	CGO_ENABLED=0 $(GO) build ./...
