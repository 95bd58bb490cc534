//! The server over stdio spoken to line by line ([`Wire`]), so each message's bytes can be
//! counted as sent.

use serde_json::{Value, json};

/// The server over stdio, spoken to line by line, so each message's bytes can be counted.
pub struct Wire {
    child: std::process::Child,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl Wire {
    /// The server reading the repository `repo`, initialized.
    pub fn start(repo: &tempfile::TempDir) -> Wire {
        Wire::start_with(repo, &[])
    }

    /// [`Wire::start`] with more `serve` arguments.
    pub fn start_with(repo: &tempfile::TempDir, more: &[&str]) -> Wire {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gitlab-file-mcp"))
            .args(["serve", "--repo", repo.path().to_str().unwrap()])
            .args(more)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut wire = Wire {
            child,
            stdout,
            next_id: 0,
        };
        wire.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "wire", "version": "0"}}),
        );
        wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        wire
    }

    pub fn send(&mut self, message: &Value) {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request; returns its answer's line, as sent, newline excluded.
    pub fn request(&mut self, method: &str, params: Value) -> String {
        use std::io::BufRead;
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        line.trim_end_matches('\n').to_string()
    }
}

impl Wire {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes the server's stdin; whether it exited within `within`.
    pub fn close_and_wait(&mut self, within: std::time::Duration) -> bool {
        drop(self.child.stdin.take());
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
