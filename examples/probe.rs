use std::time::{Duration, Instant};
use waymark::browser::{Chromium, LaunchOptions, Tab};
#[tokio::main]
async fn main() {
    let demo = waymark::demo::DemoApp::start().await.unwrap();
    let b = Chromium::launch(LaunchOptions::default()).await.unwrap();
    let tab = b.new_tab().await.unwrap();
    tab.navigate(
        &format!("{}/widgets", demo.base_url()),
        Duration::from_secs(30),
    )
    .await
    .unwrap();
    let pos = tab.evaluate("(() => { const el = document.querySelector('[data-anchor=\"widgets.slow-link\"]'); el.scrollIntoView({block:'center'}); const r = el.getBoundingClientRect(); window.navigation.addEventListener('navigate', e => { window.__n = 'nav ' + e.destination.sameDocument; }); return JSON.stringify([r.left + r.width/2, r.top + r.height/2]); })()", Duration::from_secs(5)).await.unwrap();
    let p: Vec<f64> = serde_json::from_str(&pos).unwrap();
    let t = Instant::now();
    tab.click(p[0], p[1]).await.unwrap();
    println!("click {:?}", t.elapsed());
    for i in 0..5 {
        let t = Instant::now();
        let r = tab
            .evaluate("String(window.__n)", Duration::from_secs(3))
            .await;
        println!("eval {i} {:?} {:?}", t.elapsed(), r);
    }
    b.close().await;
}
