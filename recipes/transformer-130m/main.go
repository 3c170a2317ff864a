// Command transformer-130m trains the transformer-130m recipe (see recipes/recipe and `go run ./recipes/transformer-130m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("transformer-130m") }
