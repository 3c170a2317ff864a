// Command gdn-tiny trains the gdn-tiny recipe (see recipes/recipe and `go run ./recipes/gdn-tiny -h`).
package main

import "github.com/oryx-go/oryx/recipes/recipe"

func main() { recipe.Main("gdn-tiny") }
