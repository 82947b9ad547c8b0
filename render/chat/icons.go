package chat

import "strings"

// toolIcon picks the icon for a tool line from the tool's name. Names differ
// per provider (Claude "Read", Gemini "read_file", opencode "read"), so the
// match is on lower-case words, and anything unknown gets the wrench.
func toolIcon(name string) string {
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
