// Command transformer-1.4b trains the transformer-1.4b recipe (see recipes/recipe and `go run ./recipes/transformer-1.4b -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("transformer-1.4b") }
