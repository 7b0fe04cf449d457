use super::*;

#[test]
fn the_world_is_written_whole_and_the_same_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(&dir.path().join("a")).unwrap();
    let b = write(&dir.path().join("b")).unwrap();
    assert_eq!(a.files, b.files);
    for e in walk(&dir.path().join("a")) {
        let rel = e.strip_prefix(dir.path().join("a")).unwrap();
        assert_eq!(
            std::fs::read(&e).unwrap(),
            std::fs::read(dir.path().join("b").join(rel)).unwrap(),
            "{}",
            rel.display()
        );
    }
    // No partial folder is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn a_folder_holding_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mine.txt"), b"keep").unwrap();
    assert!(matches!(write(dir.path()), Err(DemoError::NotEmpty(_))));
    assert_eq!(std::fs::read(dir.path().join("mine.txt")).unwrap(), b"keep");
    // An empty folder is fine.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    write(&empty).unwrap();
    assert!(empty.join("crawl/rustdocs-stable.warc.gz").is_file());
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
