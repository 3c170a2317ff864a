// Command gdn-130m trains the gdn-130m recipe (see recipes/recipe and `go run ./recipes/gdn-130m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("gdn-130m") }
