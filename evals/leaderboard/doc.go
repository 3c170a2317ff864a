// Package leaderboard writes one result file per evaluation run (RunFile: the run's metadata, every
// task's harness.Result with metrics, n and stderr, the attention fraction, and the papers' averages) and
// merges run files into leaderboard.json plus a markdown table (Merge, Leaderboard.Markdown).
//
// The run metadata is a plain struct the caller fills (RunInfo); nothing here reads checkpoints or
// clocks, so the same inputs give the same bytes.
package leaderboard
