//! The benchmark suite's Rust side: Herringbone and arrow-rs reading and writing whole
//! files, timed in-process. `scripts/bench_suite.py` generates the files, drives this
//! binary and the Python peers (pyarrow, polars, DuckDB) in paired rounds and prints the
//! tables; see docs/benchmarks.md for the command.
//!
//! ```text
//! suite serve                         JSON requests on stdin, one JSON answer a line
//! suite read READER FILE [--views] [--batch-size N] [--threads N] [--mmap] [--repeat N]
//!                                     one whole-file read, with this process's peak
//!                                     RSS (the peak-memory figure)
//! suite check FILE [--views]          Herringbone's batches against arrow-rs's
//! suite write WRITER IN.arrow OUT.parquet [--delta] [--row-group-rows N] [--repeat N]
//! suite footer FILE [--rounds N]      footer decode, paired rounds
//! suite noop                          nothing (the baseline of the peak-memory figure)
//! ```
//!
//! READER and WRITER are `herringbone` or `arrow-rs`. Every answer is one JSON object,
//! `{"error": "..."}` when the operation failed.

#[cfg(feature = "count-allocations")]
mod allocations;
mod footer;
mod read;
mod write;

#[cfg(feature = "count-allocations")]
#[global_allocator]
static ALLOCATOR: allocations::Counting = allocations::Counting;

/// Allocation calls and bytes so far (zero without the `count-allocations` feature).
fn allocations_so_far() -> (u64, u64) {
    #[cfg(feature = "count-allocations")]
    return allocations::so_far();
    #[cfg(not(feature = "count-allocations"))]
    (0, 0)
}

use std::io::{BufRead, Write as _};
use std::time::Instant;

use serde_json::{Value, json};

use read::{ReadOptions, Reader};
use write::{Layout, Table, Writer};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let answer = match run(&args) {
        Ok(Some(answer)) => answer,
        Ok(None) => return,
        Err(e) => json!({ "error": e }),
    };
    println!("{answer}");
    if answer.get("error").is_some() {
        std::process::exit(1);
    }
}

fn run(args: &[String]) -> Result<Option<Value>, String> {
    let command = args.first().map(String::as_str).unwrap_or("");
    let rest = Args::new(&args[args.len().min(1)..]);
    match command {
        "serve" => serve().map(|()| None),
        "read" => {
            let reader = Reader::parse(rest.positional(0)?)?;
            // --repeat N: N reads in a row (for a profiler), the last one answered.
            let mut answer = json!({});
            for _ in 0..rest.number("--repeat")?.unwrap_or(1).max(1) {
                answer = timed_read(reader, rest.positional(1)?, rest.read_options()?)?;
            }
            answer["peak_rss"] = json!(peak_rss());
            Ok(Some(answer))
        }
        "check" => {
            let rows = read::check(rest.positional(0)?, rest.read_options()?)?;
            Ok(Some(json!({ "rows": rows })))
        }
        "write" => {
            let writer = Writer::parse(rest.positional(0)?)?;
            let table = Table::load(rest.positional(1)?)?;
            let layout = Layout {
                delta: rest.flag("--delta"),
                row_group_rows: rest.number("--row-group-rows")?,
            };
            // --repeat N: N writes in a row (for a profiler), the last one answered.
            let mut answer = json!({});
            for _ in 0..rest.number("--repeat")?.unwrap_or(1).max(1) {
                answer = timed_write(writer, &table, rest.positional(2)?, layout)?;
            }
            Ok(Some(answer))
        }
        "footer" => {
            let rounds = rest.number("--rounds")?.unwrap_or(100);
            let (ours, theirs, bytes) = footer::rounds(rest.positional(0)?, rounds)?;
            Ok(Some(
                json!({ "herringbone_ns": ours, "arrow_rs_ns": theirs, "footer_bytes": bytes }),
            ))
        }
        "noop" => Ok(Some(json!({ "peak_rss": peak_rss() }))),
        other => Err(format!(
            "unknown command {other:?}: serve, read, check, write, footer or noop \
             (see the module documentation of benches/src/bin/suite/main.rs)"
        )),
    }
}

/// This process's peak resident set in bytes (`VmHWM`: its own high-water mark since
/// exec; a child's `ru_maxrss` would include the parent's RSS at fork), if Linux says.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// CPU time of this process (all its threads) in nanoseconds.
fn cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant Linux and
    // POSIX define, so the call only writes `t`.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return 0;
    }
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn timed_read(reader: Reader, path: &str, options: ReadOptions) -> Result<Value, String> {
    let allocated = allocations_so_far();
    let (start, cpu) = (Instant::now(), cpu_ns());
    let batches = read::read(reader, path, options)?;
    let (ns, cpu) = (start.elapsed().as_nanos() as u64, cpu_ns() - cpu);
    let (calls, bytes) = allocations_so_far();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    // What the returned arrays hold (buffer capacities, shared buffers counted once per
    // array): beside the peak RSS, it tells the batches' own size from the read's scratch.
    let array_bytes: usize = batches.iter().map(|b| b.get_array_memory_size()).sum();
    let columns = batches.first().map_or(0, |b| b.num_columns());
    let column_bytes: Vec<usize> = (0..columns)
        .map(|c| {
            batches
                .iter()
                .map(|b| b.column(c).get_array_memory_size())
                .sum()
        })
        .collect();
    Ok(json!({
        "ns": ns,
        "cpu_ns": cpu,
        "rows": rows,
        "batches": batches.len(),
        "array_bytes": array_bytes,
        "column_bytes": column_bytes,
        // With the `count-allocations` feature: the read's allocation calls and bytes.
        "allocations": calls - allocated.0,
        "allocated_bytes": bytes - allocated.1,
    }))
}

fn timed_write(writer: Writer, table: &Table, path: &str, layout: Layout) -> Result<Value, String> {
    // A new file, as a writer usually makes: overwriting the last round's output would
    // time the kernel truncating it (and ext4 flushing the rewrite on close), the same
    // cost for every writer and none of its own work.
    remove_previous_output(path)?;
    let (start, cpu) = (Instant::now(), cpu_ns());
    let bytes = write::write(writer, table, path, layout)?;
    let (ns, cpu) = (start.elapsed().as_nanos() as u64, cpu_ns() - cpu);
    Ok(json!({ "ns": ns, "cpu_ns": cpu, "bytes": bytes, "rows": table.num_rows() }))
}

/// Removes `path` if it exists (untimed, before a write).
fn remove_previous_output(path: &str) -> Result<(), String> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("{path}: {e}")),
        _ => Ok(()),
    }
}

/// Answers JSON requests from stdin, one a line, until stdin closes:
/// `{"op": "read", "reader": R, "path": P, "views": bool, "batch_size": n, "threads": n}`
/// and `{"op": "write", "writer": W, "input": IPC, "output": P}` (the last input table is
/// kept loaded between requests).
fn serve() -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut table: Option<(String, Table)> = None;
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = answer(&line, &mut table).unwrap_or_else(|e| json!({ "error": e }));
        writeln!(stdout, "{answer}").map_err(|e| e.to_string())?;
        stdout.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn answer(line: &str, table: &mut Option<(String, Table)>) -> Result<Value, String> {
    let request: Value = serde_json::from_str(line).map_err(|e| format!("bad request: {e}"))?;
    let text = |key: &str| -> Result<&str, String> {
        request[key]
            .as_str()
            .ok_or_else(|| format!("request without {key:?}"))
    };
    match text("op")? {
        "read" => {
            let options = ReadOptions {
                views: request["views"].as_bool().unwrap_or(false),
                batch_size: request["batch_size"].as_u64().map(|n| n as usize),
                threads: request["threads"].as_u64().unwrap_or(1) as usize,
                mmap: request["mmap"].as_bool().unwrap_or(false),
            };
            timed_read(Reader::parse(text("reader")?)?, text("path")?, options)
        }
        "write" => {
            let input = text("input")?;
            if table.as_ref().is_none_or(|(path, _)| path != input) {
                // Drop the previous table before loading the next one.
                *table = None;
                *table = Some((input.to_string(), Table::load(input)?));
            }
            let (_, loaded) = table.as_ref().expect("loaded above");
            let writer = Writer::parse(text("writer")?)?;
            timed_write(writer, loaded, text("output")?, Layout::default())
        }
        other => Err(format!("unknown op {other:?}")),
    }
}

/// Command-line arguments after the command: positionals and `--name [value]` options.
struct Args<'a> {
    args: &'a [String],
}

impl<'a> Args<'a> {
    const WITH_VALUE: &'static [&'static str] = &[
        "--batch-size",
        "--threads",
        "--row-group-rows",
        "--rounds",
        "--repeat",
    ];

    fn new(args: &'a [String]) -> Self {
        Self { args }
    }

    fn positional(&self, index: usize) -> Result<&'a str, String> {
        let mut positionals = Vec::new();
        let mut i = 0;
        while i < self.args.len() {
            let a = &self.args[i];
            if Self::WITH_VALUE.contains(&a.as_str()) {
                i += 2;
                continue;
            }
            if !a.starts_with("--") {
                positionals.push(a.as_str());
            }
            i += 1;
        }
        positionals
            .get(index)
            .copied()
            .ok_or_else(|| format!("missing argument {}", index + 1))
    }

    fn flag(&self, name: &str) -> bool {
        self.args.iter().any(|a| a == name)
    }

    fn number(&self, name: &str) -> Result<Option<usize>, String> {
        match self.args.iter().position(|a| a == name) {
            None => Ok(None),
            Some(i) => self
                .args
                .get(i + 1)
                .and_then(|v| v.parse().ok())
                .map(Some)
                .ok_or_else(|| format!("{name} needs a number")),
        }
    }

    fn read_options(&self) -> Result<ReadOptions, String> {
        Ok(ReadOptions {
            views: self.flag("--views"),
            batch_size: self.number("--batch-size")?,
            threads: self.number("--threads")?.unwrap_or(1),
            mmap: self.flag("--mmap"),
        })
    }
}
