//! The slots' threads are batch work to the kernel's scheduler.
//!
//! A lookup or an add costs CPU in proportion to its body (a 170 KB page ~2 ms), while the
//! runtime's threads, which read requests and write answers, run for microseconds at a time
//! and wait on sockets in between. Under load the two compete for the same cores, and a
//! runtime thread woken to answer could wait for a slot's thread to use up its time slice.
//! `SCHED_BATCH` says that a thread is not interactive: it keeps its CPU share (the same
//! weight as any thread of its nice value) but does not preempt others when it wakes, so the
//! runtime's threads get the core when a request or an answer is ready (on 2 cores, 16
//! clients: the p99 a seventh lower, bench/results/serve-batch-2026-12-01.md).
//!
//! Any thread may lower its own scheduling class this way without privileges; the blocking
//! pool's threads only ever run slot work and the service's status and refresh tasks, so
//! none is left batch for other work. Elsewhere than Linux, or where the call is refused (a
//! seccomp filter), threads stay as they are: a scheduling hint, never an error.
#![allow(unsafe_code)]

use std::cell::Cell;

thread_local! {
    static MARKED: Cell<bool> = const { Cell::new(false) };
}

/// Marks the calling thread as batch work, once per thread.
pub(crate) fn mark_current() {
    if MARKED.with(|m| m.replace(true)) {
        return;
    }
    set_batch();
}

#[cfg(target_os = "linux")]
fn set_batch() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler reads the struct passed and changes only the calling thread
    // (pid 0); SCHED_BATCH with priority 0 is always valid and needs no privilege.
    unsafe {
        libc::sched_setscheduler(0, libc::SCHED_BATCH, &param);
    }
}

#[cfg(not(target_os = "linux"))]
fn set_batch() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The calling thread's scheduling policy.
    fn policy() -> i32 {
        // SAFETY: sched_getscheduler only reads the calling thread's policy.
        unsafe { libc::sched_getscheduler(0) }
    }

    #[test]
    fn a_marked_thread_is_batch_and_others_are_not() {
        std::thread::spawn(|| {
            assert_eq!(policy(), libc::SCHED_OTHER);
            super::mark_current();
            assert_eq!(policy(), libc::SCHED_BATCH);
            super::mark_current();
            assert_eq!(policy(), libc::SCHED_BATCH);
        })
        .join()
        .unwrap();
        std::thread::spawn(|| assert_eq!(policy(), libc::SCHED_OTHER))
            .join()
            .unwrap();
    }
}
