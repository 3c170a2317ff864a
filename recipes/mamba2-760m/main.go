// Command mamba2-760m trains the mamba2-760m recipe (see recipes/recipe and `go run ./recipes/mamba2-760m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("mamba2-760m") }
