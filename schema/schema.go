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

	"github.com/santhosh-tekuri/jsonschema/v6"
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

// flatten turns the library's error tree into one line per leaf.
func flatten(ve *jsonschema.ValidationError) string {
	p := message.NewPrinter(language.English)
	var out []byte
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			if len(out) > 0 {
				out = append(out, "; "...)
			}
			loc := "/" + joinPointer(e.InstanceLocation)
			out = append(out, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(p))...)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return string(out)
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
