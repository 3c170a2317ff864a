# Oryx in Go. `make demo` is the main job, `make test` the test suite (what CI runs).
GO ?= go

.PHONY: demo test bench-mixers vet build

# The main job. Until issue 7 (train -> evaluate -> leaderboard on the synthetic corpus) lands, it checks
# the backend set-up and runs every mixer's chunked, scan and step forms against each other.
demo:
	$(GO) run ./cmd/oryx selfcheck

# The test suite: every package, pure-Go backend, no network, no GPU.
test:
	$(GO) vet ./...
	$(GO) test ./...

# Mixer-core benchmarks written up in BENCHMARKS.md (takes several minutes on 2 cores).
bench-mixers:
	$(GO) test ./layers -run '^$$' -bench 'Mixer' -benchtime 3x -timeout 60m

build:
	$(GO) build ./...
	CGO_ENABLED=0 $(GO) build ./...
