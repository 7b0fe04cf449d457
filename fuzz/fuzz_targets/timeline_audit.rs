#![no_main]
//! `neardup changes` (timelines and the recrawl schedule) and `neardup audit` on arbitrary
//! WARC bytes: never a panic, and every report serializes to JSON that reads back.

use libfuzzer_sys::fuzz_target;
use neardup_pipeline::{Input, NoProgress, PipelineConfig};

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.warc");
    std::fs::write(&input, data).unwrap();
    let mut pipeline = PipelineConfig::default();
    pipeline.threads = 1;
    pipeline.allow_empty = true;
    let inputs = [Input::file(input)];
    if let Ok(r) = neardup_engine::changes::run(&inputs, &pipeline, &Default::default(), &NoProgress) {
        let json = serde_json::to_string(&r).expect("a timeline serializes");
        serde_json::from_str::<serde_json::Value>(&json).expect("and reads back");
        for t in &r.timeline {
            serde_json::to_string(t).expect("every entry serializes");
        }
    }
    let opts = neardup_engine::audit::AuditOptions {
        pipeline,
        ..Default::default()
    };
    if let Ok(r) = neardup_engine::audit::run(&inputs, &opts, &NoProgress) {
        let json = serde_json::to_string(&r).expect("an audit serializes");
        serde_json::from_str::<serde_json::Value>(&json).expect("and reads back");
    }
});
