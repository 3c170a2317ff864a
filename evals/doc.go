// Command evals evaluates an oryx checkpoint on lm-evaluation-harness-compatible LM tasks, the JRT
// recall-intensive retrieval tasks and RULER needle-in-a-haystack, under a mode schedule, and writes one
// results file in lm-evaluation-harness 0.4's layout (evals/leaderboard), task by task, printing lm-eval's
// results table at the end; `evals merge` builds leaderboard.json and a markdown table from results files.
//
//	go run ./evals --checkpoint runs/oryx-tg-130m --tasks lm,recall,niah --mixed --out results/tg-mixed.json
//	go run ./evals --checkpoint DIR --tasks piqa,arc_easy --schedule attention --limit 100 --log-samples
//	go run ./evals merge --out results results/*.json
//	go run ./evals switch --checkpoint DIR --at 512 --seq-len 1024      # per-position loss around a mode switch
//	go run ./evals mqar --checkpoint DIR    # MQAR accuracy per schedule (pairs, length, offset: the run's)
//	go run ./evals --checkpoint DIR --tasks piqa --schedule budget:0.05:entropy   # 5 % attention, placed by entropy
//	go run ./evals frontier --checkpoint DIR --tasks mqar,needle,niah_single_1,lambada_openai,piqa \
//	    --budgets 0,0.02,0.05,0.1,0.2,0.5,1 --policies last,question,random,entropy   # accuracy vs FLOPs
package main
