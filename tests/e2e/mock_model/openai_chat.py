"""`POST /v1/chat/completions` (OpenAI Chat Completions, SSE when `stream` is true): what Qwen
Code, OpenCode and pi talk to.

The scenario is the last `role:"user"` message; every `role:"tool"` message after it is a
finished step. Each agent names its shell tool differently, so a SHELL step calls whichever
shell tool the request offers, with {command} (plus a description where its schema has one).
"""

import json
import time

import script
from sse import SseWriter, stream_actions

# Qwen Code, then OpenCode and pi, then other plausible names; see script.shell_tool.
SHELL_TOOLS = ("run_shell_command", "bash", "shell", "Bash")
# OpenCode asks for a session title next to the first prompt; the scenario is not for it.
TITLE = "Mock title"


def _texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text"]


def scenario(body: dict) -> tuple[str, int]:
    """(prompt text, tool results since it) from a request body."""
    prompt, seen = "", 0
    for msg in body.get("messages") or []:
        if msg.get("role") == "user":
            prompt, seen = script.prompt_in(_texts(msg.get("content"))), 0
        elif msg.get("role") == "tool":
            seen += 1
    return prompt, seen


def _is_title_request(body: dict) -> bool:
    return not body.get("tools") and any(
        "title generator" in t for m in body.get("messages") or [] if m.get("role") == "system"
        for t in _texts(m.get("content")))


def _schemas(body: dict) -> dict:
    """Offered tools, name -> JSON schema of the arguments."""
    fns = [t.get("function") or {} for t in body.get("tools") or [] if isinstance(t, dict)]
    return {f["name"]: f.get("parameters") or {} for f in fns if f.get("name")}


def plan(body: dict) -> script.Step:
    if _is_title_request(body):
        return script.Step(actions=[script.Directive("SAY", TITLE)])
    prompt, seen = scenario(body)
    step = script.without_write(script.plan(prompt, seen, tools_offered=bool(body.get("tools"))))
    if step.shell is not None and script.shell_tool(_schemas(body), SHELL_TOOLS) is None:
        note = script.Directive("SAY", f"no shell tool offered for: {step.shell}")
        step = script.Step(actions=step.actions + [note])
    return step


def error_body(status: int) -> dict:
    kind = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
            429: "rate_limit_error"}.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": f"mock model: scripted failure (HTTP {status})", "type": kind,
                      "param": None, "code": str(status)}}


def _tool_call(body: dict, step: script.Step):
    """(name, arguments JSON text) of the step's tool call, or None. TOOL arguments are passed
    on as written, so malformed ones reach the agent."""
    if step.shell is not None:
        schemas = _schemas(body)
        name = script.shell_tool(schemas, SHELL_TOOLS)
        return name, json.dumps(script.shell_arguments(step.shell, schemas[name]))
    return step.tool


def _usage(handler, out_chars: int) -> dict:
    prompt, completion = script.estimate_tokens(handler.body_size), script.estimate_tokens(out_chars)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _head(body: dict, ids, kind: str) -> dict:
    return {"id": ids("chatcmpl-mock"), "object": kind, "created": int(time.time()),
            "model": body.get("model", "mock-model")}


def reply(handler, body: dict, step: script.Step, ids) -> dict:
    """The non-streamed form (`stream` false); STALLs have already been waited out."""
    says = [a.arg for a in step.actions if a.kind == "SAY"]
    text = ("\n\n".join(says) or "(stall over)") if step.actions else None
    message = {"role": "assistant", "content": text}
    call = _tool_call(body, step)
    if call is not None:
        message["tool_calls"] = [{"id": ids("call_mock"), "type": "function",
                                  "function": {"name": call[0], "arguments": call[1]}}]
    out_chars = len(text or "") + len(call[1] if call else "")
    return {**_head(body, ids, "chat.completion"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}],
            "usage": _usage(handler, out_chars)}


def stream(handler, body: dict, step: script.Step, ids):
    out = SseWriter(handler)
    out.start()
    head = _head(body, ids, "chat.completion.chunk")

    def chunk(delta: dict, finish=None):
        out.data({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    chunk({"role": "assistant", "content": ""})
    text = stream_actions(out, step.actions, lambda d: chunk({"content": d})) if step.actions else ""
    call = _tool_call(body, step)
    if call is not None:
        name, args = call
        chunk({"tool_calls": [{"index": 0, "id": ids("call_mock"), "type": "function",
                               "function": {"name": name, "arguments": ""}}]})
        for part in (args[:len(args) // 2], args[len(args) // 2:]):
            if part:
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]})
    chunk({}, "tool_calls" if call is not None else "stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        out.data({**head, "choices": [], "usage": _usage(handler, len(text) + len(call[1] if call else ""))})
    out.data("[DONE]")
