//! `hb`: inspect, read and write Parquet files with Herringbone.
//!
//! Every command exits 0 on success and 1 with a one-line error on stderr otherwise.

mod commands;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "hb", version, about = "Herringbone: Arrow-native Apache Parquet")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the JSON of a Variant given its metadata and value blobs.
    Variant {
        /// File holding the Variant metadata bytes.
        metadata: PathBuf,
        /// File holding the Variant value bytes.
        value: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Variant { metadata, value } => {
            commands::variant::run(&metadata, &value, &mut out)
        }
    };
    let result = result.and_then(|()| out.flush().map_err(|e| format!("writing output: {e}")));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            let first_line = message.lines().next().unwrap_or("error");
            eprintln!("hb: {first_line}");
            ExitCode::FAILURE
        }
    }
}
