//! File and stream system calls: read/write and their vector and positioned forms, open,
//! stat, access, links, the working directory, descriptor duplication and terminal ioctls.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::PathBuf;

use super::errno::{Errno, EACCES, EBADF, EINVAL, ENODEV, ENOENT, ENOTDIR, ENOTTY, ERANGE, ESPIPE};
use super::fs::{lexical, Fd, Stat, Want};
use super::{read_path, read_words, Input, Linux, Output, UID};
use crate::memory::Memory;

/// `AT_FDCWD` as the 32-bit `int` the kernel reads.
const AT_FDCWD: i32 = -100;
const AT_EMPTY_PATH: u64 = 0x1000;
const AT_SYMLINK_NOFOLLOW: u64 = 0x100;
const AT_NO_AUTOMOUNT: u64 = 0x800;
const AT_EACCESS: u64 = 0x200;
const O_ACCMODE: u64 = 3;
const O_CREAT: u64 = 0o100;
const O_EXCL: u64 = 0o200;
const O_TRUNC: u64 = 0o1000;
const O_APPEND: u64 = 0o2000;
const O_DIRECTORY: u64 = 0o200000;
const O_CLOEXEC: u64 = 0o2000000;
/// `UIO_MAXIOV`.
const IOV_MAX: u64 = 1024;
/// Largest single transfer, as Linux's `MAX_RW_COUNT` (`INT_MAX` rounded down to a page).
const MAX_RW: u64 = 0x7fff_f000;

impl Fd {
    /// The host file, for calls that need one (`mmap` of a file).
    pub(crate) fn host_file(&self) -> Result<&File, Errno> {
        match self {
            Fd::Host { file, .. } => Ok(file),
            // A pipe cannot be mapped.
            _ => Err(ENODEV),
        }
    }
}

/// Fills `dst` from `file` at `off`, zeroing what lies past the end of the file.
pub(crate) fn read_file_at(file: &File, dst: &mut [u8], off: u64) -> Result<(), Errno> {
    let mut done = 0;
    while let Some(rest) = dst.get_mut(done..).filter(|r| !r.is_empty()) {
        let n = file.read_at(rest, off.saturating_add(done as u64))?;
        if n == 0 {
            rest.fill(0);
            break;
        }
        done += n;
    }
    Ok(())
}

fn write_flush(w: &mut dyn Write, data: &[u8]) -> std::io::Result<()> {
    w.write_all(data)?;
    w.flush()
}

impl Linux {
    /// Reads up to `len` bytes from `fd` into guest memory at `buf`.
    fn read_into(&mut self, mem: &mut Memory, fd: u64, buf: u64, len: u64) -> Result<u64, Errno> {
        let fdesc = self.fds.get(fd)?;
        if len == 0 {
            return Ok(0);
        }
        let dst = mem.slice_mut(buf, len.min(MAX_RW))?;
        let n = match fdesc {
            Fd::Stdin => match &self.stdin {
                Input::Inherit => std::io::stdin().lock().read(dst)?,
                Input::Bytes(bytes) => {
                    let rest = bytes.get(self.stdin_pos..).unwrap_or(&[]);
                    let n = rest.len().min(dst.len());
                    dst[..n].copy_from_slice(&rest[..n]);
                    self.stdin_pos += n;
                    n
                }
            },
            Fd::Stdout | Fd::Stderr => return Err(EBADF),
            Fd::Host { file, .. } => file.read(dst)?,
        };
        Ok(n as u64)
    }

    /// Writes `data` to `fd`.
    fn write_from(&mut self, fd: u64, data: &[u8]) -> Result<u64, Errno> {
        let is_stdout = match self.fds.get(fd)? {
            Fd::Stdin => return Err(EBADF),
            Fd::Stdout => true,
            Fd::Stderr => false,
            Fd::Host { file, .. } => return Ok(file.write(data)? as u64),
        };
        let (mode, buf) = if is_stdout {
            (self.stdout, &mut self.stdout_buf)
        } else {
            (self.stderr, &mut self.stderr_buf)
        };
        match mode {
            Output::Capture => buf.extend_from_slice(data),
            Output::Inherit if is_stdout => write_flush(&mut std::io::stdout().lock(), data)?,
            Output::Inherit => write_flush(&mut std::io::stderr().lock(), data)?,
        }
        Ok(data.len() as u64)
    }

    pub(crate) fn read(
        &mut self,
        mem: &mut Memory,
        fd: u64,
        buf: u64,
        len: u64,
    ) -> Result<u64, Errno> {
        self.read_into(mem, fd, buf, len)
    }

    pub(crate) fn write(
        &mut self,
        mem: &Memory,
        fd: u64,
        buf: u64,
        len: u64,
    ) -> Result<u64, Errno> {
        self.fds.get(fd)?;
        let data = mem.slice(buf, len.min(MAX_RW))?;
        self.write_from(fd, data)
    }

    /// The `(base, len)` pairs of an iovec array.
    fn iovecs(mem: &Memory, iov: u64, count: u64) -> Result<Vec<(u64, u64)>, Errno> {
        if count > IOV_MAX {
            return Err(EINVAL);
        }
        let mut out = Vec::new();
        let mut total: u64 = 0;
        for i in 0..count {
            let [base, len] = read_words::<2>(mem, iov.wrapping_add(16 * i))?;
            total = total
                .checked_add(len)
                .filter(|&t| t <= i64::MAX as u64)
                .ok_or(EINVAL)?;
            out.push((base, len));
        }
        Ok(out)
    }

    pub(crate) fn readv(
        &mut self,
        mem: &mut Memory,
        fd: u64,
        iov: u64,
        count: u64,
    ) -> Result<u64, Errno> {
        self.fds.get(fd)?;
        let mut total = 0;
        for (base, len) in Self::iovecs(mem, iov, count)? {
            match self.read_into(mem, fd, base, len) {
                Ok(n) => {
                    total += n;
                    if n < len {
                        break;
                    }
                }
                Err(e) if total == 0 => return Err(e),
                Err(_) => break,
            }
        }
        Ok(total)
    }

    pub(crate) fn writev(
        &mut self,
        mem: &Memory,
        fd: u64,
        iov: u64,
        count: u64,
    ) -> Result<u64, Errno> {
        self.fds.get(fd)?;
        let mut data = Vec::new();
        for (base, len) in Self::iovecs(mem, iov, count)? {
            data.extend_from_slice(mem.slice(base, len)?);
        }
        self.write_from(fd, &data)
    }

    fn positioned_file(&mut self, fd: u64, off: u64) -> Result<&File, Errno> {
        let file = match self.fds.get(fd)? {
            Fd::Host { file, .. } => file,
            _ => return Err(ESPIPE),
        };
        if off > i64::MAX as u64 {
            return Err(EINVAL);
        }
        Ok(file)
    }

    pub(crate) fn pread(
        &mut self,
        mem: &mut Memory,
        fd: u64,
        buf: u64,
        len: u64,
        off: u64,
    ) -> Result<u64, Errno> {
        let file = self.positioned_file(fd, off)?;
        let dst = mem.slice_mut(buf, len.min(MAX_RW))?;
        Ok(file.read_at(dst, off)? as u64)
    }

    pub(crate) fn pwrite(
        &mut self,
        mem: &Memory,
        fd: u64,
        buf: u64,
        len: u64,
        off: u64,
    ) -> Result<u64, Errno> {
        let file = self.positioned_file(fd, off)?;
        let src = mem.slice(buf, len.min(MAX_RW))?;
        Ok(file.write_at(src, off)? as u64)
    }

    pub(crate) fn lseek(&mut self, fd: u64, off: u64, whence: u64) -> Result<u64, Errno> {
        let Fd::Host { file, dir_pos, .. } = self.fds.get(fd)? else {
            return Err(ESPIPE);
        };
        // A directory's position counts entries (see `getdents64`); only rewinding and
        // returning to a position told before make sense.
        if file.metadata()?.is_dir() {
            if whence != 0 || off > i64::MAX as u64 {
                return Err(EINVAL);
            }
            *dir_pos = off;
            return Ok(off);
        }
        let off = off as i64;
        let pos = match whence {
            0 if off >= 0 => SeekFrom::Start(off as u64),
            1 => SeekFrom::Current(off),
            2 => SeekFrom::End(off),
            _ => return Err(EINVAL),
        };
        Ok(file.seek(pos)?)
    }

    /// The directory that relative paths of a `*at` call start from: `None` for the
    /// working directory.
    fn dir_base(&mut self, dirfd: u64, path: &[u8]) -> Result<Option<PathBuf>, Errno> {
        if path.first() == Some(&b'/') || dirfd as i32 == AT_FDCWD {
            return Ok(None);
        }
        match self.fds.get(dirfd)? {
            Fd::Host { file, path, .. } if file.metadata()?.is_dir() => Ok(Some(path.clone())),
            _ => Err(ENOTDIR),
        }
    }

    pub(crate) fn openat(
        &mut self,
        mem: &Memory,
        dirfd: u64,
        path: u64,
        flags: u64,
        mode: u64,
    ) -> Result<u64, Errno> {
        let guest = read_path(mem, path)?;
        let base = self.dir_base(dirfd, guest)?;
        let want = if flags & O_CREAT != 0 {
            Want::MayCreate
        } else {
            Want::Existing
        };
        let host = self.sandbox.resolve(base.as_deref(), guest, want)?;
        let mut opts = OpenOptions::new();
        match flags & O_ACCMODE {
            0 => opts.read(true),
            1 => opts.write(true),
            2 => opts.read(true).write(true),
            _ => return Err(EINVAL),
        };
        opts.append(flags & O_APPEND != 0)
            .truncate(flags & O_TRUNC != 0)
            .mode((mode & 0o7777) as u32);
        if flags & O_CREAT != 0 {
            if flags & O_EXCL != 0 {
                opts.create_new(true);
            } else {
                opts.create(true);
            }
        }
        let file = opts.open(&host)?;
        if flags & O_DIRECTORY != 0 && !file.metadata()?.is_dir() {
            return Err(ENOTDIR);
        }
        self.fds.insert(
            Fd::Host {
                file,
                path: host,
                flags: flags & !O_CLOEXEC,
                dir_pos: 0,
            },
            0,
        )
    }

    pub(crate) fn dup(&mut self, fd: u64) -> Result<u64, Errno> {
        let copy = self.fds.get(fd)?.try_clone()?;
        self.fds.insert(copy, 0)
    }

    pub(crate) fn dup3(&mut self, old: u64, new: u64, flags: u64) -> Result<u64, Errno> {
        if old as u32 == new as u32 || flags & !O_CLOEXEC != 0 {
            return Err(EINVAL);
        }
        let copy = self.fds.get(old)?.try_clone()?;
        self.fds.insert_at(copy, new)?;
        Ok(new as u32 as u64)
    }

    /// `fcntl`: duplication and the flag queries; close-on-exec is accepted and ignored
    /// (there is no exec).
    pub(crate) fn fcntl(&mut self, fd: u64, cmd: u64, arg: u64) -> Result<u64, Errno> {
        const F_DUPFD: u64 = 0;
        const F_GETFD: u64 = 1;
        const F_SETFD: u64 = 2;
        const F_GETFL: u64 = 3;
        const F_SETFL: u64 = 4;
        const F_DUPFD_CLOEXEC: u64 = 1030;
        let f = self.fds.get(fd)?;
        match cmd {
            F_DUPFD | F_DUPFD_CLOEXEC => {
                let min = usize::try_from(arg as u32).map_err(|_| EINVAL)?;
                let copy = f.try_clone()?;
                self.fds.insert(copy, min).map_err(|_| EINVAL)
            }
            F_GETFD | F_SETFD | F_SETFL => Ok(0),
            F_GETFL => Ok(match f {
                Fd::Stdin => 0,
                Fd::Stdout | Fd::Stderr => 1,
                Fd::Host { flags, .. } => *flags & !(O_CREAT | O_EXCL | O_TRUNC),
            }),
            _ => Err(EINVAL),
        }
    }

    /// `ioctl`: nothing is a terminal, so every request on an open descriptor gets
    /// `ENOTTY` (`TCGETS`, `TIOCGWINSZ`, ...), which keeps runs independent of the host's
    /// terminal.
    pub(crate) fn ioctl(&mut self, fd: u64) -> Result<u64, Errno> {
        self.fds.get(fd)?;
        Err(ENOTTY)
    }

    fn stat_of_fd(&mut self, fd: u64) -> Result<Stat, Errno> {
        Ok(match self.fds.get(fd)? {
            Fd::Host { file, .. } => Stat::from_host(&file.metadata()?),
            _ => Stat::stream(fd as u32 as u64, UID, UID),
        })
    }

    pub(crate) fn fstat(&mut self, mem: &mut Memory, fd: u64, buf: u64) -> Result<u64, Errno> {
        let st = self.stat_of_fd(fd)?;
        mem.write_bytes(buf, &st.encode())?;
        Ok(0)
    }

    pub(crate) fn newfstatat(
        &mut self,
        mem: &mut Memory,
        dirfd: u64,
        path: u64,
        buf: u64,
        flags: u64,
    ) -> Result<u64, Errno> {
        if flags & !(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) != 0 {
            return Err(EINVAL);
        }
        let guest = read_path(mem, path)?;
        let st = if guest.is_empty() && flags & AT_EMPTY_PATH != 0 {
            if dirfd as i32 == AT_FDCWD {
                Stat::from_host(&std::fs::metadata(self.sandbox.cwd())?)
            } else {
                self.stat_of_fd(dirfd)?
            }
        } else {
            let host = self.resolve_at(dirfd, guest, flags & AT_SYMLINK_NOFOLLOW != 0)?;
            Stat::from_host(&std::fs::symlink_metadata(host)?)
        };
        mem.write_bytes(buf, &st.encode())?;
        Ok(0)
    }

    /// Resolves a `*at` path inside the sandbox; `nofollow` keeps a final symlink.
    fn resolve_at(&mut self, dirfd: u64, guest: &[u8], nofollow: bool) -> Result<PathBuf, Errno> {
        let base = self.dir_base(dirfd, guest)?;
        if nofollow {
            self.sandbox.resolve_link(base.as_deref(), guest)
        } else {
            self.sandbox.resolve(base.as_deref(), guest, Want::Existing)
        }
    }

    /// `faccessat`/`faccessat2`: existence, and the permission bits checked as the file's
    /// owner would be (the guest's identity is fixed, not the host's).
    pub(crate) fn faccessat(
        &mut self,
        mem: &Memory,
        dirfd: u64,
        path: u64,
        mode: u64,
        flags: u64,
    ) -> Result<u64, Errno> {
        if mode & !7 != 0 || flags & !(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) != 0 {
            return Err(EINVAL);
        }
        let guest = read_path(mem, path)?;
        let host = self.resolve_at(dirfd, guest, flags & AT_SYMLINK_NOFOLLOW != 0)?;
        let perm = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(host)?.permissions());
        // R_OK = 4, W_OK = 2, X_OK = 1 line up with the owner bits shifted down by 6.
        if (perm >> 6) as u64 & mode != mode {
            return Err(EACCES);
        }
        Ok(0)
    }

    /// `readlinkat`: `/proc/self/exe` is argv\[0\] made absolute against the working
    /// directory (glibc asserts that it is absolute); other links only inside the sandbox.
    pub(crate) fn readlinkat(
        &mut self,
        mem: &mut Memory,
        dirfd: u64,
        path: u64,
        buf: u64,
        size: u64,
    ) -> Result<u64, Errno> {
        if size as i32 <= 0 {
            return Err(EINVAL);
        }
        let guest = read_path(mem, path)?;
        let target: Vec<u8> = if guest == b"/proc/self/exe" {
            let argv0 = self.args.first().ok_or(ENOENT)?;
            let exe = lexical(&self.sandbox.cwd().join(OsStr::from_bytes(argv0)));
            exe.as_os_str().as_bytes().to_vec()
        } else {
            let link = self.resolve_at(dirfd, guest, true)?;
            match std::fs::read_link(link) {
                Ok(t) => t.as_os_str().as_bytes().to_vec(),
                Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => return Err(EINVAL),
                Err(e) => return Err(e.into()),
            }
        };
        let n = target.len().min(size as u32 as usize);
        mem.write_bytes(buf, target.get(..n).unwrap_or(&[]))?;
        Ok(n as u64)
    }

    /// `mkdirat(dirfd, path, mode)` inside the sandbox.
    pub(crate) fn mkdirat(
        &mut self,
        mem: &Memory,
        dirfd: u64,
        path: u64,
        mode: u64,
    ) -> Result<u64, Errno> {
        let guest = read_path(mem, path)?;
        let base = self.dir_base(dirfd, guest)?;
        let host = self
            .sandbox
            .resolve(base.as_deref(), guest, Want::MayCreate)?;
        std::fs::DirBuilder::new()
            .mode((mode & 0o7777) as u32)
            .create(host)?;
        Ok(0)
    }

    /// `unlinkat(dirfd, path, flags)` inside the sandbox; a final symlink itself is removed.
    pub(crate) fn unlinkat(
        &mut self,
        mem: &Memory,
        dirfd: u64,
        path: u64,
        flags: u64,
    ) -> Result<u64, Errno> {
        const AT_REMOVEDIR: u64 = 0x200;
        if flags & !AT_REMOVEDIR != 0 {
            return Err(EINVAL);
        }
        let guest = read_path(mem, path)?;
        let host = self.resolve_at(dirfd, guest, true)?;
        if flags & AT_REMOVEDIR != 0 {
            std::fs::remove_dir(host)?;
        } else {
            std::fs::remove_file(host)?;
        }
        Ok(0)
    }

    /// `ftruncate(fd, length)` on a host file.
    pub(crate) fn ftruncate(&mut self, fd: u64, len: u64) -> Result<u64, Errno> {
        let Fd::Host { file, .. } = self.fds.get(fd)? else {
            return Err(EINVAL);
        };
        if len > i64::MAX as u64 {
            return Err(EINVAL);
        }
        file.set_len(len)?;
        Ok(0)
    }

    /// `getcwd`: returns the length including the NUL, as the system call does.
    pub(crate) fn getcwd(&mut self, mem: &mut Memory, buf: u64, size: u64) -> Result<u64, Errno> {
        let mut cwd = self.sandbox.cwd().as_os_str().as_bytes().to_vec();
        cwd.push(0);
        if (cwd.len() as u64) > size {
            return Err(ERANGE);
        }
        mem.write_bytes(buf, &cwd)?;
        Ok(cwd.len() as u64)
    }
}
