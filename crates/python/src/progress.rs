//! The engine's [`Progress`] as calls of a Python callable, `callback(done_bytes, total_bytes)`,
//! at most every 0.2 s and once at the end of each pass. An exception from the callback is
//! kept and raised when the job returns; the job itself is not stopped half-way.
//!
//! [`PyProgress::run`] runs a job with the GIL released and stops it on Ctrl-C: Python runs
//! signal handlers only on its main thread and only when asked, so the calling thread asks
//! every 50 ms while the job runs on a thread of its own.

use neardup_engine::Progress;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The inputs that `paths=` names, read as the CLI reads them (the library's folder walk,
/// [`neardup_engine::expand`]); files below a folder that are not read and worth a warning
/// become Python warnings after the job.
impl PyProgress {
    pub fn inputs(&self, paths: &[std::path::PathBuf]) -> PyResult<Vec<neardup_engine::Input>> {
        let expanded = neardup_engine::expand(paths, None, false).map_err(crate::engine_err)?;
        for p in expanded.passed_over.iter().filter(|p| p.why.warns()) {
            self.warning(&format!("{}: not read ({})", p.path.display(), p.reason()));
        }
        Ok(expanded.inputs)
    }
}

const EVERY: Duration = Duration::from_millis(200);

/// How often a running job's caller looks for a signal (a Ctrl-C).
const SIGNALS_EVERY: Duration = Duration::from_millis(50);

/// Progress reported to an optional Python callable.
pub struct PyProgress {
    callback: Option<PyObject>,
    total: AtomicU64,
    last: Mutex<Option<Instant>>,
    error: Mutex<Option<PyErr>>,
    warnings: Mutex<Vec<String>>,
    cancelled: AtomicBool,
}

impl PyProgress {
    pub fn new(callback: Option<PyObject>) -> PyProgress {
        PyProgress {
            callback,
            total: AtomicU64::new(0),
            last: Mutex::new(None),
            error: Mutex::new(None),
            warnings: Mutex::new(Vec::new()),
            cancelled: AtomicBool::new(false),
        }
    }

    /// Runs `job` (which reports to this progress) with the GIL released, on a thread of its
    /// own, while this thread looks for signals every 50 ms. When a signal handler raises (a
    /// Ctrl-C's KeyboardInterrupt), the job is told to stop ([`Progress::cancelled`]: it ends
    /// at its next batch, before anything it writes becomes visible), and that exception is
    /// returned once it has stopped.
    pub fn run<T: Send>(&self, py: Python<'_>, job: impl FnOnce() -> T + Send) -> PyResult<T> {
        let (result, interrupted) = py.allow_threads(|| {
            std::thread::scope(|s| {
                let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
                let handle = std::thread::Builder::new()
                    .name("neardup-job".into())
                    .spawn_scoped(s, move || {
                        let r = job();
                        drop(done_tx);
                        r
                    })
                    .map_err(|e| {
                        pyo3::exceptions::PyRuntimeError::new_err(format!(
                            "cannot start the job's thread: {e}"
                        ))
                    })?;
                let mut interrupted = None;
                while let Err(RecvTimeoutError::Timeout) = done_rx.recv_timeout(SIGNALS_EVERY) {
                    if interrupted.is_none() {
                        if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                            self.cancelled.store(true, Ordering::SeqCst);
                            interrupted = Some(e);
                        }
                    }
                }
                match handle.join() {
                    Ok(r) => Ok::<_, PyErr>((r, interrupted)),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            })
        })?;
        match interrupted {
            Some(e) => Err(e),
            None => Ok(result),
        }
    }

    fn call(&self, done: u64) {
        let Some(cb) = &self.callback else { return };
        let total = self.total.load(Ordering::Relaxed);
        Python::with_gil(|py| {
            if let Err(e) = cb.call1(py, (done, total)) {
                let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
                slot.get_or_insert(e);
            }
        });
    }

    /// After the job (GIL held): the engine's warnings as Python warnings, then the first
    /// exception the callback raised, if any.
    pub fn raise(&self) -> PyResult<()> {
        let warnings =
            std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|p| p.into_inner()));
        if !warnings.is_empty() {
            Python::with_gil(|py| -> PyResult<()> {
                let w = py.import_bound("warnings")?;
                for m in warnings {
                    w.call_method1("warn", (m,))?;
                }
                Ok(())
            })?;
        }
        match self.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Progress for PyProgress {
    fn begin(&self, total_bytes: u64) {
        self.total.store(total_bytes, Ordering::Relaxed);
        self.call(0);
    }

    fn position(&self, raw_bytes: u64) {
        if self.callback.is_none() {
            return;
        }
        {
            let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
            if last.is_some_and(|t| t.elapsed() < EVERY) {
                return;
            }
            *last = Some(Instant::now());
        }
        self.call(raw_bytes);
    }

    fn end(&self) {
        self.call(self.total.load(Ordering::Relaxed));
    }

    fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    fn warning(&self, message: &str) {
        self.warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(message.to_string());
    }
}
