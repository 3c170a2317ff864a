package niah

import (
	"fmt"
	"strings"
)

// Task names a RULER needle-in-a-haystack task. Its value is RULER's task name (synthetic.yaml); the paper's
// names are accepted by ParseTask too.
type Task string

// The four tasks of the paper's needle-in-a-haystack table (RULER's synthetic.yaml).
const (
	// SNIAH1 is S-NIAH-1 (pass-key retrieval): noise haystack, word key, 7-digit number value.
	SNIAH1 Task = "niah_single_1"
	// SNIAH2 is S-NIAH-2: essay haystack, word key, 7-digit number value.
	SNIAH2 Task = "niah_single_2"
	// SNIAH3 is S-NIAH-3: essay haystack, word key, UUID value.
	SNIAH3 Task = "niah_single_3"
	// MKNIAH1 is MK-NIAH-1: essay haystack, 4 word keys with a number each (3 distractors), one queried.
	MKNIAH1 Task = "niah_multikey_1"
)

// Haystack kinds.
const (
	HaystackNoise = "noise" // the repeated "The grass is green. ..." sentence, pieces joined with "\n"
	HaystackEssay = "essay" // the RULER essays, needles inserted between sentences
)

// Needle value kinds (RULER's type_needle_v; also type_needle_k, always "words" here).
const (
	NeedleNumbers = "numbers" // random.randint(10**6, 10**7-1)
	NeedleUUIDs   = "uuids"   // uuid.UUID(int=random.getrandbits(128), version=4)
	NeedleWords   = "words"   // random.choice of the sorted adjective-noun set
)

// TaskSpec is RULER's configuration of a task (synthetic.yaml args).
type TaskSpec struct {
	Task      Task   `json:"task"`
	Paper     string `json:"paper"`      // the paper's name, e.g. "S-NIAH-1"
	Haystack  string `json:"haystack"`   // HaystackNoise or HaystackEssay
	KeyType   string `json:"key_type"`   // type_needle_k: NeedleWords
	ValueType string `json:"value_type"` // type_needle_v: NeedleNumbers or NeedleUUIDs
	NumKeys   int    `json:"num_keys"`   // num_needle_k: needles (keys) in the haystack
	NumValues int    `json:"num_values"` // num_needle_v: values per key
	NumQuery  int    `json:"num_query"`  // num_needle_q: keys asked about
}

var taskSpecs = []TaskSpec{
	{SNIAH1, "S-NIAH-1", HaystackNoise, NeedleWords, NeedleNumbers, 1, 1, 1},
	{SNIAH2, "S-NIAH-2", HaystackEssay, NeedleWords, NeedleNumbers, 1, 1, 1},
	{SNIAH3, "S-NIAH-3", HaystackEssay, NeedleWords, NeedleUUIDs, 1, 1, 1},
	{MKNIAH1, "MK-NIAH-1", HaystackEssay, NeedleWords, NeedleNumbers, 4, 1, 1},
}

// Tasks returns the four tasks in the paper's order.
func Tasks() []Task {
	out := make([]Task, len(taskSpecs))
	for i, s := range taskSpecs {
		out[i] = s.Task
	}
	return out
}

// Spec returns RULER's configuration of t; ok is false for an unknown task.
func (t Task) Spec() (spec TaskSpec, ok bool) {
	for _, s := range taskSpecs {
		if s.Task == t {
			return s, true
		}
	}
	return TaskSpec{}, false
}

// Paper returns the paper's name of t ("S-NIAH-1", ...), or string(t) for an unknown task.
func (t Task) Paper() string {
	if s, ok := t.Spec(); ok {
		return s.Paper
	}
	return string(t)
}

// ParseTask returns the task named name: RULER's name ("niah_single_1") or the paper's ("S-NIAH-1"), case
// and '-'/'_' insensitive. An unknown name is an error listing the tasks.
func ParseTask(name string) (Task, error) {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_") }
	n := norm(name)
	for _, s := range taskSpecs {
		if n == norm(string(s.Task)) || n == norm(s.Paper) {
			return s.Task, nil
		}
	}
	var names []string
	for _, s := range taskSpecs {
		names = append(names, fmt.Sprintf("%s (%s)", s.Task, s.Paper))
	}
	return "", fmt.Errorf("niah: unknown task %q: want one of %s", name, strings.Join(names, ", "))
}
