package toolicon

import "testing"

func TestFor(t *testing.T) {
	for _, c := range []struct{ reason, name, want string }{
		{"Claude's Read", "Read", "📖"},
		{"Gemini's read_file", "read_file", "📖"},
		{"Codex's file_change", "file_change", "✏️"},
		{"opencode's grep", "grep", "🔍"},
		{"Gemini's list_directory", "list_directory", "📂"},
		{"WebFetch", "WebFetch", "🌐"},
		{"TodoWrite: write is checked before todo", "TodoWrite", "✏️"},
		{"Claude's Task", "Task", "🤖"},
		{"Bash is no known word", "Bash", "🔧"},
		{"an anonymous tool", "tool", "🔧"},
	} {
		if got := For(c.name); got != c.want {
			t.Errorf("%s: For(%q) = %s, want %s", c.reason, c.name, got, c.want)
		}
	}
}
