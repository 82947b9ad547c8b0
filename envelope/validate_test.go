package envelope

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	rec := func(seq int, extra string) string {
		return fmt.Sprintf(`{"schemaVersion":1,"captureId":"C","sequence":%d,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{},"redactions":[]%s}`, seq, extra) + "\n"
	}
	tests := []struct {
		name, input string
		want        []Problem
		records     int
		reason      string
	}{
		{"valid", rec(1, "") + rec(2, `,"cause":[1]`), nil, 2, "a well-formed capture has no problem"},
		{"empty", "", []Problem{{0, 0, "empty capture"}}, 0, "no record at all is a problem"},
		{"first not 1", rec(2, ""), []Problem{{1, 2, "first sequence is 2, want 1"}}, 1, "sequences start at 1"},
		{"duplicate gap backwards", rec(1, "") + rec(1, "") + rec(4, "") + rec(3, ""), []Problem{
			{2, 1, "duplicate sequence 1"},
			{3, 4, "sequence gap: 4 follows 1 (2 missing)"},
			{4, 3, "sequence goes backwards (previous 4)"},
		}, 4, "each order rule names the sequences involved"},
		{"capture id changes", rec(1, "") + strings.Replace(rec(2, ""), `"C"`, `"D"`, 1), []Problem{
			{2, 2, `captureId "D" differs from "C" earlier in the file`},
		}, 2, "one capture per file"},
		{"forward cause", rec(1, `,"cause":[1]`), []Problem{{1, 1, "cause 1 does not point to an earlier record"}}, 1, "causes point back"},
		{"not JSON and torn", "nope\n" + rec(1, "") + rec(2, "")[:30], []Problem{
			{1, 0, "not JSON"},
			{3, 0, "torn last line: no newline at end of file (the writer was probably killed)"},
		}, 1, "a bad line does not stop the check; a torn last line ends it"},
		{"unknown version", strings.Replace(rec(1, ""), `"schemaVersion":1`, `"schemaVersion":9`, 1), []Problem{
			{1, 1, "unknown schemaVersion 9 (this evcap reads 1)"},
		}, 0, "a future version is not parsed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Validate(context.Background(), strings.NewReader(tt.input), ValidateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, v.Problems); diff != "" {
				t.Errorf("%s: problems (-want +got):\n%s", tt.reason, diff)
			}
			if v.Records != tt.records {
				t.Errorf("%s: %d records, want %d", tt.reason, v.Records, tt.records)
			}
		})
	}
}

func TestValidateSchemaHookAndContext(t *testing.T) {
	line := `{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"meta","eventType":"e","payload":{},"redactions":[]}` + "\n"
	v, err := Validate(context.Background(), strings.NewReader(line), ValidateOptions{Schema: func([]byte) error { return errors.New("no good") }})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Problem{{1, 1, "schema: no good"}}; !cmp.Equal(want, v.Problems) {
		t.Errorf("schema hook: got %v, want %v", v.Problems, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Validate(ctx, strings.NewReader(line), ValidateOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err %v, want context.Canceled", err)
	}
}

func TestCheckOrder(t *testing.T) {
	for _, tt := range []struct {
		prev, seq int64
		ok        bool
	}{{0, 1, true}, {1, 2, true}, {1, 5, true}, {2, 2, false}, {3, 2, false}} {
		err := CheckOrder(tt.prev, tt.seq)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrUnordered)) {
			t.Errorf("CheckOrder(%d, %d) = %v, want ok=%v", tt.prev, tt.seq, err, tt.ok)
		}
	}
}
