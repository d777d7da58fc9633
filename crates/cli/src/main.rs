//! `hb`: inspect, read and write Parquet files with Herringbone.
//!
//! Every command exits 0 on success and 1 with a one-line error on stderr otherwise.

mod commands;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "hb",
    version,
    about = "Herringbone: Arrow-native Apache Parquet"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show what Herringbone reads from an embedded sample file (no input needed).
    Demo,
    /// Print the schema of a Parquet file as text (`message schema { ... }`).
    Schema {
        /// The Parquet file.
        file: PathBuf,
    },
    /// Print the file metadata: row groups and, per column, types, encodings, codec,
    /// sizes and statistics.
    Meta {
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
        /// The Parquet file.
        file: PathBuf,
    },
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
        Command::Demo => commands::demo::run(&mut out),
        Command::Schema { file } => commands::schema::run(&file, &mut out),
        Command::Meta { json, file } => commands::meta::run(&file, json, &mut out),
        Command::Variant { metadata, value } => commands::variant::run(&metadata, &value, &mut out),
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
