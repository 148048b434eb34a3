#!/usr/bin/env python3
"""Self-test of the mock model (stdlib unittest, no agents needed, about 1 s):

    python3 tests/e2e/mock_model/test_mock_model.py
"""

import json
import subprocess
import sys
import time
import unittest
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import anthropic_messages  # noqa: E402
import gemini_generate  # noqa: E402
import openai_chat  # noqa: E402
import openai_responses  # noqa: E402
import script  # noqa: E402


class DirectiveTest(unittest.TestCase):
    def test_steps_split_after_each_shell(self):
        prompt = "intro text\nSAY: looking\nSHELL: touch a.txt\nSAY: wrote it"
        self.assertEqual(script.plan(prompt, 0).shell, "touch a.txt")
        self.assertEqual(script.plan(prompt, 0).actions[0].arg, "looking")
        self.assertEqual(script.plan(prompt, 1).actions[0].arg, "wrote it")

    def test_reply_after_last_shell_is_done(self):
        self.assertEqual(script.plan("SHELL: ls", 1).actions[0].arg, script.AFTER_LAST_TOOL_REPLY)

    def test_no_directive_replies_ok(self):
        self.assertEqual(script.plan("hello", 0).actions[0].arg, script.DEFAULT_REPLY)

    def test_fail_and_newline_escape(self):
        self.assertEqual(script.plan("FAIL: 429", 0).fail_status, 429)
        self.assertEqual(script.plan("SAY: a\\nb", 0).actions[0].arg, "a\nb")

    def test_write_becomes_an_apply_patch_that_adds_the_file(self):
        step = script.plan("WRITE: notes/a.txt one\\ntwo\nSAY: wrote it", 0)
        self.assertEqual(step.write, ("notes/a.txt", "one\ntwo"))
        self.assertEqual(openai_responses.apply_patch_adding(*step.write),
                         "*** Begin Patch\n*** Add File: notes/a.txt\n+one\n+two\n*** End Patch\n")
        self.assertEqual(script.plan("WRITE: a.txt x\nSAY: wrote it", 1).actions[0].arg, "wrote it")
        self.assertIsNone(anthropic_messages.plan({"messages": [{"role": "user", "content": "WRITE: a x"}],
                                                   "tools": [{"name": "Bash"}]}).write)

    def test_tool_calls_a_named_tool_and_ends_a_step(self):
        prompt = 'SAY: going\nTOOL: navigate {"url": "http://x/"}\nTOOL: read\nSAY: seen'
        self.assertEqual(script.plan(prompt, 0).tool, ("navigate", '{"url": "http://x/"}'))
        self.assertEqual(script.plan(prompt, 0).actions[0].arg, "going")
        self.assertEqual(script.plan(prompt, 1).tool, ("read", "{}"))
        self.assertEqual(script.plan(prompt, 2).actions[0].arg, "seen")
        self.assertEqual(script.plan("TOOL: read", 1).actions[0].arg, script.AFTER_LAST_TOOL_REPLY)
        self.assertIsNone(script.plan("TOOL: read", 0, tools_offered=False).tool)
        self.assertEqual(script.tool_input("not json"), {"unparsed": "not json"})

    def test_a_tool_inside_a_namespace_is_called_by_its_namespace(self):
        # Codex offers an MCP server's tools as the namespace mcp__<server>.
        body = {"tools": [{"type": "function", "name": "exec_command"},
                          {"type": "namespace", "name": "mcp__agentry",
                           "tools": [{"type": "function", "name": "start_run"}]}]}
        self.assertEqual(openai_responses.function_target(body, "mcp__agentry__start_run"),
                         {"namespace": "mcp__agentry", "name": "start_run"})
        self.assertEqual(openai_responses.function_target(body, "exec_command"), {"name": "exec_command"})
        self.assertEqual(openai_responses.function_target(body, "mcp__agentry__nothing"),
                         {"name": "mcp__agentry__nothing"})

    def test_no_tool_call_when_no_tools_offered(self):
        self.assertIsNone(script.plan("SHELL: ls", 0, tools_offered=False).shell)

    def test_codex_counts_function_call_outputs_since_last_user_message(self):
        body = {"input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "SAY: old"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "SHELL: a\nSAY: b"}]},
            {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "x"}]}
        self.assertEqual(openai_responses.scenario(body), ("SHELL: a\nSAY: b", 1))

    def test_claude_skips_system_messages_and_tool_result_users(self):
        body = {"messages": [
            {"role": "user", "content": [{"type": "text", "text": "<reminder>"}, {"type": "text", "text": "SHELL: a"}]},
            {"role": "system", "content": "# Environment"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}]}
        self.assertEqual(anthropic_messages.scenario(body), ("SHELL: a", 1))

    def test_chat_counts_tool_messages_since_last_user_message(self):
        body = {"messages": [
            {"role": "system", "content": "You are Qwen Code"},
            {"role": "user", "content": "SAY: old"},
            {"role": "user", "content": [{"type": "text", "text": "<system-reminder>"},
                                         {"type": "text", "text": "SHELL: a\nSAY: b"}]},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "x"}]}
        self.assertEqual(openai_chat.scenario(body), ("SHELL: a\nSAY: b", 1))

    def test_chat_picks_the_offered_shell_tool(self):
        def tool(name, *props):
            return {"type": "function", "function": {"name": name, "parameters": {
                "type": "object", "properties": {p: {"type": "string"} for p in props}}}}
        msgs = [{"role": "user", "content": "SHELL: ls"}]
        qwen = {"messages": msgs, "tools": [tool("read_file"), tool("run_shell_command", "command", "description")]}
        pi = {"messages": msgs, "tools": [tool("read"), tool("bash", "command", "timeout")]}
        other = {"messages": msgs, "tools": [tool("read"), tool("exec_shell", "command")]}
        self.assertEqual(openai_chat._tool_call(qwen, openai_chat.plan(qwen)),
                         ("run_shell_command", json.dumps({"command": "ls", "description": "Run ls"})))
        self.assertEqual(openai_chat._tool_call(pi, openai_chat.plan(pi)), ("bash", '{"command": "ls"}'))
        self.assertEqual(openai_chat._tool_call(other, openai_chat.plan(other))[0], "exec_shell")
        no_shell = {"messages": msgs, "tools": [tool("read")]}
        self.assertIsNone(openai_chat.plan(no_shell).shell)

    def test_chat_side_requests_get_no_tool_call(self):
        title = {"messages": [{"role": "system", "content": "You are a title generator. You output ONLY a title."},
                              {"role": "user", "content": "SHELL: ls"}]}
        self.assertEqual(openai_chat.plan(title).actions[0].arg, openai_chat.TITLE)
        self.assertIsNone(openai_chat.plan({"messages": [{"role": "user", "content": "SHELL: ls"}]}).shell)

    def test_gemini_counts_function_responses_since_last_user_text(self):
        body = {"contents": [
            {"role": "user", "parts": [{"text": "<session_context>"}, {"text": "SHELL: a\nSAY: b"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command", "response": {}}}]}]}
        self.assertEqual(gemini_generate.scenario(body), ("SHELL: a\nSAY: b", 1))


class ServerCase(unittest.TestCase):
    """Starts server.py for the class; no tests of its own."""
    @classmethod
    def setUpClass(cls):
        cls.proc = subprocess.Popen([sys.executable, str(HERE / "server.py"), "--port", "0"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        cls.base = "http://" + cls.proc.stdout.readline().split()[-1]

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        cls.proc.wait(timeout=5)

    def post(self, path, body):
        req = urllib.request.Request(self.base + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()


class ServerTest(ServerCase):
    def test_health(self):
        with urllib.request.urlopen(self.base + "/health", timeout=5) as r:
            self.assertEqual(r.status, 200)

    def test_openai_stream_has_deltas_and_usage(self):
        status, text = self.post("/v1/responses", {"stream": True, "tools": [{}], "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "SAY: one two three four"}]}]})
        self.assertEqual(status, 200)
        self.assertGreaterEqual(text.count("event: response.output_text.delta"), 2)
        done = [json.loads(l[6:]) for l in text.splitlines() if l.startswith("data: ") and "response.completed" in l]
        self.assertIn("total_tokens", done[0]["response"]["usage"])

    def test_anthropic_tool_use_stream(self):
        status, text = self.post("/v1/messages?beta=true", {"stream": True, "tools": [{}],
                                                              "messages": [{"role": "user", "content": "SHELL: ls"}]})
        self.assertEqual(status, 200)
        self.assertIn('"input_json_delta"', text)
        self.assertIn('"stop_reason":"tool_use"', text)

    def test_openai_plain_reply_calls_the_named_tool(self):
        status, text = self.post("/v1/responses", {"stream": False, "tools": [{}], "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text",
                                                             "text": 'SAY: hi\nTOOL: click {"ref": "e1"}'}]}]})
        self.assertEqual(status, 200)
        reply = json.loads(text)
        self.assertEqual([o["type"] for o in reply["output"]], ["message", "function_call"])
        self.assertEqual(reply["output"][0]["content"][0]["text"], "hi")
        call = reply["output"][1]
        self.assertEqual((call["name"], json.loads(call["arguments"])), ("click", {"ref": "e1"}))
        self.assertTrue(call["call_id"])
        self.assertGreater(reply["usage"]["input_tokens"], 0)

    def test_anthropic_tool_use_of_a_named_tool(self):
        status, text = self.post("/v1/messages", {"stream": False, "tools": [{}], "messages": [
            {"role": "user", "content": 'TOOL: type {"selector": "#q", "text": "a b"}'}]})
        self.assertEqual(status, 200)
        reply = json.loads(text)
        self.assertEqual(reply["stop_reason"], "tool_use")
        self.assertEqual(reply["content"][-1]["name"], "type")
        self.assertEqual(reply["content"][-1]["input"], {"selector": "#q", "text": "a b"})
        status, text = self.post("/v1/messages", {"stream": True, "tools": [{}], "messages": [
            {"role": "user", "content": "TOOL: read"}]})
        self.assertIn('"name":"read"', text)
        self.assertIn('"stop_reason":"tool_use"', text)

    def test_plain_reply_waits_out_a_stall(self):
        start = time.monotonic()
        status, text = self.post("/v1/responses", {"stream": False, "input": "SAY: late\nSTALL: 0.3"})
        self.assertEqual(status, 200)
        self.assertGreaterEqual(time.monotonic() - start, 0.3)
        self.assertEqual(json.loads(text)["output"][0]["content"][0]["text"], "late")

    def test_fail_returns_status_and_error_body(self):
        status, text = self.post("/v1/messages", {"messages": [{"role": "user", "content": "FAIL: 529"}]})
        self.assertEqual(status, 529)
        self.assertEqual(json.loads(text)["error"]["type"], "overloaded_error")


def _chat_stream(text: str) -> list:
    """The chunks of a Chat Completions stream, checking it ends with [DONE]."""
    events = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]", events[-1]
    return [json.loads(e) for e in events[:-1]]


def _gemini_stream(text: str) -> list:
    assert "\r\n\r\n" in text
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


class ChatServerTest(ServerCase):
    """OpenAI Chat Completions, as Qwen Code, OpenCode and pi call it."""
    TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {
        "type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"}}}}}]

    def chat(self, messages, stream=True, **extra):
        body = {"model": "mock-model", "messages": messages, "stream": stream, "tools": self.TOOLS,
                "stream_options": {"include_usage": True}, **extra}
        return self.post("/v1/chat/completions", body)

    def test_text_stream_has_deltas_finish_usage_and_done(self):
        status, text = self.chat([{"role": "user", "content": [{"type": "text", "text": "SAY: one two three four"}]}])
        self.assertEqual(status, 200)
        chunks = _chat_stream(text)
        self.assertEqual(chunks[0]["choices"][0]["delta"], {"role": "assistant", "content": ""})
        deltas = [c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]]
        self.assertEqual("".join(deltas), "one two three four")
        self.assertGreaterEqual(sum(1 for d in deltas if d), 2)
        self.assertEqual(chunks[-2]["choices"][0], {"index": 0, "delta": {}, "finish_reason": "stop"})
        self.assertEqual(chunks[-1]["choices"], [])
        self.assertGreater(chunks[-1]["usage"]["total_tokens"], 0)
        self.assertTrue(all(c["object"] == "chat.completion.chunk" for c in chunks))

    def test_shell_step_then_the_step_after_its_result(self):
        prompt = {"role": "user", "content": "SAY: looking\nSHELL: touch a.txt\nSAY: wrote it"}
        status, text = self.chat([prompt])
        self.assertEqual(status, 200)
        chunks = _chat_stream(text)
        calls = [tc for c in chunks if c["choices"] for tc in c["choices"][0]["delta"].get("tool_calls", [])]
        self.assertEqual(calls[0]["function"], {"name": "bash", "arguments": ""})
        self.assertTrue(calls[0]["id"])
        args = json.loads("".join(tc["function"]["arguments"] for tc in calls))
        self.assertEqual(args, {"command": "touch a.txt", "description": "Run touch a.txt"})
        self.assertEqual(chunks[-2]["choices"][0]["finish_reason"], "tool_calls")
        status, text = self.chat([prompt, {"role": "assistant", "content": "looking", "tool_calls": [
            {"id": calls[0]["id"], "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": calls[0]["id"], "content": ""}], stream=False)
        self.assertEqual(status, 200)
        reply = json.loads(text)
        self.assertEqual(reply["object"], "chat.completion")
        self.assertEqual(reply["choices"][0]["message"], {"role": "assistant", "content": "wrote it"})
        self.assertEqual(reply["choices"][0]["finish_reason"], "stop")

    def test_plain_reply_calls_the_named_tool(self):
        status, text = self.chat([{"role": "user", "content": 'TOOL: read {"path": "a"}'}], stream=False)
        choice = json.loads(text)["choices"][0]
        self.assertEqual(choice["finish_reason"], "tool_calls")
        self.assertEqual(choice["message"]["tool_calls"][0]["function"], {"name": "read", "arguments": '{"path": "a"}'})

    def test_title_request_gets_a_title(self):
        status, text = self.post("/chat/completions", {"stream": True, "messages": [
            {"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
            {"role": "user", "content": "SHELL: ls"}]})
        deltas = [c["choices"][0]["delta"].get("content", "") for c in _chat_stream(text) if c["choices"]]
        self.assertEqual("".join(deltas), openai_chat.TITLE)

    def test_fail_returns_status_and_openai_error_body(self):
        status, text = self.chat([{"role": "user", "content": "FAIL: 400"}])
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(text)["error"]["type"], "invalid_request_error")
        self.assertIn("message", json.loads(text)["error"])


class GeminiServerTest(ServerCase):
    """The Gemini API, as Gemini CLI calls it."""
    TOOLS = [{"functionDeclarations": [{"name": "read_file"}, {"name": "run_shell_command", "parametersJsonSchema": {
        "type": "object", "properties": {"command": {"type": "string"}}}}]}]
    STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"

    def gemini(self, path, contents):
        return self.post(path, {"contents": contents, "tools": self.TOOLS,
                                "generationConfig": {"thinkingConfig": {"includeThoughts": True}}})

    def test_text_stream_ends_with_finish_and_usage(self):
        status, text = self.gemini(self.STREAM, [{"role": "user", "parts": [{"text": "<ctx>"},
                                                                           {"text": "SAY: one two three four"}]}])
        self.assertEqual(status, 200)
        chunks = _gemini_stream(text)
        self.assertGreaterEqual(len(chunks), 2)
        self.assertEqual("".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks),
                         "one two three four")
        self.assertNotIn("finishReason", chunks[0]["candidates"][0])
        self.assertEqual(chunks[-1]["candidates"][0]["finishReason"], "STOP")
        self.assertGreater(chunks[-1]["usageMetadata"]["totalTokenCount"], 0)
        self.assertEqual(chunks[-1]["modelVersion"], "gemini-2.5-flash")

    def test_shell_step_then_the_step_after_its_result(self):
        prompt = {"role": "user", "parts": [{"text": "SHELL: touch a.txt\nSAY: wrote it"}]}
        status, text = self.gemini(self.STREAM, [prompt])
        last = _gemini_stream(text)[-1]["candidates"][0]
        self.assertEqual(last["content"]["parts"], [{"functionCall": {
            "name": "run_shell_command", "args": {"command": "touch a.txt"}}}])
        self.assertEqual(last["finishReason"], "STOP")
        status, text = self.gemini("/v1beta/models/gemini-2.5-flash:generateContent", [
            prompt, {"role": "model", "parts": [{"functionCall": last["content"]["parts"][0]["functionCall"]}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command", "response": {}}}]}])
        self.assertEqual(status, 200)
        candidate = json.loads(text)["candidates"][0]
        self.assertEqual(candidate["content"]["parts"], [{"text": "wrote it"}])
        self.assertEqual(candidate["finishReason"], "STOP")

    def test_fail_returns_status_and_google_error_body(self):
        status, text = self.gemini(self.STREAM, [{"role": "user", "parts": [{"text": "FAIL: 429"}]}])
        self.assertEqual(status, 429)
        self.assertEqual(json.loads(text)["error"]["code"], 429)
        self.assertEqual(json.loads(text)["error"]["status"], "RESOURCE_EXHAUSTED")


if __name__ == "__main__":
    unittest.main()
