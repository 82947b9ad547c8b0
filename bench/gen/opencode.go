package gen

// opencode writes opencode run --format json: per step a step_start,
// reasoning and text parts (whole), a completed bash tool part, and a
// step_finish.
type opencode struct {
	g       *run
	session string
}

func (c *opencode) id(prefix string) string {
	return prefix + "228c" + c.g.pick(hexd, 8) + c.g.pick(alnum, 14)
}

func (c *opencode) head(kind, ts string) []byte {
	b := append(c.g.buf[:0], `{"type":"`...)
	b = append(b, kind...)
	b = append(b, `","timestamp":`...)
	b = append(b, ts...)
	b = append(b, `,"sessionID":"`...)
	b = append(b, c.session...)
	return append(b, `","part":{`...)
}

func (c *opencode) start() { c.session = "ses_" + c.g.pick(hexd, 12) + c.g.pick(alnum, 14) }

func (c *opencode) part(kind, msg, text string) {
	g := c.g
	start := g.millis()
	b := c.head(kind, g.millis())
	b = append(b, `"id":"`...)
	b = append(b, c.id("prt_")...)
	b = append(b, `","messageID":"`...)
	b = append(b, msg...)
	b = append(b, `","sessionID":"`...)
	b = append(b, c.session...)
	b = append(b, `","type":"`...)
	b = append(b, kind...)
	b = append(b, `","text":`...)
	b = str(b, text)
	b = append(b, `,"time":{"start":`...)
	b = append(b, start...)
	b = append(b, `,"end":`...)
	b = append(b, g.millis()...)
	b = append(b, `}}}`...)
	g.buf = b
	g.line(b)
}

func (c *opencode) turn(t *turn) {
	g := c.g
	msg := c.id("msg_")
	b := c.head("step_start", g.millis())
	b = append(b, `"id":"`+c.id("prt_")+`","messageID":"`+msg+`","sessionID":"`+c.session+`","type":"step-start"}}`...)
	g.buf = b
	g.line(b)
	c.part("reasoning", msg, t.thinkingText())
	c.part("text", msg, t.textText())

	start := g.millis()
	b = c.head("tool_use", g.millis())
	b = append(b, `"type":"tool","tool":"bash","callID":"call_`...)
	b = append(b, g.pick(hexd, 24)...)
	b = append(b, `","state":{"status":"completed","input":{"command":`...)
	b = str(b, t.command)
	b = append(b, `},"output":`...)
	b = str(b, t.output)
	b = append(b, `,"metadata":{"output":`...)
	b = str(b, t.output)
	b = append(b, `,"exit":0,"truncated":false},"title":`...)
	b = str(b, t.command)
	b = append(b, `,"time":{"start":`...)
	b = append(b, start...)
	b = append(b, `,"end":`...)
	b = append(b, g.millis()...)
	b = append(b, `}},"id":"`+c.id("prt_")+`","sessionID":"`+c.session+`","messageID":"`+msg+`"}}`...)
	g.buf = b
	g.line(b)

	b = c.head("step_finish", g.millis())
	b = append(b, `"id":"`+c.id("prt_")+`","reason":"tool-calls","messageID":"`+msg+`","sessionID":"`+c.session+`","type":"step-finish","tokens":{"total":1346,"input":1300,"output":46,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}}`...)
	g.buf = b
	g.line(b)
}

func (c *opencode) end() {}
