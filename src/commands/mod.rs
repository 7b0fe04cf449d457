//! One module per subcommand.

pub mod scan;
