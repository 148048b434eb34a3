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


class ServerTest(unittest.TestCase):
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


if __name__ == "__main__":
    unittest.main()
