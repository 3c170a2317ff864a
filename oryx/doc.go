// Package oryx will hold the multi-mixer model: Config and presets, the shared-KV block, the five variants
// (transformer, mamba2, gdn, oryx-tm, oryx-tg), mode schedules, the joint-state inference engine, generation
// and checkpoints. It builds on package layers. Not implemented yet: issue 3 brings it.
package oryx
