// Command oryx-tg-1.4b trains the oryx-tg-1.4b recipe (see recipes/recipe and `go run ./recipes/oryx-tg-1.4b -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tg-1.4b") }
