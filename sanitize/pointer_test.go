package sanitize

import "testing"

func TestPointer(t *testing.T) {
	for _, c := range []struct {
		path []string
		want string
	}{
		{nil, ""},
		{[]string{}, ""},
		{[]string{""}, "/"},
		{[]string{"event", "delta", "text"}, "/event/delta/text"},
		{[]string{"a/b", "m~n", "0"}, "/a~1b/m~0n/0"},
		{[]string{"~1", "/~", "ü/x"}, "/~01/~1~0/ü~1x"},
	} {
		if got := pointer(c.path); got != c.want {
			t.Errorf("pointer(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}
