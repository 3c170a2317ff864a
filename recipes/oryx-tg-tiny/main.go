// Command oryx-tg-tiny trains the oryx-tg-tiny recipe (see recipes/recipe and `go run ./recipes/oryx-tg-tiny -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("oryx-tg-tiny") }
