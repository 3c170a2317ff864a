// Command oryx-tg-760m trains the oryx-tg-760m recipe (see recipes/recipe and `go run ./recipes/oryx-tg-760m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tg-760m") }
