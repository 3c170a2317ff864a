// Command oryx-tm-370m trains the oryx-tm-370m recipe (see recipes/recipe and `go run ./recipes/oryx-tm-370m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tm-370m") }
