package provider_test

import (
	"testing"

	"github.com/evcap/evcap/provider"
)

func TestLocateReplace(t *testing.T) {
	for _, c := range []struct {
		reason, line string
		d            provider.Delta
		ok           bool
		text, want   string
	}{
		{"nested path", `{"event":{"delta":{"text":"a\u00e9<b"}},"x":1}`, provider.Delta{Path: []string{"event", "delta", "text"}},
			true, "aé<b", `{"event":{"delta":{"text":"<new>"}},"x":1}`},
		{"after an SSE prefix", `data: {"properties":{"delta":"hi"}}`, provider.Delta{Path: []string{"properties", "delta"}, Offset: 6},
			true, "hi", `data: {"properties":{"delta":"<new>"}}`},
		{"key with a dot", `{"a.b":"x"}`, provider.Delta{Path: []string{"a.b"}}, true, "x", `{"a.b":"<new>"}`},
		{"not a string", `{"a":1}`, provider.Delta{Path: []string{"a"}}, false, "", `{"a":1}`},
		{"offset outside", `{}`, provider.Delta{Path: []string{"a"}, Offset: 9}, false, "", `{}`},
	} {
		_, _, text, ok := c.d.Locate([]byte(c.line))
		if ok != c.ok || text != c.text {
			t.Errorf("%s: Locate = %q %v, want %q %v", c.reason, text, ok, c.text, c.ok)
		}
		if got := string(c.d.Replace([]byte(c.line), "<new>")); got != c.want {
			t.Errorf("%s: Replace = %s, want %s", c.reason, got, c.want)
		}
	}
}
