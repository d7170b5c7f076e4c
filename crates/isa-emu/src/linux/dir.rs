//! `getdents64`: directory listings in `struct linux_dirent64` records.
//!
//! Entries come sorted by name after `.` and `..`, whatever order the host file system
//! keeps, so a guest that lists a directory behaves the same on every host. The position
//! (also `d_off`) is the number of entries returned so far.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirEntryExt, MetadataExt};
use std::path::Path;

use super::errno::{Errno, EINVAL, ENOTDIR};
use super::fs::Fd;
use super::Linux;
use crate::memory::Memory;

/// One directory entry: inode, `d_type` and name.
struct Entry {
    ino: u64,
    kind: u8,
    name: Vec<u8>,
}

/// `d_type` of a host file type.
fn d_type(t: std::fs::FileType) -> u8 {
    use std::os::unix::fs::FileTypeExt;
    match () {
        _ if t.is_dir() => 4,
        _ if t.is_file() => 8,
        _ if t.is_symlink() => 10,
        _ if t.is_fifo() => 1,
        _ if t.is_char_device() => 2,
        _ if t.is_block_device() => 6,
        _ if t.is_socket() => 12,
        _ => 0,
    }
}

/// `.`, `..` and the directory's entries sorted by name.
fn entries(dir: &Path) -> Result<Vec<Entry>, Errno> {
    let dot = |p: &Path, name: &[u8]| -> Result<Entry, Errno> {
        Ok(Entry {
            ino: std::fs::metadata(p)?.ino(),
            kind: 4,
            name: name.to_vec(),
        })
    };
    let mut list = vec![dot(dir, b".")?, dot(dir.parent().unwrap_or(dir), b"..")?];
    let mut rest = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        rest.push(Entry {
            ino: e.ino(),
            kind: e.file_type().map_or(0, d_type),
            name: e.file_name().as_bytes().to_vec(),
        });
    }
    rest.sort_by(|a, b| a.name.cmp(&b.name));
    list.extend(rest);
    Ok(list)
}

/// Encodes one `linux_dirent64` (8-byte aligned record) with `d_off` = `next`.
fn record(e: &Entry, next: u64) -> Vec<u8> {
    let len = (19 + e.name.len() + 1 + 7) & !7;
    let mut r = Vec::with_capacity(len);
    r.extend(e.ino.to_le_bytes());
    r.extend(next.to_le_bytes());
    r.extend((len as u16).to_le_bytes());
    r.push(e.kind);
    r.extend(&e.name);
    r.resize(len, 0);
    r
}

impl Linux {
    /// `getdents64(fd, buf, count)`: as many whole records as fit; 0 at the end.
    pub(crate) fn getdents64(
        &mut self,
        mem: &mut Memory,
        fd: u64,
        buf: u64,
        count: u64,
    ) -> Result<u64, Errno> {
        let Fd::Host {
            path,
            dir_pos,
            file,
            ..
        } = self.fds.get(fd)?
        else {
            return Err(ENOTDIR);
        };
        if !file.metadata()?.is_dir() {
            return Err(ENOTDIR);
        }
        let list = entries(path)?;
        let mut out = Vec::new();
        let mut pos = *dir_pos;
        for e in list.iter().skip(usize::try_from(pos).unwrap_or(usize::MAX)) {
            let r = record(e, pos + 1);
            if (out.len() + r.len()) as u64 > count {
                break;
            }
            out.extend(r);
            pos += 1;
        }
        if out.is_empty() && (pos as usize) < list.len() {
            return Err(EINVAL); // the buffer cannot hold the next record
        }
        if !out.is_empty() {
            mem.write_bytes(buf, &out)?;
        }
        *dir_pos = pos;
        Ok(out.len() as u64)
    }
}
