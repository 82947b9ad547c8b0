package codex

import (
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/tidwall/gjson"
)

// Which members of a Codex line and of its item Line reads, in one pass
// each (jsonpick.Members and jsonpick.Pick), and the index of each.

var lineKeys = []string{"type", "msg", "id", "prompt", "item"}

const (
	lType = iota
	lMsg
	lID
	lPrompt
	lItem
	lineFieldCount
)

// lineFields holds a line's top-level members, as lineKeys names them.
type lineFields [lineFieldCount]gjson.Result

// readLine reads the top-level members of the object v that lineKeys
// names, in one pass, and counts its members named item (a path into
// item must look past the first one; see formatOfLine).
func readLine(v gjson.Result) (f lineFields, items int) {
	if !v.IsObject() {
		return f, 0
	}
	jsonpick.Members(v.Raw, func(key, val string) bool {
		if key == "item" {
			items++
		}
		for i, k := range lineKeys {
			if key == k && !f[i].Exists() {
				f[i] = gjson.Parse(val)
				break
			}
		}
		return true
	})
	return f, items
}

var itemKeys = []string{"id", "type", "item_type", "text", "phase", "status",
	"exit_code", "command", "changes", "server", "tool", "arguments", "query", "message", "items",
	"error", "result"}

const (
	iID = iota
	iType
	iItemType
	iText
	iPhase
	iStatus
	iExitCode
	iCommand
	iChanges
	iServer
	iTool
	iArguments
	iQuery
	iMessage
	iItems
	iError
	iResult
	itemFieldCount
)

// itemFields holds an item's members, as itemKeys names them.
type itemFields [itemFieldCount]gjson.Result

// inFirst is it.Get(path) for a path "<member>.<key>" whose first member
// is first: gjson's path goes on to a later member of that name when the
// first has no key, and so does inFirst, by asking the path.
func inFirst(first, it gjson.Result, key, path string) gjson.Result {
	if !first.Exists() {
		return gjson.Result{} // no member of that name at all
	}
	if r := first.Get(key); r.Exists() {
		return r
	}
	return it.Get(path)
}
