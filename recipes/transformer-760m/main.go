// Command transformer-760m trains the transformer-760m recipe (see recipes/recipe and `go run ./recipes/transformer-760m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("transformer-760m") }
