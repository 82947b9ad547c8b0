package opencode

import "github.com/tidwall/gjson"

// Which members of an opencode payload, of a part and of a tool part's
// state the hot paths read, in one pass each (jsonpick.Pick), and the
// index of each. (fields.go lists the fields Classify knows; this file
// only what Line reads.)

var lineKeys = []string{"properties", "sessionID", "part", "type", "error"}

const (
	lProperties = iota
	lSessionID
	lPart
	lType
	lError
	lineFieldCount
)

// lineFields holds a payload's top-level members, as lineKeys names them.
type lineFields [lineFieldCount]gjson.Result

var partKeys = []string{"text", "messageID", "id", "callID", "tool", "state"}

const (
	pText = iota
	pMessageID
	pID
	pCallID
	pTool
	pState
	partFieldCount
)

// partFieldSet holds a part's members, as partKeys names them.
type partFieldSet [partFieldCount]gjson.Result

var stateKeys = []string{"status", "input"}

const (
	sStatus = iota
	sInput
	stateFieldCount
)

// stateFieldSet holds a tool state's members, as stateKeys names them.
type stateFieldSet [stateFieldCount]gjson.Result
