package oryx

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gomlx/gomlx/pkg/ml/context"
)

// Every checkpoint records the config its weights were trained with, inside the checkpoint itself (two
// context parameters saved in GoMLX's checkpoint metadata): its SHA-256 and its JSON. config.json alone is not
// enough: an edit that keeps every shape — rope true → false, another variant with the same parameters, a
// different chunk or norm — loads without a complaint and runs a different model on the trained weights.
// Loading compares config.json with the record and refuses a difference, naming the fields.
const (
	paramConfigHash = "oryx_config_sha256"
	paramConfigJSON = "oryx_config_json"
)

// ConfigHash is the SHA-256 (hex) of c's JSON encoding, the identity of a config's semantics.
func ConfigHash(c Config) string {
	data, err := json.Marshal(c)
	if err != nil {
		panic(err) // a Config has only plain fields
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// recordConfig stores cfg's hash and JSON as parameters of ctx's root scope, to be saved with its variables.
func recordConfig(ctx *context.Context, cfg Config) {
	data, _ := json.Marshal(cfg)
	root := ctx.InAbsPath(context.RootScope)
	root.SetParam(paramConfigHash, ConfigHash(cfg))
	root.SetParam(paramConfigJSON, string(data))
}

// checkRecordedConfig compares cfg (read from config.json) with the config recorded in a loaded checkpoint's
// context. Checkpoints written before the record existed have none and are accepted as they are.
func checkRecordedConfig(ctx *context.Context, cfg Config) error {
	root := ctx.InAbsPath(context.RootScope)
	hashAny, found := root.GetParam(paramConfigHash)
	if !found {
		return nil
	}
	hash, _ := hashAny.(string)
	if hash == ConfigHash(cfg) {
		return nil
	}
	var saved Config
	if s := context.GetParamOr(root, paramConfigJSON, ""); s != "" {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		if dec.Decode(&saved) == nil {
			if d := cfg.Diff(saved); len(d) > 0 {
				return fmt.Errorf("%s differs from the config the weights were saved with (%s vs checkpoint): %s; "+
					"a trained model's config cannot be edited — restore the original or train a new model",
					ConfigFileName, ConfigFileName, strings.Join(d, "; "))
			}
		}
	}
	return fmt.Errorf("%s (sha256 %s) is not the config the weights were saved with (sha256 %s); restore the original",
		ConfigFileName, ConfigHash(cfg), hash)
}
