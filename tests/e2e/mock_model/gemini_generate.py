"""`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (SSE) and `:generateContent`
(the Gemini API): what Gemini CLI talks to.

The scenario is the last user content with a text part; tool results come back as user
contents too, and each `functionResponse` part after the scenario is a finished step. A SHELL
step becomes a `functionCall` of Gemini CLI's `run_shell_command`. The request's thinking
config is ignored: the mock never sends thoughts.
"""

from urllib.parse import urlsplit

import script
from sse import SseWriter

SHELL_TOOLS = ("run_shell_command",)
_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
           409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL",
           501: "UNIMPLEMENTED", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}


def _parts(content: dict) -> list:
    return [p for p in content.get("parts") or [] if isinstance(p, dict)]


def scenario(body: dict) -> tuple[str, int]:
    """(prompt text, tool results since it) from a request body."""
    prompt, seen = "", 0
    for content in body.get("contents") or []:
        if content.get("role", "user") != "user":
            continue
        parts = _parts(content)
        texts = [p["text"] for p in parts if isinstance(p.get("text"), str)]
        results = sum(1 for p in parts if "functionResponse" in p)
        if results:
            seen += results
        elif texts:
            prompt, seen = script.prompt_in(texts), 0
    return prompt, seen


def _schemas(body: dict) -> dict:
    """Offered functions, name -> JSON schema of the arguments (either schema field)."""
    decls = [d for t in body.get("tools") or [] if isinstance(t, dict)
             for d in t.get("functionDeclarations") or [] if isinstance(d, dict) and d.get("name")]
    return {d["name"]: d.get("parametersJsonSchema") or d.get("parameters") or {} for d in decls}


def plan(body: dict) -> script.Step:
    prompt, seen = scenario(body)
    schemas = _schemas(body)
    step = script.without_write(script.plan(prompt, seen, tools_offered=bool(schemas)))
    if step.shell is not None and script.shell_tool(schemas, SHELL_TOOLS) is None:
        note = script.Directive("SAY", f"no shell tool offered for: {step.shell}")
        step = script.Step(actions=step.actions + [note])
    return step


def error_body(status: int) -> dict:
    return {"error": {"code": status, "message": f"mock model: scripted failure (HTTP {status})",
                      "status": _STATUS.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")}}


def _function_call(body: dict, step: script.Step):
    """The step's `functionCall` ({name, args}), or None."""
    if step.shell is not None:
        schemas = _schemas(body)
        name = script.shell_tool(schemas, SHELL_TOOLS)
        return {"name": name, "args": script.shell_arguments(step.shell, schemas[name])}
    if step.tool is not None:
        return {"name": step.tool[0], "args": script.tool_input(step.tool[1])}
    return None


def _model(handler) -> str:
    """The model named in the path (`/v1beta/models/<model>:…`), echoed as modelVersion."""
    return urlsplit(handler.path).path.rsplit("/", 1)[-1].split(":")[0] or "mock-model"


def _response(handler, parts: list, final: bool, out_chars: int = 0) -> dict:
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    resp = {"candidates": [candidate], "modelVersion": _model(handler)}
    if final:
        candidate["finishReason"] = "STOP"
        prompt, out = script.estimate_tokens(handler.body_size), script.estimate_tokens(out_chars)
        resp["usageMetadata"] = {"promptTokenCount": prompt, "candidatesTokenCount": out,
                                 "totalTokenCount": prompt + out}
    return resp


def reply(handler, body: dict, step: script.Step, ids) -> dict:
    """The `:generateContent` form; STALLs have already been waited out."""
    says = [a.arg for a in step.actions if a.kind == "SAY"]
    parts = [{"text": "\n\n".join(says) or "(stall over)"}] if step.actions else []
    call = _function_call(body, step)
    if call is not None:
        parts.append({"functionCall": call})
    return _response(handler, parts, True, sum(len(str(p)) for p in parts))


def stream(handler, body: dict, step: script.Step, ids):
    # "\r\n" as Google's server sends it: the framing Gemini CLI was verified with.
    out = SseWriter(handler, newline="\r\n")
    out.start()
    held, text = _stream_text(out, step, lambda piece: out.data(_response(handler, [{"text": piece}], False)))
    parts = [{"text": held}] if held else []
    call = _function_call(body, step)
    if call is not None:
        parts.append({"functionCall": call})
    out.data(_response(handler, parts, True, len(text) + len(str(call or ""))))


def _stream_text(out: SseWriter, step: script.Step, send) -> tuple[str | None, str]:
    """Streams the SAY texts and runs the STALLs of a step, holding back the last piece so the
    final chunk carries real text with its finishReason (Gemini CLI rejects empty text parts
    and a text reply without a finishReason). Returns (held piece, full text)."""
    held, text = None, ""
    for action in step.actions:
        if action.kind == "STALL":
            if held:  # show the text so far before the stall, for interrupt tests
                send(held)
                held = None
            out.stall(float(action.arg or 0), out.comment)
            continue
        piece = ("\n\n" if text else "") + action.arg
        for chunk in script.chunks(piece):
            if held:
                send(held)
            held = chunk
        text += piece
    if step.actions and not text.strip():  # a step of STALLs only still needs reply text
        held = text = "(stall over)"
    return held, text
