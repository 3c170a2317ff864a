// Package schedule is the schedule language of multi-mixer models: which tokens read in attention mode and
// which in linear mode. A Schedule is a batch × positions grid of oryx.Mode, fed to the model's graphs as a
// [B, T] int32 tensor (1 = attention).
//
// What is here, one concept per file:
//
//	schedule.go    Schedule, the grid of modes; BlockRandom (the training's block-random modes)
//	spec.go        ParseSpec, the one parser of schedule strings ("attention", "linear", "attention-last:N",
//	               "block:L:p", "sequence:p", ranges "A:0-9,L:10-", budgets...), and what a parsed Spec gives:
//	               Schedule, ScheduleRows, DecodeMode (generated tokens' modes), Budget
//	budget.go      schedules chosen at inference: "budget:F:POLICY" (last, question, random, entropy), the exact
//	               rules, and the decoding escalation rule (Escalation) with the entropy it reads
//	flops.go       ScheduleFLOPs: the forward FLOPs of a schedule's row, dense or gathered
//
// Import direction: schedule imports oryx — for Mode, the model's per-token readout, and Config, which a
// schedule's FLOPs depend on — and nothing above it; the inference engine (oryx/infer), the trainer and the
// evaluations import schedule. Mode stays in oryx because the model's graphs take it; the schedule language
// (parsing, budgets, policies) is not the model's business, so oryx does not import this package.
package schedule
