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

// itemRawKeys are itemKeys and, last, the member read raw: a command's
// aggregated_output, the largest value of most items, only cut.
var itemRawKeys = append(itemKeys[:len(itemKeys):len(itemKeys)], "aggregated_output")

// itemPick is what the normalizer reads of a line's (first) item, from
// one walk of it: its members as itemKeys names them, whether it has an
// item_type (jsonpick.RawMember found one) and its aggregated_output's raw
// text ("" when it has none). Reading them one after the other walked
// the item, and its output, three times.
type itemPick struct {
	f           itemFields
	hasItemType bool
	output      string
}

// readItem fills p from the item it (an empty pick when it is not an
// object): p.f is what jsonpick.Pick(it, itemKeys, p.f[:]) gives.
func (p *itemPick) readItem(it gjson.Result) {
	var raw [itemFieldCount + 1]string
	jsonpick.PickRaw(it, itemRawKeys, raw[:])
	for i, r := range raw[:itemFieldCount] {
		if r != "" {
			p.f[i] = jsonpick.ParseValue(r)
		}
	}
	p.hasItemType = raw[iItemType] != ""
	p.output = raw[itemFieldCount]
}

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
