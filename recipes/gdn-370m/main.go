// Command gdn-370m trains the gdn-370m recipe (see recipes/recipe and `go run ./recipes/gdn-370m -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("gdn-370m") }
