//! Progress on long runs: a sink that wakes up on sampling interrupts and redraws one status
//! line on a terminal (instructions retired, speed). It never changes what the guest does, and
//! draws nothing when stderr is not a terminal, so piped output stays byte-identical.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use prof_events::{Control, Exit, Interest, Sample, Sink};

/// Instructions between progress checks.
pub const INTERVAL: u64 = 20_000_000;

/// The progress line.
#[derive(Debug)]
pub struct Progress {
    start: Instant,
    last_draw: Instant,
    drawn: bool,
    enabled: bool,
}

impl Progress {
    /// A progress line on stderr, enabled only if stderr is a terminal.
    pub fn new() -> Self {
        let now = Instant::now();
        Progress {
            start: now,
            last_draw: now,
            drawn: false,
            enabled: std::io::stderr().is_terminal(),
        }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

impl Sink for Progress {
    /// It never stops a run, so blocks may run as event superblocks.
    fn may_stop(&mut self) -> bool {
        false
    }

    fn wants(&mut self) -> Interest {
        if self.enabled {
            Interest::SAMPLE | Interest::EXIT
        } else {
            Interest::NONE
        }
    }

    fn watches_blocks(&mut self) -> bool {
        false
    }

    fn sample(&mut self, sample: &Sample) -> Control {
        let now = Instant::now();
        // Quiet for the first second, then at most four redraws a second.
        if now - self.start >= Duration::from_secs(1)
            && now - self.last_draw >= Duration::from_millis(250)
        {
            let secs = (now - self.start).as_secs_f64();
            let mips = sample.instret as f64 / secs / 1e6;
            // A terminal that went away must not stop the guest: errors are ignored.
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[2Kprofkit: {} instructions, {secs:.1} s, {mips:.0} MIPS",
                sample.instret
            );
            let _ = err.flush();
            self.last_draw = now;
            self.drawn = true;
        }
        Control::Continue
    }

    fn exit(&mut self, _: &Exit) {
        if self.drawn {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}
