package harness

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Factory makes a task for a data configuration.
type Factory func(cfg Config) (Task, error)

var registry = struct {
	sync.RWMutex
	tasks  map[string]Factory
	groups map[string][]string
}{tasks: map[string]Factory{}, groups: map[string][]string{}}

// Register adds a task under name. Task packages call it from init (import evals/lmeval and evals/recall
// to get their tasks). Registering a name twice, or a name that is a group, panics.
func Register(name string, f Factory) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.tasks[name]; dup || registry.groups[name] != nil {
		panic(fmt.Sprintf("harness: task %q registered twice", name))
	}
	registry.tasks[name] = f
}

// RegisterGroup names a list of tasks ("lm", "recall"), usable in ParseTaskList. The tasks need not be
// registered yet; ParseTaskList checks them.
func RegisterGroup(name string, tasks ...string) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.tasks[name]; dup || registry.groups[name] != nil {
		panic(fmt.Sprintf("harness: group %q registered twice", name))
	}
	registry.groups[name] = slices.Clone(tasks)
}

// Tasks returns the registered task names, sorted.
func Tasks() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, 0, len(registry.tasks))
	for k := range registry.tasks {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Groups returns the registered groups (name → tasks).
func Groups() map[string][]string {
	registry.RLock()
	defer registry.RUnlock()
	out := make(map[string][]string, len(registry.groups))
	for k, v := range registry.groups {
		out[k] = slices.Clone(v)
	}
	return out
}

func lookupFactory(name string) (Factory, bool) {
	registry.RLock()
	defer registry.RUnlock()
	f, ok := registry.tasks[name]
	return f, ok
}

// unknownTask is the error for a name that is neither a task nor a group: it lists both.
func unknownTask(name string) error {
	groups := Groups()
	var gs []string
	for g, ts := range groups {
		gs = append(gs, fmt.Sprintf("%s (%s)", g, strings.Join(ts, ",")))
	}
	sort.Strings(gs)
	msg := fmt.Sprintf("harness: unknown task %q; known tasks: %s", name, strings.Join(Tasks(), ", "))
	if len(gs) > 0 {
		msg += "; groups: " + strings.Join(gs, "; ")
	}
	return fmt.Errorf("%s", msg)
}

// Lookup returns the task registered under name, made for cfg. An unknown name is an error listing the
// known tasks and groups.
func Lookup(name string, cfg Config) (Task, error) {
	f, ok := lookupFactory(name)
	if !ok {
		return nil, unknownTask(name)
	}
	return f(cfg)
}

// ParseTaskList expands a comma-separated list of task and group names ("all" is every registered task)
// into task names, in order, without duplicates. An unknown name is an error listing the known tasks and
// groups.
func ParseTaskList(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(n string) error {
		if _, ok := lookupFactory(n); !ok {
			return unknownTask(n)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
		return nil
	}
	groups := Groups()
	for part := range strings.SplitSeq(list, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			continue
		case part == "all":
			for _, n := range Tasks() {
				if err := add(n); err != nil {
					return nil, err
				}
			}
		case groups[part] != nil:
			for _, n := range groups[part] {
				if err := add(n); err != nil {
					return nil, err
				}
			}
		default:
			if err := add(part); err != nil {
				return nil, err
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("harness: no task given; known tasks: %s", strings.Join(Tasks(), ", "))
	}
	return out, nil
}

// RequestedGroups returns the groups a task list names ("lm,piqa" → ["lm"]; "all" → every group), sorted:
// the groups lm-eval's results layout gets a row for. A task named one by one belongs to none of them there.
func RequestedGroups(list string) []string {
	groups := Groups()
	seen := map[string]bool{}
	for part := range strings.SplitSeq(list, ",") {
		part = strings.TrimSpace(part)
		if part == "all" {
			for g := range groups {
				seen[g] = true
			}
		} else if groups[part] != nil {
			seen[part] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Resolve is ParseTaskList followed by Lookup of each name.
func Resolve(list string, cfg Config) ([]Task, error) {
	names, err := ParseTaskList(list)
	if err != nil {
		return nil, err
	}
	out := make([]Task, 0, len(names))
	for _, n := range names {
		t, err := Lookup(n, cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// GroupOf returns the first registered group (by name) that lists task, or "" when none does.
func GroupOf(task string) string {
	groups := Groups()
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		if slices.Contains(groups[g], task) {
			return g
		}
	}
	return ""
}

var configs = struct {
	sync.RWMutex
	m map[string]Doc
}{m: map[string]Doc{}}

// RegisterConfig records task name's lm-eval task configuration: its task YAML's fields in their order
// (task, dataset_path = the Hugging Face dataset, dataset_name, splits, doc_to_text, doc_to_target,
// doc_to_choice, generation_kwargs, ...; !function fields as "!function module.name"), which the results
// file writes under "configs" with the metric list, the version and the local data file. Task packages
// call it from init next to Register.
func RegisterConfig(name string, cfg Doc) {
	configs.Lock()
	defer configs.Unlock()
	configs.m[name] = cfg
}

// ConfigOf returns the configuration RegisterConfig recorded for task name (a copy; nil when none).
func ConfigOf(name string) Doc {
	configs.RLock()
	defer configs.RUnlock()
	return slices.Clone(configs.m[name])
}
