//! Serving an axum router in the background on a bound listener, for as long as its handle
//! lives: the embedded demo app and the control page both serve this way. A leaf: it
//! depends on no other module of the crate.

use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// Serves `app` on `listener` in the background until the returned sender is dropped or
/// signalled; `what` names the server in the warning if it stops with an error.
pub(crate) fn serve_until_dropped(
    listener: TcpListener,
    app: axum::Router,
    what: &'static str,
) -> oneshot::Sender<()> {
    let (shutdown, stop) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                // Either an explicit signal or the handle was dropped.
                let _ = stop.await;
            })
            .await;
        if let Err(err) = served {
            tracing::warn!(%err, "{what} stopped with an error");
        }
    });
    shutdown
}
