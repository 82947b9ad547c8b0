package gen

import "strconv"

// claude writes Claude Code --output-format stream-json
// --include-partial-messages: stream_event lines around every delta, the
// whole assistant message, the tool result as a user line, and a result.
type claude struct {
	g       *run
	session string
	n       int
}

const claudeModel = "claude-sonnet-4-5-20250929"

func (c *claude) tail(b []byte) []byte {
	b = append(b, `,"session_id":"`...)
	b = append(b, c.session...)
	b = append(b, `","parent_tool_use_id":null,"uuid":"`...)
	b = append(b, c.g.uuid()...)
	return append(b, `"}`...)
}

func (c *claude) event(body string) {
	b := append(c.g.buf[:0], `{"type":"stream_event","event":`...)
	b = append(b, body...)
	c.g.buf = c.tail(b)
	c.g.line(c.g.buf)
}

func (c *claude) delta(index int, kind, field, text string) {
	b := append(c.g.buf[:0], `{"type":"stream_event","event":{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, `,"delta":{"type":"`...)
	b = append(b, kind...)
	b = append(b, `","`...)
	b = append(b, field...)
	b = append(b, `":`...)
	b = str(b, text)
	b = append(b, `}}`...)
	c.g.buf = c.tail(b)
	c.g.line(c.g.buf)
}

func (c *claude) start() {
	g := c.g
	g.streams = true
	c.session = g.uuid()
	b := append(g.buf[:0], `{"type":"system","subtype":"init","cwd":`...)
	b = str(b, g.o.Project)
	b = append(b, `,"session_id":"`...)
	b = append(b, c.session...)
	b = append(b, `","tools":["Task","Bash","Edit","Read","Write","WebFetch"],"mcp_servers":[],"model":"`+claudeModel+`","permissionMode":"default","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.197","output_style":"default","agents":["claude","Explore","general-purpose","Plan"],"uuid":"`...)
	b = append(b, g.uuid()...)
	b = append(b, `","memory_paths":{"auto":`...)
	b = str(b, g.o.Home+"/.claude/projects/memory/")
	b = append(b, `},"fast_mode_state":"off"}`...)
	g.buf = b
	g.line(b)
}

func (c *claude) turn(t *turn) {
	g := c.g
	c.n++
	msg := "msg_01" + g.pick(hexd, 24)
	tool := "toolu_01" + g.pick(hexd, 24)
	usage := `"usage":{"input_tokens":` + strconv.Itoa(1000+100*c.n) + `,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}`
	c.event(`{"type":"message_start","message":{"id":"` + msg + `","type":"message","role":"assistant","model":"` + claudeModel + `","content":[],"stop_reason":null,"stop_sequence":null,` + usage + `}}`)

	c.event(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	for _, d := range t.thinking {
		c.delta(0, "thinking_delta", "thinking", d)
	}
	c.event(`{"type":"content_block_stop","index":0}`)

	c.event(`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	for _, d := range t.text {
		c.delta(1, "text_delta", "text", d)
	}
	c.event(`{"type":"content_block_stop","index":1}`)

	input := str(str([]byte(`{"command":`), t.command), "")
	input = append(input[:len(input)-2], `,"description":"Run the command"}`...)
	c.event(`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"` + tool + `","name":"Bash","input":{}}}`)
	c.delta(2, "input_json_delta", "partial_json", "")
	for _, d := range g.chop(string(input)) {
		c.delta(2, "input_json_delta", "partial_json", d)
	}
	c.event(`{"type":"content_block_stop","index":2}`)
	c.event(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":` + strconv.Itoa(50+len(t.text)) + `}}`)
	c.event(`{"type":"message_stop"}`)

	b := append(g.buf[:0], `{"type":"assistant","message":{"id":"`...)
	b = append(b, msg...)
	b = append(b, `","type":"message","role":"assistant","model":"`+claudeModel+`","content":[{"type":"text","text":`...)
	b = str(b, t.textText())
	b = append(b, `},{"type":"tool_use","id":"`...)
	b = append(b, tool...)
	b = append(b, `","name":"Bash","input":`...)
	b = append(b, input...)
	b = append(b, `}],"stop_reason":null,"stop_sequence":null,`...)
	b = append(b, usage...)
	b = append(b, `,"context_management":null},"parent_tool_use_id":null,"session_id":"`...)
	b = append(b, c.session...)
	b = append(b, `","uuid":"`...)
	b = append(b, g.uuid()...)
	b = append(b, `"}`...)
	g.buf = b
	g.line(b)

	b = append(g.buf[:0], `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"`...)
	b = append(b, tool...)
	b = append(b, `","type":"tool_result","content":`...)
	b = str(b, t.output)
	b = append(b, `,"is_error":false}]},"parent_tool_use_id":null,"session_id":"`...)
	b = append(b, c.session...)
	b = append(b, `","uuid":"`...)
	b = append(b, g.uuid()...)
	b = append(b, `","timestamp":"`...)
	b = append(b, g.rfc3339()...)
	b = append(b, `","tool_use_result":{"stdout":`...)
	b = str(b, t.output)
	b = append(b, `,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}`...)
	g.buf = b
	g.line(b)
}

func (c *claude) end() {
	g := c.g
	b := append(g.buf[:0], `{"type":"result","subtype":"success","is_error":false,"api_error_status":null,"duration_ms":`...)
	b = strconv.AppendInt(b, int64(674*c.n), 10)
	b = append(b, `,"num_turns":`...)
	b = strconv.AppendInt(b, int64(c.n), 10)
	b = append(b, `,"result":"Done.","stop_reason":"end_turn","session_id":"`...)
	b = append(b, c.session...)
	b = append(b, `","total_cost_usd":0.01452,"usage":{"input_tokens":3900,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":188},"permission_denials":[],"terminal_reason":"completed","uuid":"`...)
	b = append(b, g.uuid()...)
	b = append(b, `"}`...)
	g.buf = b
	g.line(b)
}
