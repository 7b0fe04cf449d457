//! The streaming pipeline's tests.

use super::*;
use crate::decode::cut_note;

/// Remembers each page it visits and the thread that visited it.
struct Seen(Vec<(u32, std::thread::ThreadId)>);

impl Visitor for Seen {
    type Output = Vec<(u32, std::thread::ThreadId)>;
    fn visit(&mut self, page: &Page, _doc: Option<&Document>) {
        self.0.push((page.id.ordinal, std::thread::current().id()));
    }
    fn finish(self) -> Self::Output {
        self.0
    }
}

fn pages(n: u32) -> Vec<Page> {
    (0..n)
        .map(|i| Page {
            url: format!("https://a.example/{i}"),
            body: format!("page {i} says a few words").into_bytes(),
            kind: BodyKind::Text,
            ..Page::default()
        })
        .collect()
}

/// One thread asked for is one thread: the caller's reads and visits every page (a `-j1`
/// run is no reader beside a worker); more threads visit the same pages elsewhere.
#[test]
fn one_thread_reads_and_visits_on_the_callers_thread() {
    let inputs = [Input::pages("a", pages(300)), Input::pages("b", pages(7))];
    let visited = |threads| {
        let config = PipelineConfig {
            threads,
            batch_pages: 16,
            ..PipelineConfig::default()
        };
        let out = run(&inputs, &config, || Seen(Vec::new()), &crate::NoProgress).unwrap();
        assert_eq!(out.sources.iter().map(|s| s.stats.pages).sum::<u64>(), 307);
        out.outputs.into_iter().flatten().collect::<Vec<_>>()
    };
    let me = std::thread::current().id();
    let one = visited(1);
    assert_eq!(one.len(), 307);
    assert!(one.iter().all(|&(_, t)| t == me));
    let three = visited(3);
    assert!(three.iter().all(|&(_, t)| t != me));
    let ordinals = |v: &[(u32, std::thread::ThreadId)]| {
        let mut o: Vec<u32> = v.iter().map(|p| p.0).collect();
        o.sort_unstable();
        o
    };
    assert_eq!(ordinals(&one), ordinals(&three));
}

/// With an input for every thread, a thread whose inputs are read visits batches of the
/// inputs still being read (the last input is shared out), and every page is visited once.
#[test]
fn threads_out_of_inputs_visit_what_others_still_read() {
    /// Each page's input and ordinal with its thread; slow, so the big input takes a while.
    struct Slow(Vec<(u32, u32, std::thread::ThreadId)>);
    impl Visitor for Slow {
        type Output = Vec<(u32, u32, std::thread::ThreadId)>;
        fn visit(&mut self, page: &Page, _doc: Option<&Document>) {
            std::thread::sleep(std::time::Duration::from_micros(200));
            let t = std::thread::current().id();
            self.0.push((page.id.source, page.id.ordinal, t));
        }
        fn finish(self) -> Self::Output {
            self.0
        }
    }
    let inputs = [
        Input::pages("big", pages(400)),
        Input::pages("small", pages(5)),
    ];
    let config = PipelineConfig {
        threads: 2,
        batch_pages: 8,
        ..PipelineConfig::default()
    };
    let out = run(&inputs, &config, || Slow(Vec::new()), &crate::NoProgress).unwrap();
    let seen: Vec<_> = out.outputs.into_iter().flatten().collect();
    let mut pages: Vec<(u32, u32)> = seen.iter().map(|&(s, o, _)| (s, o)).collect();
    pages.sort_unstable();
    let want: Vec<(u32, u32)> = (0..400)
        .map(|o| (0, o))
        .chain((0..5).map(|o| (1, o)))
        .collect();
    assert_eq!(pages, want, "every page once");
    let big: std::collections::HashSet<_> = seen.iter().filter(|p| p.0 == 0).map(|p| p.2).collect();
    assert_eq!(big.len(), 2, "both threads visited the big input");
}

/// Pages visited (ordinal, url, body) and the input's report, of a run over `path`.
fn read_jsonl(
    path: &Path,
    threads: usize,
    max_page_bytes: usize,
) -> (Vec<(u32, String, Vec<u8>)>, SourceStats) {
    struct Bodies(Vec<(u32, String, Vec<u8>)>);
    impl Visitor for Bodies {
        type Output = Vec<(u32, String, Vec<u8>)>;
        fn visit(&mut self, page: &Page, _doc: Option<&Document>) {
            self.0
                .push((page.id.ordinal, page.url.clone(), page.body.clone()));
        }
        fn finish(self) -> Self::Output {
            self.0
        }
    }
    let config = PipelineConfig {
        threads,
        batch_pages: 3,
        max_page_bytes,
        read: ReadOptions {
            max_record_bytes: 200,
            ..ReadOptions::default()
        },
        ..PipelineConfig::default()
    };
    let out = run(
        &[Input::file(path)],
        &config,
        || Bodies(Vec::new()),
        &crate::NoProgress,
    )
    .unwrap();
    let mut pages: Vec<_> = out.outputs.into_iter().flatten().collect();
    pages.sort();
    (pages, out.sources[0].stats.clone())
}

/// JSONL lines are decoded by the threads that visit them, not the reader; what they find
/// (lines that are no page, bodies over the limit) is counted into the input's report as
/// the reader alone counts it, at every thread count.
#[test]
fn jsonl_decoded_on_workers_reads_as_the_reader_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("pages.jsonl");
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&match i % 8 {
            0 => "{\"url\": \"https://a.example/bad\", \"text\": \n".to_string(),
            1 => "\n   \n".to_string(),
            2 => format!("{{\"url\": \"https://a.example/{i}\", \"body\": \"no text\"}}\n"),
            3 => format!("{{\"text\": \"{}\"}}\n", "long ".repeat(60)),
            4 => format!(
                "{{\"url\": \"https://a.example/{i}\", \"text\": \"{}\"}}\n",
                "big ".repeat(20)
            ),
            // White space around the record (CRLF, indented).
            6 => format!(" \t {{\"url\": \"https://a.example/{i}\", \"text\": \"page {i}\"}} \r\n"),
            _ => {
                format!("{{\"url\": \"https://a.example/{i}\", \"text\": \"page {i} \\u00e9\"}}\n")
            }
        });
    }
    std::fs::write(&path, &text).unwrap();
    // The reader alone, decoding as it reads.
    let opts = ReadOptions {
        max_record_bytes: 200,
        ..ReadOptions::default()
    };
    let mut src = open_source(&path, None, 0, &opts).unwrap();
    let mut page = Page::default();
    let mut alone = Vec::new();
    while src.next_page(&mut page).unwrap() {
        assert!(page.undecoded.is_none());
        let mut body = page.body.clone();
        body.truncate(40);
        alone.push((page.id.ordinal, page.url.clone(), body));
    }
    let mut expected = src.stats().clone();
    expected.notes.insert(
        cut_note(40),
        alone.iter().filter(|p| p.2.len() == 40).count() as u64,
    );
    assert!(expected.problem_count() >= 10, "{expected:?}");
    assert!(expected.notes[&cut_note(40)] >= 5);
    for threads in [1, 2, 5] {
        let (pages, stats) = read_jsonl(&path, threads, 40);
        assert_eq!(pages, alone, "{threads} threads");
        assert_eq!(
            format!("{stats:?}"),
            format!("{expected:?}"),
            "{threads} threads"
        );
    }
}
