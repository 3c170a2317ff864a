// Package leaderboard writes one results file per evaluation run and merges them into a leaderboard.
//
//	runfile.go      RunInfo, RunFile: lm-evaluation-harness 0.4's results layout (results, groups,
//	                group_subtasks, configs, versions, n-shot, higher_is_better, n-samples, config), the
//	                project's own fields under "oryx"; reads lm-eval's own files too
//	resultstable.go RunFile.ResultsTable: lm-eval's make_table
//	averages.go     the papers' averages (GDN, Mamba, recall, NIAH)
//	metric.go       aggregation, direction and unit of a metric by name
//	merge.go        Merge, MergeWith: skip own outputs, one row per run identity, partial runs
//	markdown.go     Leaderboard.Markdown (percent throughout, NIAH scored/total)
//
// The run metadata is a plain struct the caller fills (RunInfo); nothing here reads checkpoints or
// clocks, so the same inputs give the same bytes.
package leaderboard
