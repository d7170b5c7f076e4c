//! The `profkit` binary as a user runs it: exit codes, stdio pass-through, profile formats,
//! determinism, and clear errors for bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn guests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests")
}

fn profkit(args: &[&str], stdin: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_profkit"));
    cmd.args(args).current_dir(guests()).env_clear();
    cmd.stdin(match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    });
    cmd.output().expect("profkit runs")
}

fn expected(name: &str) -> Vec<u8> {
    std::fs::read(guests().join("expected").join(format!("{name}.stdout"))).unwrap()
}

#[test]
fn run_passes_stdout_and_exit_code_through_and_profiles_to_stderr() {
    let out = profkit(&["run", "bin/primes.elf"], None);
    assert_eq!(out.status.code(), Some(3), "primes exits 3 on purpose");
    assert_eq!(out.stdout, expected("primes"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("== profkit profile of bin/primes.elf =="),
        "{err}"
    );
    assert!(err.contains("instructions retired"), "{err}");
    assert!(err.contains("hottest blocks"), "{err}");
    assert!(err.contains("write"), "system calls are listed: {err}");
}

#[test]
fn stdin_reaches_the_guest() {
    let out = profkit(
        &["run", "--no-profile", "bin/wordfreq.elf"],
        Some(&guests().join("inputs/words.txt")),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, expected("wordfreq"));
    assert!(out.stderr.is_empty(), "--no-profile prints no profile");
}

#[test]
fn files_are_reachable_only_inside_the_allowed_directory() {
    let ok = profkit(
        &[
            "run",
            "--no-profile",
            "--allow-dir",
            "inputs",
            "bin/csvstats.elf",
            "inputs/samples.csv",
        ],
        None,
    );
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(ok.stdout, expected("csvstats"));
    let denied = profkit(
        &[
            "run",
            "--no-profile",
            "bin/csvstats.elf",
            "inputs/samples.csv",
        ],
        None,
    );
    assert_ne!(
        denied.status.code(),
        Some(0),
        "no --allow-dir: the file is out of reach"
    );
}

#[test]
fn json_profile_is_written_to_a_file_and_is_deterministic() {
    let dir = std::env::temp_dir().join(format!("profkit-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let read = |name: &str| -> serde_json::Value {
        let path = dir.join(name);
        let out = profkit(
            &[
                "run",
                "--format",
                "json",
                "--out",
                path.to_str().unwrap(),
                "bin/sort.elf",
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stderr.is_empty(), "the profile went to the file");
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    };
    let a = read("a.json");
    let b = read("b.json");
    assert_eq!(a, b, "same program and configuration, same profile");
    assert_eq!(a["exit_code"], 0);
    assert!(a["instructions"].as_u64().unwrap() > 1_000_000);
    let hot = a["hot_blocks"].as_array().unwrap();
    assert_eq!(hot.len(), 10);
    assert!(hot[0]["instructions"].as_u64() >= hot[1]["instructions"].as_u64());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The profile of a cached run (event superblocks, their runs counted as traces by the
/// block profile and replayed as events to the call graph) is the one single-stepping gives.
#[test]
fn the_profile_is_the_one_single_stepping_gives() {
    for (guest, arg) in [("sort", "3000"), ("coremark", "20"), ("strings", "2000")] {
        for format in ["json", "callgrind"] {
            let elf = format!("bin/{guest}.elf");
            let run = |step: &[&str]| {
                let mut args = vec!["run", "--format", format, "--top", "100000"];
                args.extend_from_slice(step);
                args.extend([elf.as_str(), arg]);
                let out = profkit(&args, None);
                assert_eq!(out.status.code(), Some(0), "{guest} {format} {step:?}");
                out.stderr
            };
            let cached = run(&[]);
            assert!(cached.len() > 1000, "{guest} {format}: a profile");
            assert!(
                cached == run(&["--single-step"]),
                "{guest} {format}: profiles differ"
            );
        }
    }
}

/// A run without profiling (superblocks compiled to host code) prints what the threaded
/// interpreter alone (`--no-jit`) prints, and exits the same; a profiled run (basic blocks
/// and event superblocks compiled, events delivered around them) writes the same profile.
#[test]
fn compiled_and_interpreted_runs_and_profiles_agree() {
    for (guest, arg) in [("sort", "3000"), ("coremark", "20"), ("nbody", "200")] {
        let elf = format!("bin/{guest}.elf");
        let compiled = profkit(&["run", "--no-profile", &elf, arg], None);
        let interpreted = profkit(&["run", "--no-profile", "--no-jit", &elf, arg], None);
        assert_eq!(compiled.status.code(), Some(0), "{guest}");
        assert!(compiled.stdout.len() > 20, "{guest} prints its results");
        assert_eq!(compiled.stdout, interpreted.stdout, "{guest}");
        assert_eq!(compiled.status.code(), interpreted.status.code(), "{guest}");
        // A profile's sinks watch blocks: its blocks run compiled with events around them.
        let profile = |jit: &[&str]| {
            let args = [&["run", "--format", "json"][..], jit, &[&elf, arg]].concat();
            let out = profkit(&args, None);
            assert_eq!(out.status.code(), Some(0), "{guest}");
            (out.stdout, out.stderr)
        };
        let (compiled, interpreted) = (profile(&[]), profile(&["--no-jit"]));
        assert!(compiled.1.len() > 1000, "{guest} writes its profile");
        assert_eq!(compiled, interpreted, "{guest}: profiles differ");
    }
}

#[test]
fn bad_input_gives_a_clear_error_not_a_panic() {
    let not_elf = profkit(&["run", "manifest.json"], None);
    assert_eq!(not_elf.status.code(), Some(2));
    let err = String::from_utf8_lossy(&not_elf.stderr);
    assert!(err.starts_with("profkit: error: manifest.json:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let missing = profkit(&["run", "no/such.elf"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read no/such.elf"));
}

#[test]
fn fuel_limit_stops_the_guest() {
    let out = profkit(&["run", "--fuel", "100000", "bin/sort.elf"], None);
    assert_eq!(out.status.code(), Some(124));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("instruction limit reached"), "{err}");
    assert!(err.contains("100,000"), "{err}");
}

#[test]
fn bare_metal_programs_run_with_bare() {
    let out = profkit(&["run", "--no-profile", "--bare", "bin/crc.bare.elf"], None);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, expected("crc"));
}

/// A callgrind file read back: self cost per function, and call arcs as
/// (caller, callee, calls, inclusive cost).
struct Callgrind {
    summary: u64,
    totals: u64,
    selfs: std::collections::BTreeMap<String, u64>,
    arcs: Vec<(String, String, u64, u64)>,
}

fn parse_callgrind(text: &str) -> Callgrind {
    let mut names = std::collections::BTreeMap::new();
    // Resolves callgrind's name compression: "(id) name" defines, "(id)" refers.
    let mut name = |spec: &str| -> String {
        match spec.strip_prefix('(').and_then(|s| s.split_once(')')) {
            Some((id, rest)) if !rest.trim().is_empty() => {
                names.insert(id.to_string(), rest.trim().to_string());
                rest.trim().to_string()
            }
            Some((id, _)) => names[id].clone(),
            None => spec.to_string(),
        }
    };
    let num = |s: &str| s.trim().parse::<u64>().unwrap();
    let mut cg = Callgrind {
        summary: 0,
        totals: 0,
        selfs: Default::default(),
        arcs: Vec::new(),
    };
    let (mut func, mut callee, mut calls) = (String::new(), String::new(), None);
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("summary:") {
            cg.summary = num(v);
        } else if let Some(v) = line.strip_prefix("totals:") {
            cg.totals = num(v);
        } else if let Some(v) = line.strip_prefix("fn=") {
            func = name(v);
        } else if let Some(v) = line.strip_prefix("cfn=") {
            callee = name(v);
        } else if let Some(v) = line.strip_prefix("calls=") {
            calls = Some(num(v.split(' ').next().unwrap()));
        } else if line.starts_with("0x") {
            let cost = num(line.split(' ').nth(1).unwrap());
            match calls.take() {
                Some(n) => cg.arcs.push((func.clone(), callee.clone(), n, cost)),
                None => *cg.selfs.entry(func.clone()).or_insert(0) += cost,
            }
        }
    }
    cg
}

#[test]
fn callgrind_profile_accounts_for_every_instruction_and_call() {
    let dir = std::env::temp_dir().join(format!("profkit-cg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |file: &str, format: &str| -> Vec<u8> {
        let path = dir.join(file);
        let args = ["run", "--format", format, "--out", path.to_str().unwrap()];
        let out = profkit(&[&args[..], &["bin/recursion.elf", "4"]].concat(), None);
        assert_eq!(out.status.code(), Some(0));
        std::fs::read(path).unwrap()
    };
    let text = run("a.cg", "callgrind");
    assert_eq!(text, run("b.cg", "callgrind"), "deterministic");
    let json: serde_json::Value = serde_json::from_slice(&run("p.json", "json")).unwrap();
    let cg = parse_callgrind(&String::from_utf8(text).unwrap());

    // Every retired instruction is in exactly one function's self cost.
    let instret = json["instructions"].as_u64().unwrap();
    assert_eq!(cg.selfs.values().sum::<u64>(), instret);
    assert_eq!((cg.summary, cg.totals), (instret, instret));

    // main is called once and is not recursive: its call's inclusive cost is its own
    // instructions plus the inclusive cost of every call it makes. (Self costs come from
    // block counts, inclusive costs from the shadow call stack: two separate accounts.)
    let into_main: Vec<_> = cg.arcs.iter().filter(|a| a.1 == "main").collect();
    assert_eq!(into_main.len(), 1, "{into_main:?}");
    assert_eq!(into_main[0].2, 1);
    let from_main: u64 = cg.arcs.iter().filter(|a| a.0 == "main").map(|a| a.3).sum();
    assert_eq!(into_main[0].3, cg.selfs["main"] + from_main);
    assert!(into_main[0].3 < instret);

    // The source's six printf calls, each made once.
    let printfs: u64 = cg
        .arcs
        .iter()
        .filter(|a| a.0 == "main" && a.1 == "printf")
        .map(|a| a.2)
        .sum();
    assert_eq!(printfs, 6);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs profkit with its stdout (or stderr) a pipe whose reader has already gone, as in
/// `profkit ... | head -1`; returns the exit status and what it wrote to the other stream.
fn profkit_into_closed_pipe(args: &[&str], close_stderr: bool) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_profkit"));
    cmd.args(args).current_dir(guests()).env_clear();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("profkit runs");
    let (closed, mut other): (Box<dyn std::any::Any>, Box<dyn std::io::Read>) = if close_stderr {
        (
            Box::new(child.stderr.take()),
            Box::new(child.stdout.take().unwrap()),
        )
    } else {
        (
            Box::new(child.stdout.take()),
            Box::new(child.stderr.take().unwrap()),
        )
    };
    drop(closed);
    let mut text = String::new();
    other.read_to_string(&mut text).unwrap();
    (child.wait().unwrap().code(), text)
}

#[test]
fn a_reader_that_goes_away_ends_the_report_quietly() {
    // The profile's reader is gone (`2>&1 | head -1`): no panic, the guest's status stays.
    for cmd in ["run", "paths"] {
        let (code, _) = profkit_into_closed_pipe(&[cmd, "bin/primes.elf"], true);
        assert_eq!(code, Some(3), "{cmd}: primes exits 3");
    }
    // The guest's stdout is gone: the profile still arrives on stderr.
    let (code, err) = profkit_into_closed_pipe(&["run", "bin/primes.elf"], false);
    assert_eq!(code, Some(3));
    assert!(err.contains("== profkit profile of"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn flags_a_command_does_not_honour_are_rejected() {
    let dir = std::env::temp_dir().join(format!("profkit-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("profile.json");
    let f = file.to_str().unwrap();
    for (args, says) in [
        (
            &["run", "--no-profile", "--out", f, "--format", "json"][..],
            "cannot be used with",
        ),
        (
            &["run", "--no-profile", "--top", "3"][..],
            "cannot be used with",
        ),
        (
            &["paths", "--no-profile"][..],
            "unexpected argument '--no-profile'",
        ),
        (
            &["paths", "--format", "callgrind"][..],
            "invalid value 'callgrind'",
        ),
    ] {
        let out = profkit(&[args, &["bin/primes.elf"]].concat(), None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: the guest did not run");
    }
    assert!(!file.exists(), "nothing was written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn memory_out_of_range_is_a_clear_error() {
    for mib in ["0", "100000000"] {
        let out = profkit(&["run", "--memory", mib, "bin/primes.elf"], None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("invalid value '{mib}' for '--memory <MIB>'")),
            "{err}"
        );
        assert!(err.contains("1..=65536"), "{err}");
    }
}

#[test]
fn paths_help_says_where_the_report_goes() {
    let out = profkit(&["paths", "--help"], None);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    // The --json entry, up to the next option.
    let json = help
        .split("--json")
        .nth(1)
        .and_then(|s| s.split("\n      --").next());
    assert!(json.is_some_and(|s| s.contains("stderr")), "{help}");
    assert!(help.contains("--out <FILE>"), "{help}");
}

#[test]
fn perf_map_names_the_compiled_code_where_perf_looks() {
    let out = profkit(&["paths", "--perf-map", "bin/primes.elf", "20000"], None);
    assert_eq!(out.status.code(), Some(3), "primes exits 3 on purpose");
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find_map(|l| l.strip_prefix("profkit: perf map: "))
        .unwrap_or_else(|| panic!("no perf map named: {err}"));
    let path = PathBuf::from(line);
    assert!(
        path.starts_with("/tmp") && path.to_string_lossy().ends_with(".map"),
        "{line}"
    );
    let map = std::fs::read_to_string(&path).expect("the perf map");
    std::fs::remove_file(&path).unwrap();
    let names: Vec<&str> = map
        .lines()
        .filter_map(|l| l.splitn(3, ' ').nth(2))
        .collect();
    assert_eq!(names.len(), map.lines().count(), "START SIZE NAME: {map}");
    assert!(names.iter().any(|n| n.ends_with(" body")), "{map}");
    assert!(names.iter().any(|n| n.contains(" probe ")), "{map}");
    // The map changes nothing else: the same output and path profile without it.
    let plain = profkit(&["paths", "bin/primes.elf", "20000"], None);
    assert_eq!(plain.stdout, out.stdout);
    let report: Vec<&str> = err.lines().filter(|l| !l.contains("perf map")).collect();
    assert_eq!(
        String::from_utf8_lossy(&plain.stderr)
            .lines()
            .collect::<Vec<_>>(),
        report
    );
}
