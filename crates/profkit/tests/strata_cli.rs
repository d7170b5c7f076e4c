//! `profkit strata`: runs a guest, exits with its exit code, writes the ISAM file and the
//! log, and answers `--query DIR --at N` from the file (also from a truncated copy).

use std::path::Path;
use std::process::Command;

fn profkit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_profkit"))
}

fn guests() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests")
}

/// `profkit strata bin/primes.elf --out DIR` in a fresh temporary DIR named after `tag`:
/// the directory and the run's output. primes exits with status 3 (its self-check), under
/// qemu too.
fn strata_primes(tag: &str) -> (std::path::PathBuf, std::process::Output) {
    let out = std::env::temp_dir().join(format!("profkit-{tag}-{}", std::process::id()));
    let run = profkit()
        .args(["strata", "bin/primes.elf", "--out"])
        .arg(&out)
        .current_dir(guests())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(3));
    (out, run)
}

#[test]
fn strata_run_then_query() {
    let (out, run) = strata_primes("strata");
    let report = String::from_utf8_lossy(&run.stderr);
    for heading in [
        "hottest paths",
        "hottest strata",
        "hottest stratum layers",
        "phase changes",
        "SEQUITUR",
    ] {
        assert!(
            report.contains(heading),
            "{heading} missing from:\n{report}"
        );
    }
    assert!(out.join("strata.log").exists());
    let isam = std::fs::read(out.join("strata.isam")).unwrap();
    let grammar = std::fs::read(out.join("strata.grammar")).unwrap();
    let grammar = strata::grammar_file::decode(&grammar).expect("the grammar file reads back");
    assert!(grammar.input_len > 0);
    assert_eq!(
        grammar.expand().expect("it expands").len() as u64,
        grammar.input_len
    );

    let query = profkit()
        .args(["strata", "--query"])
        .arg(&out)
        .args(["--at", "5000000"])
        .output()
        .unwrap();
    assert_eq!(query.status.code(), Some(0));
    let text = String::from_utf8_lossy(&query.stdout);
    assert!(
        text.contains("repeated stratum") && text.contains("path ") && text.contains("block 0x"),
        "{text}"
    );

    // A truncated copy still answers from its readable prefix and warns.
    std::fs::write(out.join("strata.isam"), &isam[..isam.len() / 2]).unwrap();
    let query = profkit()
        .args(["strata", "--query"])
        .arg(&out)
        .args(["--at", "1000"])
        .output()
        .unwrap();
    assert_eq!(query.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&query.stderr).contains("truncated"));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn strata_options_out_of_range_are_clear_errors() {
    let guests = guests();
    let out = std::env::temp_dir().join(format!("profkit-strata-bad-{}", std::process::id()));
    for (args, says) in [
        (&["--levels", "0"][..], "0 is not in 1..=16"),
        (&["--levels", "100000"][..], "100000 is not in 1..=16"),
        (&["--max-stratum", "0"][..], "must be at least 1"),
        (&["--interval", "0"][..], "0 is not in 1.."),
        (&["--buckets", "4000000000"][..], "not in 1..=16777216"),
        (&["--buckets", "0"][..], "not in 1..=16777216"),
        (
            &["--levels", "16", "--buckets", "16777216"][..],
            "at most 67108864 buckets in all",
        ),
    ] {
        let run = profkit()
            .arg("strata")
            .args(args)
            .arg("--out")
            .arg(&out)
            .arg("bin/primes.elf")
            .current_dir(&guests)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}: nothing was written");
    }
}

#[test]
fn a_query_into_a_closed_pipe_ends_quietly() {
    let (out, _) = strata_primes("strata-pipe");
    // `profkit strata --query DIR --at N | head -0`: the reader is gone before the answer.
    let mut query = profkit()
        .args(["strata", "--query"])
        .arg(&out)
        .args(["--at", "1000000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(query.stdout.take());
    let done = query.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "no panic, no message: {err}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `profkit strata` takes the guest options of `run` and `paths`: a bare-metal guest runs
/// with `--bare` (its console is its stdout), and with `--clear-env` the files do not
/// depend on the host's environment.
#[test]
fn strata_takes_the_guest_options_of_run_and_paths() {
    let dir = std::env::temp_dir().join(format!("profkit-strata-opts-{}", std::process::id()));
    let bare = profkit()
        .args(["strata", "--bare", "--out"])
        .arg(dir.join("bare"))
        .arg("bin/crc.bare.elf")
        .current_dir(guests())
        .output()
        .unwrap();
    assert_eq!(bare.status.code(), Some(0), "{bare:?}");
    let expected = std::fs::read(guests().join("expected/crc.stdout")).unwrap();
    assert_eq!(bare.stdout, expected);
    assert!(dir.join("bare/strata.isam").is_file());
    // Two runs whose hosts' environments differ give the same files.
    let files = |tag: &str, host_var: &str| {
        let out = dir.join(tag);
        let run = profkit()
            .args([
                "strata",
                "--clear-env",
                "--env",
                "LANG=C",
                "--seed",
                "7",
                "--out",
            ])
            .arg(&out)
            .arg("bin/sort.elf")
            .arg("2000")
            .env("PROFKIT_TEST_HOST_VAR", host_var)
            .current_dir(guests())
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{run:?}");
        ["strata.isam", "strata.log", "strata.grammar"].map(|f| std::fs::read(out.join(f)).unwrap())
    };
    assert_eq!(files("a", "1"), files("b", "a much longer value"));
    let _ = std::fs::remove_dir_all(&dir);
}
