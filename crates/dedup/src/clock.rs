//! The wall and CPU seconds of a run's stages: what a run on many cores spends where, and
//! whether a stage keeps its threads busy (CPU seconds over wall seconds near the thread count)
//! or runs on one of them (near 1).

use serde::Serialize;
use std::time::Instant;

/// One stage of a run: its name, wall seconds and the process's CPU seconds in it (every
/// thread's, user and system).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StageTime {
    /// The stage (`read+sketch`, `identity-sets`, `candidates`, `scoring`, `clustering`,
    /// `rows`, ...).
    pub stage: String,
    /// Wall seconds.
    pub wall_seconds: f64,
    /// CPU seconds of the whole process while the stage ran.
    pub cpu_seconds: f64,
}

/// A stopwatch of wall and process CPU time, read lap by lap.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    wall: Instant,
    cpu: f64,
}

impl Clock {
    /// Starts counting now.
    pub fn start() -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: process_cpu_seconds(),
        }
    }

    /// The time since the start (or the last lap) as stage `name`; counting starts again.
    pub fn lap(&mut self, name: &str) -> StageTime {
        let now = Clock::start();
        let t = StageTime {
            stage: name.to_string(),
            wall_seconds: now.wall.duration_since(self.wall).as_secs_f64(),
            cpu_seconds: (now.cpu - self.cpu).max(0.0),
        };
        *self = now;
        t
    }
}

/// CPU seconds this process has used so far, all threads together (0 where the platform does
/// not say).
#[cfg(unix)]
pub fn process_cpu_seconds() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// CPU seconds this process has used so far (0 where the platform does not say).
#[cfg(not(unix))]
pub fn process_cpu_seconds() -> f64 {
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lap of busy work counts CPU time, and laps follow each other without overlap.
    #[test]
    fn laps_count_cpu_and_wall() {
        let mut clock = Clock::start();
        let mut x = 0u64;
        let t0 = Instant::now();
        while t0.elapsed().as_millis() < 30 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let a = clock.lap("busy");
        assert_eq!(a.stage, "busy");
        assert!(a.wall_seconds >= 0.03);
        assert!(a.cpu_seconds > 0.01, "{a:?}");
        let b = clock.lap("idle");
        assert!(b.wall_seconds < a.wall_seconds);
    }
}
