"""How isolation.json was recorded: Copilot CLI as `CopilotAgent.prepare` launches it (unsandboxed
paths), one setting changed per variant, in a fresh `unshare -rnm` namespace (loopback only) whose
/etc/resolv.conf names a loopback DNS logger answering every name with 127.0.0.1, with listeners
on :443 and :80 logging each connection (TLS server name or HTTP request line) and a scripted
provider on :18080 in the API the adapter's wire names (three turns: a write, a failing command,
a final text).

Run: `.venv/bin/python tests/data/agents/copilot-1.0.102/isolation_probe.py OUT.json` (not a
test: it takes about a minute per variant)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

INNER = r"""
import json, os, socket, socketserver, ssl, struct, subprocess, sys, threading, http.server
from pathlib import Path
sys.path.insert(0, os.environ["PROBE_TESTS"])
from agent_recorder import chat_stream, responses_stream, turns_done
log, turns, requests = [], json.loads(os.environ["PROBE_TURNS"]), []

def dns():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 53))
    while True:
        data, peer = s.recvfrom(2048)
        qid, labels, i = data[:2], [], 12
        while data[i]:
            labels.append(data[i + 1:i + 1 + data[i]].decode()); i += 1 + data[i]
        qtype = struct.unpack(">H", data[i + 1:i + 3])[0]
        log.append(f"dns {'.'.join(labels)} type={qtype}")
        question = data[12:i + 5]
        answer = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 5, 4) + socket.inet_aton("127.0.0.1")
        ok = qtype == 1
        header = qid + b"\x81\x80" + struct.pack(">HHHH", 1, 1 if ok else 0, 0, 0)
        s.sendto(header + question + (answer if ok else b""), peer)

def sni(hello):
    try:
        i = 5 + 4 + 2 + 32; i += 1 + hello[i]; i += 2 + struct.unpack(">H", hello[i:i+2])[0]
        i += 1 + hello[i]; end = i + 2 + struct.unpack(">H", hello[i:i+2])[0]; i += 2
        while i < end:
            kind, size = struct.unpack(">HH", hello[i:i+4]); i += 4
            if kind == 0:
                return hello[i + 5:i + size].decode()
            i += size
    except Exception:
        pass
    return "?"

def listen(port):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port)); s.listen(50)
    while True:
        c, _ = s.accept(); c.settimeout(3)
        try:
            first = c.recv(4096)
        except OSError:
            first = b""
        if port == 443:
            log.append(f"tcp 443 {sni(first)}")
        else:
            line = first.split(b"\r\n", 1)[0].decode(errors="replace")
            log.append("tcp 80 " + line)
        c.close()

class Provider(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        requests.append(f"GET {self.path}"); self.send_response(404); self.end_headers()
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        requests.append(f"POST {self.path}")
        chat = self.path.endswith("/chat/completions")
        if not (chat or self.path.endswith("/responses")):
            self.send_response(404); self.end_headers(); return
        tools = sorted((t.get("function") or t).get("name", "?") for t in body.get("tools") or [])
        log.append("tools " + json.dumps(tools))
        log.append("limit " + json.dumps(body.get("max_output_tokens", body.get("max_tokens"))))
        turn = turns[min(turns_done(self.path, body), len(turns) - 1)]
        self.send_response(200); self.send_header("content-type", "text/event-stream")
        self.end_headers()
        render = chat_stream if chat else responses_stream
        for chunk in render(turn, body.get("model", ""), len(requests)):
            self.wfile.write(chunk)

subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
Path("/tmp/probe-resolv.conf").write_text("nameserver 127.0.0.1\n")
subprocess.run(["mount", "--bind", "/tmp/probe-resolv.conf", "/etc/resolv.conf"], check=True)
for target in (dns, lambda: listen(443), lambda: listen(80)):
    threading.Thread(target=target, daemon=True).start()
server = socketserver.ThreadingTCPServer(("127.0.0.1", 18080), Provider)
threading.Thread(target=server.serve_forever, daemon=True).start()
run = json.loads(os.environ["PROBE_RUN"])
done = subprocess.run(run["command"], env=run["env"], cwd=run["cwd"], input=run["stdin"].encode(),
                      capture_output=True, timeout=240)
import time; time.sleep(2)
print(json.dumps({"exit": done.returncode, "log": log, "requests": requests,
                  "stderr": done.stderr.decode(errors="replace").splitlines()[:8]}))
"""

TURNS = [
    {
        "text": "Writing.",
        "calls": [
            {
                "name": "bash",
                "input": {
                    "command": "printf 'hi\\n' > notes.txt && cat notes.txt",
                    "description": "Write notes",
                },
            }
        ],
    },
    {"calls": [{"name": "bash", "input": {"command": "cat missing.txt", "description": "Fail"}}]},
    {"text": "Done."},
]


def launch(drop_env: tuple[str, ...] = (), drop_flags: tuple[str, ...] = (),
           drop_tools: bool = False, work: Path | None = None) -> dict:  # fmt: skip
    from harness.agents.copilot import CopilotAgent
    from harness.session.sandbox import SandboxSpec

    assert work is not None
    for sub in ("wt", "home"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    spec = SandboxSpec(worktree=work / "wt", home=work / "home", gateway_socket=work / "gw" / "s",
                       gateway_port=18080, isolated=False)  # fmt: skip
    out = CopilotAgent().prepare(spec, route="lab-x/editor-1", reasoning="high", title="t",
                                 prompt=b"Create notes.txt, then run a command.\n")  # fmt: skip
    command = list(out.command)
    if drop_tools:
        at = command.index("--available-tools")
        command = command[:at]
    command = [c for c in command if c not in drop_flags]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(spec.home), **spec.env}
    for key in drop_env:
        env.pop(key, None)
    return {"command": command, "env": env, "cwd": str(spec.worktree),
            "stdin": (out.stdin or b"").decode()}  # fmt: skip


VARIANTS = {
    "adapter": {},
    "no-offline": {"drop_env": ("COPILOT_OFFLINE",)},
    "no-offline-no-flags": {
        "drop_env": ("COPILOT_OFFLINE", "COPILOT_AUTO_UPDATE"),
        "drop_flags": (
            "--no-auto-update",
            "--disable-client-telemetry",
            "--disable-builtin-mcps",
            "--no-remote",
        ),
    },  # fmt: skip
    "no-offline-auto-update-on": {
        "drop_env": ("COPILOT_OFFLINE", "COPILOT_AUTO_UPDATE"),
        "drop_flags": ("--no-auto-update",),
    },
    "no-offline-telemetry-on": {
        "drop_env": ("COPILOT_OFFLINE",),
        "drop_flags": ("--disable-client-telemetry",),
    },
    "no-offline-mcps-on": {
        "drop_env": ("COPILOT_OFFLINE",),
        "drop_flags": ("--disable-builtin-mcps", "--no-remote"),
    },
    "no-available-tools": {"drop_tools": True},
    "no-offline-no-available-tools": {"drop_env": ("COPILOT_OFFLINE",), "drop_tools": True},
    "no-max-tokens": {
        "drop_env": ("COPILOT_PROVIDER_MAX_PROMPT_TOKENS", "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS")
    },  # fmt: skip
}


def main(out: Path) -> None:
    results = {}
    for name, change in VARIANTS.items():
        with tempfile.TemporaryDirectory() as tmp:
            run = launch(**change, work=Path(tmp))
            env = {**os.environ, "PROBE_RUN": json.dumps(run), "PROBE_TURNS": json.dumps(TURNS),
                   "PROBE_TESTS": str(ROOT / "tests"), "PYTHONPATH": str(ROOT)}  # fmt: skip
            done = subprocess.run(["unshare", "-rnm", sys.executable, "-c", INNER], env=env,
                                  capture_output=True, text=True, timeout=300)  # fmt: skip
            if done.returncode != 0:
                raise SystemExit(f"{name}: {done.stderr[-2000:]}")
            got = json.loads(done.stdout.strip().splitlines()[-1])
        tools = [json.loads(e[6:]) for e in got["log"] if e.startswith("tools ")]
        limits = [json.loads(e[6:]) for e in got["log"] if e.startswith("limit ")]
        results[name] = {
            "exit": got["exit"],
            "outside": [e for e in got["log"] if not e.startswith(("tools ", "limit "))],
            "output_limit": limits[0] if limits else None,
            "proxy_requests": got["requests"],
            "tools_offered": tools[0] if tools else [],
            "stderr_lines": got["stderr"],
        }
        print(name, json.dumps(results[name])[:400], flush=True)
    out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
