// Package leaderboard writes one results file per evaluation run and merges them into a leaderboard.
//
//	resultsfile.go  RunInfo, ResultsFile: lm-evaluation-harness 0.4.13's results layout (results, groups,
//	                group_subtasks, configs with the task YAML fields, versions, n-shot, higher_is_better,
//	                n-samples, config, task_hashes, ...), the project's own fields under "oryx"; reads
//	                lm-eval's own files too (0.4.0–0.4.13); SanitizeModelName
//	resultstable.go ResultsFile.ResultsTable: lm-eval 0.4.13's make_table, through a port of pytablewriter's
//	                cell typing and formatting
//	averages.go     the papers' averages (GDN, Mamba, recall, NIAH)
//	metric.go       aggregation, direction and unit of a metric by name
//	merge.go        Merge, MergeWith: skip own outputs, one row per run identity, partial runs
//	markdown.go     Leaderboard.Markdown (percent throughout, NIAH scored/total)
//
// The run metadata is a plain struct the caller fills (RunInfo); nothing here reads checkpoints or
// clocks, so the same inputs give the same bytes.
package leaderboard
