# shellcheck shell=bash
# Environment for running the real agents against the mock model, offline and quiet.
# Source it:  . tests/e2e/agent-env.sh   (it only exports variables)
# Per test, also set the isolated homes and the mock's address:
#   Codex:  CODEX_HOME=<fresh dir holding config.toml from fixtures/codex-config.toml>
#   Claude: HOME=<fresh dir> (sessions go to $HOME/.claude/projects/)
#           ANTHROPIC_BASE_URL=http://127.0.0.1:<port>   (no /v1: the client appends /v1/messages)

# Codex reads its API key from the env var named by env_key in config.toml. Its telemetry
# and network side traffic are off through config.toml ([analytics], [features] plugins).
export MOCK_API_KEY=dummy

# Claude Code: any key works against the mock; -p needs no login.
export ANTHROPIC_API_KEY=dummy
# Without these four, Claude Code makes DNS lookups for telemetry, error reporting and updates.
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
export DISABLE_TELEMETRY=1
export DISABLE_AUTOUPDATER=1
export DISABLE_ERROR_REPORTING=1
# The default is 10 retries with backoff up to ~35 s (even on 401): a scripted FAIL must fail now.
export CLAUDE_CODE_MAX_RETRIES=0
