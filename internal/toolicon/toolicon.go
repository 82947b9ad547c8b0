// Package toolicon picks the icon a renderer shows before a tool line, so
// that the terminal and the chat renderer show the same icon for the same
// tool. It is presentation, which is why it is not in package event (the
// model stays free of how things look); it knows nothing of colours,
// widths or escaping.
package toolicon

import "strings"

// For picks the icon for a tool line from the tool's name. Names differ per
// provider (Claude "Read", Gemini "read_file", opencode "read"), so the
// match is on lower-case words, and anything unknown gets the wrench.
func For(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "read") || n == "view" || n == "cat":
		return "📖"
	case strings.Contains(n, "edit") || strings.Contains(n, "write") || strings.Contains(n, "replace") ||
		strings.Contains(n, "patch") || strings.Contains(n, "file_change"):
		return "✏️"
	case strings.Contains(n, "grep") || strings.Contains(n, "glob") || strings.Contains(n, "search") ||
		strings.Contains(n, "find"):
		return "🔍"
	case strings.Contains(n, "list") || n == "ls":
		return "📂"
	case strings.Contains(n, "fetch") || strings.Contains(n, "web"):
		return "🌐"
	case strings.Contains(n, "todo") || strings.Contains(n, "plan"):
		return "📋"
	case strings.Contains(n, "task") || strings.Contains(n, "agent"):
		return "🤖"
	default:
		return "🔧"
	}
}
