package gemini_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/tidwall/gjson"
)

// catalogFile is the catalog of the Gemini CLI's stream-json event types,
// derived by catalog/extract.py from @google/gemini-cli-core's output types.
const catalogFile = "../../catalog/gemini.json"

// catalogSamples gives, per catalog type, lines covering the values of the
// field the census name refines the type with (role, status, severity).
var catalogSamples = map[string][]string{
	"message":     {`{"type":"message","role":"assistant","content":"x"}`, `{"type":"message","role":"user","content":"x"}`},
	"tool_result": {`{"type":"tool_result","tool_id":"t","status":"success"}`, `{"type":"tool_result","tool_id":"t","status":"error"}`},
	"result":      {`{"type":"result","status":"success"}`, `{"type":"result","status":"error"}`},
	"error":       {`{"type":"error","severity":"warning","message":"x"}`, `{"type":"error","severity":"error","message":"x"}`},
}

// TestCatalogTypesAreHandled classifies lines of every catalog type (and
// of each value of the field that refines it): none may be unknown, and
// every catalog field must be one Classify knows. The Gemini CLI's catalog
// is small enough that nothing is left unhandled on purpose.
func TestCatalogTypesAreHandled(t *testing.T) {
	b, err := os.ReadFile(catalogFile)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Source string `json:"source"`
		Types  []struct {
			NativeType string   `json:"nativeType"`
			Fields     []string `json:"fields"`
		} `json:"types"`
	}
	if err := json.Unmarshal(b, &c); err != nil || len(c.Types) < 6 {
		t.Fatalf("%s: %v (%d types)", catalogFile, err, len(c.Types))
	}
	n := gemini.New()
	for _, ty := range c.Types {
		samples := catalogSamples[ty.NativeType]
		if samples == nil {
			samples = []string{fmt.Sprintf(`{"type":%q}`, ty.NativeType)}
		}
		for _, s := range samples {
			if cl := n.Classify([]byte(s)); cl.Disposition == event.DispositionUnknown {
				t.Errorf("%s (%s): %s is unknown to the normalizer", ty.NativeType, c.Source, cl.NativeType)
			}
		}
		// A line with every catalog field set must show no unknown field.
		line := []byte(samples[0])
		for _, f := range ty.Fields {
			if !gjson.GetBytes(line, f).Exists() {
				line = append(line[:len(line)-1], []byte(fmt.Sprintf(`,%q:null}`, f))...)
			}
		}
		if cl := n.Classify(line); len(cl.UnknownFields) > 0 {
			t.Errorf("%s: catalog fields the normalizer does not know: %v", ty.NativeType, cl.UnknownFields)
		}
	}
	t.Logf("%s: %d types, all handled", c.Source, len(c.Types))
}
