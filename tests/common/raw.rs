//! Raw TCP servers on 127.0.0.1:0 that misbehave in ways no well-mannered framework
//! would (hang, drip, endless body, any bytes at all), for the fetcher's limits.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How a raw server answers page requests (robots.txt gets a 404).
#[derive(Debug, Clone)]
pub enum Misbehave {
    /// Reads the request and never answers (for 60 s).
    Hang,
    /// Like `Hang`, robots.txt included (every connection is counted).
    HangAll,
    /// Headers, then one byte per `every`, forever.
    Drip { every: Duration },
    /// A chunked body that never ends.
    Endless,
    /// This body, sent as is after the given extra header lines.
    Raw { head: String, body: Vec<u8> },
}

/// A raw TCP server; returns its address and a counter of page requests.
pub async fn raw_server(how: Misbehave) -> (SocketAddr, Arc<Mutex<usize>>) {
    let (addr, count, _) = raw_server_logged(how).await;
    (addr, count)
}

/// [`raw_server`], and the instants at which the client hung up a hanging request
/// ([`Misbehave::Hang`], [`Misbehave::HangAll`]): when the fetcher gave up on it.
pub async fn raw_server_logged(
    how: Misbehave,
) -> (SocketAddr, Arc<Mutex<usize>>, Arc<Mutex<Vec<Instant>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let count = Arc::new(Mutex::new(0));
    let hung_up = Arc::new(Mutex::new(Vec::new()));
    let c = count.clone();
    let h = hung_up.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let how = how.clone();
            let c = c.clone();
            let h = h.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                if head.starts_with(b"GET /robots.txt") && !matches!(how, Misbehave::HangAll) {
                    let _ = sock
                        .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                        .await;
                    return;
                }
                *c.lock().expect("count") += 1;
                if matches!(how, Misbehave::Hang | Misbehave::HangAll) {
                    // Never answer; note when the client hangs up (bounded at 60 s).
                    let gone = tokio::time::timeout(Duration::from_secs(60), async {
                        while matches!(sock.read(&mut buf).await, Ok(n) if n > 0) {}
                    })
                    .await;
                    if gone.is_ok() {
                        h.lock().expect("hung up").push(Instant::now());
                    }
                    return;
                }
                let _ = misbehave(&mut sock, &how).await;
            });
        }
    });
    (addr, count, hung_up)
}

async fn misbehave(sock: &mut tokio::net::TcpStream, how: &Misbehave) -> std::io::Result<()> {
    match how {
        Misbehave::Hang | Misbehave::HangAll => Ok(()), // handled by the caller
        Misbehave::Drip { every } => {
            sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n\r\n<html><body>")
                .await?;
            // Bounded: a test never leaves a server running for long.
            for _ in 0..120 {
                tokio::time::sleep(*every).await;
                sock.write_all(b"x").await?;
            }
            Ok(())
        }
        Misbehave::Endless => {
            sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n")
                .await?;
            let chunk = format!("4000\r\n{}\r\n", "a".repeat(0x4000));
            // Bounded at 1 GiB: the client hangs up long before.
            for _ in 0..65_536 {
                sock.write_all(chunk.as_bytes()).await?;
            }
            Ok(())
        }
        Misbehave::Raw { head, body } => {
            let h = format!(
                "HTTP/1.1 200 OK\r\n{head}content-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            sock.write_all(h.as_bytes()).await?;
            sock.write_all(body).await
        }
    }
}
