"""Minimal clients for the two real agents, as a backend plugin would drive them:
Codex `app-server` (JSON-RPC without the "jsonrpc" field, JSONL on stdio) and Claude Code
`-p` stream-json. They keep every line both ways (for goldens) and answer the agent's own
requests (approvals) with a fixed decision.
"""

import itertools
import time

from harness import DriverError, JsonlProcess, MockModel, Scratch, child_env


class Codex:
    APPROVAL_METHODS = {"item/commandExecution/requestApproval", "item/fileChange/requestApproval",
                        "item/permissions/requestApproval"}

    def __init__(self, binary: str, scratch: Scratch, mock: MockModel, tag: str = "codex", decision="accept"):
        scratch.write_codex_config(mock.openai_url)
        # An isolated HOME too: Codex runs commands in a login shell, and a user's profile (here a
        # pyenv init taking ~2 s) would otherwise be sourced into every test command.
        env = child_env({"CODEX_HOME": str(scratch.codex_home), "HOME": str(scratch.home)})
        self.p = JsonlProcess([binary, "app-server"], scratch.workspace, env, scratch.root / f"{tag}.stderr")
        self._ids = itertools.count(0)
        self.decision = decision
        self.approvals_answered = 0

    def _pump(self, want, timeout: float) -> dict:
        """Reads messages until want(msg); answers server requests on the way."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DriverError(f"codex: timed out after {timeout} s; stderr:\n{self.p.stderr_tail()}")
            msg = self.p.next(left)
            if msg is None:
                raise DriverError(f"codex exited (rc={self.p.proc.poll()}); stderr:\n{self.p.stderr_tail()}")
            # Server requests carry both "method" and "id"; their ids are a separate counter that
            # collides with ours, so route on "method", never on the id alone.
            if "method" in msg and "id" in msg:
                self._answer(msg)
            if want(msg):
                return msg

    def _answer(self, req: dict):
        if req["method"] in self.APPROVAL_METHODS:
            self.approvals_answered += 1
            self.p.send({"id": req["id"], "result": {"decision": self.decision}})
        else:
            self.p.send({"id": req["id"], "error": {"code": -32601, "message": f"recorder does not handle {req['method']}"}})

    def request(self, method: str, params: dict | None = None, timeout: float = 30) -> dict:
        rid = next(self._ids)
        msg = {"method": method, "id": rid}
        if params is not None:
            msg["params"] = params
        self.p.send(msg)
        reply = self._pump(lambda m: m.get("id") == rid and "method" not in m, timeout)
        if "error" in reply:
            raise DriverError(f"codex {method} failed: {reply['error']}")
        return reply["result"]

    def notify(self, method: str, params: dict | None = None):
        self.p.send({"method": method} if params is None else {"method": method, "params": params})

    def wait_for(self, method: str, timeout: float = 30) -> dict:
        return self._pump(lambda m: m.get("method") == method and "id" not in m, timeout)

    def initialize(self) -> dict:
        result = self.request("initialize", {"clientInfo": {"name": "agentry_e2e", "title": "agentry e2e recorder",
                                                            "version": "0.1.0"},
                                             "capabilities": {"experimentalApi": False}})
        self.notify("initialized")
        return result

    def start_thread(self, cwd, approval_policy="never", sandbox="danger-full-access") -> str:
        result = self.request("thread/start", {"cwd": str(cwd), "approvalPolicy": approval_policy, "sandbox": sandbox})
        return result["thread"]["id"]

    def resume_thread(self, thread_id: str, cwd) -> str:
        result = self.request("thread/resume", {"threadId": thread_id, "cwd": str(cwd)})
        return result["thread"]["id"]

    def start_turn(self, thread_id: str, text: str) -> str:
        result = self.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
        return result["turn"]["id"]

    def wait_turn_completed(self, timeout: float = 60) -> dict:
        return self.wait_for("turn/completed", timeout)["params"]["turn"]

    def close(self) -> int:
        return self.p.close()


class Claude:
    def __init__(self, binary: str, scratch: Scratch, mock: MockModel, extra_args=(), tag: str = "claude",
                 behavior: str = "allow"):
        argv = [binary, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                "--include-partial-messages", *extra_args]
        env = child_env({"HOME": str(scratch.home), "ANTHROPIC_BASE_URL": mock.anthropic_url})
        self.p = JsonlProcess(argv, scratch.workspace, env, scratch.root / f"{tag}.stderr")
        self._ids = itertools.count(1)
        self.behavior = behavior
        self.permissions_answered = 0

    def _pump(self, want, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DriverError(f"claude: timed out after {timeout} s; stderr:\n{self.p.stderr_tail()}")
            msg = self.p.next(left)
            if msg is None:
                raise DriverError(f"claude exited (rc={self.p.proc.poll()}); stderr:\n{self.p.stderr_tail()}")
            if msg.get("type") == "control_request":
                self._answer(msg)
            if want(msg):
                return msg

    def _answer(self, req: dict):
        rid, body = req["request_id"], req.get("request", {})
        if body.get("subtype") == "can_use_tool":
            self.permissions_answered += 1
            decision = {"behavior": "allow", "updatedInput": body.get("input", {})} if self.behavior == "allow" \
                else {"behavior": "deny", "message": "denied by the agentry e2e recorder"}
            self.p.send({"type": "control_response",
                         "response": {"subtype": "success", "request_id": rid, "response": decision}})
        else:
            self.p.send({"type": "control_response",
                         "response": {"subtype": "error", "request_id": rid,
                                      "error": f"recorder does not handle {body.get('subtype')}"}})

    def control(self, subtype: str, timeout: float = 30, **fields) -> dict:
        rid = f"req_{next(self._ids)}"
        self.p.send({"type": "control_request", "request_id": rid, "request": {"subtype": subtype, **fields}})
        reply = self._pump(lambda m: m.get("type") == "control_response"
                           and m.get("response", {}).get("request_id") == rid, timeout)
        return reply["response"]

    def initialize(self) -> dict:
        return self.control("initialize", hooks=None)

    def send_user(self, text: str):
        self.p.send({"type": "user", "message": {"role": "user", "content": text},
                     "parent_tool_use_id": None, "session_id": ""})

    def wait_for(self, want, timeout: float = 30) -> dict:
        return self._pump(want, timeout)

    def wait_result(self, timeout: float = 60) -> dict:
        return self._pump(lambda m: m.get("type") == "result", timeout)

    def close(self) -> int:
        return self.p.close()
