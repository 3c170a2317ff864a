package leaderboard

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/oryx-go/oryx/evals/harness"
)

// ResultsTable renders the run as lm-evaluation-harness 0.4.13 prints it at the end of a run
// (utils.make_table on the results layout, then on its groups when there are any): columns Tasks, Version,
// Filter, n-shot, Metric, ↑/↓, Value, ±, Stderr, one row per metric (the name and version on its first row
// only, metrics sorted, values "%.4f", "N/A" stderrs as "   N/A"), groups first with their tasks indented
// " - " below them (group_subtasks), then the tasks of no group. The cells go through pytablewriter's
// markdown writer as it treats them (pyTable): numeric strings typed and re-formatted per column.
func (r *ResultsFile) ResultsTable() string {
	f, err := r.layout()
	if err != nil {
		return fmt.Sprintf("(results table: %v)\n", err)
	}
	get := func(key string) harness.Doc {
		v, _ := f.Get(key)
		d, _ := v.(harness.Doc)
		return d
	}
	out := makeTable(f, "results", get("results"))
	if groups := get("groups"); len(groups) > 0 {
		out += "\n" + makeTable(f, "groups", groups)
	}
	return out
}

// makeTable is lm-eval 0.4.13's make_table(result_dict, column) for the layout f and its rows.
func makeTable(f harness.Doc, column string, rows harness.Doc) string {
	docOf := func(key string) harness.Doc {
		v, _ := f.Get(key)
		d, _ := v.(harness.Doc)
		return d
	}
	first := "Tasks"
	if column == "groups" {
		first = "Groups"
	}
	headers := []string{first, "Version", "Filter", "n-shot", "Metric", "", "Value", "", "Stderr"}
	subtasks := map[string][]string{}
	var groupNames []string
	for _, g := range docOf("group_subtasks") {
		subtasks[g.Key] = g.Value.([]string)
		groupNames = append(groupNames, g.Key)
	}
	available := map[string]bool{}
	for _, r := range rows {
		available[r.Key] = true
	}
	depth, keys := hierarchy(groupNames, subtasks, available)
	versions, nShot, hib := docOf("versions"), docOf("n-shot"), docOf("higher_is_better")
	var values [][]any
	for _, k := range keys {
		v, _ := rows.Get(k)
		dic := v.(harness.Doc)
		var version any = "    N/A"
		if x, ok := versions.Get(k); ok {
			version = x
		}
		n := " "
		if x, ok := nShot.Get(k); ok {
			n = fmt.Sprint(x)
		}
		hb, _ := hib.Get(k)
		hbDoc, _ := hb.(harness.Doc)
		name := k
		if a, ok := dic.Get("alias"); ok {
			name = a.(string)
		}
		if d := depth[k]; d > 0 {
			name = strings.Repeat(" ", d) + "- " + name
		}
		items := make(harness.Doc, 0, len(dic))
		for _, it := range dic {
			switch it.Key {
			case "alias", "name", "sample_len", "sample_count":
				continue
			}
			items = append(items, it)
		}
		sort.SliceStable(items, func(i, j int) bool { return items[i].Key < items[j].Key })
		for _, it := range items {
			m, filter, _ := strings.Cut(it.Key, ",")
			if strings.HasSuffix(m, "_stderr") {
				continue
			}
			arrow := ""
			if h, ok := hbDoc.Get(m); ok {
				arrow = map[bool]string{true: "↑", false: "↓"}[h.(bool)]
			}
			val := it.Value
			if x, ok := val.(float64); ok {
				val = fmt.Sprintf("%.4f", x)
			}
			row := []any{name, version, filter, n, m, arrow, val, "", ""}
			if se, ok := dic.Get(m + "_stderr," + filter); ok {
				row[7] = "±"
				if se == "N/A" {
					row[8] = "   N/A"
				} else if x, ok := se.(float64); ok {
					row[8] = fmt.Sprintf("%.4f", x)
				} else {
					row[8] = se
				}
			}
			values = append(values, row)
			name, version = "", ""
		}
	}
	return pyTable(headers, values)
}

// hierarchy is make_table's order of the rows (_build_hierarchy_info): each group that is no other
// group's child (sorted) followed by its children (sorted, recursively, one level deeper), then the other
// rows sorted.
func hierarchy(groups []string, subtasks map[string][]string, available map[string]bool) (map[string]int, []string) {
	depth := map[string]int{}
	var order []string
	var visit func(name string, d int)
	visit = func(name string, d int) {
		depth[name] = d
		if available[name] {
			order = append(order, name)
		}
		children := append([]string(nil), subtasks[name]...)
		sort.Strings(children)
		for _, c := range children {
			visit(c, d+1)
		}
	}
	child := map[string]bool{}
	for _, cs := range subtasks {
		for _, c := range cs {
			child[c] = true
		}
	}
	sorted := append([]string(nil), groups...)
	sort.Strings(sorted)
	for _, g := range sorted {
		if !child[g] {
			visit(g, 0)
		}
	}
	var rest []string
	for k := range available {
		if _, ok := depth[k]; !ok {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return depth, append(order, rest...)
}

// pytablewriter's markdown table (MarkdownTableWriter.dumps) for the cell values make_table builds: the
// typing of dataproperty/typepy (each cell typed as an integer, a real number, infinity, NaN, an empty
// string or a string; a cell is a string outright when strings are so far the column's most common
// type), each column typed from its cells, real columns formatted with the column's largest number of
// decimals (trailing zeros not counted), numbers right-aligned, headers centred.

type pyType int

const (
	pyNull pyType = iota // empty or blank string
	pyInt
	pyReal
	pyInf
	pyNaN
	pyString
)

type pyCell struct {
	t    pyType
	text string   // the string as given (strings, null strings)
	num  *big.Rat // integers and real numbers
	neg  bool     // negative infinity
	dec  int      // decimal places of a real number (trailing zeros not counted)
}

// classify types a cell as typepy does without a type hint (strict levels: numbers 1, the rest MAX).
func classify(v any) pyCell {
	switch x := v.(type) {
	case int:
		return pyCell{t: pyInt, num: new(big.Rat).SetInt64(int64(x))}
	case float64:
		switch {
		case math.IsNaN(x):
			return pyCell{t: pyNaN}
		case math.IsInf(x, 0):
			return pyCell{t: pyInf, neg: x < 0}
		}
		return classify(harness.PyFloatRepr(x))
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return pyCell{t: pyNull, text: x}
		}
		switch strings.ToLower(strings.TrimLeft(s, "+-")) {
		case "inf", "infinity":
			return pyCell{t: pyInf, neg: strings.HasPrefix(s, "-")}
		case "nan":
			return pyCell{t: pyNaN}
		}
		if r, dec, ok := parseDecimal(s); ok {
			if r.IsInt() {
				return pyCell{t: pyInt, num: r}
			}
			return pyCell{t: pyReal, num: r, dec: dec}
		}
		return pyCell{t: pyString, text: x}
	}
	return pyCell{t: pyString, text: fmt.Sprint(v)}
}

// parseDecimal parses a decimal number ("-12.3400", "1e-05") as Python's Decimal does, with its decimal
// places without trailing zeros.
func parseDecimal(s string) (*big.Rat, int, bool) {
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return nil, 0, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, 0, false
	}
	dec := 0
	for d := new(big.Rat).Set(r); !d.IsInt(); dec++ {
		d.Mul(d, big.NewRat(10, 1))
	}
	return r, dec, true
}

// typeCells types a column's cells in order, as dataproperty's _to_dp_list: a non-empty string is a
// string when strings are the most common type so far (ties: the type seen first).
func typeCells(values []any) []pyCell {
	counts := map[pyType]int{}
	var seen []pyType
	out := make([]pyCell, len(values))
	for i, v := range values {
		var hint pyType = -1
		best := 0
		for _, t := range seen {
			if counts[t] > best {
				hint, best = t, counts[t]
			}
		}
		s, isStr := v.(string)
		switch {
		case hint == pyString && isStr && strings.TrimSpace(s) != "":
			out[i] = pyCell{t: pyString, text: s}
		case hint == pyNull && isStr && strings.TrimSpace(s) == "":
			out[i] = pyCell{t: pyNull, text: s}
		default:
			out[i] = classify(v)
		}
		if counts[out[i].t] == 0 {
			seen = append(seen, out[i].t)
		}
		counts[out[i].t]++
	}
	return out
}

// columnType is dataproperty's column typecode from the types of its cells.
func columnType(cells []pyCell) pyType {
	has := map[pyType]bool{}
	for _, c := range cells {
		has[c.t] = true
	}
	count := func(ts ...pyType) int {
		n := 0
		for _, t := range ts {
			if has[t] {
				n++
			}
		}
		return n
	}
	numeric := count(pyInt, pyReal, pyInf, pyNaN, pyNull) > 0
	other := has[pyString]
	if !(numeric && other) && (count(pyReal, pyInf, pyNaN, pyNull) >= 2 || count(pyInt, pyReal, pyInf, pyNaN) >= 2) {
		return pyReal
	}
	for _, t := range []pyType{pyString, pyReal, pyInt, pyInf, pyNaN, pyNull} {
		if has[t] {
			return t
		}
	}
	return pyString
}

// format is a cell's text in a column of type col with dec decimal places.
func (c pyCell) format(col pyType, dec int) string {
	realText := func(r *big.Rat) string { return r.FloatString(dec) }
	switch c.t {
	case pyString, pyNull:
		return c.text
	case pyInf:
		return map[bool]string{false: "Infinity", true: "-Infinity"}[c.neg]
	case pyNaN:
		return "NaN"
	case pyInt:
		if col == pyReal {
			return realText(c.num)
		}
		return c.num.FloatString(0)
	}
	if col == pyInt { // a real cell in an integer column: int(value)
		q := new(big.Int).Quo(c.num.Num(), c.num.Denom())
		return q.String()
	}
	return realText(c.num)
}

// pyTable renders headers and rows as pytablewriter's MarkdownTableWriter does (margin 0, minimum column
// width 3).
func pyTable(headers []string, rows [][]any) string {
	nc := len(headers)
	cells := make([][]pyCell, nc)
	colType := make([]pyType, nc)
	dec := make([]int, nc)
	for j := range nc {
		col := make([]any, len(rows))
		for i := range rows {
			col[i] = rows[i][j]
		}
		cells[j] = typeCells(col)
		colType[j] = columnType(cells[j])
		for _, c := range cells[j] {
			if c.t == pyReal || c.t == pyInt {
				dec[j] = max(dec[j], c.dec)
			}
		}
	}
	width := func(s string) int { return utf8.RuneCountInString(s) }
	text := make([][]string, len(rows))
	widths := make([]int, nc)
	for j, h := range headers {
		widths[j] = max(3, width(h))
	}
	for i := range rows {
		text[i] = make([]string, nc)
		for j := range nc {
			text[i][j] = cells[j][i].format(colType[j], dec[j])
			widths[j] = max(widths[j], width(text[i][j]))
		}
	}
	right := func(j int, c pyCell) bool {
		if colType[j] == pyString && (c.t == pyInt || c.t == pyReal) {
			return true
		}
		return colType[j] == pyInt || colType[j] == pyReal
	}
	var b strings.Builder
	b.WriteString("|")
	for j, h := range headers {
		pad := widths[j] - width(h)
		b.WriteString(strings.Repeat(" ", pad/2) + h + strings.Repeat(" ", pad-pad/2) + "|")
	}
	b.WriteString("\n|")
	for j := range nc {
		if colType[j] == pyInt || colType[j] == pyReal {
			b.WriteString(strings.Repeat("-", widths[j]-1) + ":|")
		} else {
			b.WriteString(strings.Repeat("-", widths[j]) + "|")
		}
	}
	b.WriteString("\n")
	for i := range rows {
		b.WriteString("|")
		for j := range nc {
			s := strings.ReplaceAll(text[i][j], "|", "\\|")
			pad := strings.Repeat(" ", widths[j]-width(text[i][j]))
			if right(j, cells[j][i]) {
				b.WriteString(pad + s + "|")
			} else {
				b.WriteString(s + pad + "|")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
