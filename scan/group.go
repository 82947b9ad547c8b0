package scan

import (
	"fmt"
	"io"
	"sort"
)

// Group is the findings of one rule in one file.
type Group struct {
	File     string     `json:"file"`
	Rule     string     `json:"rule"`
	Count    int        `json:"count"`
	Findings []Location `json:"findings"`
	// Omitted is how many of Count are not listed in Findings (a Tally
	// keeps only the first few of a group).
	Omitted int `json:"omitted,omitempty"`
}

// Location is where in a file one finding is.
type Location struct {
	Line     int64  `json:"line"`
	Sequence int64  `json:"sequence"`
	Pointer  string `json:"pointer"`
	Decoded  string `json:"decoded,omitempty"`
}

// Report is what `evcap scan --json` prints.
type Report struct {
	Clean    bool    `json:"clean"`
	Files    int     `json:"files"`
	Findings int     `json:"findings"`
	Groups   []Group `json:"groups"`
}

// GroupFindings groups findings by file and rule, files in the order they
// were first seen, rules sorted, locations in line order.
func GroupFindings(fs []Finding) []Group {
	var order []string
	byFile := map[string]map[string]*Group{}
	for _, f := range fs {
		g := byFile[f.File]
		if g == nil {
			g = map[string]*Group{}
			byFile[f.File] = g
			order = append(order, f.File)
		}
		x := g[f.Rule]
		if x == nil {
			x = &Group{File: f.File, Rule: f.Rule}
			g[f.Rule] = x
		}
		x.Count++
		x.Findings = append(x.Findings, Location{Line: f.Line, Sequence: f.Sequence, Pointer: f.Pointer, Decoded: f.Decoded})
	}
	var out []Group
	for _, file := range order {
		rules := make([]string, 0, len(byFile[file]))
		for r := range byFile[file] {
			rules = append(rules, r)
		}
		sort.Strings(rules)
		for _, r := range rules {
			g := byFile[file][r]
			sort.SliceStable(g.Findings, func(i, j int) bool { return g.Findings[i].Line < g.Findings[j].Line })
			out = append(out, *g)
		}
	}
	return out
}

// NewReport builds the --json report of a scan.
func NewReport(res Result) Report {
	g := GroupFindings(res.Findings)
	if g == nil {
		g = []Group{}
	}
	return Report{Clean: len(res.Findings) == 0, Files: res.Files, Findings: len(res.Findings), Groups: g}
}

// WriteText prints groups for a person: a heading per file and rule with
// its count, then one indented line per finding, LINE:SEQUENCE and the
// JSON pointer (and the decoding it took to see it), and how many more
// there are when the group lists only the first few.
func WriteText(w io.Writer, groups []Group) error {
	for _, g := range groups {
		if _, err := fmt.Fprintf(w, "%s: %s (%d)\n", g.File, g.Rule, g.Count); err != nil {
			return err
		}
		for _, l := range g.Findings {
			s := fmt.Sprintf("  %d:%d", l.Line, l.Sequence)
			if l.Pointer != "" {
				s += " " + l.Pointer
			}
			if l.Decoded != "" {
				s += " (" + l.Decoded + ")"
			}
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
		}
		if g.Omitted > 0 {
			if _, err := fmt.Fprintf(w, "  … and %d more\n", g.Omitted); err != nil {
				return err
			}
		}
	}
	return nil
}
