// Package recipe is the table of training runs. A recipe (Recipe, looked up by Lookup) is one named run —
// "<variant>-<size>", e.g. "oryx-tg-130m" — with its architecture preset, optimisation (train.TrainConfig)
// and default data; every recipes/<name>/main.go is `recipe.Main("<name>")`. The training itself is package
// train (recipes/train).
//
// The pieces, one per file:
//
//	recipes.go    Recipe, the table (five variants × tiny, small, 130m, 370m, 760m, 1.4b), every value written out
//	settings.go   Settings: a recipe's complete configuration, grouped (--print-config)
//	doc_table.go  the table of docs/recipes.md, generated from the recipes (and checked by its test)
//	plan.go       MakePlan: parameters, FLOPs, memory, time and "does it fit" before anything is allocated
//	hardware.go   the named hardware targets of --plan --hardware and the plan's one-line summary
//	main.go       Main/MainArgs: the flags every recipe command shares (--plan, --print-config), then train.Train
package recipe
