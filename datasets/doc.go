// Package datasets turns text corpora into tokenized, packed training sequences, and makes the synthetic
// corpora that tiny recipes and tests train on. It knows nothing of models (it does not import package oryx).
// Parquet reading and writing is package datasets/hfparquet; the tokenizers are package datasets/tokenizers.
//
// The pieces, one concept per file:
//
//	spec.go           the one data-spec parser (synth[:SEED], mix:..., text:PATH, parquet:PATTERN#COLUMN, a
//	                  pre-tokenized directory, parquet) every command's --data goes through: OpenTraining,
//	                  OpenStream, ValidationSet, HeldOut
//	mixture.go        the tiny study's training mixture (mix:synth=W,mqar=W,needle=W,text:PATH=W,...): language,
//	                  MQAR, needles and real text
//	textcorpus.go     real text (plain-text files, parquet text columns) split once into a training part and a
//	                  held-out part that share no byte; corpora.go the corpora the studies expect and where to
//	                  get them (KnownCorpora)
//	source.go         documents with resumable positions (in memory, parquet text column)
//	stream.go         documents → tokens (EOS between documents) → packed sequences of T+1, shuffled by
//	                  seed, sharded across data-parallel workers, with an exact resume cursor
//	pretokenized.go   text parquet → token parquet shards + manifest, and a token stream over them
//	mqar.go           multi-query associative recall (Zoology), deterministic by seed
//	synthlang.go      a small synthetic language mix so that LM loss means something on tiny models
//	minineedle.go     a compact needle-in-a-haystack corpus in that language for tiny models (scored by niah)
//
// The data-spec grammar (spec.go, mixture.go, textcorpus.go):
//
//	SPEC  = "synth" | "synth:" SEED | DIR | PATTERN | TEXT | "mix:" ITEM { "," ITEM }
//	TEXT  = "text:" PATH | "parquet:" PATTERN [ "#" COLUMN ]
//	ITEM  = ("synth" | "mqar" | "needle") "=" W | TEXT "=" W | "pairs=" P | "loss=" ("answers" | "all")
//	      | "heldout=" F
//
// PATH is a file or a glob of plain UTF-8 text files; PATTERN a parquet file, directory or glob; W a
// relative weight (≥ 0; > 0 for TEXT items); F the held-out fraction of each text file's bytes or parquet
// file's rows, in (0, 0.5], default 0.1. A TEXT spec alone is the mixture of that one component. Paths may not
// hold commas.
//
// Bad input (empty or truncated parquet, wrong column type, invalid UTF-8, an unsupported tokenizer, a
// glob matching nothing, a text file that is not UTF-8, too little text for the sequence length) is an error
// that names the file, column and types; a missing file of the studies' corpora also says where they expect it
// and where to get it (source, size, sha256). Where skipping is the documented policy, skips are counted and
// logged, never silent.
package datasets
