// Command oryx-tm-small trains the oryx-tm-small recipe (see recipes/recipe and `go run ./recipes/oryx-tm-small -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tm-small") }
