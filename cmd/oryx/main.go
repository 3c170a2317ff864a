// Command oryx is the project's user command. Subcommands:
//
//	oryx selfcheck    check the backend set-up and cross-check every mixer's forms (chunked loop, chunked
//	                  scan, one-token steps) on random data
//
// Later issues add generate, tokenize and merge-results.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "selfcheck":
		err = selfcheck(os.Args[2:])
	case "-h", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "oryx: unknown subcommand %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oryx:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: oryx <subcommand> [flags]

subcommands:
  selfcheck   check the backend and cross-check the mixers' chunked, scan and step forms

The backend comes from GOMLX_BACKEND (default: the pure-Go backend); see the README.
`)
}
