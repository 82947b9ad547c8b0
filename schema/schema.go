// Package schema holds evcap's JSON Schema (2020-12) files, embedded in the
// binary, and validates documents against them:
//
//	envelope.schema.json  one line of a capture (package envelope)
//	event.schema.json     a normalized event (package event)
//	fixture.schema.json   a promoted fixture, fixture.json (package fixtures)
//
// The files are the published contract for other tools; tests keep them
// equal to the Go types. The package does not read captures itself.
package schema

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Names of the embedded schema files.
const (
	EnvelopeFile = "envelope.schema.json"
	EventFile    = "event.schema.json"
	FixtureFile  = "fixture.schema.json"
)

//go:embed *.schema.json
var files embed.FS

// FS returns the embedded schema files.
func FS() fs.FS { return files }

// Schema is a compiled schema, safe for concurrent use.
type Schema struct {
	name string
	s    *jsonschema.Schema
}

// Compile compiles one of the embedded schema files.
func Compile(name string) (*Schema, error) {
	raw, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s, err := c.Compile(name)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return &Schema{name: name, s: s}, nil
}

// Validate checks one JSON document (a capture line, an event, a fixture).
// The error lists every violation with its JSON pointer.
func (s *Schema) Validate(doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.s.Validate(v); err != nil {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			return fmt.Errorf("%s", flatten(ve))
		}
		return err
	}
	return nil
}

// flatten turns the library's error tree into one line per leaf, sorted,
// so that the same document always gets the same text: the library lists
// the causes and an object's extra property names in the order it met
// them in a Go map, which changes from run to run.
func flatten(ve *jsonschema.ValidationError) string {
	p := message.NewPrinter(language.English)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			k := e.ErrorKind
			if extra, ok := k.(*kind.AdditionalProperties); ok {
				k = &kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(extra.Properties))}
			}
			loc := "/" + joinPointer(e.InstanceLocation)
			leaves = append(leaves, fmt.Sprintf("at %s: %s", loc, k.LocalizedString(p)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(leaves)
	var out bytes.Buffer
	for i, l := range leaves {
		if i > 0 {
			out.WriteString("; ")
		}
		out.WriteString(l)
	}
	return out.String()
}

func joinPointer(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(p)
	}
	return b.String()
}
