// Command oryx-tg-small trains the oryx-tg-small recipe (see recipes/recipe and `go run ./recipes/oryx-tg-small -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tg-small") }
