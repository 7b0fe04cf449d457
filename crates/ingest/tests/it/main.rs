//! The readers' integration tests, one binary (a module a file): every format on real files, and
//! property tests against damaged and re-framed input.

mod members;
mod props;
mod readers;
