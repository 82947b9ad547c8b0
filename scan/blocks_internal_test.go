package scan

import "testing"

// TestPayloadPointer: a native piece's path becomes the JSON pointer of
// its string in the record, keys escaped as RFC 6901 says.
func TestPayloadPointer(t *testing.T) {
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{"event", "delta", "text"}, "/payload/event/delta/text"},
		{[]string{"properties", "a/b", "c~d", "0"}, "/payload/properties/a~1b/c~0d/0"},
		{[]string{"~/"}, "/payload/~0~1"},
		{nil, "/payload"},
	} {
		if got := payloadPointer(c.path); got != c.want {
			t.Errorf("%q: %s, want %s", c.path, got, c.want)
		}
	}
}
