"""`POST /v1/messages` (Anthropic Messages API, SSE when `stream` is true): what Claude Code
talks to.

Claude Code puts `role:"system"` entries (an environment block) into `messages`, so those are
skipped. The scenario is the last user message that carries no `tool_result` (tool results
come back as user messages too); every `tool_result` after it is a finished step. A SHELL step
becomes a `tool_use` of Claude's `Bash` tool with input {command, description}.
"""

import json

import script
from sse import SseWriter

SHELL_TOOL = "Bash"


def _blocks(msg: dict) -> list:
    content = msg.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def scenario(body: dict) -> tuple[str, int]:
    prompt, seen = "", 0
    for msg in body.get("messages") or []:
        if msg.get("role") != "user":
            continue
        results = sum(1 for b in _blocks(msg) if b.get("type") == "tool_result")
        if results:
            seen += results
        else:
            prompt, seen = script.prompt_in([b.get("text", "") for b in _blocks(msg) if b.get("type") == "text"]), 0
    return prompt, seen


def plan(body: dict) -> script.Step:
    prompt, seen = scenario(body)
    return script.without_write(script.plan(prompt, seen, tools_offered=bool(body.get("tools"))))


def error_body(status: int) -> dict:
    kind = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
            404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
            529: "overloaded_error"}.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": f"mock model: scripted failure (HTTP {status})"}}


def _usage(handler, output_tokens: int) -> dict:
    return {"input_tokens": script.estimate_tokens(handler.body_size), "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def _text(step: script.Step) -> str:
    says = [a.arg for a in step.actions if a.kind == "SAY"]
    return "\n\n".join(says) or "(stall over)"


def reply(handler, body: dict, step: script.Step, ids) -> dict:
    """The non-streamed form (`stream` false), for side requests."""
    content = [{"type": "text", "text": _text(step)}] if step.actions else []
    call = _tool_call(step)
    if call is not None:
        content.append({"type": "tool_use", "id": ids("toolu_mock"), "name": call[0], "input": call[1]})
    return {"id": ids("msg_mock"), "type": "message", "role": "assistant", "model": body.get("model", "mock-model"),
            "content": content, "stop_reason": "tool_use" if call is not None else "end_turn",
            "stop_sequence": None, "usage": _usage(handler, script.estimate_tokens(len(json.dumps(content))))}


def _tool_call(step: script.Step):
    """(name, input object) of the step's tool call: SHELL becomes Bash, TOOL names its own."""
    if step.shell is not None:
        return SHELL_TOOL, {"command": step.shell, "description": script.shell_description(step.shell)}
    if step.tool is not None:
        return step.tool[0], script.tool_input(step.tool[1])
    return None


def stream(handler, body: dict, step: script.Step, ids):
    out = SseWriter(handler)
    out.start()
    message = {"id": ids("msg_mock"), "type": "message", "role": "assistant",
               "model": body.get("model", "mock-model"), "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": _usage(handler, 1)}
    out.event("message_start", {"type": "message_start", "message": message})
    out.event("ping", {"type": "ping"})

    index, out_chars = 0, 0
    if step.actions:
        out.event("content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}})
        text = ""
        for action in step.actions:
            if action.kind == "STALL":
                out.stall(float(action.arg or 0), lambda: out.event("ping", {"type": "ping"}))
                continue
            piece = ("\n\n" if text else "") + action.arg
            for chunk in script.chunks(piece):
                out.event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                  "delta": {"type": "text_delta", "text": chunk}})
            text += piece
        if not text:  # an empty text block would be rejected when sent back in history
            text = "(stall over)"
            out.event("content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "text_delta", "text": text}})
        out.event("content_block_stop", {"type": "content_block_stop", "index": index})
        out_chars += len(text)
        index += 1
    call = _tool_call(step)
    if call is not None:
        args = json.dumps(call[1])
        out.event("content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "tool_use", "id": ids("toolu_mock"),
                                                            "name": call[0], "input": {}}})
        for part in (args[:len(args) // 2], args[len(args) // 2:]):
            out.event("content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": {"type": "input_json_delta", "partial_json": part}})
        out.event("content_block_stop", {"type": "content_block_stop", "index": index})
        out_chars += len(args)
    stop = "tool_use" if call is not None else "end_turn"
    out.event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": script.estimate_tokens(out_chars)}})
    out.event("message_stop", {"type": "message_stop"})
