package leaderboard

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// ResultsTable renders the run as lm-evaluation-harness prints it at the end of a run (utils.make_table):
// a markdown table with columns Tasks, Version, Filter, n-shot, Metric, ↑/↓, Value, ±, Stderr, one row per
// metric (the task name and version on its first row only, metrics sorted by name, values "%.4f", "N/A"
// stderrs as "   N/A"), then the same table for the groups when the run has group averages. Column
// widths, centred headers and right-aligned numeric columns follow pytablewriter's markdown writer.
func (r *RunFile) ResultsTable() string {
	f := r.layout()
	out := makeTable(f, "Tasks", f.Results)
	if len(f.Groups) > 0 {
		hasMetric := false
		for _, g := range f.Groups {
			hasMetric = hasMetric || len(g) > 1
		}
		if hasMetric {
			out += "\n" + makeTable(f, "Groups", f.Groups)
		}
	}
	return out
}

func makeTable(f lmevalFile, first string, rows map[string]map[string]any) string {
	headers := []string{first, "Version", "Filter", "n-shot", "Metric", "", "Value", "", "Stderr"}
	right := []bool{false, true, false, true, false, false, true, false, true}
	names := make([]string, 0, len(rows))
	for k := range rows {
		names = append(names, k)
	}
	sort.Strings(names)
	var values [][]string
	for _, k := range names {
		dic := rows[k]
		version := "    N/A"
		if v, ok := f.Versions[k]; ok {
			version = fmt.Sprintf("%g", v)
		}
		n := " "
		if v, ok := f.NShot[k]; ok {
			n = fmt.Sprint(v)
		}
		hib := f.HigherIsBetter[k]
		if a, ok := dic["alias"].(string); ok {
			k = a
		}
		keys := make([]string, 0, len(dic))
		for mf := range dic {
			if mf != "alias" {
				keys = append(keys, mf)
			}
		}
		sort.Strings(keys)
		for _, mf := range keys {
			m, filter, _ := strings.Cut(mf, ",")
			if strings.HasSuffix(m, "_stderr") {
				continue
			}
			arrow := ""
			if h, ok := hib[m]; ok {
				arrow = map[bool]string{true: "↑", false: "↓"}[h]
			}
			row := []string{k, version, filter, n, m, arrow, cellValue(dic[mf]), "", ""}
			if se, ok := dic[m+"_stderr,"+filter]; ok {
				row[7] = "±"
				if se == "N/A" {
					row[8] = "   N/A"
				} else {
					row[8] = cellValue(se)
				}
			}
			values = append(values, row)
			k, version = "", ""
		}
	}
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = max(3, utf8.RuneCountInString(h))
	}
	for _, row := range values {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	line := func(cells []string, align func(i int, c string) string) {
		b.WriteString("|")
		for i, c := range cells {
			b.WriteString(align(i, c) + "|")
		}
		b.WriteString("\n")
	}
	line(headers, func(i int, c string) string {
		pad := widths[i] - utf8.RuneCountInString(c)
		return strings.Repeat(" ", pad/2) + c + strings.Repeat(" ", pad-pad/2)
	})
	sep := make([]string, len(headers))
	for i := range headers {
		if right[i] {
			sep[i] = strings.Repeat("-", widths[i]-1) + ":"
		} else {
			sep[i] = strings.Repeat("-", widths[i])
		}
	}
	line(sep, func(_ int, c string) string { return c })
	for _, row := range values {
		line(row, func(i int, c string) string {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if right[i] {
				return pad + c
			}
			return c + pad
		})
	}
	return b.String()
}

// cellValue is lm-eval's "%.4f" for a float, the value as is otherwise.
func cellValue(v any) string {
	if x, ok := v.(float64); ok {
		return fmt.Sprintf("%.4f", x)
	}
	return fmt.Sprint(v)
}
