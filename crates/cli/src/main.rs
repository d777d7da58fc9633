//! `hb`: inspect, read and write Parquet files with Herringbone.
//!
//! Every command exits 0 on success and 1 with a one-line error on stderr otherwise
//! (`hb verify`: 0 clean, 1 problems, 2 unreadable; `--salvage`: 0 nothing lost, 3 rows
//! dropped, 2 nothing read).
#![forbid(unsafe_code)]
// The doc comments of the command-line arguments are their `--help` text, not rustdoc:
// brackets there (`gzip[:LEVEL]`, `IS [NOT] NULL`) are the usage notation, not links.
#![allow(rustdoc::broken_intra_doc_links)]

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
        #[command(flatten)]
        keys: commands::keys::KeyArgs,
    },
    /// Print the file metadata: row groups and, per column, types, encodings, codec,
    /// sizes and statistics.
    Meta {
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
        /// The Parquet file.
        file: PathBuf,
        #[command(flatten)]
        keys: commands::keys::KeyArgs,
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
        /// Skip this many rows first.
        #[arg(long, value_name = "N", default_value_t = 0)]
        offset: usize,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: commands::cat::Format,
        /// Read on past damage: print the rows that survive, list what was lost on
        /// stderr; exit 0 nothing lost, 3 rows dropped, 2 nothing readable.
        #[arg(long)]
        salvage: bool,
    },
    /// Print the first rows of a Parquet file (like `hb cat --limit N`).
    Head {
        /// The Parquet file.
        file: PathBuf,
        /// Rows to print.
        #[arg(short = 'n', long = "rows", value_name = "N", default_value_t = 10)]
        rows: usize,
        #[command(flatten)]
        read: commands::reading::ReadArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: commands::cat::Format,
        /// Read on past damage, as `hb cat --salvage` does.
        #[arg(long)]
        salvage: bool,
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
        /// Read on past damage: scan the rows that survive, list what was lost on
        /// stderr; exit 0 nothing lost, 3 rows dropped, 2 nothing readable.
        #[arg(long)]
        salvage: bool,
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
        write: Box<commands::writing::WriteArgs>,
        #[command(flatten)]
        encrypt: commands::keys::EncryptArgs,
        #[command(flatten)]
        csv: commands::convert::CsvArgs,
        /// Read a Parquet input on past damage: convert the rows that survive, list what
        /// was lost on stderr; exit 0 nothing lost, 3 rows dropped, 2 nothing readable.
        #[arg(long)]
        salvage: bool,
    },
    /// Write a Parquet file again with other writer settings, keeping its rows and
    /// key-value metadata (streaming: memory follows one row group).
    Rewrite {
        /// The Parquet file to read.
        input: PathBuf,
        /// The Parquet file to write.
        output: PathBuf,
        #[command(flatten)]
        read: commands::reading::ReadArgs,
        #[command(flatten)]
        write: commands::writing::WriteArgs,
        /// Read the input on past damage: write the rows that survive (a clean file),
        /// list what was lost on stderr; exit 0 nothing lost, 3 rows dropped, 2 nothing
        /// readable.
        #[arg(long)]
        salvage: bool,
    },
    /// Rebuild a file whose footer is missing, truncated or corrupt: every row group
    /// whose pages all decode is written to OUT; what was dropped is listed.
    Recover {
        /// The damaged file.
        input: PathBuf,
        /// The file to write.
        output: PathBuf,
        /// The schema, when the footer has none left: a text schema file or a Parquet
        /// file with the same schema.
        #[arg(long, value_name = "FILE")]
        schema: Option<PathBuf>,
    },
    /// Concatenate Parquet files with the same schema: column chunks are copied as they
    /// are when the inputs allow and no writer option is given, else rows re-encoded.
    Merge {
        /// The Parquet file to write.
        output: PathBuf,
        /// The Parquet files to concatenate, in order.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        write: commands::writing::WriteArgs,
        /// Keys: decrypt encrypted inputs (re-encoded) and encrypt the output.
        #[command(flatten)]
        keys: commands::keys::KeyArgs,
        #[command(flatten)]
        encrypt: commands::keys::EncryptArgs,
    },
    /// Print every page of every column chunk: offset, type, encoding, sizes, values,
    /// nulls, rows, statistics, CRC.
    Pages {
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
        /// The Parquet file.
        file: PathBuf,
        /// Keys of an encrypted file: the page headers of encrypted chunks are decrypted.
        #[command(flatten)]
        keys: commands::keys::KeyArgs,
    },
    /// Check everything a file promises (pages, CRCs, decoding, counts, statistics,
    /// page index, Bloom filters, sort order); exit 0 clean, 1 problems, 2 unreadable.
    Verify {
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
        /// Skip reading every row group through the Arrow reader.
        #[arg(long)]
        no_arrow: bool,
        /// The Parquet files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Keys of encrypted files: the footer and every encrypted module are checked to
        /// authenticate, then checked like a plaintext file's.
        #[command(flatten)]
        keys: commands::keys::KeyArgs,
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
    // Commands that report through the exit status (hb verify) set it here.
    let mut status = 0u8;
    let result = match cli.command {
        Command::Demo { rows } => commands::demo::run(rows as usize, &mut out),
        Command::Schema { file, keys } => commands::schema::run(&file, &keys, &mut out),
        Command::Meta { json, file, keys } => commands::meta::run(&file, json, &keys, &mut out),
        Command::Cat {
            file,
            mut read,
            limit,
            all,
            offset,
            format,
            salvage,
        } => {
            let rows = match (limit, all) {
                (Some(n), _) => commands::cat::Rows::Limit(n),
                (None, true) => commands::cat::Rows::All,
                (None, false) => commands::cat::Rows::Default,
            };
            let log = salvage.then(commands::salvage::SalvageLog::default);
            read.salvage = log.clone();
            let result = commands::cat::run(&file, &read, offset, rows, format, &mut out);
            salvaged(log, result, &mut out, &mut status)
        }
        Command::Head {
            file,
            rows,
            mut read,
            format,
            salvage,
        } => {
            let log = salvage.then(commands::salvage::SalvageLog::default);
            read.salvage = log.clone();
            let result = commands::head::run(&file, &read, rows, format, &mut out);
            salvaged(log, result, &mut out, &mut status)
        }
        Command::Scan {
            file,
            mut read,
            batch_size,
            salvage,
        } => {
            let log = salvage.then(commands::salvage::SalvageLog::default);
            read.salvage = log.clone();
            let result = commands::scan::run(&file, &read, batch_size as usize, &mut out);
            salvaged(log, result, &mut out, &mut status)
        }
        Command::Convert {
            input,
            output,
            mut read,
            write,
            encrypt,
            csv,
            salvage,
        } => {
            let log = salvage.then(commands::salvage::SalvageLog::default);
            read.salvage = log.clone();
            let result =
                commands::convert::run(&input, &output, &read, &write, &encrypt, &csv, &mut out);
            salvaged(log, result, &mut out, &mut status)
        }
        Command::Variant { metadata, value } => commands::variant::run(&metadata, &value, &mut out),
        Command::Rewrite {
            input,
            output,
            mut read,
            write,
            salvage,
        } => {
            let log = salvage.then(commands::salvage::SalvageLog::default);
            read.salvage = log.clone();
            let result = commands::rewrite::run(&input, &output, &read, &write, &mut out);
            salvaged(log, result, &mut out, &mut status)
        }
        Command::Recover {
            input,
            output,
            schema,
        } => commands::recover::run(&input, &output, schema.as_deref(), &mut out),
        Command::Merge {
            output,
            inputs,
            write,
            keys,
            encrypt,
        } => commands::merge::run(&output, &inputs, &write, &keys, &encrypt, &mut out),
        Command::Pages { json, file, keys } => commands::pages::run(&file, json, &keys, &mut out),
        Command::Verify {
            json,
            no_arrow,
            files,
            keys,
        } => {
            commands::verify::run(&files, json, no_arrow, &keys, &mut out).map(|code| status = code)
        }
    };
    let result = result.and_then(|()| out.flush().map_err(|e| format!("writing output: {e}")));
    match result {
        Ok(()) => ExitCode::from(status),
        Err(message) => {
            let first_line = message.lines().next().unwrap_or("error");
            eprintln!("hb: {first_line}");
            ExitCode::FAILURE
        }
    }
}

/// The result of a command run with `--salvage` (`log` set): its output flushed, the
/// losses printed and the exit status set; errors then exit 2 rather than 1.
fn salvaged(
    log: Option<commands::salvage::SalvageLog>,
    result: Result<(), String>,
    out: &mut dyn Write,
    status: &mut u8,
) -> Result<(), String> {
    let Some(log) = log else {
        return result;
    };
    // The rows go out before the report, so that a terminal shows the report last.
    let result = result.and_then(|()| out.flush().map_err(|e| format!("writing output: {e}")));
    *status = log.finish(result);
    Ok(())
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
