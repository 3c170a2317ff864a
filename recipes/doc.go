// Package recipes will hold the training recipes (recipes/recipe plus one small main per run, e.g.
// recipes/oryx-tg-1.4b) and the tiny CPU recipes. Not implemented yet: issue 5 brings it.
package recipes
