//! The writer thread (commits adds in groups, then merges segments in tiers) and a read-only
//! service's refresher (reopens the index when another process commits).

use crate::metrics::Metrics;
use crate::state::{AddJob, App, CommitFailed};
use neardup_index::{Added, NewPage, Snapshot, Writer};
use std::sync::{Arc, RwLock};

/// The writer thread: takes every job waiting (up to `max` pages), commits consecutive jobs
/// of one label as one group, answers each job, publishes the new snapshot, then merges
/// small segments when they pile up; ends when the queue closes and is empty.
pub(crate) fn write_loop(
    mut w: Writer,
    jobs: std::sync::mpsc::Receiver<AddJob>,
    cell: &RwLock<Arc<Snapshot>>,
    metrics: &Metrics,
    max: usize,
) {
    use std::sync::atomic::Ordering::SeqCst;
    let publish = |w: &Writer| {
        *cell.write().unwrap_or_else(|p| p.into_inner()) = w.snapshot().clone();
    };
    while let Ok(job) = jobs.recv() {
        let mut taken = job.pages.len();
        let mut group = vec![job];
        while taken < max {
            match jobs.try_recv() {
                Ok(j) => {
                    taken += j.pages.len();
                    group.push(j);
                }
                Err(_) => break,
            }
        }
        let mut group = group.into_iter().peekable();
        while let Some(first) = group.next() {
            let mut same = vec![first];
            while let Some(j) = group.next_if(|j| j.label == same[0].label) {
                same.push(j);
            }
            let pages: Vec<NewPage> = same
                .iter_mut()
                .flat_map(|j| std::mem::take(&mut j.pages))
                .collect();
            let counts: Vec<usize> = same.iter().map(|j| j.reply_len).collect();
            match w.add(&same[0].label, &pages) {
                Ok(added) => {
                    publish(&w);
                    metrics.commits.fetch_add(1, SeqCst);
                    let n = added
                        .iter()
                        .filter(|a| matches!(a, Added::Added(_)))
                        .count();
                    metrics.added.fetch_add(n as u64, SeqCst);
                    let mut added = added.into_iter();
                    for (j, n) in same.into_iter().zip(counts) {
                        let _ = j.reply.send(Ok(added.by_ref().take(n).collect()));
                    }
                }
                Err(e) => {
                    metrics.error("commit");
                    for j in same {
                        let _ = j.reply.send(Err(CommitFailed::of(&e)));
                    }
                }
            }
        }
        match w.maintain() {
            Ok(Some(_)) => {
                publish(&w);
                metrics.merges.fetch_add(1, SeqCst);
            }
            Ok(None) => {}
            Err(e) => {
                metrics.error("merge");
                eprintln!("neardup serve: merging segments: {e}");
            }
        }
    }
}

/// A read-only service's refresher: opens the index's newer manifest when another process
/// committed one (readers keep the snapshot they hold).
pub(crate) async fn refresh_loop(app: Arc<App>) {
    loop {
        tokio::time::sleep(app.config.refresh).await;
        let app = app.clone();
        let _ = tokio::task::spawn_blocking(move || {
            let now = app.snap();
            match app.index.manifest() {
                Ok(m) if m.generation != now.manifest().generation => {
                    match app.index.refreshed(&now, m) {
                        Ok(s) => {
                            *app.snap.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(s);
                            app.metrics
                                .reopened
                                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                        Err(e) => {
                            app.metrics.error("refresh");
                            eprintln!("neardup serve: opening the index's new snapshot: {e}");
                        }
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    app.metrics.error("refresh");
                    eprintln!("neardup serve: reading the index's manifest: {e}");
                }
            }
        })
        .await;
    }
}
