"""A throwaway agent for the "add an agent" recipe (docs/architecture.md): the smallest
chat/completions agent, a Node script with three tools (read, write, bash), and its adapter.

It is what a new agent adds and nothing more: an adapter class following `Agent`
(harness/agents/base.py), which writes its program and config into the private HOME, returns its
command line and reads its own native log (one JSON object a line on stdout) back into the
trajectory. The runner, the sandbox, the recording proxy and the evidence are the harness's own.
"""

from __future__ import annotations

from pathlib import Path

from harness.agents.base import Launch, truncate
from harness.agents.native import json_lines
from harness.session.sandbox import SandboxSpec
from records.evidence.agent import (
    AgentIdentity,
    AgentInfo,
    AgentTrace,
    ErrorPart,
    Step,
    StepMetrics,
    TextPart,
    ToolPart,
)

NAME, VERSION = "toy-agent", "0.1.0"
PROGRAM = r"""
// toy-agent 0.1.0: one chat/completions request per turn, three tools, a JSON line per event.
const fs = require('fs');
const path = require('path');
const { execSync } = require('child_process');
const [base, model, workdir] = process.argv.slice(2);
const log = (event) => process.stdout.write(JSON.stringify({ ts: Date.now(), ...event }) + '\n');
const strings = (props) => Object.fromEntries(props.map((p) => [p, { type: 'string' }]));
const fn = (name, props) => ({ type: 'function', function: { name, description: name,
  parameters: { type: 'object', properties: strings(props), required: props } } });
const tools = [
  fn('read', ['filePath']), fn('write', ['filePath', 'content']), fn('bash', ['command']),
];
const messages = [
  { role: 'system', content: `You are toy-agent.\nWorking directory: ${workdir}` },
  { role: 'user', content: fs.readFileSync(0, 'utf8') },
];
const run = (name, args) => {
  const file = args.filePath ? path.resolve(workdir, args.filePath) : '';
  if (name === 'read') return fs.readFileSync(file, 'utf8');
  if (name === 'write') {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, args.content || '');
    return `wrote ${args.filePath}`;
  }
  if (name === 'bash') {
    return execSync(args.command, { cwd: workdir, encoding: 'utf8', timeout: 300000,
      stdio: ['ignore', 'pipe', 'pipe'] });
  }
  throw new Error(`unknown tool ${name}`);
};
(async () => {
  for (let turn = 1; turn <= 40; turn += 1) {
    const response = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-toy' },
      body: JSON.stringify({ model, messages, tools, tool_choice: 'auto' }),
    });
    const body = await response.json();
    if (!response.ok || !body.choices) {
      const message = JSON.stringify(body).slice(0, 500);
      log({ type: 'error', turn, status: response.status, message });
      process.exit(1);
    }
    const { message, finish_reason: finish } = body.choices[0];
    const calls = message.tool_calls || [];
    log({ type: 'turn', turn, finish, text: message.content || '', usage: body.usage || {} });
    const said = { role: 'assistant', content: message.content || '' };
    messages.push(calls.length ? { ...said, tool_calls: calls } : said);
    if (!calls.length) return;
    for (const call of calls) {
      let args = {};
      try { args = JSON.parse(call.function.arguments || '{}'); } catch (e) { args = {}; }
      let output = '';
      let status = 'completed';
      let exit = 0;
      try { output = run(call.function.name, args); } catch (e) {
        status = 'error';
        exit = typeof e.status === 'number' ? e.status : null;
        output = `${e.stdout || ''}${e.stderr || ''}${e.message}`;
      }
      log({ type: 'tool', turn, id: call.id, tool: call.function.name, input: args, status,
        exit, output: output.slice(0, 4000) });
      messages.push({ role: 'tool', tool_call_id: call.id, content: output.slice(0, 20000) });
    }
  }
})().catch((e) => { log({ type: 'error', message: String(e) }); process.exit(1); });
"""


class ToyAgent:
    """`node toy.js <base url> <route> <workdir>` with the prompt on stdin."""

    info = AgentInfo(name=NAME, version=VERSION)
    identity = AgentIdentity(names=["toy-agent"], files=[r"(^|/)toy\.js$"], ids=[])

    def installed_version(self) -> str | None:
        return VERSION  # shipped with the adapter (a real agent reads .tools/versions.json)

    def prepare(
        self,
        spec: SandboxSpec,
        *,
        route: str,
        reasoning: str,
        title: str,
        prompt: bytes,
        context_length: int | None = None,
    ) -> Launch:
        del reasoning, title, context_length  # the toy sends none of them
        program = spec.home / "agent" / "toy.js"
        program.parent.mkdir(parents=True, exist_ok=True)
        program.write_text(PROGRAM)
        return Launch(
            command=["node", spec.inside(program), spec.base_url, route, spec.workdir],
            stdin=prompt,
        )

    def read_trace(self, events: Path) -> AgentTrace:
        """One step per `turn` line; each `tool` line becomes a tool part of its turn."""
        trace = AgentTrace(agent=self.info, events=events.name, identity=self.identity)
        for source, event in json_lines(trace, events):
            ts = event.get("ts")
            if event.get("type") == "turn":
                usage = event.get("usage") or {}
                metrics = StepMetrics(
                    input_tokens=usage.get("prompt_tokens"),
                    output_tokens=usage.get("completion_tokens"),
                )
                step = Step(step_id=len(trace.steps) + 1, source="agent", started_at=ts,
                            finished_at=ts, finish_reason=str(event.get("finish") or ""),
                            metrics=metrics)  # fmt: skip
                if event.get("text"):
                    text, cut = truncate(event["text"])
                    step.parts.append(TextPart(kind="text", text=text, truncated=cut,
                                               timestamp=ts, source=source))  # fmt: skip
                trace.steps.append(step)
            elif event.get("type") == "tool" and trace.steps:
                tool, inputs = str(event.get("tool")), event.get("input") or {}
                output, cut = truncate(str(event.get("output") or ""))
                trace.steps[-1].parts.append(ToolPart(
                    tool=tool, status=str(event.get("status")), call_id=str(event.get("id")),
                    title=str(inputs.get("command") or inputs.get("filePath") or ""),
                    input={k: truncate(str(v))[0] for k, v in inputs.items()}, output=output,
                    output_truncated=cut, shell=tool == "bash", timestamp=ts, source=source,
                    exit_code=event.get("exit") if tool == "bash" else None,
                    files=[str(inputs["filePath"])] if tool == "write" and event.get("status")
                    == "completed" else [],
                ))  # fmt: skip
            elif event.get("type") == "error":
                step = Step(step_id=len(trace.steps) + 1, source="system", started_at=ts)
                step.parts.append(ErrorPart(text=str(event.get("message")), timestamp=ts,
                                            source=source))  # fmt: skip
                trace.steps.append(step)
        return trace
