// Command oryx-tm-tiny trains the oryx-tm-tiny recipe (see recipes/recipe and `go run ./recipes/oryx-tm-tiny -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tm-tiny") }
