"""`POST /v1/responses` (OpenAI Responses API, streamed as SSE): what Codex talks to.

The scenario is the last `input` message with role user; every `function_call_output` after it
is a finished step, so the reply is the next step. A SHELL step becomes a `function_call` of
Codex's shell tool `exec_command` with arguments {"cmd": <command>}.
"""

import json
import time

import script
from sse import SseWriter, stream_actions

SHELL_TOOL = "exec_command"
PATCH_TOOL = "apply_patch"  # a "custom" (freeform) tool: its input is the patch text itself


def apply_patch_adding(path: str, text: str) -> str:
    """An apply_patch patch that creates `path` holding `text`."""
    lines = "".join(f"+{line}\n" for line in text.split("\n"))
    return f"*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n"
_TOOL_OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output"}


def _text_of(item: dict) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def scenario(body: dict) -> tuple[str, int]:
    """(prompt text, tool results since it) from a request body."""
    items = body.get("input") or []
    if isinstance(items, str):
        return items, 0
    prompt, seen = "", 0
    for item in items:
        if item.get("role") == "user" and item.get("type", "message") == "message":
            prompt, seen = _text_of(item), 0
        elif item.get("type") in _TOOL_OUTPUT_TYPES:
            seen += 1
    return prompt, seen


def plan(body: dict) -> script.Step:
    prompt, seen = scenario(body)
    return script.plan(prompt, seen, tools_offered=bool(body.get("tools")))


def function_target(body: dict, name: str) -> dict:
    """The fields that name the function `name` in a function_call: {"name"}, or, for a tool
    the client offers inside a namespace (Codex offers an MCP server's tools as the namespace
    "mcp__<server>"), {"namespace", "name"}. TOOL: mcp__agentry__start_run finds "start_run"
    in the namespace "mcp__agentry" when no top-level tool has the whole name."""
    tools = body.get("tools") or []
    if any(t.get("name") == name and t.get("type") != "namespace" for t in tools):
        return {"name": name}
    for t in tools:
        space = t.get("name") or ""
        if t.get("type") == "namespace" and name.startswith(space + "__"):
            inner = name[len(space) + 2:]
            if any(f.get("name") == inner for f in t.get("tools") or []):
                return {"namespace": space, "name": inner}
    return {"name": name}


def error_body(status: int) -> dict:
    return {"error": {"message": f"mock model: scripted failure (HTTP {status})",
                      "type": "server_error" if status >= 500 else "invalid_request_error",
                      "param": None, "code": None}}


def stream(handler, body: dict, step: script.Step, ids):
    out = SseWriter(handler)
    out.start()
    seq = iter(range(1_000_000))
    resp_id = ids("resp_mock")
    model = body.get("model", "mock-model")

    def ev(kind, **fields):
        out.event(kind, {"type": kind, "sequence_number": next(seq), **fields})

    response = {"id": resp_id, "object": "response", "created_at": int(time.time()),
                "status": "in_progress", "model": model, "output": []}
    ev("response.created", response=response)
    ev("response.in_progress", response=response)

    output, index = [], 0
    if step.actions:
        msg_id = ids("msg_mock")
        ev("response.output_item.added", output_index=index,
           item={"type": "message", "id": msg_id, "role": "assistant", "status": "in_progress", "content": []})
        ev("response.content_part.added", item_id=msg_id, output_index=index, content_index=0,
           part={"type": "output_text", "text": "", "annotations": []})
        text = stream_actions(out, step.actions, lambda d: ev("response.output_text.delta", item_id=msg_id,
                                                              output_index=index, content_index=0, delta=d))
        part = {"type": "output_text", "text": text, "annotations": []}
        ev("response.output_text.done", item_id=msg_id, output_index=index, content_index=0, text=text)
        ev("response.content_part.done", item_id=msg_id, output_index=index, content_index=0, part=part)
        item = {"type": "message", "id": msg_id, "role": "assistant", "status": "completed", "content": [part]}
        ev("response.output_item.done", output_index=index, item=item)
        output.append(item)
        index += 1
    # A tool call streams its input in one delta: a function's JSON arguments, or a custom
    # (freeform) tool's text.
    def tool_call(item_type, id_prefix, name, field, value, event_prefix):
        call_id = ids("call_mock")
        item = {"type": item_type, "id": ids(id_prefix), "call_id": call_id,
                **function_target(body, name), field: "", "status": "in_progress"}
        ev("response.output_item.added", output_index=index, item=item)
        ev(f"{event_prefix}.delta", item_id=item["id"], output_index=index, delta=value)
        ev(f"{event_prefix}.done", item_id=item["id"], output_index=index, **{field: value})
        item = {**item, field: value, "status": "completed"}
        ev("response.output_item.done", output_index=index, item=item)
        output.append(item)

    if step.shell is not None:
        tool_call("function_call", "fc_mock", SHELL_TOOL, "arguments", json.dumps({"cmd": step.shell}),
                  "response.function_call_arguments")
    if step.write is not None:
        tool_call("custom_tool_call", "ctc_mock", PATCH_TOOL, "input", apply_patch_adding(*step.write),
                  "response.custom_tool_call_input")
    if step.tool is not None:
        tool_call("function_call", "fc_mock", step.tool[0], "arguments", step.tool[1],
                  "response.function_call_arguments")

    ev("response.completed", response={**response, "status": "completed", "output": output,
                                       "usage": _usage(handler, output)})


def _usage(handler, output: list) -> dict:
    in_tok = script.estimate_tokens(handler.body_size)
    out_tok = script.estimate_tokens(sum(len(json.dumps(o)) for o in output))
    return {"input_tokens": in_tok, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": out_tok, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": in_tok + out_tok}


def reply(handler, body: dict, step: script.Step, ids) -> dict:
    """The non-streamed form (`stream` false): the whole response object at once. STALLs
    have already been waited out by the server."""
    output = []
    says = [a.arg for a in step.actions if a.kind == "SAY"]
    if step.actions:
        text = "\n\n".join(says) or "(stall over)"
        output.append({"type": "message", "id": ids("msg_mock"), "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    calls = []
    if step.shell is not None:
        calls.append((SHELL_TOOL, json.dumps({"cmd": step.shell})))
    if step.tool is not None:
        calls.append(step.tool)
    for name, arguments in calls:
        output.append({"type": "function_call", "id": ids("fc_mock"), "call_id": ids("call_mock"),
                       **function_target(body, name), "arguments": arguments, "status": "completed"})
    if step.write is not None:
        output.append({"type": "custom_tool_call", "id": ids("ctc_mock"), "call_id": ids("call_mock"),
                       "name": PATCH_TOOL, "input": apply_patch_adding(*step.write), "status": "completed"})
    return {"id": ids("resp_mock"), "object": "response", "created_at": int(time.time()), "status": "completed",
            "model": body.get("model", "mock-model"), "output": output, "usage": _usage(handler, output)}

