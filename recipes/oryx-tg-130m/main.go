// Command oryx-tg-130m trains the oryx-tg-130m recipe (see recipes/recipe and `go run ./recipes/oryx-tg-130m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tg-130m") }
