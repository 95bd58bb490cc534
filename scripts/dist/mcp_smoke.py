"""An MCP stdio session through an installed command: initialize, then tools/list, and the
names of the tools it lists printed one a line (exit 1 with the reason otherwise).

Usage: mcp_smoke.py COMMAND [ARG...]    (e.g. mcp_smoke.py npx --offline gitlab-file-mcp)
The server needs no GitLab for this: it is pointed at 127.0.0.1:9, where nothing answers.
"""

import json
import os
import subprocess
import sys


def session(command):
    env = dict(os.environ, GITLAB_URL="http://127.0.0.1:9")
    env.pop("GITLAB_TOKEN", None)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "mcp_smoke", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    answers = {}
    try:
        for message in messages:
            child.stdin.write((json.dumps(message) + "\n").encode())
            child.stdin.flush()
            if "id" in message:
                line = child.stdout.readline()
                if not line:
                    raise SystemExit(f"mcp_smoke: {command} closed stdout before answering {message['method']}")
                answers[message["method"]] = json.loads(line)
    finally:
        child.stdin.close()
        code = child.wait(timeout=30)
    if code != 0:
        raise SystemExit(f"mcp_smoke: {command} exited {code} after stdin closed")
    result = answers["tools/list"].get("result")
    if not result:
        raise SystemExit(f"mcp_smoke: tools/list answered {answers['tools/list']}")
    return [tool["name"] for tool in result["tools"]]


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2])
    print("\n".join(session(sys.argv[1:])))
