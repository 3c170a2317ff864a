# Oryx in Go. `make demo` is the main job, `make test` the test suite (what CI runs).
GO ?= go

.PHONY: demo demo-quick test fuzz-short bench-mixers bench-model bench-train bench-train-xla vet build

# The main job: the set-up self-check, then the tiny study (recipes/study): Transformer, GDN and Oryx-TG
# trained on the same synthetic mixture and budget, evaluated all-attention / all-linear / mixed (MQAR, mini
# needle, validation loss, mode-switch curves) -> runs/study/{report.md,leaderboard.json,leaderboard.md,*.png}.
demo:
	$(GO) run ./cmd/oryx selfcheck
	$(GO) run ./recipes/tiny-study

# The same pipeline at a fraction of the budget (CI smoke; numbers meaningless): runs/study-quick.
demo-quick:
	$(GO) run ./recipes/tiny-study --quick

# The test suite: every package, pure-Go backend, no network, no GPU; then a short run of every fuzz test.
test:
	$(GO) vet ./...
	$(GO) test ./...
	$(MAKE) fuzz-short

# 10 s per fuzz target (seed corpora in each package's testdata/fuzz); longer: FUZZTIME=5m make fuzz-short.
# Targets are package:FuzzName; one at a time.
FUZZTIME ?= 10s
FUZZ_TARGETS = ./datasets:FuzzByteTokenizer ./datasets:FuzzBPE ./datasets:FuzzSentencePiece \
	./datasets:FuzzParquetReader ./oryx:FuzzLoadConfig ./oryx:FuzzParseSchedule \
	./internal/runinfo:FuzzRunJSON ./recipes/recipe:FuzzTrainerState
fuzz-short:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; f=$${t#*:}; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
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
