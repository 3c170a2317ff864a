// Command transformer-tiny trains the transformer-tiny recipe (see recipes/recipe and `go run ./recipes/transformer-tiny -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("transformer-tiny") }
