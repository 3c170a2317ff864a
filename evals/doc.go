// Package evals will hold the evaluation harness (LM tasks, recall-intensive retrieval, mixed-mode
// schedules, leaderboard JSON) behind `go run ./evals`. Not implemented yet: issue 6 brings it.
package evals
