// Command oryx-tg-370m trains the oryx-tg-370m recipe (see recipes/recipe and `go run ./recipes/oryx-tg-370m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tg-370m") }
