package gen

import "strconv"

// codex writes codex exec --json: one thread and turn, items completed
// whole (reasoning, agent_message, command_execution started/completed).
type codex struct {
	g    *run
	item int
}

func (c *codex) start() {
	h := c.g.pick(hexd, 32)
	c.g.line([]byte(`{"type":"thread.started","thread_id":"` + h[:8] + "-" + h[8:12] + "-7" + h[13:16] + "-a" + h[17:20] + "-" + h[20:] + `"}`))
	c.g.line([]byte(`{"type":"turn.started"}`))
}

func (c *codex) id() string {
	s := "item_" + strconv.Itoa(c.item)
	c.item++
	return s
}

func (c *codex) item2(kind, text string) {
	b := append(c.g.buf[:0], `{"type":"item.completed","item":{"id":"`...)
	b = append(b, c.id()...)
	b = append(b, `","type":"`...)
	b = append(b, kind...)
	b = append(b, `","text":`...)
	b = str(b, text)
	b = append(b, `}}`...)
	c.g.buf = b
	c.g.line(b)
}

func (c *codex) command(state, id, cmd, out, exit, status string) {
	b := append(c.g.buf[:0], `{"type":"item.`...)
	b = append(b, state...)
	b = append(b, `","item":{"id":"`...)
	b = append(b, id...)
	b = append(b, `","type":"command_execution","command":`...)
	b = str(b, "/bin/bash -lc '"+cmd+"'")
	b = append(b, `,"aggregated_output":`...)
	b = str(b, out)
	b = append(b, `,"exit_code":`...)
	b = append(b, exit...)
	b = append(b, `,"status":"`...)
	b = append(b, status...)
	b = append(b, `"}}`...)
	c.g.buf = b
	c.g.line(b)
}

func (c *codex) turn(t *turn) {
	c.item2("reasoning", t.thinkingText())
	c.item2("agent_message", t.textText())
	id := c.id()
	c.command("started", id, t.command, "", "null", "in_progress")
	c.command("completed", id, t.command, t.output, "0", "completed")
}

func (c *codex) end() {
	c.g.line([]byte(`{"type":"turn.completed","usage":{"input_tokens":4800,"cached_input_tokens":0,"cache_write_input_tokens":0,"output_tokens":324,"reasoning_output_tokens":36}}`))
}
