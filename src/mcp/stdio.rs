//! The stdio the MCP server speaks over, with the one answer rmcp leaves out: a line that is
//! not JSON gets JSON-RPC's parse error (`-32700`, `id: null`), as the spec asks, instead of
//! silence; and a `tools/call` whose params are not `{name: string, arguments?: object}`
//! gets an invalid-params error (`-32602`) naming what is wrong, where rmcp answered
//! "method not found". Every line in is checked before rmcp sees it; every line out (rmcp's messages
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
            let refused = match serde_json::from_str::<serde_json::Value>(&line) {
                Err(e) => Some(json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": format!("parse error: the line is not JSON ({e})")}})),
                Ok(message) => malformed_call(&message),
            };
            if let Some(error) = refused {
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

/// The invalid-params error for a `tools/call` request whose params are not
/// `{name: string, arguments?: object}`; `None` for every other message.
fn malformed_call(message: &serde_json::Value) -> Option<serde_json::Value> {
    if message["method"] != "tools/call" || message.get("id").is_none() {
        return None;
    }
    let params = &message["params"];
    let why = if !params.is_object() {
        "`params` must be an object with `name` and `arguments`"
    } else if !params["name"].is_string() {
        "`params.name` must be the tool's name, a string"
    } else if !(params["arguments"].is_object() || params["arguments"].is_null()) {
        "`arguments` must be an object of the tool's arguments by name"
    } else {
        return None;
    };
    Some(json!({"jsonrpc": "2.0", "id": message["id"],
        "error": {"code": -32602, "message": format!("invalid params of `tools/call`: {why}")}}))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::malformed_call;

    #[test]
    fn a_tools_call_with_params_of_the_wrong_shape_is_invalid_params() {
        let call =
            |params| json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
        let refused = malformed_call(&call(json!({"name": "read_screen", "arguments": [1]})))
            .expect("refused");
        assert_eq!(refused["id"], 7);
        assert_eq!(refused["error"]["code"], -32602);
        assert!(malformed_call(&call(json!([1]))).is_some());
        assert!(malformed_call(&call(json!({"name": 3}))).is_some());
        assert!(malformed_call(&call(json!({"name": "read_screen"}))).is_none());
        assert!(malformed_call(&call(json!({"name": "x", "arguments": {}}))).is_none());
        assert!(
            malformed_call(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).is_none()
        );
    }
}
