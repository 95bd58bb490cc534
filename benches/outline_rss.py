#!/usr/bin/env python3
"""Memory of outlines (issue 35): the server's peak and resident memory while it outlines 20
large files in a row, and after.

A local repository of 20 generated files (Python, JavaScript, Ruby, Rust; SIZE_MB each, valid
code with thousands of definitions) is served over stdio by BINARY; each file is outlined once
(`outline: true`, `max_chars: 2000`), then the process rests 5 s. Printed: VmHWM (peak RSS)
and VmRSS after the largest file, after the 20, and after the rest, from /proc.

Run: python3 benches/outline_rss.py target/release/gitlab-file-mcp [SIZE_MB]
It reports; it asserts nothing.
"""
import json, os, subprocess, sys, tempfile, time

BINARY = sys.argv[1]
SIZE = int(float(sys.argv[2] if len(sys.argv) > 2 else 10) * 1_000_000)

SHAPES = {
    "py": lambda i: f"class C{i}:\n    def m{i}(self, x):\n        return [x, {i}, 'x' * {i}]\n\n",
    "js": lambda i: f"class C{i} {{\n  m{i}(x) {{ return [x, {i}, 'x'.repeat({i})]; }}\n}}\n",
    "rb": lambda i: f"class C{i}\n  def m{i}(x)\n    [x, {i}, 'x' * {i}]\n  end\nend\n",
    "rs": lambda i: f"struct C{i};\nimpl C{i} {{\n    fn m{i}(x: u64) -> u64 {{ x + {i} }}\n}}\n",
}


def file_of(ext):
    parts, size, i = [], 0, 0
    while size < SIZE:
        part = SHAPES[ext](i)
        parts.append(part)
        size += len(part)
        i += 1
    return "".join(parts)


def rss(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields["VmHWM"], fields["VmRSS"]


def main():
    repo = tempfile.mkdtemp()
    git = lambda *a: subprocess.run(["git", "-C", repo, *a], check=True, capture_output=True)
    git("init", "-q")
    git("symbolic-ref", "HEAD", "refs/heads/main")
    names = []
    for n, ext in enumerate(list(SHAPES) * 5):
        name = f"f{n:02}.{ext}"
        with open(os.path.join(repo, name), "w") as f:
            f.write(file_of(ext).replace("C", f"K{n}_"))
        names.append(name)
    git("add", ".")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "files")
    server = subprocess.Popen([BINARY, "serve", "--repo", repo], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ids = iter(range(1, 10_000))

    def request(method, params):
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": method,
                                       "params": params}) + "\n")
        server.stdin.flush()
        return json.loads(server.stdout.readline())

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "rss", "version": "0"}})
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    print(f"files: 20 of {SIZE / 1e6:.0f} MB ({', '.join(SHAPES)}); binary {BINARY}")
    print(f"at rest before: peak {rss(server.pid)[0]}, resident {rss(server.pid)[1]}")
    start = time.time()
    for k, name in enumerate(names):
        answer = request("tools/call", {"name": "get_repository_file", "arguments": {
            "file_path": name, "ref": "main", "outline": True, "max_chars": 2000}})
        result = answer["result"]
        if result.get("isError"):
            print(f"{name}: {result['content'][0]['text'][:200]}")
        if k == 0:
            print(f"after the first file: peak {rss(server.pid)[0]}, resident {rss(server.pid)[1]}")
    print(f"after 20 files ({time.time() - start:.0f} s): peak {rss(server.pid)[0]}, "
          f"resident {rss(server.pid)[1]}")
    time.sleep(5)
    print(f"5 s later: peak {rss(server.pid)[0]}, resident {rss(server.pid)[1]}")
    server.kill()


main()
