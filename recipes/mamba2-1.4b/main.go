// Command mamba2-1.4b trains the mamba2-1.4b recipe (see recipes/recipe and `go run ./recipes/mamba2-1.4b -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("mamba2-1.4b") }
