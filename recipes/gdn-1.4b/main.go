// Command gdn-1.4b trains the gdn-1.4b recipe (see recipes/recipe and `go run ./recipes/gdn-1.4b -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("gdn-1.4b") }
