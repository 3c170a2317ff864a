// Command mamba2-tiny trains the mamba2-tiny recipe (see recipes/recipe and `go run ./recipes/mamba2-tiny -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("mamba2-tiny") }
