//! The async stream's parallel decode: each file read whole through `ObjectStoreReader`
//! over object_store's local file system, with `with_threads(1)` and
//! `with_threads(2)` alternating (the first of each round swaps), batches kept until the
//! read ends; prints per file the median wall time of each and the median of the
//! rounds' paired ratios.
//!
//! ```sh
//! cargo build --release -p herringbone-benches --features async --bin async_threads
//! target/release/async_threads ROUNDS FILE...
//! ```

use std::sync::Arc;
use std::time::Instant;

use futures::TryStreamExt;
use herringbone::async_read::{ObjectStoreReader, ParquetRecordBatchStreamBuilder};
use object_store::local::LocalFileSystem;
use object_store::path::Path;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (rounds, files) = match args.split_first() {
        Some((rounds, files)) if !files.is_empty() => (
            rounds
                .parse::<usize>()
                .map_err(|e| format!("rounds: {e}"))?,
            files,
        ),
        _ => return Err("usage: async_threads ROUNDS FILE...".into()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let store = Arc::new(LocalFileSystem::new());
    for file in files {
        let absolute = std::fs::canonicalize(file).map_err(|e| format!("{file}: {e}"))?;
        let path = Path::from_absolute_path(&absolute).map_err(|e| format!("{file}: {e}"))?;
        let size = std::fs::metadata(&absolute)
            .map_err(|e| format!("{file}: {e}"))?
            .len();
        let read = |threads: usize| -> Result<f64, String> {
            let reader = ObjectStoreReader::new(store.clone(), path.clone());
            let start = Instant::now();
            let batches = runtime.block_on(async {
                ParquetRecordBatchStreamBuilder::try_new(reader, size)
                    .await?
                    .with_threads(threads)
                    .build()?
                    .try_collect::<Vec<_>>()
                    .await
            });
            let ms = start.elapsed().as_secs_f64() * 1e3;
            batches.map_err(|e| format!("{file}: {e}"))?;
            Ok(ms)
        };
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            if round % 2 == 0 {
                one.push(read(1)?);
                two.push(read(2)?);
            } else {
                two.push(read(2)?);
                one.push(read(1)?);
            }
        }
        let mut ratios: Vec<f64> = two.iter().zip(&one).map(|(t, o)| t / o).collect();
        println!(
            "| {} | {:.0} | {:.0} | {:.2} |",
            file.rsplit('/').next().unwrap_or(file),
            median(&mut one),
            median(&mut two),
            median(&mut ratios)
        );
    }
    Ok(())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}
