// Command gdn-760m trains the gdn-760m recipe (see recipes/recipe and `go run ./recipes/gdn-760m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("gdn-760m") }
