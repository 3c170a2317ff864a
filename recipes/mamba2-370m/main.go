// Command mamba2-370m trains the mamba2-370m recipe (see recipes/recipe and `go run ./recipes/mamba2-370m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("mamba2-370m") }
