//! Linux error numbers (asm-generic) as returned, negated, in `a0`.

use crate::memory::MemFault;

/// A Linux error number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Errno(pub(crate) u64);

pub(crate) const EPERM: Errno = Errno(1);
pub(crate) const ENOENT: Errno = Errno(2);
pub(crate) const ESRCH: Errno = Errno(3);
pub(crate) const EIO: Errno = Errno(5);
pub(crate) const EBADF: Errno = Errno(9);
pub(crate) const EAGAIN: Errno = Errno(11);
pub(crate) const ENOMEM: Errno = Errno(12);
pub(crate) const EACCES: Errno = Errno(13);
pub(crate) const EFAULT: Errno = Errno(14);
pub(crate) const EEXIST: Errno = Errno(17);
pub(crate) const ENOTDIR: Errno = Errno(20);
pub(crate) const ENODEV: Errno = Errno(19);
pub(crate) const EINVAL: Errno = Errno(22);
pub(crate) const EMFILE: Errno = Errno(24);
pub(crate) const ENOTTY: Errno = Errno(25);
pub(crate) const ESPIPE: Errno = Errno(29);
pub(crate) const ERANGE: Errno = Errno(34);
pub(crate) const ENAMETOOLONG: Errno = Errno(36);
pub(crate) const ENOSYS: Errno = Errno(38);
pub(crate) const ETIMEDOUT: Errno = Errno(110);

impl From<MemFault> for Errno {
    fn from(_: MemFault) -> Errno {
        EFAULT
    }
}

impl From<std::io::Error> for Errno {
    /// Host errors keep their number on a Linux host (the generic numbers are shared by
    /// every Linux architecture); elsewhere they are mapped by kind.
    fn from(e: std::io::Error) -> Errno {
        use std::io::ErrorKind as K;
        #[cfg(target_os = "linux")]
        if let Some(n) = e.raw_os_error().and_then(|n| u64::try_from(n).ok()) {
            return Errno(n);
        }
        match e.kind() {
            K::NotFound => ENOENT,
            K::PermissionDenied => EACCES,
            K::AlreadyExists => EEXIST,
            K::InvalidInput => EINVAL,
            K::Interrupted | K::WouldBlock => EAGAIN,
            _ => EIO,
        }
    }
}
