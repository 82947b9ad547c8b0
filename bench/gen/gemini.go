package gen

import "strconv"

// gemini writes Gemini CLI --output-format stream-json: init, the user
// message, assistant text as delta messages, tool_use and tool_result
// lines, and a result.
type gemini struct {
	g     *run
	calls int
}

func (c *gemini) start() {
	g := c.g
	g.streams = true
	g.line([]byte(`{"type":"init","timestamp":"` + g.rfc3339() + `","session_id":"` + g.uuid() + `","model":"gemini-2.5-pro"}`))
	g.line([]byte(`{"type":"message","timestamp":"` + g.rfc3339() + `","role":"user","content":"What is in this project? List the files, then read the README and summarise it."}`))
}

func (c *gemini) turn(t *turn) {
	g := c.g
	for _, d := range t.text {
		b := append(g.buf[:0], `{"type":"message","timestamp":"`...)
		b = append(b, g.rfc3339()...)
		b = append(b, `","role":"assistant","content":`...)
		b = str(b, d)
		b = append(b, `,"delta":true}`...)
		g.buf = b
		g.line(b)
	}
	c.calls++
	id := "run_shell_command__run_shell_command_" + strconv.FormatInt(g.clock.UnixMilli(), 10) + "_" + strconv.Itoa(c.calls)
	b := append(g.buf[:0], `{"type":"tool_use","timestamp":"`...)
	b = append(b, g.rfc3339()...)
	b = append(b, `","tool_name":"run_shell_command","tool_id":"`...)
	b = append(b, id...)
	b = append(b, `","parameters":{"command":`...)
	b = str(b, t.command)
	b = append(b, `,"description":`...)
	b = str(b, "Run: "+t.command)
	b = append(b, `}}`...)
	g.buf = b
	g.line(b)
	b = append(g.buf[:0], `{"type":"tool_result","timestamp":"`...)
	b = append(b, g.rfc3339()...)
	b = append(b, `","tool_id":"`...)
	b = append(b, id...)
	b = append(b, `","status":"success","output":`...)
	b = str(b, t.output)
	b = append(b, `}`...)
	g.buf = b
	g.line(b)
}

func (c *gemini) end() {
	g := c.g
	g.line([]byte(`{"type":"result","timestamp":"` + g.rfc3339() + `","status":"success","stats":{"total_tokens":4620,"input_tokens":4500,"output_tokens":120,"cached":0,"input":4500,"duration_ms":358,"tool_calls":` + strconv.Itoa(c.calls) + `}}`))
}
