// Command oryx-tm-130m trains the oryx-tm-130m recipe (see recipes/recipe and `go run ./recipes/oryx-tm-130m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tm-130m") }
