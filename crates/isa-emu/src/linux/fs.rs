//! File descriptors and the host file sandbox.
//!
//! Host files are reachable only under the allowed directory, which is also the guest's
//! working directory: a path is resolved (relative ones against the directory or `dirfd`),
//! canonicalised by the host (which follows every symlink and `..`), and accepted only if
//! the result still lies inside the allowed directory. A file that does not exist yet (for
//! `O_CREAT`) is checked through its parent, and a dangling symlink in its place is refused.
//! The check and the open are two host calls, so a host process racing to swap a directory
//! for a symlink in between is not defended against.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use super::errno::{Errno, EACCES, EBADF, EMFILE, ENOENT};

/// Most descriptors a guest may hold at once (`RLIMIT_NOFILE`).
pub(crate) const MAX_FDS: usize = 1024;

/// What a guest file descriptor refers to.
#[derive(Debug)]
pub(crate) enum Fd {
    /// The standard input stream.
    Stdin,
    /// The standard output stream.
    Stdout,
    /// The standard error stream.
    Stderr,
    /// An open host file or directory (canonical path kept for `*at` calls).
    Host {
        file: File,
        path: PathBuf,
        /// `open` flags, for `F_GETFL`.
        flags: u64,
        /// Entries of a directory already returned by `getdents64`.
        dir_pos: u64,
    },
}

impl Fd {
    pub(crate) fn try_clone(&self) -> Result<Fd, Errno> {
        Ok(match self {
            Fd::Stdin => Fd::Stdin,
            Fd::Stdout => Fd::Stdout,
            Fd::Stderr => Fd::Stderr,
            Fd::Host {
                file,
                path,
                flags,
                dir_pos,
            } => Fd::Host {
                file: file.try_clone()?,
                path: path.clone(),
                flags: *flags,
                dir_pos: *dir_pos,
            },
        })
    }
}

/// The descriptor table.
#[derive(Debug)]
pub(crate) struct FdTable(Vec<Option<Fd>>);

impl FdTable {
    /// 0, 1 and 2 open on the standard streams.
    pub(crate) fn new() -> FdTable {
        FdTable(vec![Some(Fd::Stdin), Some(Fd::Stdout), Some(Fd::Stderr)])
    }

    /// The descriptor `fd` (the raw 64-bit argument; only its low 32 bits count, as in Linux).
    pub(crate) fn get(&mut self, fd: u64) -> Result<&mut Fd, Errno> {
        let n = usize::try_from(fd as u32).map_err(|_| EBADF)?;
        self.0.get_mut(n).and_then(Option::as_mut).ok_or(EBADF)
    }

    /// Installs `f` at the lowest free number not below `min`.
    pub(crate) fn insert(&mut self, f: Fd, min: usize) -> Result<u64, Errno> {
        let free = (min..self.0.len()).find(|&i| self.0.get(i).is_some_and(Option::is_none));
        let n = match free {
            Some(n) => n,
            None if self.0.len().max(min) < MAX_FDS => {
                self.0.resize_with(self.0.len().max(min) + 1, || None);
                self.0.len() - 1
            }
            None => return Err(EMFILE),
        };
        if let Some(slot) = self.0.get_mut(n) {
            *slot = Some(f);
        }
        Ok(n as u64)
    }

    /// Installs `f` at exactly `n`, closing what was there.
    pub(crate) fn insert_at(&mut self, f: Fd, n: u64) -> Result<(), Errno> {
        let n = usize::try_from(n as u32).map_err(|_| EBADF)?;
        if n >= MAX_FDS {
            return Err(EBADF);
        }
        if self.0.len() <= n {
            self.0.resize_with(n + 1, || None);
        }
        if let Some(slot) = self.0.get_mut(n) {
            *slot = Some(f);
        }
        Ok(())
    }

    /// Closes `fd`.
    pub(crate) fn close(&mut self, fd: u64) -> Result<(), Errno> {
        let n = usize::try_from(fd as u32).map_err(|_| EBADF)?;
        match self.0.get_mut(n) {
            Some(slot @ Some(_)) => {
                *slot = None;
                Ok(())
            }
            _ => Err(EBADF),
        }
    }
}

/// Whether the resolved path must exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    /// The path must exist.
    Existing,
    /// The path may be created (`O_CREAT`).
    MayCreate,
}

/// The directory host files must lie under, if any.
#[derive(Clone, Debug)]
pub(crate) struct Sandbox {
    root: Option<PathBuf>,
    cwd: PathBuf,
}

impl Sandbox {
    /// A sandbox rooted at `dir` (canonicalised); `None`, or a directory that does not
    /// exist, makes no host file reachable. Relative guest paths are taken against `cwd`
    /// (a host directory; by default the root), so a guest can be given the same relative
    /// paths as a native run; what they name must still lie inside the root.
    pub(crate) fn new(dir: Option<&Path>, cwd: Option<&Path>) -> Sandbox {
        let root = dir.and_then(|d| d.canonicalize().ok());
        let cwd = cwd
            .and_then(|c| c.canonicalize().ok())
            .or_else(|| root.clone())
            .unwrap_or_else(|| PathBuf::from("/"));
        Sandbox { root, cwd }
    }

    /// The guest's working directory: `cwd` if given, else the allowed directory, else `/`.
    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }

    fn inside(&self, p: &Path) -> bool {
        self.root.as_deref().is_some_and(|r| p.starts_with(r))
    }

    /// The host path for guest path `guest`, relative ones taken against `base` (a
    /// directory descriptor's path) or the working directory.
    pub(crate) fn resolve(
        &self,
        base: Option<&Path>,
        guest: &[u8],
        want: Want,
    ) -> Result<PathBuf, Errno> {
        self.root.as_deref().ok_or(EACCES)?;
        if guest.is_empty() {
            return Err(ENOENT);
        }
        let guest = Path::new(OsStr::from_bytes(guest));
        // `join` keeps an absolute `guest` as it is.
        let path = base.unwrap_or(&self.cwd).join(guest);
        match path.canonicalize() {
            Ok(c) if self.inside(&c) => Ok(c),
            Ok(_) => Err(EACCES),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => self.resolve_missing(&path, want),
            // Other failures (ENOTDIR, ELOOP, EACCES) are reported only inside the sandbox
            // so that they reveal nothing about the host outside it.
            Err(e) if self.inside(&lexical(&path)) => Err(e.into()),
            Err(_) => Err(EACCES),
        }
    }

    /// A path that does not exist: its parent must be inside; creating it needs a plain
    /// final name and no dangling symlink in its place.
    fn resolve_missing(&self, path: &Path, want: Want) -> Result<PathBuf, Errno> {
        let full = self.resolve_parent(path)?;
        if want == Want::Existing {
            return Err(ENOENT);
        }
        if full.symlink_metadata().is_ok() {
            return Err(EACCES);
        }
        Ok(full)
    }

    /// `path` with its parent canonicalised (inside the sandbox) and its final name kept
    /// as is, so that a final symlink is not followed.
    fn resolve_parent(&self, path: &Path) -> Result<PathBuf, Errno> {
        let (Some(parent), Some(Component::Normal(name))) =
            (path.parent(), path.components().next_back())
        else {
            return Err(EACCES);
        };
        match parent.canonicalize() {
            Ok(p) if self.inside(&p) => Ok(p.join(name)),
            _ if self.inside(&lexical(parent)) => Err(ENOENT),
            _ => Err(EACCES),
        }
    }

    /// The host path of the link `guest` itself (for `readlinkat`), not of its target.
    pub(crate) fn resolve_link(&self, base: Option<&Path>, guest: &[u8]) -> Result<PathBuf, Errno> {
        self.root.as_deref().ok_or(EACCES)?;
        if guest.is_empty() {
            return Err(ENOENT);
        }
        self.resolve_parent(&base.unwrap_or(&self.cwd).join(OsStr::from_bytes(guest)))
    }
}

/// `path` with `.` and `..` removed textually (no symlinks followed).
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `struct stat` for riscv64 (asm-generic), 128 bytes.
pub(crate) struct Stat {
    pub dev: u64,
    pub ino: u64,
    pub mode: u32,
    pub nlink: u32,
    pub uid: u32,
    pub gid: u32,
    pub rdev: u64,
    pub size: i64,
    pub blksize: i32,
    pub blocks: i64,
    /// atime, mtime, ctime as (seconds, nanoseconds).
    pub times: [(i64, i64); 3],
}

/// `S_IFIFO`: the standard streams look like pipes whatever the host has, so that guest
/// buffering does not depend on the host terminal.
pub(crate) const S_IFIFO: u32 = 0o010000;

impl Stat {
    pub(crate) fn from_host(m: &Metadata) -> Stat {
        Stat {
            dev: m.dev(),
            ino: m.ino(),
            mode: m.mode(),
            nlink: u32::try_from(m.nlink()).unwrap_or(u32::MAX),
            uid: m.uid(),
            gid: m.gid(),
            rdev: m.rdev(),
            size: m.size() as i64,
            blksize: i32::try_from(m.blksize()).unwrap_or(4096),
            blocks: m.blocks() as i64,
            times: [
                (m.atime(), m.atime_nsec()),
                (m.mtime(), m.mtime_nsec()),
                (m.ctime(), m.ctime_nsec()),
            ],
        }
    }

    /// A standard stream: a pipe owned by the guest user, with fixed numbers.
    pub(crate) fn stream(fd: u64, uid: u32, gid: u32) -> Stat {
        Stat {
            dev: 0xc,
            ino: 1 + fd,
            mode: S_IFIFO | 0o600,
            nlink: 1,
            uid,
            gid,
            rdev: 0,
            size: 0,
            blksize: 4096,
            blocks: 0,
            times: [(0, 0); 3],
        }
    }

    pub(crate) fn encode(&self) -> [u8; 128] {
        let mut b = [0u8; 128];
        let mut put = |off: usize, bytes: &[u8]| {
            if let Some(dst) = b.get_mut(off..off + bytes.len()) {
                dst.copy_from_slice(bytes);
            }
        };
        put(0, &self.dev.to_le_bytes());
        put(8, &self.ino.to_le_bytes());
        put(16, &self.mode.to_le_bytes());
        put(20, &self.nlink.to_le_bytes());
        put(24, &self.uid.to_le_bytes());
        put(28, &self.gid.to_le_bytes());
        put(32, &self.rdev.to_le_bytes());
        put(48, &self.size.to_le_bytes());
        put(56, &self.blksize.to_le_bytes());
        put(64, &self.blocks.to_le_bytes());
        for (i, (s, ns)) in self.times.iter().enumerate() {
            put(72 + 16 * i, &s.to_le_bytes());
            put(80 + 16 * i, &ns.to_le_bytes());
        }
        b
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// A fresh empty directory under the host's temp dir.
    pub(crate) fn temp_dir(tag: &str) -> PathBuf {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("isa-emu-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn sandbox_resolves_inside_and_refuses_escapes() {
        let top = temp_dir("sandbox");
        let root = top.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/f.txt"), b"x").unwrap();
        std::fs::write(top.join("secret"), b"s").unwrap();
        std::os::unix::fs::symlink(top.join("secret"), root.join("out")).unwrap();
        std::os::unix::fs::symlink(top.join("nothing"), root.join("dangling")).unwrap();
        std::os::unix::fs::symlink("sub/f.txt", root.join("in")).unwrap();
        let sb = Sandbox::new(Some(&root), None);
        let canon = root.canonicalize().unwrap();
        let ok = |p: &[u8]| sb.resolve(None, p, Want::Existing);
        assert_eq!(ok(b"sub/f.txt").unwrap(), canon.join("sub/f.txt"));
        assert_eq!(ok(b"./sub/../sub/f.txt").unwrap(), canon.join("sub/f.txt"));
        assert_eq!(ok(b"in").unwrap(), canon.join("sub/f.txt"));
        let abs = canon.join("sub/f.txt");
        assert_eq!(ok(abs.as_os_str().as_bytes()).unwrap(), abs);
        assert_eq!(ok(b"../secret"), Err(EACCES));
        assert_eq!(ok(b"sub/../../secret"), Err(EACCES));
        assert_eq!(ok(b"out"), Err(EACCES));
        assert_eq!(ok(b"/etc/passwd"), Err(EACCES));
        assert_eq!(ok(b"/nonexistent/x"), Err(EACCES));
        assert_eq!(ok(b"missing"), Err(ENOENT));
        assert_eq!(ok(b""), Err(ENOENT));
        let create = |p: &[u8]| sb.resolve(None, p, Want::MayCreate);
        assert_eq!(create(b"new.txt").unwrap(), canon.join("new.txt"));
        assert_eq!(create(b"dangling"), Err(EACCES));
        assert_eq!(create(b"../new.txt"), Err(EACCES));
        assert_eq!(create(b"sub/.."), Ok(canon.clone()));
        let sub = canon.join("sub");
        assert_eq!(
            sb.resolve(Some(&sub), b"f.txt", Want::Existing).unwrap(),
            sub.join("f.txt")
        );
        let none = Sandbox::new(None, None);
        assert_eq!(
            none.resolve(None, b"sub/f.txt", Want::Existing),
            Err(EACCES)
        );
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn fd_table_reuses_lowest_and_limits() {
        let mut t = FdTable::new();
        assert_eq!(t.insert(Fd::Stdout, 0).unwrap(), 3);
        t.close(1).unwrap();
        assert_eq!(t.close(1), Err(EBADF));
        assert_eq!(t.insert(Fd::Stdout, 0).unwrap(), 1);
        assert_eq!(t.insert(Fd::Stdout, 10).unwrap(), 10);
        assert!(t.get(10).is_ok() && t.get(9).is_err() && t.get(u64::MAX).is_err());
        let mut n = 0;
        while t.insert(Fd::Stdout, 0).is_ok() {
            n += 1;
        }
        assert_eq!(n, MAX_FDS - 5);
        assert_eq!(t.insert(Fd::Stdout, 0), Err(EMFILE));
    }

    #[test]
    fn stat_layout_matches_asm_generic() {
        let s = Stat::stream(1, 1000, 1000).encode();
        assert_eq!(u32::from_le_bytes(s[16..20].try_into().unwrap()), 0o010600);
        assert_eq!(u32::from_le_bytes(s[24..28].try_into().unwrap()), 1000);
        assert_eq!(i32::from_le_bytes(s[56..60].try_into().unwrap()), 4096);
    }
}
