package scan

import (
	"container/heap"
	"sort"
)

// DefaultShown is how many findings of each file and rule `evcap scan`
// lists; the count is always exact.
const DefaultShown = 100

// A Tally counts findings by file and rule and keeps, of each group, only
// the first few locations in line order: what a report prints. A capture
// whose ids and paths were never sanitized has findings on nearly every
// line (177,000 in a 53 MB capture); a Tally holds a bounded number of
// them per group instead of all, and gives the groups GroupFindings would
// give, cut to their first locations, with Omitted saying how many more
// there are.
type Tally struct {
	limit  int
	total  int
	order  []string
	byFile map[string]map[string]*tallyGroup
}

type tallyGroup struct {
	count int
	kept  locHeap
}

// NewTally returns a Tally that keeps limit locations per group (0: all).
func NewTally(limit int) *Tally {
	return &Tally{limit: limit, byFile: map[string]map[string]*tallyGroup{}}
}

// Add counts one finding.
func (t *Tally) Add(f Finding) {
	t.total++
	g := t.byFile[f.File]
	if g == nil {
		g = map[string]*tallyGroup{}
		t.byFile[f.File] = g
		t.order = append(t.order, f.File)
	}
	x := g[f.Rule]
	if x == nil {
		x = &tallyGroup{}
		g[f.Rule] = x
	}
	x.count++
	l := Location{Line: f.Line, Sequence: f.Sequence, Pointer: f.Pointer, Decoded: f.Decoded}
	if t.limit <= 0 || len(x.kept) < t.limit {
		heap.Push(&x.kept, l)
		return
	}
	if locBefore(l, x.kept[0]) {
		x.kept[0] = l
		heap.Fix(&x.kept, 0)
	}
}

// Findings is how many findings were counted.
func (t *Tally) Findings() int { return t.total }

// Groups returns the groups: files in the order their first finding came,
// rules sorted, locations in line order (then pointer order, as the
// findings of one file are sorted).
func (t *Tally) Groups() []Group {
	var out []Group
	for _, file := range t.order {
		rules := make([]string, 0, len(t.byFile[file]))
		for r := range t.byFile[file] {
			rules = append(rules, r)
		}
		sort.Strings(rules)
		for _, r := range rules {
			x := t.byFile[file][r]
			locs := append([]Location(nil), x.kept...)
			sort.Slice(locs, func(i, j int) bool { return locBefore(locs[i], locs[j]) })
			out = append(out, Group{File: file, Rule: r, Count: x.count, Findings: locs, Omitted: x.count - len(locs)})
		}
	}
	return out
}

// Report builds the --json report from a tally of files files.
func (t *Tally) Report(files int) Report {
	g := t.Groups()
	if g == nil {
		g = []Group{}
	}
	return Report{Clean: t.total == 0, Files: files, Findings: t.total, Groups: g}
}

// locBefore is the order of the locations of one group: line, then
// pointer (one file's findings never repeat a line, rule and pointer).
func locBefore(a, b Location) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Pointer < b.Pointer
}

// locHeap is a max-heap: its root is the last location kept, the one a
// location before it replaces.
type locHeap []Location

func (h locHeap) Len() int           { return len(h) }
func (h locHeap) Less(i, j int) bool { return locBefore(h[j], h[i]) }
func (h locHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *locHeap) Push(x any)        { *h = append(*h, x.(Location)) }
func (h *locHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
