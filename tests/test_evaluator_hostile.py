"""Hostile submissions are contained: each ends within the evaluator's limits with a precise
diagnostic, nothing outside its temp dir changes, and nothing of the host outside the sandbox's
allow-list can be read into `dist/`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from evaluator_fixtures import make_app, snapshot, static_app

from evaluator import build
from evaluator.check_set import check_set
from evaluator.evaluate import evaluate, run_browser_phase
from records.layout import REPO_ROOT
from records.rubric import MAX_AUTOMATED
from records.task import DEFAULT_TASK, load_task
from sandbox import Limits, MiB

TASK = load_task(DEFAULT_TASK)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

SNOOP = r"""
const fs = require('fs');
const tries = ['..', '../..', process.env.REPO, process.env.REPO + '/pyproject.toml', '/root',
               '/home', process.env.HOSTAPP];
for (const t of tries) {
  try {
    const s = fs.statSync(t);
    console.log('FOUND', t, s.isDirectory() ? fs.readdirSync(t).length : s.size);
  } catch (e) { console.log('HIDDEN', t, e.code); }
}
const targets = [process.env.REPO + '/evil.txt', process.env.HOSTAPP + '/evil.txt',
                 '/etc/evil.txt'];
for (const t of targets) {
  try { fs.writeFileSync(t, 'x'); console.log('WROTE', t); }
  catch (e) { console.log('DENIED', t, e.code); }
}
process.exit(1);
"""

NET = r"""
const net = require('net');
const s = net.connect({ host: '1.1.1.1', port: 80 });
s.setTimeout(3000, () => { console.log('NET timeout'); process.exit(1); });
s.on('connect', () => { console.log('NET CONNECTED'); process.exit(0); });
s.on('error', (e) => { console.log('NET error', e.code); process.exit(1); });
"""


def test_build_cannot_read_the_repository_or_write_outside(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", "node snoop.js", {"snoop.js": SNOOP})
    # Paths are baked in: the sandbox has a clean environment.
    script = (app / "snoop.js").read_text()
    script = script.replace("process.env.REPO", repr(str(REPO_ROOT))).replace(
        "process.env.HOSTAPP", repr(str(app))
    )
    (app / "snoop.js").write_text(script)
    before_app = snapshot(app)
    before_repo = snapshot(REPO_ROOT / "evaluator")
    result = evaluate(app, tmp_path / "out", task=TASK, video=False, trace=False, screenshots=False)
    log = (tmp_path / "out" / "logs" / "build.log").read_text()
    assert "FOUND " + str(REPO_ROOT) + "/pyproject.toml" not in log
    assert "WROTE" not in log
    assert f"HIDDEN {REPO_ROOT}/pyproject.toml ENOENT" in log
    assert f"HIDDEN {app} ENOENT" in log  # the original submission folder is invisible
    assert not result.build_ok and result.hard_gate_failed
    gate = next(g for g in result.gates if g.id == "install-build")
    assert gate.failed and "build" in gate.reason and "exited with code 1" in gate.reason
    assert all(not c.executed for c in result.checks)
    assert snapshot(app) == before_app
    assert snapshot(REPO_ROOT / "evaluator") == before_repo
    assert not (REPO_ROOT / "evil.txt").exists() and not (app / "evil.txt").exists()


def test_build_cannot_open_network_connections(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", "node net.js", {"net.js": NET})
    start = time.monotonic()
    result = evaluate(app, tmp_path / "out", task=TASK, video=False, trace=False, screenshots=False)
    log = (tmp_path / "out" / "logs" / "build.log").read_text()
    assert "NET CONNECTED" not in log
    assert "NET error" in log  # ENETUNREACH: there is no route out of the sandbox
    assert not result.build_ok
    assert time.monotonic() - start < 120  # the install included; the build step's limit is 300 s


def test_endless_build_is_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(build.STEP_TIMEOUTS, "build", 5.0)
    app = make_app(tmp_path / "app", "node -e 'for(;;){}' & sleep 1000")
    start = time.monotonic()
    result = evaluate(app, tmp_path / "out", task=TASK, video=False, trace=False, screenshots=False)
    assert time.monotonic() - start < 120  # the 5 s limit, not the default 300 s, ended it
    step = next(s for s in result.steps if s.name == "build")
    assert step.timed_out and not step.ok
    gate = next(g for g in result.gates if g.id == "install-build")
    assert gate.failed and "time limit" in gate.reason


def test_gigabytes_of_output_are_capped(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", "yes 'log spam log spam log spam'")
    start = time.monotonic()
    result = evaluate(app, tmp_path / "out", task=TASK, video=False, trace=False, screenshots=False)
    assert time.monotonic() - start < 120  # the output cap, not the 300 s step limit, ended it
    step = next(s for s in result.steps if s.name == "build")
    assert step.output_capped and not step.ok
    assert (tmp_path / "out" / "logs" / "build.log").stat().st_size < 5 * 1024 * 1024
    gate = next(g for g in result.gates if g.id == "install-build")
    assert gate.failed and "output cap" in gate.reason


EXFILTRATE = r"""
const fs = require('fs');
const seen = [];
for (const t of TARGETS) {
  try { seen.push('READ ' + t + ' ' + fs.readFileSync(t, 'utf8')); }
  catch (e) { seen.push('DENIED ' + t + ' ' + e.code); }
}
for (const d of ['/', '/etc', '/tmp', '..', '/work', '/root', '/home']) {
  try { seen.push('LIST ' + d + ' ' + fs.readdirSync(d).join(',')); }
  catch (e) { seen.push('NOLIST ' + d + ' ' + e.code); }
}
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.html',
  '<!doctype html><html lang="en"><title>x</title><pre>' + seen.join('\n') + '</pre></html>');
"""


def test_build_cannot_copy_host_files_into_dist(tmp_path: Path) -> None:
    """A build that succeeds after trying to read a planted host file, the repository, /etc and
    the original submission into `dist/` (which would reach screenshots and the site)."""
    planted = tmp_path / "planted-secret.txt"
    planted.write_text("TOPSECRET-PLANTED\n")
    app = tmp_path / "app"
    targets = [
        str(planted),
        str(REPO_ROOT / "pyproject.toml"),
        str(app / "package.json"),
        "/etc/passwd",
        "/etc/shadow",
        "/etc/hostname",
        "/root/.profile",
    ]
    script = EXFILTRATE.replace("TARGETS", repr(targets))
    make_app(
        app,
        "node exfiltrate.js && (find / -path /proc -prune -o -name 'planted*' -print"
        " 2>/dev/null | sed 's/^/FOUND /' >> dist/index.html; true)",
        {"exfiltrate.js": script},
    )
    workspace = build.make_workspace("siteos-hostile-")
    try:
        build.copy_app(app, workspace)
        for step in ("install", "build"):
            result = build.run_step(workspace, step)
            assert result.ok, result.describe() + result.stderr
        dist = (workspace.dist / "index.html").read_text()
    finally:
        import shutil

        shutil.rmtree(workspace.root, ignore_errors=True)
    assert "TOPSECRET" not in dist and "FOUND" not in dist
    assert "READ " not in dist, dist
    for target in targets:
        assert f"DENIED {target} ENOENT" in dist, dist
    assert "LIST / bin,dev,etc,lib,lib64,opt,proc,sbin,tmp,usr" in dist
    assert "LIST /etc alternatives,ld.so.cache" in dist
    listing = next(line for line in dist.splitlines() if line.startswith("LIST .. "))
    assert set(listing[8:].split(",")) <= {"app", "npm-cache", "node-compile-cache", "home"}
    for missing in ("/work", "/root", "/home"):
        assert f"NOLIST {missing} ENOENT" in dist


HOSTILE_LIMITS = Limits(
    nproc=64, memory=384 * MiB, resident_total=1024 * MiB, file_size=16 * MiB, open_files=1024
)


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (
            # bash's bomb retries refused forks (dash's can burn out between two samples)
            "bash -c 'f() { f | f & }; f; sleep 100'; exit 1",
            "exceeded the process limit (64 processes and threads",
        ),
        ("head -c 40M /dev/zero > dist.bin", "exceeded the file-size limit (16 MiB)"),
        (
            "node -e 'Buffer.alloc(2 ** 30, 1)'",
            "ran out of memory: the limit is 384 MiB of data per process",
        ),
    ],
    ids=["fork-bomb", "huge-file", "memory"],
)
def test_build_past_a_resource_limit_fails_with_that_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, reason: str
) -> None:
    monkeypatch.setattr(build, "LIMITS", HOSTILE_LIMITS)
    app = make_app(tmp_path / "app", command)
    start = time.monotonic()
    result = evaluate(app, tmp_path / "out", task=TASK, video=False, trace=False, screenshots=False)
    assert time.monotonic() - start < 240  # ended by the limit, well before the step's timeout
    step = next(s for s in result.steps if s.name == "build")
    assert not step.ok and reason in step.summary, step.summary
    gate = next(g for g in result.gates if g.id == "install-build")
    assert gate.failed and reason in gate.reason
    log = (tmp_path / "out" / "logs" / "build.log").read_text()
    assert reason in log and "# limit hit: " in log


NEVER_SETTLES = """<!doctype html><html lang="en"><head><title>Atlas Rooms</title></head>
<body><main><h1>Atlas Rooms</h1><p id="p">Always moving</p></main>
<script>
  const p = document.getElementById('p');
  const again = () => { p.animate([{opacity: 0}, {opacity: 1}], {duration: 800});
                        requestAnimationFrame(again); };
  requestAnimationFrame(again);
</script></body></html>"""

HANGS = """<!doctype html><html lang="en"><head><title>Atlas Rooms</title></head>
<body><main><h1>Atlas Rooms</h1></main>
<script>setTimeout(() => { for (;;) {} }, 50);</script></body></html>"""


@pytest.mark.browser
def test_page_that_never_settles_is_judged_within_limits(tmp_path: Path) -> None:
    app = static_app(tmp_path / "app", NEVER_SETTLES)
    start = time.monotonic()
    result = evaluate(app, tmp_path / "out", task=TASK, video=False, trace=False, screenshots=False)
    assert time.monotonic() - start < 240
    assert result.evaluator_error is None
    assert result.checks_executed == len(check_set("evaluator.checks").checks)
    assert result.unsettled, "the never-settling animations are reported"
    assert result.automated_score < MAX_AUTOMATED and result.hard_gate_failed


@pytest.mark.browser
def test_page_that_blocks_its_main_thread_is_killed(tmp_path: Path) -> None:
    app = static_app(tmp_path / "app", HANGS)
    start = time.monotonic()
    result = evaluate(
        app,
        tmp_path / "out",
        task=TASK,
        video=False,
        trace=False,
        screenshots=False,
        check_budget=8,
    )
    assert time.monotonic() - start < 180
    assert result.evaluator_error is None
    assert result.automated_score == 0 and result.hard_gate_failed
    seen = " ".join(d.seen for c in result.checks for d in c.diagnostics)
    assert "stopped responding" in seen or "hung" in seen


REACHES_OUT = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Atlas Rooms</title><link rel="stylesheet" href="https://fonts.example.com/atlas.css"></head>
<body><main><h1>Atlas Rooms</h1><img alt="Lisbon" src="http://203.0.113.5/lisbon.png"></main>
<script>fetch('https://api.example.org/venues', {mode: 'no-cors'}).catch(() => {});</script>
</body></html>"""


@pytest.mark.browser
def test_requests_that_try_to_leave_loopback_fail_and_are_recorded(tmp_path: Path) -> None:
    """The browser guard observes every request; the launch flags (a host name) and the
    loopback-only namespace (an address literal) make the ones beyond loopback fail."""
    app = static_app(tmp_path / "app", REACHES_OUT)
    dist = app / "static"
    phase, _ = run_browser_phase(
        dist, tmp_path / "out", data_file=TASK.data, checks_package=TASK.spec.checks,
        only=["media-fallback"], video=False, trace=False, screenshots=False,
    )  # fmt: skip
    assert phase.complete, phase.error
    assert {
        "https://fonts.example.com/atlas.css",
        "http://203.0.113.5/lisbon.png",
        "https://api.example.org/venues",
    } <= set(phase.blocked_requests)
    (media,) = phase.checks
    assert not media.passed
    assert any("leaves the site's origin" in d.expected for d in media.diagnostics)


@pytest.mark.browser
def test_a_phase_with_no_check_selected_still_runs_the_gate_probes(tmp_path: Path) -> None:
    """`--only` naming no check (`scripts/bench_checks.py`'s baseline) gives one lane that runs
    the gate probes and nothing else; here they judge a page with no catalogue."""
    app = static_app(tmp_path / "app", REACHES_OUT)
    phase, _ = run_browser_phase(
        app / "static", tmp_path / "out", data_file=TASK.data, checks_package=TASK.spec.checks,
        only=["none"], video=False, trace=False, screenshots=False,
    )  # fmt: skip
    assert phase.complete, phase.error
    assert phase.checks == []
    assert set(phase.probes) == set(check_set(TASK.spec.checks).probes)
    assert any(p["failed"] for p in phase.probes.values())
