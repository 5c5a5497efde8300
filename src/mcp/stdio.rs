//! The stdio the MCP server speaks over, with the one answer rmcp leaves out: a line that is
//! not JSON gets JSON-RPC's parse error (`-32700`, `id: null`), as the spec asks, instead of
//! silence. Every line in is checked before rmcp sees it; every line out (rmcp's messages
//! and these errors) is written whole, so the two never interleave.

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// How much of a message may be in flight between the tasks and rmcp.
const BUFFER: usize = 1 << 20;

/// A reader and a writer for rmcp over `input` and `output`: lines that parse as JSON reach
/// rmcp; the others are answered with a parse error on `output`. The handle ends once
/// everything rmcp wrote is on `output`: await it before the process exits.
pub(crate) fn checked<R, W>(
    input: R,
    output: W,
) -> ((DuplexStream, DuplexStream), tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(BUFFER);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(BUFFER);
    let (errors, mut errors_out) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut lines = BufReader::new(input).lines();
        let mut to_rmcp = to_rmcp;
        while let Ok(Some(line)) = lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            if let Err(e) = serde_json::from_str::<serde_json::Value>(&line) {
                let error = json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": format!("parse error: the line is not JSON ({e})")}});
                if errors.send(error.to_string()).is_err() {
                    break;
                }
                continue;
            }
            let sent = async {
                to_rmcp.write_all(line.as_bytes()).await?;
                to_rmcp.write_all(b"\n").await
            };
            if sent.await.is_err() {
                break;
            }
        }
        // End of input: rmcp sees its end too, and the session closes.
        let _ = to_rmcp.shutdown().await;
    });
    let written = tokio::spawn(async move {
        let mut rmcp_lines = BufReader::new(from_rmcp).lines();
        let mut output = output;
        loop {
            let line = tokio::select! {
                line = rmcp_lines.next_line() => match line {
                    Ok(Some(line)) => line,
                    _ => break,
                },
                Some(error) = errors_out.recv() => error,
            };
            let written = async {
                output.write_all(line.as_bytes()).await?;
                output.write_all(b"\n").await?;
                output.flush().await
            };
            if written.await.is_err() {
                break;
            }
        }
    });
    ((rmcp_reads, rmcp_writes), written)
}
