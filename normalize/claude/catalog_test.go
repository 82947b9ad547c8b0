package claude

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/evcap/evcap/event"
)

// catalogFile is the catalog of Claude Code's stream-json message types,
// derived by catalog/extract.py from the Agent SDK's sdk.d.ts (the package
// and version are in the file).
const catalogFile = "../../catalog/claude.json"

// catalogNotHandled lists the catalog types this normalizer passes on as
// unknown events on purpose, with the reason. A catalog type that is
// neither handled, nor ignored by Classify, nor listed here fails
// TestCatalogTypesAreHandled.
var catalogNotHandled = map[string]string{
	"auth_status": "login progress of an interactive OAuth flow; nothing of the run; kept visible as unknown until a headless run shows one",
}

// catalog is the JSON written by catalog/extract.py.
type catalog struct {
	Source string `json:"source"`
	Types  []struct {
		NativeType string   `json:"nativeType"`
		TSType     string   `json:"tsType"`
		Fields     []string `json:"fields"`
	} `json:"types"`
}

func loadCatalog(t *testing.T) catalog {
	t.Helper()
	b, err := os.ReadFile(catalogFile)
	if err != nil {
		t.Fatal(err)
	}
	var c catalog
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", catalogFile, err)
	}
	if len(c.Types) < 50 {
		t.Fatalf("%s holds only %d types", catalogFile, len(c.Types))
	}
	return c
}

// sampleLine is the smallest line of a catalog type that Classify names
// with that type.
func sampleLine(nt string) string {
	typ, sub, _ := cutSlash(nt)
	switch typ {
	case "assistant":
		return `{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]}}`
	case "user":
		return `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}`
	case "stream_event":
		return `{"type":"stream_event","event":{"type":"message_start","message":{}}}`
	case "control_request":
		return fmt.Sprintf(`{"type":"control_request","request_id":"r","request":{"subtype":%q}}`, sub)
	case "control_response":
		return fmt.Sprintf(`{"type":"control_response","response":{"subtype":%q,"request_id":"r"}}`, sub)
	case "system", "result":
		return fmt.Sprintf(`{"type":%q,"subtype":%q}`, typ, sub)
	}
	return fmt.Sprintf(`{"type":%q}`, typ)
}

func cutSlash(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// TestCatalogTypesAreHandled classifies a line of every catalog type: each
// must be handled or ignored (with a reason), or be listed in
// catalogNotHandled. It also fails on stale entries of that list, and
// logs the catalog fields the normalizer does not know for each type.
func TestCatalogTypesAreHandled(t *testing.T) {
	c := loadCatalog(t)
	n := New()
	inCatalog := map[string]bool{}
	var notKnownFields []string
	for _, ty := range c.Types {
		inCatalog[ty.NativeType] = true
		cl := n.Classify([]byte(sampleLine(ty.NativeType)))
		if cl.NativeType != ty.NativeType && !(ty.NativeType == "assistant" || ty.NativeType == "user" || ty.NativeType == "stream_event") {
			t.Errorf("%s (%s): sample line classified as %q", ty.NativeType, ty.TSType, cl.NativeType)
		}
		switch {
		case cl.Disposition == event.DispositionIgnored && cl.Reason == "":
			t.Errorf("%s: ignored without a reason", ty.NativeType)
		case cl.Disposition == event.DispositionUnknown && catalogNotHandled[ty.NativeType] == "":
			t.Errorf("%s (%s, %s): neither handled, nor ignored, nor listed in catalogNotHandled", ty.NativeType, ty.TSType, c.Source)
		case cl.Disposition != event.DispositionUnknown && catalogNotHandled[ty.NativeType] != "":
			t.Errorf("%s is handled now; remove it from catalogNotHandled", ty.NativeType)
		}
		if typ, _, _ := cutSlash(ty.NativeType); typ == "control_request" || typ == "control_response" {
			continue // the catalog lists the inner request's fields; Classify checks the envelope's
		}
		known, ok := knownFields[ty.NativeType]
		if !ok {
			typ, _, _ := cutSlash(ty.NativeType)
			known = knownFields[typ]
		}
		for _, f := range ty.Fields {
			if !slices.Contains(known, f) && !slices.Contains(commonFields, f) {
				notKnownFields = append(notKnownFields, ty.NativeType+"."+f)
			}
		}
	}
	for nt := range catalogNotHandled {
		if !inCatalog[nt] {
			t.Errorf("catalogNotHandled lists %s, which %s does not have", nt, c.Source)
		}
	}
	sort.Strings(notKnownFields)
	t.Logf("%s: %d types; not handled on purpose: %v", c.Source, len(c.Types), keysOf(catalogNotHandled))
	t.Logf("catalog fields Classify does not know (reported by the census as unknown fields): %v", notKnownFields)
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
