package census

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/evcap/evcap/event"
)

// Report is the whole census. Its JSON form is evcap census --json: the
// struct field order is the key order, and every list is sorted.
type Report struct {
	Groups []*Group `json:"groups"`
	// UnknownTypes counts the distinct unknown types over all groups;
	// UnknownFields the distinct unknown (type, field) pairs.
	UnknownTypes  int `json:"unknownTypes"`
	UnknownFields int `json:"unknownFields"`
	// Skipped lists the files the caller found in directories that no
	// provider's output fits (they are not counted).
	Skipped []string `json:"skipped,omitempty"`
}

// Group is the count of one provider at one CLI version.
type Group struct {
	Provider   string   `json:"provider"`
	CLIVersion string   `json:"cliVersion"`
	Files      []string `json:"files"`
	Lines      int64    `json:"lines"`
	Types      []*Type  `json:"types"`
	byKey      map[typeKey]*Type
}

// Type is one native type with one disposition. A type normally has one
// disposition; when the normalizer judges lines of the same type
// differently (an opencode text part of the user's prompt is ignored, the
// model's is handled), each judgement gets its own row.
type Type struct {
	NativeType    string            `json:"nativeType"`
	Disposition   event.Disposition `json:"disposition"`
	Reason        string            `json:"reason,omitempty"`
	Count         int64             `json:"count"`
	UnknownFields []*Field          `json:"unknownFields,omitempty"`
	// FirstSeen is where an unknown type first occurred: FILE:LINE for raw
	// input, FILE@SEQUENCE for a capture.
	FirstSeen string `json:"firstSeen,omitempty"`
	byField   map[string]*Field
}

// Field is a field the normalizer has never seen for its type.
type Field struct {
	Field     string `json:"field"`
	Count     int64  `json:"count"`
	FirstSeen string `json:"firstSeen"`
}

type typeKey struct {
	nativeType, reason string
	disposition        event.Disposition
}

type groupKey struct{ provider, version string }

// Lines is one input's native lines: Next returns the next line and its
// ref (the line number of raw output, the sequence number of a capture's
// record), or io.EOF. The line needs to stay valid only until the next call.
type Lines interface {
	Next() (ref int64, line []byte, err error)
}

// FileOptions describe one input to CountFile.
type FileOptions struct {
	// Name is the input's name, for Files and FirstSeen.
	Name string
	// Provider is the provider the caller told the input to be.
	Provider string
	// Capture says refs are capture sequence numbers (FirstSeen FILE@SEQ)
	// rather than line numbers (FILE:LINE).
	Capture bool
	// Recorded is the CLI version a capture's capture.start recorded, if any.
	Recorded string
	// Fallback maps a provider to the version to use when neither the
	// stream nor the capture says; the key "" applies to every provider.
	Fallback map[string]string
}

// CountFile counts one input, checking ctx before each line. It feeds
// every line to n after classifying it, because classification can depend
// on what earlier lines established (opencode remembers which messages are
// the user's). The group's CLI version is the first one an init event of
// the stream reports, else o.Recorded, else o.Fallback[o.Provider], else
// o.Fallback[""], else "unknown".
func CountFile(ctx context.Context, in Lines, n event.Normalizer, o FileOptions) (*Group, error) {
	g := &Group{Provider: o.Provider, Files: []string{o.Name}, byKey: map[typeKey]*Type{}}
	streamVersion := ""
	noteVersion := func(evs []event.Event) {
		for _, e := range evs {
			if streamVersion == "" && e.Kind == event.KindInit && e.Version != "" {
				streamVersion = e.Version
			}
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ref, line, err := in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", o.Name, err)
		}
		g.Lines++
		g.add(n.Classify(line), 1, place{o.Name, ref, o.Capture})
		noteVersion(n.Line(ref, line))
	}
	noteVersion(n.End())

	g.CLIVersion = "unknown"
	switch {
	case streamVersion != "":
		g.CLIVersion = streamVersion
	case o.Recorded != "":
		g.CLIVersion = o.Recorded
	case o.Fallback[o.Provider] != "":
		g.CLIVersion = o.Fallback[o.Provider]
	case o.Fallback[""] != "":
		g.CLIVersion = o.Fallback[""]
	}
	return g, nil
}

// Census gathers the groups of many inputs into one Report. Inputs are
// added in order, so that first-seen places stay the earliest.
type Census struct {
	groups  map[groupKey]*Group
	skipped []string
}

// New returns an empty census.
func New() *Census { return &Census{groups: map[groupKey]*Group{}} }

// Add merges one input's group (from CountFile) into the group of its
// provider and CLI version.
func (c *Census) Add(from *Group) {
	key := groupKey{from.Provider, from.CLIVersion}
	into := c.groups[key]
	if into == nil {
		into = &Group{Provider: from.Provider, CLIVersion: from.CLIVersion, byKey: map[typeKey]*Type{}}
		c.groups[key] = into
	}
	into.merge(from)
}

// Skip records an input that was not counted (no provider fits it).
func (c *Census) Skip(name string) { c.skipped = append(c.skipped, name) }

// Counted reports how many groups the census has; a census of nothing is
// usually the caller's error.
func (c *Census) Counted() int { return len(c.groups) }

// Report builds the sorted report. Call it once, after the last Add.
func (c *Census) Report() *Report {
	rep := &Report{Groups: []*Group{}, Skipped: c.skipped}
	for _, g := range c.groups {
		g.finish()
		rep.Groups = append(rep.Groups, g)
		for _, t := range g.Types {
			if t.Disposition == event.DispositionUnknown {
				rep.UnknownTypes++
			}
			rep.UnknownFields += len(t.UnknownFields)
		}
	}
	sort.Slice(rep.Groups, func(i, j int) bool {
		a, b := rep.Groups[i], rep.Groups[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		return a.CLIVersion < b.CLIVersion
	})
	return rep
}

// place is where a line is: a line number in raw input, a sequence number
// in a capture. It is only formatted for unknown types and fields.
type place struct {
	name    string
	ref     int64
	capture bool
}

func (p place) String() string {
	if p.capture {
		return fmt.Sprintf("%s@%d", p.name, p.ref)
	}
	return fmt.Sprintf("%s:%d", p.name, p.ref)
}

// add counts count lines classified as c; where is the place of the first
// of them, kept for unknown types and fields.
func (g *Group) add(c event.Classification, count int64, where place) {
	key := typeKey{c.NativeType, c.Reason, c.Disposition}
	t := g.byKey[key]
	if t == nil {
		t = &Type{NativeType: c.NativeType, Disposition: c.Disposition, Reason: c.Reason,
			byField: map[string]*Field{}}
		if c.Disposition == event.DispositionUnknown {
			t.FirstSeen = where.String()
		}
		g.byKey[key] = t
	}
	t.Count += count
	for _, f := range c.UnknownFields {
		cf := t.byField[f]
		if cf == nil {
			cf = &Field{Field: f, FirstSeen: where.String()}
			t.byField[f] = cf
		}
		cf.Count += count
	}
}

// merge adds the counts of one input's group to g.
func (g *Group) merge(from *Group) {
	g.Files = append(g.Files, from.Files...)
	g.Lines += from.Lines
	for _, t := range from.sortedTypes() {
		key := typeKey{t.NativeType, t.Reason, t.Disposition}
		into := g.byKey[key]
		if into == nil {
			into = &Type{NativeType: t.NativeType, Disposition: t.Disposition, Reason: t.Reason,
				FirstSeen: t.FirstSeen, byField: map[string]*Field{}}
			g.byKey[key] = into
		}
		into.Count += t.Count
		for _, f := range t.byField {
			cf := into.byField[f.Field]
			if cf == nil {
				cf = &Field{Field: f.Field, FirstSeen: f.FirstSeen}
				into.byField[f.Field] = cf
			}
			cf.Count += f.Count
		}
	}
}

// finish fills the sorted lists from the maps.
func (g *Group) finish() {
	g.Types = g.sortedTypes()
	for _, t := range g.Types {
		t.UnknownFields = nil
		for _, f := range t.byField {
			t.UnknownFields = append(t.UnknownFields, f)
		}
		sort.Slice(t.UnknownFields, func(i, j int) bool { return t.UnknownFields[i].Field < t.UnknownFields[j].Field })
	}
}

func (g *Group) sortedTypes() []*Type {
	ts := make([]*Type, 0, len(g.byKey))
	for _, t := range g.byKey {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if a.NativeType != b.NativeType {
			return a.NativeType < b.NativeType
		}
		if a.Disposition != b.Disposition {
			return a.Disposition < b.Disposition
		}
		return a.Reason < b.Reason
	})
	return ts
}
