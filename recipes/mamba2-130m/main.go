// Command mamba2-130m trains the mamba2-130m recipe (see recipes/recipe and `go run ./recipes/mamba2-130m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("mamba2-130m") }
