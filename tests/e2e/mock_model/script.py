"""The mock model's directive language: turns a prompt into a plan of model responses.

A prompt holds directives, one per line, each starting at the beginning of a line:

    SAY: <text>        reply with <text>, streamed in several deltas ("\\n" in <text> is a newline)
    SHELL: <command>   call the agent's shell tool with <command>
    WRITE: <path> <text>  Codex only: create file <path> holding <text> ("\\n" is a newline)
                       through Codex's apply_patch tool (the Anthropic side says so in text)
    TOOL: <name> <json> call the tool <name> (any name the client offers) with the JSON object
                       <json> as its arguments (omitted: {}); for clients with their own tools
    STALL: <seconds>   open the reply, then stall (keep-alives only) so an interrupt lands mid-turn
    FAIL: <status>     answer the model call with HTTP <status> and an API error body

Lines that are not directives are ignored. A prompt without directives gets the reply "ok".

The directives are cut into *steps*, one step per model call: a step runs up to and including
the next SHELL, WRITE or TOOL (a tool call ends a model response). The agent sends the tool's output back in
its next model call, and the mock picks the step by counting the tool results the agent has
sent since the prompt. So "SHELL: touch a.txt / SAY: wrote it" is two model calls. When the
last directive is a tool call, the model call after its result gets the fixed reply "done".
"""

import json
import re
from dataclasses import dataclass, field

DEFAULT_REPLY = "ok"
AFTER_LAST_TOOL_REPLY = "done"

_DIRECTIVE = re.compile(r"^\s*(SAY|SHELL|WRITE|TOOL|STALL|FAIL):[ \t]?(.*?)\s*$")


@dataclass
class Directive:
    kind: str  # SAY | SHELL | WRITE | TOOL | STALL | FAIL
    arg: str


@dataclass
class Step:
    """What one model response does, in order: text pieces and stalls, then maybe a tool call."""
    actions: list = field(default_factory=list)  # Directive SAY/STALL in stream order
    shell: str | None = None
    write: tuple[str, str] | None = None  # (path, text)
    tool: tuple[str, str] | None = None  # (name, arguments as JSON text)
    fail_status: int | None = None

    @property
    def calls_tool(self) -> bool:
        return self.shell is not None or self.write is not None or self.tool is not None

    def summary(self) -> str:
        if self.fail_status is not None:
            return f"FAIL {self.fail_status}"
        parts = [f"{a.kind} {a.arg!r}" for a in self.actions]
        if self.shell is not None:
            parts.append(f"SHELL {self.shell!r}")
        if self.write is not None:
            parts.append(f"WRITE {self.write[0]!r}")
        if self.tool is not None:
            parts.append(f"TOOL {self.tool[0]!r}")
        return ", ".join(parts) or "empty"


def parse(text: str) -> list[Directive]:
    directives = []
    for line in text.splitlines():
        m = _DIRECTIVE.match(line)
        if m:
            arg = m.group(2)
            if m.group(1) in ("SAY", "WRITE"):
                arg = arg.replace("\\n", "\n")
            directives.append(Directive(m.group(1), arg))
    return directives


def tool_call(arg: str) -> tuple[str, str]:
    """(name, arguments JSON text) of a TOOL directive. Arguments that are not a JSON object
    are passed on as written, so a client's handling of malformed arguments can be tested."""
    name, _, args = arg.partition(" ")
    return name, args.strip() or "{}"


def tool_input(arguments: str):
    """The arguments as a JSON object where the API needs one (Anthropic's tool_use input)."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return {"unparsed": arguments}
    return value if isinstance(value, dict) else {"unparsed": arguments}


def shell_tool(schemas: dict, preferred: tuple) -> str | None:
    """The agent's shell tool among the offered ones (name -> JSON schema of its arguments):
    the first `preferred` name offered, else the first whose name says shell or bash."""
    for name in preferred:
        if name in schemas:
            return name
    return next((n for n in schemas if "shell" in n.lower() or "bash" in n.lower()), None)


def shell_arguments(command: str, schema: dict | None) -> dict:
    """{command}, plus a description where the tool's schema has one (agents show it)."""
    args = {"command": command}
    if "description" in ((schema or {}).get("properties") or {}):
        args["description"] = shell_description(command)
    return args


def shell_description(command: str) -> str:
    return "Run " + (command if len(command) <= 60 else command[:57] + "...")


def without_write(step: Step) -> Step:
    """WRITE becomes text outside Codex: only Codex has the apply_patch tool it needs."""
    if step.write is None:
        return step
    return Step(actions=step.actions + [Directive("SAY", "WRITE is a Codex-only directive")])


def has_directives(text: str) -> bool:
    return bool(parse(text))


def prompt_in(texts: list[str]) -> str:
    """The user's prompt among the text parts of one message: agents put their own parts
    (reminders, session context) before it, so it is the last part that has directives."""
    for t in reversed(texts):
        if has_directives(t):
            return t
    return "\n".join(texts)


def steps(directives: list[Directive]) -> list[Step]:
    out, cur = [], Step()
    for d in directives:
        if d.kind in ("SHELL", "WRITE", "TOOL"):
            if d.kind == "SHELL":
                cur.shell = d.arg
            elif d.kind == "TOOL":
                cur.tool = tool_call(d.arg)
            else:
                path, _, text = d.arg.partition(" ")
                cur.write = (path, text)
            out.append(cur)
            cur = Step()
        elif d.kind == "FAIL":
            try:
                cur.fail_status = int(d.arg)
            except ValueError:
                cur.fail_status = 500
        else:
            cur.actions.append(d)
    if cur.actions or cur.fail_status is not None or not out:
        out.append(cur)
    return out


def plan(prompt: str, tool_results_seen: int, tools_offered: bool = True) -> Step:
    """The step for a model call that comes after `tool_results_seen` tool results.

    `tools_offered` is False for side requests that offer no tools (a title or summary
    request); those only ever get text, never a tool call.
    """
    all_steps = steps(parse(prompt))
    if not has_directives(prompt):
        return Step(actions=[Directive("SAY", DEFAULT_REPLY)])
    if tool_results_seen >= len(all_steps):
        return Step(actions=[Directive("SAY", AFTER_LAST_TOOL_REPLY)])
    step = all_steps[tool_results_seen]
    if not tools_offered and step.calls_tool:
        return Step(actions=step.actions or [Directive("SAY", DEFAULT_REPLY)])
    return step


def chunks(text: str, words_per_chunk: int = 2) -> list[str]:
    """Splits text into several deltas at word boundaries, keeping all whitespace."""
    words = re.findall(r"\s*\S+\s*", text) or [text]
    return ["".join(words[i:i + words_per_chunk]) for i in range(0, len(words), words_per_chunk)]


def estimate_tokens(n_chars: int) -> int:
    """A stable, roughly realistic token count (4 chars a token) for the usage objects."""
    return max(1, n_chars // 4)
