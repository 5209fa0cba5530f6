// bench/.scratch.ts
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

// test/support/mock-provider.ts
import http from "node:http";

// test/support/mock-wire.ts
function splitChunks(text, size) {
  if (text.length <= size) return [text];
  const pieces = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
function splitArgs(args2) {
  if (args2.length < 3) return [args2];
  const third = Math.ceil(args2.length / 3);
  return [args2.slice(0, third), args2.slice(third, 2 * third), args2.slice(2 * third)];
}
var TEXT_CHUNK = 12;
var anthropicStop = { stop: "end_turn", tool_calls: "tool_use", length: "max_tokens" };
var openaiStop = { end_turn: "stop", tool_use: "tool_calls", max_tokens: "length" };
function anthropicStopReason(reply) {
  if (reply.stopReason) return anthropicStop[reply.stopReason] ?? reply.stopReason;
  return reply.toolCalls.length > 0 ? "tool_use" : "end_turn";
}
function openaiStopReason(reply) {
  if (reply.stopReason) return openaiStop[reply.stopReason] ?? reply.stopReason;
  return reply.toolCalls.length > 0 ? "tool_calls" : "stop";
}
function sse(event, data) {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return event ? `event: ${event}
data: ${payload}

` : `data: ${payload}

`;
}
function anthropicEvent(data) {
  return sse(data.type, data);
}
function anthropicStream(reply) {
  const { usage } = reply;
  const chunks = [
    anthropicEvent({
      type: "message_start",
      message: {
        id: reply.id,
        type: "message",
        role: "assistant",
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          output_tokens: 1,
          cache_read_input_tokens: usage.cacheRead,
          cache_creation_input_tokens: usage.cacheWrite
        }
      }
    })
  ];
  let index = 0;
  if (reply.thinking) {
    chunks.push(anthropicEvent({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const piece of splitChunks(reply.thinking, TEXT_CHUNK)) {
      chunks.push(anthropicEvent({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } }));
    }
    chunks.push(anthropicEvent({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: reply.signature } }));
    chunks.push(anthropicEvent({ type: "content_block_stop", index }));
    index++;
  }
  if (reply.text) {
    chunks.push(anthropicEvent({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    chunks.push(sse("ping", { type: "ping" }));
    for (const piece of splitChunks(reply.text, TEXT_CHUNK)) {
      chunks.push(anthropicEvent({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }));
    }
    chunks.push(anthropicEvent({ type: "content_block_stop", index }));
    index++;
  }
  for (const call of reply.toolCalls) {
    chunks.push(
      anthropicEvent({ type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } })
    );
    for (const piece of splitArgs(call.args)) {
      chunks.push(anthropicEvent({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    chunks.push(anthropicEvent({ type: "content_block_stop", index }));
    index++;
  }
  chunks.push(
    anthropicEvent({
      type: "message_delta",
      delta: { stop_reason: anthropicStopReason(reply), stop_sequence: null },
      usage: { output_tokens: usage.output }
    })
  );
  chunks.push(anthropicEvent({ type: "message_stop" }));
  return chunks;
}
function anthropicBody(reply) {
  const content = [];
  if (reply.thinking) content.push({ type: "thinking", thinking: reply.thinking, signature: reply.signature });
  if (reply.text) content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls) {
    let input;
    try {
      input = JSON.parse(call.args);
    } catch {
      input = {};
    }
    content.push({ type: "tool_use", id: call.id, name: call.name, input });
  }
  return {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content,
    stop_reason: anthropicStopReason(reply),
    stop_sequence: null,
    usage: {
      input_tokens: reply.usage.input,
      output_tokens: reply.usage.output,
      cache_read_input_tokens: reply.usage.cacheRead,
      cache_creation_input_tokens: reply.usage.cacheWrite
    }
  };
}
function openaiUsage(usage) {
  const prompt = usage.input + usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead }
  };
}
function openaiStream(reply) {
  const created = Math.floor(Date.now() / 1e3);
  const chunk = (delta, finish = null) => sse(void 0, {
    id: reply.id,
    object: "chat.completion.chunk",
    created,
    model: reply.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }]
  });
  const chunks = [chunk({ role: "assistant", content: "" })];
  if (reply.thinking) {
    for (const piece of splitChunks(reply.thinking, TEXT_CHUNK)) chunks.push(chunk({ reasoning_content: piece }));
  }
  if (reply.text) {
    for (const piece of splitChunks(reply.text, TEXT_CHUNK)) chunks.push(chunk({ content: piece }));
  }
  reply.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of splitArgs(call.args)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, openaiStopReason(reply)));
  if (reply.includeUsage) {
    chunks.push(
      sse(void 0, {
        id: reply.id,
        object: "chat.completion.chunk",
        created,
        model: reply.model,
        choices: [],
        usage: openaiUsage(reply.usage)
      })
    );
  }
  chunks.push(sse(void 0, "[DONE]"));
  return chunks;
}
function openaiBody(reply) {
  const message = { role: "assistant", content: reply.text || null, refusal: null };
  if (reply.thinking) message.reasoning_content = reply.thinking;
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.args }
    }));
  }
  return {
    id: reply.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1e3),
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: openaiStopReason(reply) }],
    usage: openaiUsage(reply.usage)
  };
}
var anthropicErrorTypes = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error"
};
var defaultMessages = {
  400: "Invalid request",
  401: "invalid x-api-key",
  403: "Your API key does not have permission to use the specified resource.",
  404: "Not found",
  429: "Rate limited",
  500: "Internal server error",
  529: "Overloaded"
};
function errorBody(format, status, options) {
  const message = options.message ?? defaultMessages[status] ?? `HTTP ${status}`;
  if (format === "anthropic") {
    const type2 = options.type ?? anthropicErrorTypes[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
    return { type: "error", error: { type: type2, message } };
  }
  const type = options.type ?? (status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error");
  const code = options.code !== void 0 ? options.code : status === 401 ? "invalid_api_key" : status === 404 ? "model_not_found" : status === 429 ? "rate_limit_exceeded" : null;
  return { error: { message, type, param: null, code } };
}

// test/support/mock-provider.ts
var realTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle)
};
var routes = {
  "/v1/messages": "anthropic",
  "/v1/chat/completions": "openai"
};
function estimateTokens(text) {
  return Math.ceil(text.length / 4);
}
function wait(ms, signal, timers) {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = timers.setTimeout(done, ms);
    function done() {
      timers.clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
function untilGone(signal) {
  return new Promise((resolve) => signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true }));
}
function writeChunk(res, chunk) {
  return new Promise((resolve) => res.write(chunk, () => resolve()));
}
function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on("data", (part) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}
function resolveReply(reply, request, serial) {
  const format = request.format;
  const text = reply.text ?? "";
  const thinking = reply.thinking ?? "";
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? (format === "anthropic" ? `toolu_mock_${serial}_${i}` : `call_mock_${serial}_${i}`),
    name: call.name,
    args: typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {})
  }));
  const outputChars = text + thinking + toolCalls.map((c) => c.name + c.args).join("");
  return {
    id: format === "anthropic" ? `msg_mock_${serial}` : `chatcmpl-mock-${serial}`,
    model: typeof request.body?.model === "string" ? request.body.model : "mock-model",
    text,
    thinking,
    signature: reply.signature ?? `sig_mock_${serial}`,
    toolCalls,
    usage: {
      input: reply.usage?.input ?? estimateTokens(request.raw),
      output: reply.usage?.output ?? estimateTokens(outputChars),
      cacheRead: reply.usage?.cacheRead ?? 0,
      cacheWrite: reply.usage?.cacheWrite ?? 0
    },
    stopReason: reply.stopReason,
    includeUsage: format === "anthropic" || request.body?.stream_options?.include_usage === true && !reply.omitUsage
  };
}
async function startMockProvider(options = {}) {
  const queue = [];
  const requests = [];
  let responder;
  let latencyMs = options.latencyMs ?? 0;
  const timers = options.timers ?? realTimers;
  let serial = 0;
  const log = [];
  function countInFlight(filter, peak) {
    let now = 0;
    let max = 0;
    for (const entry of log) {
      if (filter && !filter(entry.request)) continue;
      now += entry.delta;
      max = Math.max(max, now);
    }
    return peak ? max : now;
  }
  const shutdown = new AbortController();
  async function pickReply(request) {
    const scripted = queue.shift();
    if (scripted) return scripted;
    if (responder) {
      try {
        return await responder(request);
      } catch (error) {
        const message2 = `mock provider: responder threw: ${error instanceof Error ? error.message : String(error)}`;
        return { fault: { kind: "status", status: 500, message: message2 } };
      }
    }
    const message = `mock provider: no scripted reply for ${request.format} request #${requests.length}`;
    return { fault: { kind: "status", status: 500, message } };
  }
  async function handle(req, res) {
    const path2 = (req.url ?? "/").split("?")[0];
    const format = routes[path2];
    const raw = await readBody(req);
    if (!format || req.method !== "POST") {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `mock provider: no route ${req.method} ${path2}` } }));
      return;
    }
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      body = void 0;
    }
    const request = { format, path: path2, headers: req.headers, body, raw, receivedAt: Date.now() };
    requests.push(request);
    log.push({ request, delta: 1 });
    const number = ++serial;
    const gone = new AbortController();
    res.on("close", () => {
      request.answeredAt = Date.now();
      if (log.some((entry) => entry.request === request)) log.push({ request, delta: -1 });
      gone.abort();
    });
    const onShutdown = () => gone.abort();
    shutdown.signal.addEventListener("abort", onShutdown, { once: true });
    try {
      const reply = await pickReply(request);
      await wait(latencyMs + (reply.delayMs ?? 0), gone.signal, timers);
      if (gone.signal.aborted) return;
      await send(res, request, reply, number, gone.signal);
    } finally {
      shutdown.signal.removeEventListener("abort", onShutdown);
    }
  }
  async function send(res, request, reply, number, gone) {
    const fault = reply.fault;
    if (fault?.kind === "hang") {
      await untilGone(gone);
      return;
    }
    if (fault?.kind === "reset") {
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === "status") {
      const headers = { "content-type": "application/json" };
      if (fault.retryAfter !== void 0) headers["retry-after"] = String(fault.retryAfter);
      res.writeHead(fault.status, headers);
      res.end(JSON.stringify(errorBody(request.format, fault.status, fault)));
      return;
    }
    const resolved = resolveReply(reply, request, number);
    if (request.body?.stream !== true) {
      if (fault?.kind === "cut" || fault?.kind === "truncate" || fault?.kind === "stall") {
        res.socket?.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      if (fault?.kind === "malformed") {
        res.end('{"id": "broken", this is not json');
        return;
      }
      res.end(JSON.stringify(request.format === "anthropic" ? anthropicBody(resolved) : openaiBody(resolved)));
      return;
    }
    const chunks = request.format === "anthropic" ? anthropicStream(resolved) : openaiStream(resolved);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const stopAt = fault?.kind === "cut" || fault?.kind === "truncate" || fault?.kind === "stall" ? fault.afterChunks : fault?.kind === "malformed" || fault?.kind === "stream_error" ? fault.afterChunks ?? 1 : chunks.length;
    for (let i = 0; i < Math.min(stopAt, chunks.length); i++) {
      if (i > 0 && reply.chunkDelayMs) await wait(reply.chunkDelayMs, gone, timers);
      if (gone.aborted) return;
      await writeChunk(res, chunks[i]);
    }
    if (fault?.kind === "stall") {
      await untilGone(gone);
      return;
    }
    if (fault?.kind === "cut") {
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === "malformed") {
      const prefix = request.format === "anthropic" ? "event: content_block_delta\n" : "";
      await writeChunk(res, `${prefix}data: {"type": "content_block_delta", this is not json

`);
    }
    if (fault?.kind === "stream_error") {
      const type = fault.type ?? (request.format === "anthropic" ? "overloaded_error" : "server_error");
      const body = errorBody(request.format, 500, { type, message: fault.message ?? "Overloaded" });
      const prefix = request.format === "anthropic" ? "event: error\n" : "";
      await writeChunk(res, `${prefix}data: ${JSON.stringify(body)}

`);
    }
    res.end();
  }
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `mock provider crashed: ${String(error)}` } }));
      } else {
        res.destroy();
      }
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    respond: (fn) => void (responder = fn),
    setLatency: (ms) => void (latencyMs = ms),
    pending: () => queue.length,
    inFlight: (filter) => countInFlight(filter, false),
    maxInFlight: (filter) => countInFlight(filter, true),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      log.length = 0;
      responder = void 0;
      latencyMs = 0;
    },
    close: async () => {
      shutdown.abort();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
    }
  };
}

// bench/.scratch.ts
var [node, provider, steps, ...extra] = process.argv.slice(2);
var mock = await startMockProvider();
var base = mkdtempSync(path.join(os.tmpdir(), "scratch-"));
for (let i = 1; i <= Number(steps); i++) writeFileSync(path.join(base, `file${i}.ts`), "export const x = 1;\n".repeat(50));
for (let i = 1; i <= Number(steps); i++) mock.script({ toolCalls: [{ name: "read_file", args: { path: `file${i}.ts` } }] });
mock.script({ text: "done" });
var env = provider === "openai" ? { OPENAI_API_KEY: "bench-key-0000", OPENAI_BASE_URL: mock.openaiBaseURL } : { ANTHROPIC_API_KEY: "bench-key-0000", ANTHROPIC_BASE_URL: mock.anthropicBaseURL };
var t0 = Date.now();
var args = extra.includes("--ref") ? [...extra.filter((a) => a !== "--ref"), "/work/shared/bench/reference-agent.mjs", "-p", "x", "--provider", provider, "--base-url", provider === "openai" ? mock.openaiBaseURL : mock.anthropicBaseURL] : [...extra, process.env.BIN ?? "/work/wt-bench/bin/outrider.js", "-p", "x", "--provider", provider, ...process.env.OUT_JSON ? ["--output-format", "json"] : []];
var child = spawn(node, args, { cwd: base, env: { PATH: process.env.PATH, HOME: base, OUTRIDER_HOME: base, ...env }, stdio: ["ignore", "pipe", "inherit"] });
child.stdout.resume();
child.on("exit", async (code) => {
  const t = Date.now() - t0;
  console.log(`exit ${code} at ${t} ms; requests:`, mock.requests.map((r) => `${r.receivedAt - t0}-${(r.answeredAt ?? 0) - t0}`).join(" "));
  await mock.close();
});
