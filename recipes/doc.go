// Package recipes holds the training runs: recipes/train (the trainer: run loop, optimizer, run state, data
// parallelism), recipes/recipe (the recipe table, plans for named hardware and the shared main), one small
// main per run (recipes/<variant>-<size>, e.g. recipes/oryx-tg-1.4b, recipes/gdn-tiny), recipes/study and
// recipes/tiny-study (the main job: tiny models trained and evaluated end to end). This package itself holds
// no code.
package recipes
