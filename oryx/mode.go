package oryx

import (
	"fmt"
	"strings"
)

// Mode is the mixer a token runs in. An Oryx model decides it per token, not per layer: the same mode is
// used by every layer for a given token (docs/model.md §3.1), so a schedule is a plain
// batch × positions grid of modes (package oryx/schedule), fed to the compiled graph as a runtime tensor:
// modes [B, T] int32, 1 = attention.
type Mode int8

const (
	// Linear is recurrent mode: the token is read out through the linear (Mamba-2 / GDN) state. It is the
	// zero value so that "not mentioned" means the cheap mode.
	Linear Mode = 0
	// Attention is attention mode: the token reads the shared K/V cache with softmax attention.
	Attention Mode = 1
)

// String returns "linear" or "attention" (or "Mode(n)" for an invalid value).
func (m Mode) String() string {
	switch m {
	case Linear:
		return "linear"
	case Attention:
		return "attention"
	}
	return fmt.Sprintf("Mode(%d)", int8(m))
}

// Short returns the one-letter rendering used by schedules' String and by range specs: "L" or "A".
func (m Mode) Short() string {
	switch m {
	case Linear:
		return "L"
	case Attention:
		return "A"
	}
	return fmt.Sprintf("Mode(%d)", int8(m))
}

// Valid tells whether m is one of the two defined modes.
func (m Mode) Valid() bool { return m == Linear || m == Attention }

// ParseMode accepts "A", "attention", "L", "linear" (case-insensitive).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "a", "attention":
		return Attention, nil
	case "l", "linear":
		return Linear, nil
	}
	return Linear, fmt.Errorf("unknown mode %q (want A, attention, L or linear)", s)
}
