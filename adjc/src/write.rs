//! How adjc writes a file: only when its content changes, and atomically.
//!
//! * **Compare first.** A file whose bytes are already the ones to write is left alone, so
//!   its timestamp moves only when its content does: make (and a compiler's `-MMD`
//!   dependencies) rebuild only what really changed. Every kernel writes the same
//!   `adjc_runtime.h`; rewriting it on each run would rebuild every object that includes it.
//! * **Atomic.** New content goes to a temporary file in the same directory (same file
//!   system), which is then renamed over the target: a reader, such as a compiler started
//!   by a parallel `make -j` rule sharing `adjc_runtime.h`, sees the old file or the new
//!   one, never half of one. Two writers of the same bytes both end with the same file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Whether [`write_if_changed`] wrote the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// New or changed: written (atomically).
    Changed,
    /// The file already held these bytes: not touched.
    Unchanged,
}

/// Writes `bytes` to `path` unless it already holds them; atomically when it writes.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> std::io::Result<Written> {
    if let Ok(old) = std::fs::read(path) {
        if old == bytes {
            return Ok(Written::Unchanged);
        }
    }
    let tmp = temporary_path(path);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_data().ok();
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map(|()| Written::Changed)
}

/// `.<name>.<pid>.<n>.tmp` next to `path`: unique per process and per call, so parallel
/// writers (threads or `make -j` processes) never share a temporary file.
fn temporary_path(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_new_and_changed_files_and_leaves_equal_ones() {
        let dir = std::env::temp_dir().join(format!("adjc-write-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.h");
        let _ = std::fs::remove_file(&p);
        assert_eq!(write_if_changed(&p, b"one").unwrap(), Written::Changed);
        assert_eq!(write_if_changed(&p, b"one").unwrap(), Written::Unchanged);
        assert_eq!(write_if_changed(&p, b"two").unwrap(), Written::Changed);
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
