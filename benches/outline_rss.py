#!/usr/bin/env python3
"""Memory of outlines (issue 35): the server's peak and resident memory while it outlines 20
large files in a row, and after.

A local repository of 20 generated files (Python, JavaScript, Ruby, Rust; SIZE_MB each, valid
code with thousands of definitions) is served over stdio by BINARY; each file is outlined once
(`outline: true`, `max_chars: 2000`), then the process rests 5 s. Printed: VmHWM (peak RSS)
and VmRSS after the largest file, after the 20, and after the rest, from /proc.

Run: python3 benches/outline_rss.py target/release/gitlab-file-mcp [SIZE_MB]
It reports; it asserts nothing.

The peak of one parse: python3 benches/outline_rss.py BINARY --peak SIZE_MB [SERVE_FLAG...]
serves one file of SIZE_MB (at most 12 MiB, the largest outlined) per language from a fresh
process with the flags given (e.g. --outline-memory-bytes 1073741824), outlines it once, and
prints whether it was outlined or refused, the call's wall time, VmHWM and VmRSS after.
"""
import json, os, subprocess, sys, tempfile, time

BINARY = sys.argv[1]
PEAK = len(sys.argv) > 2 and sys.argv[2] == "--peak"
ARGS = sys.argv[3:] if PEAK else sys.argv[2:]
MAX_OUTLINE_BYTES = 12 * 1024 * 1024
SIZE = int(float(ARGS[0] if ARGS else 10) * 1_000_000)
if PEAK:
    SIZE = min(SIZE, MAX_OUTLINE_BYTES - 200)

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


def repository(files):
    """A git repository in a new temporary folder holding `files` (name: text)."""
    repo = tempfile.mkdtemp()
    git = lambda *a: subprocess.run(["git", "-C", repo, *a], check=True, capture_output=True)
    git("init", "-q")
    git("symbolic-ref", "HEAD", "refs/heads/main")
    for name, text in files.items():
        with open(os.path.join(repo, name), "w") as f:
            f.write(text)
    git("add", ".")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "files")
    return repo


def serve(repo, flags=()):
    """The server over stdio on `repo`, initialized; and a function sending it one request."""
    server = subprocess.Popen([BINARY, "serve", "--repo", repo, *flags], stdin=subprocess.PIPE,
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
    return server, request


def outline(request, name):
    """One outline call of `name`: its result."""
    return request("tools/call", {"name": "get_repository_file", "arguments": {
        "file_path": name, "ref": "main", "outline": True, "max_chars": 2000}})["result"]


def peak():
    """One file per language, each outlined once by a fresh server: outlined or refused, and
    the process's peak and resident memory after."""
    print(f"one file of {SIZE:,} bytes per language; flags {ARGS[1:]}; binary {BINARY}")
    for ext in SHAPES:
        name = f"f.{ext}"
        repo = repository({name: file_of(ext)})
        server, request = serve(repo, ARGS[1:])
        start = time.time()
        result = outline(request, name)
        took = time.time() - start
        if result.get("isError"):
            said = "refused: " + result["content"][0]["text"][:90]
        else:
            said = f"outlined, {result['structuredContent']['metadata']['outline']['total']:,} definitions"
        high, now = rss(server.pid)
        print(f"{ext}: {said}; {took:.1f} s; peak {high}, resident after {now}")
        server.kill()


def main():
    names = [f"f{n:02}.{ext}" for n, ext in enumerate(list(SHAPES) * 5)]
    repo = repository({name: file_of(name[4:]).replace("C", f"K{name[1:3]}_") for name in names})
    server, request = serve(repo)
    print(f"files: 20 of {SIZE / 1e6:.0f} MB ({', '.join(SHAPES)}); binary {BINARY}")
    print(f"at rest before: peak {rss(server.pid)[0]}, resident {rss(server.pid)[1]}")
    start = time.time()
    for k, name in enumerate(names):
        result = outline(request, name)
        if result.get("isError"):
            print(f"{name}: {result['content'][0]['text'][:200]}")
        if k == 0:
            print(f"after the first file: peak {rss(server.pid)[0]}, resident {rss(server.pid)[1]}")
    print(f"after 20 files ({time.time() - start:.0f} s): peak {rss(server.pid)[0]}, "
          f"resident {rss(server.pid)[1]}")
    time.sleep(5)
    print(f"5 s later: peak {rss(server.pid)[0]}, resident {rss(server.pid)[1]}")
    server.kill()


peak() if PEAK else main()
