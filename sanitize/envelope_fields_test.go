package sanitize_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
	"github.com/google/go-cmp/cmp"
)

// TestEnvelopeFieldsRedacted: a secret in the record's own string fields
// (not the payload) is redacted like one in the payload, with a ledger
// entry whose pointer names the field behind "#", and Scan finds nothing
// afterwards. The secrets are synthetic (fake key shapes), planted in
// fields no real CLI fills with them, which is the point.
func TestEnvelopeFieldsRedacted(t *testing.T) {
	const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
	const aws = "AKIADYBVZXG24VDHLDSU"
	rec := `{"schemaVersion":1,"captureId":"01JDXQ4ZP8V6S1N0W9H3B5C7D2","sequence":1,"timestamp":"2026-11-29T19:32:07.446Z",` +
		`"provider":"claude","sessionId":"run ` + key + `","turnId":"t ` + aws + `","stage":"native_in","eventType":"x ` + key + `",` +
		`"payload":{"type":"system"},"redactions":[],` +
		`"model":"m ` + key + `","agent":"a ` + key + `","permissionMode":"p ` + key + `","source":"src ` + key + `","notes":"n ` + key + `",` +
		`"futureField":{"token":"` + key + `"}}` + "\n"

	var out bytes.Buffer
	rep, err := sanitize.Sanitize(strings.NewReader(rec), "in.jsonl", &out, sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{key, aws, "abcdefghij", "DYBVZXG2"} {
		if strings.Contains(out.String(), secret) {
			t.Errorf("output still holds %q:\n%s", secret, out.String())
		}
	}
	got, err := envelope.ParseRecord(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	var ptrs []string
	for _, r := range got.Redactions {
		ptrs = append(ptrs, r.Pointer)
		if r.Rule == "" || r.Count != 1 {
			t.Errorf("ledger entry %+v: want a rule and a count of 1", r)
		}
	}
	want := []string{"#/sessionId", "#/turnId", "#/eventType", "#/model", "#/agent", "#/permissionMode",
		"#/source", "#/notes", "#/futureField/token"}
	if diff := cmp.Diff(want, ptrs); diff != "" {
		t.Errorf("ledger pointers (-want +got):\n%s", diff)
	}
	if rep.Redactions != len(want) {
		t.Errorf("report counts %d redactions, want %d", rep.Redactions, len(want))
	}
	for _, f := range scanCapture(t, out.Bytes(), "out.jsonl", scan.Options{}) {
		t.Errorf("scan after sanitize: %+v", f)
	}

	var again bytes.Buffer
	if _, err := sanitize.Sanitize(bytes.NewReader(out.Bytes()), "out.jsonl", &again, sanitize.Options{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(out.String(), again.String()); diff != "" {
		t.Errorf("sanitize is not idempotent on envelope fields:\n%s", diff)
	}
}
