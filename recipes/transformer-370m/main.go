// Command transformer-370m trains the transformer-370m recipe (see recipes/recipe and `go run ./recipes/transformer-370m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("transformer-370m") }
