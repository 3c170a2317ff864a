// Command gdn-small trains the gdn-small recipe (see recipes/recipe and `go run ./recipes/gdn-small -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("gdn-small") }
