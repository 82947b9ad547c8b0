// Package census holds what the provider normalizers share to classify a
// native line for the drift census (event.Classification): the native type
// names of lines that have no usable type, and the listing of the keys of a
// JSON object that a normalizer does not know.
//
// It reads JSON with gjson and knows no provider: which keys are known for
// which line stays in each normalizer's tables.
package census

import (
	"slices"

	"github.com/tidwall/gjson"
)

// Native type names of lines a normalizer cannot type. They are part of the
// census vocabulary, so every provider names them alike.
const (
	// Invalid is the native type of a line that is not a JSON object (a
	// torn last line, a stray log line).
	Invalid = "(invalid json)"
	// NoType is the native type of a JSON object without a type field.
	NoType = "(no type)"
)

// Extra lists the keys of obj that are in none of the known lists, in the
// order they appear, each prefixed with prefix ("item." for a nested
// object). It returns nil when obj is not an object.
func Extra(obj gjson.Result, prefix string, known ...[]string) []string {
	if !obj.IsObject() {
		return nil
	}
	var out []string
	obj.ForEach(func(k, _ gjson.Result) bool {
		key := k.String()
		for _, list := range known {
			if slices.Contains(list, key) {
				return true
			}
		}
		out = append(out, prefix+key)
		return true
	})
	return out
}

// AppendSorted appends Extra(obj, prefix, known) to dst, sorted, so that a
// census entry does not depend on the order the provider printed keys in.
func AppendSorted(dst []string, prefix string, obj gjson.Result, known []string) []string {
	add := Extra(obj, prefix, known)
	slices.Sort(add)
	return append(dst, add...)
}
