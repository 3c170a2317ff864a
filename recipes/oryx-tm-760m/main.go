// Command oryx-tm-760m trains the oryx-tm-760m recipe (see recipes/recipe and `go run ./recipes/oryx-tm-760m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tm-760m") }
