package term

import "testing"

func TestColorEnabled(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		reason string
		mode   ColorMode
		getenv func(string) string
		tty    bool
		want   bool
	}{
		{"auto on a terminal", ColorAuto, env(), true, true},
		{"auto when piped", ColorAuto, env(), false, false},
		{"empty mode is auto", "", env(), true, true},
		{"NO_COLOR set", ColorAuto, env("NO_COLOR", "1"), true, false},
		{"NO_COLOR empty counts as unset", ColorAuto, env("NO_COLOR", ""), true, true},
		{"dumb terminal", ColorAuto, env("TERM", "dumb"), true, false},
		{"always beats NO_COLOR and a pipe", ColorAlways, env("NO_COLOR", "1"), false, true},
		{"never beats a terminal", ColorNever, env(), true, false},
		{"nil getenv", ColorAuto, nil, true, true},
	}
	for _, tc := range tests {
		got, err := ColorEnabled(tc.mode, tc.getenv, tc.tty)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v", tc.reason, got, err, tc.want)
		}
	}
	if _, err := ColorEnabled("sometimes", nil, true); err == nil {
		t.Error("unknown mode: got no error")
	}
}
