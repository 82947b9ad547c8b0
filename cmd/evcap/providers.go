package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
)

// normalizers is the provider table: every agent CLI evcap understands, by
// the name used in capture envelopes, --provider flags and normalize/detect,
// mapped to a constructor of a fresh normalizer for one stream. Adding a
// provider means adding a line here and nowhere else in cmd.
//
// It is a function rather than a package variable so that no command can
// change the table another one sees.
func normalizers() map[string]func() event.Normalizer {
	return map[string]func() event.Normalizer{
		"claude":   func() event.Normalizer { return claude.New() },
		"codex":    func() event.Normalizer { return codex.New() },
		"opencode": func() event.Normalizer { return opencode.New() },
		"gemini":   func() event.Normalizer { return gemini.New() },
	}
}

// providerNames lists the provider table's names in sorted order, for help
// texts and error messages.
func providerNames() []string {
	var names []string
	for name := range normalizers() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// newNormalizer returns a fresh normalizer for the named provider, or an
// error listing the providers there are.
func newNormalizer(provider string) (event.Normalizer, error) {
	mk, ok := normalizers()[provider]
	if !ok {
		return nil, fmt.Errorf("unknown provider %q (known: %s)", provider, strings.Join(providerNames(), ", "))
	}
	return mk(), nil
}
