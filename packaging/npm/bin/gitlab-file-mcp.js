#!/usr/bin/env node
// The npm package's command: runs the binary of this platform's optional package
// (gitlab-file-mcp-<platform>-<arch>, installed by npm beside this one), with stdin, stdout
// and stderr inherited, and ends as the binary ended (its exit code, or its signal).
"use strict";
const { spawn } = require("child_process");

const pkg = `gitlab-file-mcp-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "gitlab-file-mcp.exe" : "gitlab-file-mcp";
let binary;
try {
  binary = require.resolve(`${pkg}/bin/${exe}`);
} catch (e) {
  console.error(
    `gitlab-file-mcp: no binary for ${process.platform}-${process.arch}: the package ${pkg} ` +
      "is not installed. npm installs it with gitlab-file-mcp unless optional dependencies " +
      "are omitted (--omit=optional); if your platform has no such package, install from " +
      "source: cargo install --locked gitlab-file-mcp"
  );
  process.exit(1);
}
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
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
