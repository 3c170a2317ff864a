package recipe

import (
	"encoding/json"
	"fmt"

	"github.com/oryx-go/oryx/datasets/tokenizers"
	"github.com/oryx-go/oryx/oryx"
	"github.com/oryx-go/oryx/recipes/train"
)

// Settings is a recipe's complete configuration, as `--print-config` prints it (with the command's flags
// applied) and docs/recipes.md tabulates it: the model the preset expands to, the data, and every training
// setting in one of four groups.
type Settings struct {
	Recipe string       `json:"recipe"`
	Note   string       `json:"note"`
	Preset string       `json:"preset"`
	Model  oryx.Config  `json:"model"`  // the preset of the variant, with the vocabulary the tokenizer needs
	Params int64        `json:"params"` // oryx.CountParams(Model).Total
	Data   DataSettings `json:"data"`
	// The training configuration (train.TrainConfig with its defaults filled), by group (settingGroups), each
	// value as the trainer's run.json records it.
	Optimizer map[string]json.RawMessage `json:"optimizer"`
	Schedule  map[string]json.RawMessage `json:"schedule"`
	Budget    map[string]json.RawMessage `json:"budget"` // with tokens_per_step and tokens, the whole run's
	Run       map[string]json.RawMessage `json:"run"`
}

// DataSettings is what a recipe trains on.
type DataSettings struct {
	Train     string `json:"train"`      // --data ("": must be given)
	Val       string `json:"val"`        // --val-data ("": held-out synth, else the start of --data)
	Column    string `json:"column"`     // the text column of parquet corpora
	Tokenizer string `json:"tokenizer"`  // --tokenizer ("": must be given)
	PadVocab  bool   `json:"pad_vocab"`  // the model's vocabulary is the tokenizer's, padded to a multiple of 64
	VocabSize int    `json:"vocab_size"` // the tokenizer's ids (0: no tokenizer given)
}

// settingGroups puts every field of train.TrainConfig (its JSON key) in one group of Settings: a field
// missing here makes MakeSettings fail (a test builds every recipe's), so a new setting cannot go unprinted.
var settingGroups = map[string]string{
	"lr": "optimizer", "beta1": "optimizer", "beta2": "optimizer", "eps": "optimizer", "weight_decay": "optimizer",
	"clip_norm": "optimizer", "loss_scale": "optimizer", "precision": "optimizer",

	"lr_schedule": "schedule", "warmup_steps": "schedule", "min_lr_ratio": "schedule", "mode_training": "schedule",
	"block_len": "schedule", "attention_prob": "schedule",

	"seq_len": "budget", "batch": "budget", "micro_batch": "budget", "steps": "budget", "devices": "budget",

	"seed": "run", "checkpoint_every": "run", "keep_checkpoints": "run", "eval_every": "run", "eval_batches": "run",
	"log_every": "run", "max_bad_steps": "run",
}

// MakeSettings is the complete configuration of recipe r trained with tc (r.Train, or it with the flags
// applied; resolved: train.TrainConfig.Resolve) on data: the model is r's preset for the tokenizer data.Tokenizer names (loaded to size the
// vocabulary; none: the preset's).
func MakeSettings(r Recipe, tc train.TrainConfig, data DataSettings) (Settings, error) {
	if data.Tokenizer != "" {
		tok, err := tokenizers.Load(data.Tokenizer)
		if err != nil {
			return Settings{}, fmt.Errorf("--tokenizer: %w", err)
		}
		data.VocabSize = tok.VocabSize()
	}
	data.PadVocab = r.PadVocabToTokenizer
	cfg, err := r.ModelConfig(data.VocabSize)
	if err != nil {
		return Settings{}, err
	}
	s := Settings{Recipe: r.Name, Note: r.Note, Preset: r.Preset, Model: cfg, Params: oryx.CountParams(cfg).Total, Data: data,
		Optimizer: map[string]json.RawMessage{}, Schedule: map[string]json.RawMessage{}, Budget: map[string]json.RawMessage{},
		Run: map[string]json.RawMessage{}}
	groups := map[string]map[string]json.RawMessage{"optimizer": s.Optimizer, "schedule": s.Schedule, "budget": s.Budget, "run": s.Run}
	raw, err := json.Marshal(tc)
	if err != nil {
		return Settings{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Settings{}, err
	}
	for k, v := range fields {
		g, ok := groups[settingGroups[k]]
		if !ok {
			return Settings{}, fmt.Errorf("recipe settings: train.TrainConfig's %q is in no group (recipes/recipe: settingGroups)", k)
		}
		g[k] = v
	}
	s.Budget["tokens_per_step"] = json.RawMessage(fmt.Sprint(tc.TokensPerStep()))
	s.Budget["tokens"] = json.RawMessage(fmt.Sprint(int64(tc.Steps) * tc.TokensPerStep()))
	return s, nil
}
