// Command transformer-small trains the transformer-small recipe (see recipes/recipe and `go run ./recipes/transformer-small -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("transformer-small") }
