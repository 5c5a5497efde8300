use std::time::{Duration, Instant};
use waymark::browser::{Chromium, LaunchOptions, Tab};
#[tokio::main]
async fn main() {
    let demo = waymark::demo::DemoApp::start().await.unwrap();
    let b = Chromium::launch(LaunchOptions::default()).await.unwrap();
    let tab = b.new_tab().await.unwrap();
    let mut v = vec![];
    for _ in 0..20 {
        let t = Instant::now();
        tab.evaluate("'x'", Duration::from_secs(5)).await.unwrap();
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "blank evals {:?}",
        v.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>()
    );
    let url = format!("{}/claims", demo.base_url());
    tab.navigate(&url, Duration::from_secs(10)).await.unwrap();
    let mut v = vec![];
    for _ in 0..20 {
        let t = Instant::now();
        tab.evaluate("'x'", Duration::from_secs(5)).await.unwrap();
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "claims evals {:?}",
        v.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>()
    );
    b.close().await;
}
