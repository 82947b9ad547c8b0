// echo-server.mjs is a tiny MCP server over stdio (newline-delimited
// JSON-RPC 2.0), for recording how agent CLIs report MCP tool calls. It
// offers one tool, echo, which answers "echo: " + its text argument.
// No dependencies; MCP protocol version 2025-06-18.
import { createInterface } from "node:readline";

const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let req;
  try { req = JSON.parse(line); } catch { return; }
  if (req.id === undefined) return; // a notification
  switch (req.method) {
    case "initialize":
      send({ jsonrpc: "2.0", id: req.id, result: {
        protocolVersion: req.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "evtest", version: "1.0.0" } } });
      break;
    case "tools/list":
      send({ jsonrpc: "2.0", id: req.id, result: { tools: [{
        name: "echo", description: "Echo the given text back.",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] } });
      break;
    case "tools/call":
      send({ jsonrpc: "2.0", id: req.id, result: {
        content: [{ type: "text", text: "echo: " + (req.params?.arguments?.text ?? "") }] } });
      break;
    case "ping":
      send({ jsonrpc: "2.0", id: req.id, result: {} });
      break;
    default:
      send({ jsonrpc: "2.0", id: req.id, error: { code: -32601, message: "method not found: " + req.method } });
  }
});
