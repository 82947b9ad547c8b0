package census

import (
	"fmt"

	"github.com/evcap/evcap/event"
)

// FailOn says what a census gate fails on (evcap census --fail-on-unknown).
type FailOn string

// The gates.
const (
	// FailNone: the census never fails.
	FailNone FailOn = ""
	// FailTypes: unknown native types fail; a CLI upgrade that only added
	// a field passes.
	FailTypes FailOn = "types"
	// FailFields: unknown fields of known types fail.
	FailFields FailOn = "fields"
	// FailAll: either fails.
	FailAll FailOn = "all"
)

// ParseFailOn reads a gate name.
func ParseFailOn(s string) (FailOn, error) {
	switch f := FailOn(s); f {
	case FailNone, FailTypes, FailFields, FailAll:
		return f, nil
	}
	return "", fmt.Errorf("%q: want types, fields or all", s)
}

// Unknown is one unknown native type (Field empty) or one unknown field of
// a type, as a gate reports it.
type Unknown struct {
	Provider, CLIVersion string
	NativeType           string
	Field                string
	Count                int64
	FirstSeen            string
}

// Failures lists what the gate f fails on, in report order: for each
// group, each type, the type when it is unknown, then its unknown fields.
// Names come from the input unescaped; a caller printing them to a
// terminal escapes them.
func (r *Report) Failures(f FailOn) []Unknown {
	types := f == FailTypes || f == FailAll
	fields := f == FailFields || f == FailAll
	var out []Unknown
	for _, g := range r.Groups {
		for _, t := range g.Types {
			if types && t.Disposition == event.DispositionUnknown {
				out = append(out, Unknown{Provider: g.Provider, CLIVersion: g.CLIVersion, NativeType: t.NativeType,
					Count: t.Count, FirstSeen: t.FirstSeen})
			}
			if !fields {
				continue
			}
			for _, fl := range t.UnknownFields {
				out = append(out, Unknown{Provider: g.Provider, CLIVersion: g.CLIVersion, NativeType: t.NativeType,
					Field: fl.Field, Count: fl.Count, FirstSeen: fl.FirstSeen})
			}
		}
	}
	return out
}
