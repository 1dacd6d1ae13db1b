//! How many bytes a file takes on the wire: raw, gzip at its highest level (flate2), the figure
//! size guards compare against, and brotli at its highest quality, for information.

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::Result;

/// A file's size, raw and compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    pub raw: u64,
    pub gzip: u64,
}

impl Sizes {
    /// The sizes of `bytes`.
    pub fn of(bytes: &[u8]) -> Sizes {
        Sizes {
            raw: bytes.len() as u64,
            gzip: gzip_len(bytes),
        }
    }

    /// The sizes of the file at `path`.
    pub fn of_file(path: &Path) -> Result<Sizes> {
        let bytes = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        Ok(Sizes::of(&bytes))
    }
}

/// The length of `bytes` gzipped at level 9, as a server that compresses ahead of time would.
fn gzip_len(bytes: &[u8]) -> u64 {
    let mut gz = GzEncoder::new(Counter(0), Compression::best());
    // Writing into a counter cannot fail.
    gz.write_all(bytes).expect("counting bytes");
    gz.finish().expect("counting bytes").0
}

/// The length of the file at `path` compressed by brotli at quality 11, by Node's zlib (Google's
/// encoder). Node is there for every task that builds wasm; the pure-Rust encoder would add
/// seconds per module to xtask's unoptimized runs and to its build.
pub fn brotli_len(path: &Path) -> Result<u64> {
    let script = "const z=require('node:zlib'),b=require('node:fs').readFileSync(process.argv[1]);\
        process.stdout.write(String(z.brotliCompressSync(b,\
        {params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length))";
    let out = crate::tools::Cmd::new("node")
        .args(["-e", script])
        .arg(path)
        .output()?;
    out.trim()
        .parse()
        .map_err(|_| format!("brotli size of {}: node printed `{out}`", path.display()))
}

/// A sink that only counts what it is given.
struct Counter(u64);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A size in kilobytes with one decimal, for reports.
pub fn kb(n: u64) -> String {
    format!("{:.1} KB", n as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn gzip_length_is_that_of_a_stream_that_decompresses_to_the_input() {
        // Repetitive text compresses far below its size; the exact stream decodes back to it.
        let text =
            "A acquires 33, pauses; B acquires 34 and writes; A's 33 is refused.\n".repeat(200);
        let sizes = Sizes::of(text.as_bytes());
        assert_eq!(sizes.raw, text.len() as u64);
        let mut gz = GzEncoder::new(Vec::new(), Compression::best());
        gz.write_all(text.as_bytes()).unwrap();
        let stream = gz.finish().unwrap();
        assert_eq!(sizes.gzip, stream.len() as u64);
        assert!(sizes.gzip < sizes.raw / 20, "{sizes:?}");
        let mut back = String::new();
        flate2::read::GzDecoder::new(stream.as_slice())
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, text);
        // Nothing is still a gzip stream: a 10-byte header, an empty block, an 8-byte trailer.
        assert_eq!(Sizes::of(b""), Sizes { raw: 0, gzip: 20 });
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let e = Sizes::of_file(Path::new("/nonexistent/fencepost.wasm")).unwrap_err();
        assert!(
            e.starts_with("reading /nonexistent/fencepost.wasm: "),
            "{e}"
        );
    }

    /// Node's brotli, on a file: far smaller than the repetitive text it holds.
    #[test]
    fn brotli_length_comes_from_node() {
        let dir = std::env::temp_dir().join(format!("xtask-sizes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("text");
        std::fs::write(&path, "token 34 beats token 33\n".repeat(400)).unwrap();
        let br = brotli_len(&path).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert!((1..100).contains(&br), "{br}");
        assert!(brotli_len(Path::new("/nonexistent/x.wasm")).is_err());
    }

    #[test]
    fn kilobytes_have_one_decimal() {
        assert_eq!(kb(9 * 1024), "9.0 KB");
        assert_eq!(kb(17_339), "16.9 KB");
    }
}
