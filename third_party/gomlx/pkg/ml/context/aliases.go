/*
 *	Copyright 2023 Jan Pfeifer
 *
 *	Licensed under the Apache License, Version 2.0 (the "License");
 *	you may not use this file except in compliance with the License.
 *	You may obtain a copy of the License at
 *
 *	http://www.apache.org/licenses/LICENSE-2.0
 *
 *	Unless required by applicable law or agreed to in writing, software
 *	distributed under the License is distributed on an "AS IS" BASIS,
 *	WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *	See the License for the specific language governing permissions and
 *	limitations under the License.
 */

package context

// Aliases to GoMLX basic types.
//
// Usually one would simply import the full `graph` with a period (".") so
// the ops don't need a package qualifier. But we can't do this in `context`
// package because we have conflicting symbols (`Exec`, `MustNewExec`).

import (
	"github.com/gomlx/gomlx/backends"
	graph "github.com/gomlx/gomlx/pkg/core/graph"
)

// Backend is an alias to graph.Backend.
type Backend = backends.Backend

// Graph is an alias to graph.Graph.
type Graph = graph.Graph

// Node is an alias to graph.Node.
type Node = graph.Node
