package runwriter

// CleanLeftovers is cleanLeftovers for the external tests (leftovers_test.go), which build real checkpoints
// with package oryx (itself a user of this package).
var CleanLeftovers = cleanLeftovers
