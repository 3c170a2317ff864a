// Command mamba2-small trains the mamba2-small recipe (see recipes/recipe and `go run ./recipes/mamba2-small -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("mamba2-small") }
