// Command oryx is the project's user command. Subcommands:
//
//	oryx selfcheck    check the backend set-up and cross-check every mixer's forms (chunked loop, chunked
//	                  scan, one-token steps) on random data
//	oryx init         write a checkpoint with random weights (config.json + GoMLX checkpoint files) for a
//	                  preset or a JSON config, and print its parameter report
//	oryx info         parameters, FLOPs per token under schedules, decode-state memory (no weights needed)
//	oryx generate     load a checkpoint and continue prompts under a mode schedule; prints the
//	                  continuations, decode speed, prefill time and the fraction of tokens run in attention
//	oryx export       write a checkpoint as model.safetensors (Hugging Face / fla-style names) + config.json
//	oryx import       read such an export back into a checkpoint, bit for bit
//	oryx tokenize     encode a text parquet corpus once into token parquet shards + manifest.json (the
//	                  training stream reads them without tokenizing again), with a progress bar
//
// Text prompts of generate go through --tokenizer (default: the training run's tokenizer, else bytes).
// Training is `go run ./recipes/<name>`, evaluation `go run ./evals`.
package main

import (
	"fmt"
	"os"

	"github.com/oryx-go/oryx/internal/cli"
	"github.com/oryx-go/oryx/oryx"
)

// glibc's allocator is set for XLA at load time (oryx/xlamalloc) through layers/selfcheck, which imports it
// and which only this command imports (a package imports at most 12 of the module: internal/repocheck).

func main() {
	oryx.SetupCommand() // the backend line on standard error, the compilation cache (docs/library.md)
	if len(os.Args) < 2 {
		usage()
		os.Exit(cli.ExitUsage)
	}
	var err error
	switch os.Args[1] {
	case "selfcheck":
		err = selfcheckCmd(os.Args[2:])
	case "init":
		err = initCmd(os.Args[2:], os.Stdout, os.Stderr)
	case "generate":
		err = generateCmd(os.Args[2:], os.Stdout, os.Stderr)
	case "info":
		err = infoCmd(os.Args[2:], os.Stdout, os.Stderr)
	case "synth":
		err = synthCmd(os.Args[2:], os.Stdout, os.Stderr)
	case "tokenize":
		err = tokenizeCmd(os.Args[2:], os.Stdout, os.Stderr)
	case "export":
		err = exportCmd(os.Args[2:], os.Stdout, os.Stderr)
	case "import":
		err = importCmd(os.Args[2:], os.Stdout, os.Stderr)
	case "compare":
		err = compareCmd(os.Args[2:], os.Stdout, os.Stderr)
	case "-h", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "oryx: unknown subcommand %q\n\n", os.Args[1])
		usage()
		os.Exit(cli.ExitUsage)
	}
	cli.Exit("oryx", err) // usage errors exit 2, an interrupted tokenize 130, other failures 1
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: oryx <subcommand> [flags]

subcommands:
  selfcheck   check the backend and cross-check the mixers' chunked, scan and step forms
  init        write a random-weight checkpoint and print its parameters:
                oryx init --out DIR [--preset tiny --variant oryx-tg | --config FILE] [--seed N]
  generate    continue prompts from a checkpoint under a mode schedule:
                oryx generate --checkpoint DIR --prompt "text" [--prompt ...] [--prompt-ids 1,2,3]
                  [--schedule SPEC] [--max-tokens N] [--temperature T --top-k K --top-p P --seed N]
                  [--stop IDS] [--capacity N] [--speculative K]
              text goes through --tokenizer (default: the training run's, else bytes)
  info        parameters, FLOPs per token under mode schedules and decode-state memory of a model:
                oryx info [--preset 130m --variant oryx-tg | --config FILE] [--seq-len 2048] [--schedule SPEC ...]
  synth       write a synthetic corpus (MQAR or the synthetic language mix) to parquet:
                oryx synth --kind mqar|synthlang --out FILE [--n N --seed S --vocab V --seq-len T --pairs P]
  tokenize    encode a text parquet corpus once into token shards (tokens-NNNNN.parquet + manifest.json):
                oryx tokenize --input PATTERN [--column text] --tokenizer (bytes|PATH/tokenizer.json|PATH/tokenizer.model)
                  --out DIR [--shard-rows 100000] [--workers N]
  export      write a checkpoint as a Hugging Face folder (safetensors, config.json, modeling_oryx.py, the
              tokenizer, generation_config.json, a model card: go doc ./oryx/hf):
                oryx export --checkpoint DIR --format safetensors --out DIR [--tokenizer SPEC]
  import      read such an export back into a checkpoint (bit-exact):
                oryx import --from DIR --out CHECKPOINT_DIR
  compare     the Go model's logits against the export's PyTorch reference (needs Python with torch):
                oryx compare --checkpoint DIR --export DIR (--prompt TEXT | --ids 1,2,3) [--schedule SPEC]

Run "oryx <subcommand> -h" for the flags of a subcommand.
The backend comes from GOMLX_BACKEND (default: the pure-Go backend); see docs/backends.md.
`)
}
