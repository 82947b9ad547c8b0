package schema_test

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/schema"
	"github.com/google/go-cmp/cmp"
)

// jsonFields returns the JSON names of a struct type's fields.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name := strings.Split(tag, ",")[0]
		if name == "" || name == "-" {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

type schemaDoc struct {
	Required   []string                   `json:"required"`
	Properties map[string]json.RawMessage `json:"properties"`
}

func load(t *testing.T, name string) schemaDoc {
	t.Helper()
	raw, err := schemaFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var d schemaDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func schemaFile(name string) ([]byte, error) {
	f, err := schema.FS().Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf strings.Builder
	b := make([]byte, 4096)
	for {
		n, err := f.Read(b)
		buf.Write(b[:n])
		if err != nil {
			break
		}
	}
	return []byte(buf.String()), nil
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestSchemasMatchGoTypes keeps the published schemas and the Go types in
// step: a field added to one and not the other fails here.
func TestSchemasMatchGoTypes(t *testing.T) {
	env := load(t, schema.EnvelopeFile)
	if diff := cmp.Diff(jsonFields(reflect.TypeOf(envelope.Record{})), keys(env.Properties)); diff != "" {
		t.Errorf("envelope.Record vs %s properties (-go +schema):\n%s", schema.EnvelopeFile, diff)
	}
	req := append([]string(nil), env.Required...)
	want := append([]string(nil), envelope.RequiredFields()...)
	sort.Strings(req)
	sort.Strings(want)
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("required fields differ (-go +schema):\n%s", diff)
	}
	var redProps struct {
		Items schemaDoc `json:"items"`
	}
	if err := json.Unmarshal(env.Properties["redactions"], &redProps); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jsonFields(reflect.TypeOf(envelope.Redaction{})), keys(redProps.Items.Properties)); diff != "" {
		t.Errorf("envelope.Redaction vs schema (-go +schema):\n%s", diff)
	}

	ev := load(t, schema.EventFile)
	if diff := cmp.Diff(jsonFields(reflect.TypeOf(event.Event{})), keys(ev.Properties)); diff != "" {
		t.Errorf("event.Event vs %s (-go +schema):\n%s", schema.EventFile, diff)
	}
	for prop, typ := range map[string]reflect.Type{
		"tool": reflect.TypeOf(event.Tool{}), "toolResult": reflect.TypeOf(event.ToolResult{}),
		"usage": reflect.TypeOf(event.Usage{}), "result": reflect.TypeOf(event.Result{}),
		"error": reflect.TypeOf(event.Error{}), "retry": reflect.TypeOf(event.Retry{}),
		"permission": reflect.TypeOf(event.Permission{}), "rateLimit": reflect.TypeOf(event.RateLimit{}),
		"hook": reflect.TypeOf(event.Hook{}), "agent": reflect.TypeOf(event.Agent{}),
	} {
		var sub schemaDoc
		if err := json.Unmarshal(ev.Properties[prop], &sub); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(jsonFields(typ), keys(sub.Properties)); diff != "" {
			t.Errorf("event.%s vs schema %s (-go +schema):\n%s", typ.Name(), prop, diff)
		}
	}
	var kinds struct {
		Enum []event.Kind `json:"enum"`
	}
	if err := json.Unmarshal(ev.Properties["kind"], &kinds); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(event.Kinds(), kinds.Enum); diff != "" {
		t.Errorf("kinds differ (-go +schema):\n%s", diff)
	}
}

func TestEnvelopeSchemaAcceptsWrittenRecordsAndRejectsBadOnes(t *testing.T) {
	s, err := schema.Compile(schema.EnvelopeFile)
	if err != nil {
		t.Fatal(err)
	}
	good := envelope.AppendRecord(nil, &envelope.Record{SchemaVersion: 1, CaptureID: "01JDXKQ5T8M3V9ZQ7G2H4N6P8R",
		Sequence: 3, Timestamp: "2026-11-29T19:00:00.000Z", Provider: "claude", Stage: envelope.StageNormalizedOut,
		EventType: "text", Payload: []byte(`{"kind":"text","phase":"delta","text":"hi"}`),
		Redactions: []envelope.Redaction{{Rule: "anthropic", Pointer: "/text", Count: 1, OriginalLength: 108}},
		Cause:      []int64{2}})
	if err := s.Validate(good); err != nil {
		t.Fatalf("a written record fails its schema: %v\n%s", err, good)
	}
	tests := []struct{ name, doc, want string }{
		{"missing payload", `{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"meta","eventType":"e","redactions":[]}`, "payload"},
		{"bad stage", `{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"x","eventType":"e","payload":1,"redactions":[]}`, "/stage"},
		{"zero sequence", `{"schemaVersion":1,"captureId":"C","sequence":0,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"meta","eventType":"e","payload":1,"redactions":[]}`, "/sequence"},
		{"ledger with secret", `{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"meta","eventType":"e","payload":1,"redactions":[{"rule":"r","pointer":"","count":1,"originalLength":3,"value":"abc"}]}`, "value"},
	}
	for _, tt := range tests {
		err := s.Validate([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate = %v, want an error mentioning %q", tt.name, err, tt.want)
		}
	}
}

func TestEventSchemaExamplesValidate(t *testing.T) {
	s, err := schema.Compile(schema.EventFile)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := schemaFile(schema.EventFile)
	var doc struct {
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Examples) == 0 {
		t.Fatal("event schema has no examples")
	}
	for _, ex := range doc.Examples {
		if err := s.Validate(ex); err != nil {
			t.Errorf("example %s: %v", ex, err)
		}
		var e event.Event
		if err := json.Unmarshal(ex, &e); err != nil {
			t.Errorf("example %s does not decode into event.Event: %v", ex, err)
		}
		back, _ := json.Marshal(e)
		if err := s.Validate(back); err != nil {
			t.Errorf("event.Event marshals to an invalid document %s: %v", back, err)
		}
	}
}

// TestValidateErrorIsDeterministic validates a document with several
// violations, two of them extra property names, many times: the library
// meets both in Go map order, so without sorting the text changes between
// calls (a fixture error of evcap normalize did, about one run in five).
func TestValidateErrorIsDeterministic(t *testing.T) {
	s, err := schema.Compile(schema.FixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{"info":{},"parts":[],"zeta":1,"alpha":2,"events":"x"}`)
	first := s.Validate(doc)
	if first == nil {
		t.Fatal("Validate accepted a fixture with no name, provider or events")
	}
	if !strings.Contains(first.Error(), "'alpha', 'info', 'parts', 'zeta'") {
		t.Errorf("extra properties not listed in sorted order: %v", first)
	}
	for i := 0; i < 50; i++ {
		if err := s.Validate(doc); err == nil || err.Error() != first.Error() {
			t.Fatalf("call %d: %v\nfirst call: %v", i, err, first)
		}
	}
}
