//! One module per `hb` subcommand. Each exposes `run(...) -> Result<(), String>`
//! that writes to the given output; the error string is the one-line message.

pub mod variant;
