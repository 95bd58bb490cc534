#!/usr/bin/env node
// The npm package's command: runs the binary of this platform's optional package
// (gitlab-file-mcp-<platform>-<arch>, installed by npm beside this one), found with
// require.resolve in this process (no other Node process is started to find it).
//
// Where Node can (process.execve: Node 22.15+ and 23.11+, on Linux and macOS), this process
// becomes the binary: nothing stays between the MCP client and the server, and stdin, stdout,
// stderr, signals and the exit code are the binary's own. Elsewhere (older Node, Windows) the
// binary runs as a child with stdio inherited, signals passed on, and this process ends as it
// ended (its exit code, or its signal).
"use strict";
const fs = require("fs");

const pkg = `gitlab-file-mcp-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "gitlab-file-mcp.exe" : "gitlab-file-mcp";

// glibc's loader is what a musl system lacks; Node reports the glibc it runs on, if any.
function isMusl() {
  if (process.platform !== "linux") return false;
  try {
    const report = process.report && process.report.getReport();
    if (report && report.header) return !report.header.glibcVersionRuntime;
  } catch (e) {
    // fall through: no report (a Node built without it)
  }
  return fs.existsSync("/etc/alpine-release");
}

function notInstalled() {
  if (isMusl()) {
    return (
      `gitlab-file-mcp: there is no build for musl Linux (Alpine): the Linux packages need ` +
      "glibc 2.17 or later. Use a glibc distribution (Debian, Ubuntu, RHEL, …), the container " +
      "image (it carries its own glibc), or build from source: cargo install --locked gitlab-file-mcp"
    );
  }
  return (
    `gitlab-file-mcp: no binary for ${process.platform}-${process.arch}: the package ${pkg} ` +
    "is not installed. npm installs it with gitlab-file-mcp unless optional dependencies " +
    "are omitted (--omit=optional, or --no-optional); if your platform has no such package, " +
    "install from source: cargo install --locked gitlab-file-mcp"
  );
}

let binary;
try {
  binary = require.resolve(`${pkg}/bin/${exe}`);
} catch (e) {
  console.error(notInstalled());
  process.exit(1);
}

// In the Node versions that added it, a failed execve(2) aborts the process (later ones throw):
// only a binary this process may execute is handed over; anything else is left to spawn.
function executable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch (e) {
    return false;
  }
}

const args = process.argv.slice(2);
if (typeof process.execve === "function" && process.platform !== "win32" && executable(binary)) {
  try {
    process.execve(binary, [binary, ...args], process.env);
  } catch (e) {
    // Not replaced (a Node that throws on a failed execve(2)): run it as a child below.
  }
}

const { spawn } = require("child_process");
const child = spawn(binary, args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (e) => {
  console.error(`gitlab-file-mcp: cannot run ${binary}: ${e.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code);
  }
});
