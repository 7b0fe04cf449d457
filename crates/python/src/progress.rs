//! The engine's [`Progress`] as calls of a Python callable, `callback(done_bytes, total_bytes)`,
//! at most every 0.2 s and once at the end of each pass. An exception from the callback is
//! kept and raised when the job returns; the job itself is not stopped half-way.

use neardup_engine::Progress;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const EVERY: Duration = Duration::from_millis(200);

/// Progress reported to an optional Python callable.
pub struct PyProgress {
    callback: Option<PyObject>,
    total: AtomicU64,
    last: Mutex<Option<Instant>>,
    error: Mutex<Option<PyErr>>,
    warnings: Mutex<Vec<String>>,
}

impl PyProgress {
    pub fn new(callback: Option<PyObject>) -> PyProgress {
        PyProgress {
            callback,
            total: AtomicU64::new(0),
            last: Mutex::new(None),
            error: Mutex::new(None),
            warnings: Mutex::new(Vec::new()),
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

    fn warning(&self, message: &str) {
        self.warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(message.to_string());
    }
}
