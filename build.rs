//! Says which integration tests cannot run on this machine yet, so that `cargo test` lists them
//! as ignored with the command that prepares them (instead of a silent pass). In CI (`CI` set)
//! nothing is ignored: a missing prerequisite fails its test. Each prepare script ends with
//! `tests/prepared.sh NAME`, which writes `ready` to `target/prepared/NAME.stamp` (only when it
//! changes, so a second run rebuilds nothing); the build watches those stamps (made empty here when
//! missing, so that a missing file never makes every build run this script again).

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ci = std::env::var_os("CI").is_some();
    println!("cargo:rerun-if-env-changed=CI");
    let checks: [(&str, &[&str]); 4] = [
        ("neardup_no_python", &["target/python/venv/bin/python"]),
        (
            "neardup_no_clients",
            &[
                "target/clients/venv/bin/schemathesis",
                "target/clients/venv/bin/warcprox",
            ],
        ),
        (
            "neardup_no_thirdparty",
            &["target/thirdparty/expected.json"],
        ),
        (
            "neardup_no_browser",
            &[
                "target/browser/node_modules/playwright-core",
                "/usr/bin/chromium",
            ],
        ),
    ];
    let stamps = root.join("target/prepared");
    let _ = std::fs::create_dir_all(&stamps);
    for (cfg, paths) in checks {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        let stamp = stamps.join(format!("{}.stamp", cfg.trim_start_matches("neardup_no_")));
        if !stamp.exists() {
            let _ = std::fs::write(&stamp, b"");
        }
        println!("cargo:rerun-if-changed={}", stamp.display());
        let ready = paths.iter().all(|p| root.join(p).exists());
        if !ready && !ci {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
}
