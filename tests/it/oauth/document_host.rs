//! An HTTPS server on 127.0.0.1 serving client metadata documents, with the test certificate
//! of `tests/fixtures/tls/` (issued for 127.0.0.1, ::1 and localhost by the test CA the server
//! under test trusts through `GITLAB_CA_FILE`). It answers each path with a canned reply and
//! counts the requests per path; it never follows anything itself. Plain threads and rustls:
//! one request per connection, `Connection: close`.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The CA file the server under test is given.
pub fn ca_file() -> PathBuf {
    fixtures().join("ca.pem")
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls")
}

/// One canned answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Whether the answer says its length (else the body ends when the connection closes).
    pub with_length: bool,
}

impl Reply {
    /// A 200 with `body` as JSON.
    pub fn json(body: &serde_json::Value) -> Self {
        Self {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
            with_length: true,
        }
    }

    /// A 302 to `location`.
    pub fn redirect(location: &str) -> Self {
        Self {
            status: 302,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
            with_length: true,
        }
    }
}

/// The server: its port, its replies by path, the requests it got by path.
pub struct DocumentHost {
    pub port: u16,
    replies: Arc<Mutex<HashMap<String, Reply>>>,
    requests: Arc<Mutex<HashMap<String, usize>>>,
}

impl DocumentHost {
    pub fn start() -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let certs = CertificateDer::pem_file_iter(fixtures().join("server.pem"))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = PrivateKeyDer::from_pem_file(fixtures().join("server.key")).unwrap();
        let config = Arc::new(
            rustls::ServerConfig::builder()
                .with_no_client_auth()
                .with_single_cert(certs, key)
                .unwrap(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let replies: Arc<Mutex<HashMap<String, Reply>>> = Arc::default();
        let requests: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let (r, q) = (Arc::clone(&replies), Arc::clone(&requests));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (config, r, q) = (Arc::clone(&config), Arc::clone(&r), Arc::clone(&q));
                std::thread::spawn(move || serve(stream, config, &r, &q));
            }
        });
        Self {
            port,
            replies,
            requests,
        }
    }

    /// Answers `path` with `reply`.
    pub fn reply(&self, path: &str, reply: Reply) {
        self.replies.lock().unwrap().insert(path.into(), reply);
    }

    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    /// The requests for `path` so far.
    pub fn requests(&self, path: &str) -> usize {
        self.requests
            .lock()
            .unwrap()
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    /// The requests for any path so far.
    pub fn all_requests(&self) -> usize {
        self.requests.lock().unwrap().values().sum()
    }
}

fn serve(
    stream: std::net::TcpStream,
    config: Arc<rustls::ServerConfig>,
    replies: &Mutex<HashMap<String, Reply>>,
    requests: &Mutex<HashMap<String, usize>>,
) {
    let Ok(connection) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(connection, stream);
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match tls.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split(' ').nth(1).unwrap_or("").to_string();
    *requests.lock().unwrap().entry(path.clone()).or_default() += 1;
    let reply = replies
        .lock()
        .unwrap()
        .get(&path)
        .cloned()
        .unwrap_or(Reply {
            status: 404,
            headers: Vec::new(),
            body: b"not found".to_vec(),
            with_length: true,
        });
    let mut out = format!("HTTP/1.1 {} X\r\nConnection: close\r\n", reply.status);
    for (name, value) in &reply.headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    if reply.with_length {
        out.push_str(&format!("Content-Length: {}\r\n", reply.body.len()));
    }
    out.push_str("\r\n");
    let _ = tls.write_all(out.as_bytes());
    let _ = tls.write_all(&reply.body);
    tls.conn.send_close_notify();
    let _ = tls.flush();
}
