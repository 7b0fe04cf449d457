//! `neardup index` when things go wrong: adds killed at random moments, a full disk and a
//! read-only folder, a crawl with a corrupt record. The index stays as it was or holds the
//! add whole, and nothing acknowledged is lost.

use crate::util::*;

/// Pages per crawl label, from `index stats --json`.
fn crawl_pages(d: &str) -> std::collections::BTreeMap<String, u64> {
    let s = json(&run_ok(&["index", "stats", d, "--json"]));
    s["crawls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["pages"].as_u64().unwrap() > 0)
        .map(|c| {
            (
                c["label"].as_str().unwrap().to_string(),
                c["pages"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `neardup index add` and `neardup dedup --index --add-as` children (every other round, and
/// every other add within 1 MiB of memory, so that pages and keys spill) killed with SIGKILL
/// at moments spread over an add's length, each into an index already holding another crawl;
/// then, as an operator does after a crash, the same command is run again. After each kill the
/// index opens, `index check` passes and the earlier crawl is whole; the killed add is whole or
/// absent; after the rerun the crawl is held exactly once (the rerun adds it, or has nothing to
/// do when the killed add had committed) and a dedup's table is the uninterrupted run's. `NEARDUP_CRASH_ROUNDS` (default
/// 4) rounds with `NEARDUP_CRASH_CRAWL` (default the sample's first crawl); the benchmark
/// `bench/index_crash.sh` runs 50 on a development-crawl WARC.
#[test]
fn adds_killed_at_random_moments_lose_nothing_acknowledged_and_a_rerun_adds_once() {
    let rounds: u64 = std::env::var("NEARDUP_CRASH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    let tmp = tempfile::tempdir().unwrap();
    let crawl = std::env::var("NEARDUP_CRASH_CRAWL").unwrap_or_else(|_| {
        root()
            .join("data/sample/rustdocs-1.63.0.warc.gz")
            .display()
            .to_string()
    });
    let crawl = crawl.as_str();
    let earlier = root().join("data/sample/rustdocs-nightly.warc.gz");
    let earlier = earlier.to_str().unwrap();
    let command_to = |d: &str, label: &str, round: u64, out: &std::path::Path| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"));
        match round % 4 {
            1 | 3 => c
                .args(["dedup", "--index", d, crawl, "--add-as", label, "-q", "-o"])
                .arg(out)
                .arg("--force"),
            _ => c.args(["index", "add", d, crawl, "--label", label, "-q"]),
        };
        if round % 4 >= 2 {
            c.args(["--mem-limit", "1M"]);
        }
        c.stderr(std::process::Stdio::piped());
        c
    };
    let command = |d: &str, label: &str, round: u64| {
        command_to(
            d,
            label,
            round,
            &tmp.path().join(format!("out-{label}-{round}")),
        )
    };
    let fresh = |round: u64| {
        let dir = tmp.path().join(format!("idx-{round}"));
        let d = dir.to_str().unwrap().to_string();
        run_ok(&["index", "create", &d, "-q"]);
        run_ok(&["index", "add", &d, earlier, "--label", "earlier", "-q"]);
        d
    };
    // A dedup --add-as run to its end, as round `i` runs it: its clusters table.
    let tables = std::cell::RefCell::new(std::collections::HashMap::new());
    let uninterrupted = |i: u64| -> Vec<u8> {
        let mut tables = tables.borrow_mut();
        tables
            .entry(i)
            .or_insert_with(|| {
                let d = fresh(1000 + i);
                let out = tmp.path().join(format!("out-whole-{i}"));
                assert!(command_to(&d, "crawl", i, &out).status().unwrap().success());
                std::fs::read(out.join("clusters.jsonl")).unwrap()
            })
            .clone()
    };
    // One add to its end: how long an add takes here, and its pages.
    let d = fresh(u64::MAX);
    let start = std::time::Instant::now();
    assert!(command(&d, "whole", 0).status().unwrap().success());
    let length = start.elapsed();
    let held = crawl_pages(&d);
    let (pages, earlier_pages) = (held["whole"], held["earlier"]);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let (mut killed, mut finished, mut refused) = (0, 0, 0);
    for i in 0..rounds {
        let d = fresh(i);
        // A moment between the start and 1.2 times an add's length (xorshift, seeded).
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let at = length.mul_f64((state % 1200) as f64 / 1000.0);
        let mut child = command(&d, "crawl", i).spawn().unwrap();
        std::thread::sleep(at);
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.success() {
            finished += 1;
        } else {
            killed += 1;
        }
        run_ok(&["index", "check", &d, "-q"]);
        let held = crawl_pages(&d);
        assert_eq!(held.get("earlier"), Some(&earlier_pages), "round {i}");
        if status.success() {
            assert_eq!(held.get("crawl"), Some(&pages), "acknowledged, round {i}");
        }
        let was = held.get("crawl").copied();
        assert!(
            was.is_none() || was == Some(pages),
            "whole or absent after round {i}: {held:?}"
        );
        // A dedup's outputs land before its add: whenever the index holds the add, its
        // table is there, whole (issue 58: killed between the commit and the table's rename,
        // the crawl was indexed and its table lost for good).
        let is_dedup = i % 4 == 1 || i % 4 == 3;
        let table = tmp.path().join(format!("out-crawl-{i}/clusters.jsonl"));
        if is_dedup && was.is_some() {
            let got = std::fs::read(&table).unwrap_or_default();
            assert!(
                got == uninterrupted(i),
                "round {i}: the index holds the add, its table is not whole"
            );
        }
        // The operator runs the same command again.
        let again = command(&d, "crawl", i).output().unwrap();
        let err = String::from_utf8_lossy(&again.stderr);
        // Run again after its add committed, the command has nothing to do (exit 0); a
        // dedup's outputs landed before its commit, so its table is the uninterrupted run's.
        assert!(again.status.success(), "round {i}: {err}");
        if was.is_some() {
            refused += 1;
        }
        if is_dedup {
            let got = std::fs::read(&table).unwrap_or_default();
            let want = uninterrupted(i);
            assert!(
                !want.is_empty() && got == want,
                "round {i}: the table differs from an uninterrupted run's"
            );
        }
        run_ok(&["index", "check", &d, "-q"]);
        let held = crawl_pages(&d);
        assert_eq!(held.get("crawl"), Some(&pages), "one copy after round {i}");
        assert_eq!(held.get("earlier"), Some(&earlier_pages), "round {i}");
        let total = json(&run_ok(&["index", "stats", &d, "--json"]))["pages"]
            .as_u64()
            .unwrap();
        assert_eq!(total, pages + earlier_pages, "round {i}");
        let leftovers: Vec<String> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| {
                n.ends_with(".partial") || n.starts_with("neardup-sort") || n == "MANIFEST.tmp"
            })
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
    eprintln!(
        "{rounds} rounds (adds and dedup --add-as runs): {killed} killed, {finished} finished before the kill; {refused} reruns had nothing to do"
    );
}

/// Runs `script` as root of a new user and mount namespace (`unshare -rm`), where it may mount
/// a small tmpfs or a read-only bind, and asserts it succeeded; its standard output and error,
/// or `None` where namespaces are not allowed (then the test says so, and fails under CI, which
/// must run it).
fn in_namespace(script: &str) -> Option<(String, String)> {
    if !unshare_allowed("the full-disk and read-only tests") {
        return None;
    }
    let o = std::process::Command::new("unshare")
        .args(["-rm", "sh", "-ec", script])
        .env("NEARDUP", env!("CARGO_BIN_EXE_neardup"))
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{out}\n{err}");
    Some((out, err))
}

#[test]
fn a_full_disk_and_a_read_only_folder_leave_the_index_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let d = dir.to_str().unwrap();
    let sample = root().join("data/sample");
    let first = sample.join("rustdocs-1.63.0.warc.gz");
    let second = sample.join("rustdocs-nightly.warc.gz");
    run_ok(&["index", "create", d, "-q"]);
    run_ok(&[
        "index",
        "add",
        d,
        first.to_str().unwrap(),
        "--label",
        "a",
        "-q",
    ]);
    let manifest = std::fs::read(dir.join("MANIFEST")).unwrap();
    let bytes: u64 = json(&run_ok(&["index", "stats", d, "--json"]))["bytes"]
        .as_u64()
        .unwrap();

    // A copy of the index on a tmpfs with room for it and 64 KiB more (the next add's catalog
    // segment does not fit), then 150 KiB more (its catalog fits, its keys do not): the add
    // fails on the full disk, names the problem, the index is as it was, and what the add
    // wrote is gone with it (issue 58: a finished seg-N.pages stayed until the next writer).
    // (Format 12: the second crawl's catalog is 115 KiB, its keys 60 KiB.)
    for room in [64u64 << 10, 150 << 10] {
        let small = tmp.path().join(format!("small-{room}"));
        std::fs::create_dir(&small).unwrap();
        let script = format!(
            "mount -t tmpfs -o size={} tmpfs {s}\n\
         cp -a {d} {s}/idx\n\
         if \"$NEARDUP\" index add {s}/idx {second} --label b -q; then echo ADDED; fi\n\
         \"$NEARDUP\" index check {s}/idx -q && echo CHECKED\n\
         \"$NEARDUP\" index stats {s}/idx --json\n\
         cmp {s}/idx/MANIFEST {d}/MANIFEST && echo SAME\n\
         [ \"$(ls {s}/idx)\" = \"$(ls {d})\" ] && echo NOLEFTOVERS",
            bytes + room,
            s = small.display(),
            second = second.display(),
        );
        if let Some((out, err)) = in_namespace(&script) {
            assert!(!out.contains("ADDED"), "{out}");
            assert!(err.contains("No space left on device"), "{err}");
            assert!(
                out.contains("CHECKED") && out.contains("SAME"),
                "{out}\n{err}"
            );
            assert!(out.contains("NOLEFTOVERS"), "{out}\n{err}");
        }
    }

    // The folder mounted read-only: a writer is refused with the reason; readers still read.
    let script = format!(
        "mount --bind {d} {d}\n\
         mount -o remount,bind,ro {d}\n\
         if \"$NEARDUP\" index add {d} {second} -q; then echo ADDED; fi\n\
         \"$NEARDUP\" index check {d} -q && echo CHECKED\n\
         \"$NEARDUP\" index query {d} {first} | wc -l",
        second = second.display(),
        first = first.display(),
    );
    if let Some((out, err)) = in_namespace(&script) {
        assert!(!out.contains("ADDED"), "{out}");
        assert!(err.contains("Read-only file system"), "{err}");
        assert!(out.contains("CHECKED"), "{out}\n{err}");
        let matches: u64 = out.lines().last().unwrap().trim().parse().unwrap();
        assert!(matches >= 141, "{out}");
    }
    assert_eq!(std::fs::read(dir.join("MANIFEST")).unwrap(), manifest);
}

/// A crawl with a corrupt record: `index add`, `index query` and `dedup --index` skip it,
/// say so with file, offset and reason, and hold or answer every other page; with `--strict`
/// the add stops with exit code 3 and the index is as it was.
#[test]
fn bad_records_are_skipped_and_told_or_stop_a_strict_add() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let d = dir.to_str().unwrap();
    let bad = root().join("tests/fixtures/corrupt-member.warc.gz");
    let bad = bad.to_str().unwrap();
    run_ok(&["index", "create", d, "-q"]);
    let before = std::fs::read(dir.join("MANIFEST")).unwrap();
    let strict = neardup(&["index", "add", d, bad, "--strict", "-q"], &root());
    assert_eq!(strict.status.code(), Some(3), "{strict:?}");
    assert_eq!(std::fs::read(dir.join("MANIFEST")).unwrap(), before);

    let add = run_ok(&["index", "add", d, bad, "--label", "bad", "-q"]);
    let told = String::from_utf8_lossy(&add.stderr).to_string();
    assert!(
        told.contains("skipped") && told.contains("corrupt-member.warc.gz: byte"),
        "{told}"
    );
    assert!(crawl_pages(d)["bad"] > 0);
    let query = run_ok(&["index", "query", d, bad]);
    assert!(String::from_utf8_lossy(&query.stderr).contains("skipped"));
    assert!(!query.stdout.is_empty());
    let out = tmp.path().join("out");
    run_ok(&[
        "dedup",
        "--index",
        d,
        bad,
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    let s = read_json(&out.join("summary.json"));
    assert!(s["skipped"]["records"].as_u64().unwrap() > 0, "{s}");
}
