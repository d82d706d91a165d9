//! What the command line's integration tests share: a scripted OpenAI-compatible model.

use std::io::{BufRead, BufReader, Read, Write};

/// Serves `POST …/v1/chat/completions` on 127.0.0.1 and returns the base URL (`…/v1`).
/// `answer(n, body)` gets each request's number (from 0) and body and returns the reply's
/// message content, or `None` for a model that never answers (the connection is held two
/// minutes, and the requests behind it wait).
pub fn model(answer: impl Fn(usize, &str) -> Option<String> + Send + 'static) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let Some(content) = answer(n, &String::from_utf8_lossy(&body)) else {
                std::thread::sleep(std::time::Duration::from_secs(120));
                continue;
            };
            let reply = serde_json::json!({"choices": [{"message": {"content": content}, "finish_reason": "stop"}]})
                .to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    url
}

/// The memory at `store` as its export document, through `nocturne export` — the same
/// text whether the memory is a database or a JSON file, so "nothing changed" is checked
/// on what the memory holds, not on how a backend lays out its bytes.
#[allow(dead_code)]
pub fn exported(store: &std::path::Path) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nocturne"))
        .args(["export", "--store", store.to_str().expect("utf8")])
        .output()
        .expect("nocturne runs");
    assert!(out.status.success(), "export: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf8")
}
