package usermod

import (
	"encoding/json"
	"os"
	"testing"
)

// TestParseFixture feeds every native line of the fixture in
// testdata/run/fixture.json (an evcap fixture) to DeltaText.
func TestParseFixture(t *testing.T) {
	doc, err := os.ReadFile("testdata/run/fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Events []struct {
			Stage   string          `json:"stage"`
			Payload json.RawMessage `json:"payload"`
		} `json:"events"`
	}
	if err := json.Unmarshal(doc, &fx); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, e := range fx.Events {
		if e.Stage != "native_in" {
			continue
		}
		lines++
		if _, err := DeltaText(e.Payload); err != nil {
			t.Errorf("native line %d: %v", lines, err)
		}
	}
	t.Logf("%d native lines", lines)
}
