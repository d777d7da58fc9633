//! `hb`: inspect, read and write Parquet files with Herringbone.
//!
//! Every command exits 0 on success and 1 with a one-line error on stderr otherwise.
#![forbid(unsafe_code)]

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
    /// Generate a table of orders in memory, write it as Parquet, read part of it back
    /// and verify it; prints the schema, a preview, sizes and throughput (no input needed).
    Demo {
        /// Rows to generate.
        #[arg(long, value_name = "N", default_value_t = 2_000_000,
              value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        rows: u64,
    },
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
    /// Print the rows of a Parquet file as a table, CSV or JSON lines.
    Cat {
        /// The Parquet file.
        file: PathBuf,
        #[command(flatten)]
        read: commands::reading::ReadArgs,
        /// Print at most this many rows (the table's default is 20).
        #[arg(long, value_name = "N", conflicts_with = "all")]
        limit: Option<usize>,
        /// Print every row (the table's default is the first 20).
        #[arg(long)]
        all: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: commands::cat::Format,
    },
    /// Decode every row and report rows, batches, bytes and throughput.
    Scan {
        /// The Parquet file.
        file: PathBuf,
        #[command(flatten)]
        read: commands::reading::ReadArgs,
        /// Rows per batch.
        #[arg(long, value_name = "N", default_value_t = 8192,
              value_parser = clap::value_parser!(u32).range(1..))]
        batch_size: u32,
    },
    /// Convert between Parquet, Arrow IPC files (.arrow, .ipc, .feather), CSV (.csv) and
    /// JSON lines (.jsonl, .ndjson), by extension; writer options apply to Parquet output.
    Convert {
        /// The file to read; its extension picks the format.
        input: PathBuf,
        /// The file to write; its extension picks the format.
        output: PathBuf,
        #[command(flatten)]
        read: commands::reading::ReadArgs,
        #[command(flatten)]
        write: commands::writing::WriteArgs,
        #[command(flatten)]
        csv: commands::convert::CsvArgs,
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Demo { rows } => commands::demo::run(rows as usize, &mut out),
        Command::Schema { file } => commands::schema::run(&file, &mut out),
        Command::Meta { json, file } => commands::meta::run(&file, json, &mut out),
        Command::Cat {
            file,
            read,
            limit,
            all,
            format,
        } => {
            let rows = match (limit, all) {
                (Some(n), _) => commands::cat::Rows::Limit(n),
                (None, true) => commands::cat::Rows::All,
                (None, false) => commands::cat::Rows::Default,
            };
            commands::cat::run(&file, &read, rows, format, &mut out)
        }
        Command::Scan {
            file,
            read,
            batch_size,
        } => commands::scan::run(&file, &read, batch_size as usize, &mut out),
        Command::Convert {
            input,
            output,
            read,
            write,
            csv,
        } => commands::convert::run(&input, &output, &read, &write, &csv, &mut out),
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

/// `--help` and `--version` print as clap does; a usage error becomes the same one-line
/// `hb: ...` message and exit status 1 as every other bad input.
fn usage_error(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        error.exit();
    }
    let text = error.render().to_string();
    let message = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information") && *l != "Usage:")
        .filter(|l| !l.starts_with("Usage: "))
        .collect::<Vec<_>>()
        .join(" ");
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    eprintln!("hb: {message}");
    ExitCode::FAILURE
}
