//! A set of shards (`neardup index create --shards N`) through the command line and the
//! service, against one index holding the same crawls: the same query rows byte for byte, the
//! same answers to a real HTTP client; and adds to a set killed at random moments leave every
//! crawl whole or absent, held once after a rerun.

use crate::serve::{json_of, page_json, post, sample_pages, Server};
use crate::util::*;

const CRAWLS: [&str; 3] = ["1.63.0", "nightly", "stable"];

fn crawl(name: &str) -> String {
    (root().join(format!("data/sample/rustdocs-{name}.warc.gz")))
        .to_string_lossy()
        .into_owned()
}

/// One index and a set of two shards in `tmp`, each holding the sample's crawls added one by
/// one: their folders.
fn one_and_set(tmp: &std::path::Path) -> (String, String) {
    let one = tmp.join("one").to_string_lossy().into_owned();
    let set = tmp.join("set").to_string_lossy().into_owned();
    run_ok(&["index", "create", &one, "-q"]);
    let out = run_ok(&["index", "create", &set, "--shards", "2"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("a set of 2 shards"));
    for c in CRAWLS {
        run_ok(&["index", "add", &one, &crawl(c), "--label", c, "-q"]);
        let out = run_ok(&["index", "add", &set, &crawl(c), "--label", c]);
        assert!(String::from_utf8_lossy(&out.stdout).contains("(shard "));
    }
    (one, set)
}

#[test]
fn a_set_of_shards_answers_as_one_index_on_the_command_line_and_over_http() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, set) = one_and_set(tmp.path());
    let stats = |d: &str| json(&run_ok(&["index", "stats", d, "--json"]));
    let (s1, s2) = (stats(&one), stats(&set));
    assert_eq!(s1["pages"], s2["pages"]);
    assert_eq!(s1["next_page"], s2["next_page"]);
    for shard in ["shard-1", "shard-2"] {
        let d = format!("{set}/{shard}");
        assert!(
            stats(&d)["pages"].as_u64().unwrap() > 0,
            "{shard} holds pages"
        );
    }
    run_ok(&["index", "check", &set, "-q"]);

    let stable = crawl("stable");
    for extra in [&[][..], &["--max-matches", "1"][..], &["-j", "2"][..]] {
        let query = |d: &str| {
            let mut args = vec!["index", "query", d, &stable];
            args.extend(extra);
            run_ok(&args).stdout
        };
        let (a, b) = (query(&one), query(&set));
        assert!(!a.is_empty());
        assert!(a == b, "index query {extra:?}: the set's rows differ");
    }

    // A real HTTP client against two services, one on each.
    let (s1, s2) = (
        Server::start(&one, &["--read-only"]),
        Server::start(&set, &["--read-only"]),
    );
    let json = "content-type: application/json";
    for (i, page) in sample_pages(24).iter().enumerate() {
        let body = page_json(
            page,
            if i % 3 == 0 {
                "<p>and a line of its own</p>"
            } else {
                ""
            },
        );
        for path in ["/v1/lookup?matches=0", "/v1/lookup", "/v1/lookup?cluster=1"] {
            let ask = |s: &Server| {
                let (code, text) = post(&format!("{}{path}", s.base), &body, &[json]);
                assert_eq!(code, 200, "{text}");
                json_of(&text)
            };
            assert_eq!(ask(&s1), ask(&s2), "page {i}, {path}");
        }
    }
    // A crawl removed from both: the same rows again.
    for d in [&one, &set] {
        run_ok(&["index", "remove", d, "--label", "nightly", "-q"]);
    }
    let query = |d: &str| run_ok(&["index", "query", d, &stable]).stdout;
    assert!(
        query(&one) == query(&set),
        "after a remove, the set's rows differ"
    );
    // Adds through the service need a writer, which a set has not: refused when it starts.
    let out = neardup(&["serve", "--index", &set, "-q"], &root());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("set of shards"));
}

/// `index add` into a set of shards killed with SIGKILL at moments spread over an add's
/// length, then run again as an operator does: after each kill the set opens, `index check`
/// passes, the crawls before are whole and the killed one is whole or absent; after the rerun
/// it is held once, in one shard.
#[test]
fn adds_to_a_set_killed_at_random_moments_land_once() {
    let tmp = tempfile::tempdir().unwrap();
    let crawl_pages = |d: &str| -> std::collections::BTreeMap<String, u64> {
        let s = json(&run_ok(&["index", "stats", d, "--json"]));
        (s["crawls"].as_array().unwrap().iter())
            .map(|c| {
                (
                    c["label"].as_str().unwrap().to_string(),
                    c["pages"].as_u64().unwrap(),
                )
            })
            .filter(|(_, p)| *p > 0)
            .collect()
    };
    let fresh = |round: u64| {
        let d = tmp.path().join(format!("set-{round}"));
        let d = d.to_string_lossy().into_owned();
        run_ok(&["index", "create", &d, "--shards", "2", "-q"]);
        run_ok(&[
            "index",
            "add",
            &d,
            &crawl("nightly"),
            "--label",
            "earlier",
            "-q",
        ]);
        d
    };
    let add = |d: &str| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"));
        c.args([
            "index",
            "add",
            d,
            &crawl("1.63.0"),
            "--label",
            "crawl",
            "-q",
        ]);
        c.stderr(std::process::Stdio::piped());
        c
    };
    let d = fresh(u64::MAX);
    let start = std::time::Instant::now();
    assert!(add(&d).status().unwrap().success());
    let length = start.elapsed();
    let whole = crawl_pages(&d);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let (mut killed, mut finished) = (0, 0);
    for round in 0..4 {
        let d = fresh(round);
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let at = length.mul_f64((state % 1200) as f64 / 1000.0);
        let mut child = add(&d).spawn().unwrap();
        std::thread::sleep(at);
        let _ = child.kill();
        match child.wait().unwrap().success() {
            true => finished += 1,
            false => killed += 1,
        }
        run_ok(&["index", "check", &d, "-q"]);
        let held = crawl_pages(&d);
        assert_eq!(held.get("earlier"), whole.get("earlier"), "round {round}");
        let was = held.get("crawl");
        assert!(
            was.is_none() || was == whole.get("crawl"),
            "round {round}: {held:?}"
        );
        let again = add(&d).output().unwrap();
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
        run_ok(&["index", "check", &d, "-q"]);
        assert_eq!(
            crawl_pages(&d),
            whole,
            "round {round}: held once after the rerun"
        );
        // The crawl in one shard, the earlier one in the other.
        for shard in ["shard-1", "shard-2"] {
            assert_eq!(
                crawl_pages(&format!("{d}/{shard}")).len(),
                1,
                "round {round}"
            );
        }
    }
    eprintln!("4 rounds: {killed} killed, {finished} finished before the kill");
}
