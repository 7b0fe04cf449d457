//! The engine's integration tests, one binary (a module a file, as ripgrep's and uv's `tests/it`):
//! each test binary is linked on its own, so a list of modules links once.

mod common;
mod dedup;
mod kept;
mod library;
mod overlap;
mod tables;
