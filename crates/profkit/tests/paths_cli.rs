//! `profkit paths`: exit code, JSON schema, and the three modes on a real guest.

use std::path::Path;
use std::process::Command;

fn guests() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../guests")
}

fn run(mode: &str, out: &Path) -> i32 {
    let status = Command::new(env!("CARGO_BIN_EXE_profkit"))
        .current_dir(guests())
        .args(["paths", "--json", "--mode", mode, "--out"])
        .arg(out)
        .arg("bin/primes.elf")
        .output()
        .expect("profkit runs");
    status.status.code().expect("exit code")
}

#[test]
fn paths_json_has_the_schema_and_the_guest_exit_code() {
    let dir = std::env::temp_dir().join(format!("profkit-paths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut totals = Vec::new();
    for mode in ["flat", "region", "global"] {
        let out = dir.join(format!("{mode}.json"));
        // primes exits with status 3 (see guests/manifest.json).
        assert_eq!(run(mode, &out), 3, "{mode}");
        let text = std::fs::read_to_string(&out).expect("json written");
        let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        let functions = v["functions"].as_array().expect("functions array");
        assert!(!functions.is_empty());
        let mut total = 0u64;
        let mut nested = 0;
        for f in functions {
            assert!(f["name"].is_string() && f["entry"].is_u64(), "{f}");
            assert!(f["restarts"].is_boolean(), "{f}");
            for p in f["paths"].as_array().expect("paths") {
                assert!(p["region"].is_u64() && p["count"].is_u64(), "{p}");
                assert!(p["number"].is_u64() || p["number"].is_string(), "{p}");
                let blocks = p["blocks"].as_array().expect("blocks");
                assert!(!blocks.is_empty());
                for b in blocks {
                    if b.is_object() {
                        assert!(b["region"].is_u64());
                        nested += 1;
                    } else {
                        assert!(b.is_u64(), "{b}");
                    }
                }
                total += p["count"].as_u64().unwrap_or(0);
            }
        }
        assert_eq!(v["stats"]["truncated"], 0);
        if mode == "flat" {
            assert_eq!(nested, 0, "flat paths have no inner regions");
        } else {
            assert!(nested > 0, "{mode}: hierarchical paths show inner regions");
        }
        totals.push(total);
    }
    // Both hierarchical modes count the same paths.
    assert_eq!(totals[1], totals[2]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `profkit paths ARGS` in the guests directory with no stdin: (exit code, stdout, stderr).
fn paths(args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_profkit"))
        .current_dir(guests())
        .arg("paths")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("profkit runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), out.stdout, err)
}

/// The JSON profile of `args` (written to `file`), after checking the exit code and stdout.
fn json_profile(args: &[&str], file: &Path) -> serde_json::Value {
    let f = file.to_str().expect("utf-8 path");
    let (code, stdout, err) = paths(&[&["--json", "--out", f], args, &["bin/primes.elf"]].concat());
    assert_eq!(code, Some(3), "{args:?}: {err}");
    let expected = std::fs::read(guests().join("expected/primes.stdout")).expect("expected");
    assert_eq!(stdout, expected, "{args:?}: the guest's output, once");
    serde_json::from_str(&std::fs::read_to_string(file).expect("written")).expect("JSON")
}

fn temp_dir(what: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("profkit-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Every function's natural loops of primes, as a regions file: `main` by name, the others
/// by entry address.
fn loops_file() -> String {
    use profkit::bl::{Program, RegionTree};
    let elf = std::fs::read(guests().join("bin/primes.elf")).expect("ELF");
    let m =
        profkit::emu::Machine::linux(&elf, Default::default(), Default::default()).expect("loads");
    let program = Program::recover(&m, &[m.image().entry]);
    let mut doc = serde_json::Map::new();
    for cfg in &program.functions {
        let tree = RegionTree::loops(cfg);
        if tree.len() < 2 {
            continue;
        }
        let regions: Vec<Vec<String>> = tree.regions[1..]
            .iter()
            .map(|r| {
                r.nodes
                    .iter()
                    .map(|&v| format!("{:#x}", cfg.graph[v].start))
                    .collect()
            })
            .collect();
        let key = if cfg.name == "main" {
            cfg.name.clone()
        } else {
            format!("{:#x}", cfg.addr)
        };
        doc.insert(key, serde_json::json!(regions));
    }
    assert!(doc.contains_key("main") && doc.len() > 2, "{doc:?}");
    serde_json::Value::Object(doc).to_string()
}

#[test]
fn regions_from_a_file_replace_the_modes_regions() {
    let dir = temp_dir("regions");
    let file = dir.join("loops.json");
    std::fs::write(&file, loops_file()).expect("write");
    let f = file.to_str().expect("utf-8");
    for mode in ["region", "global"] {
        let auto = json_profile(&["--mode", mode], &dir.join("auto.json"));
        let mut given = json_profile(&["--mode", mode, "--regions", f], &dir.join("given.json"));
        let named = given["options"]["user_regions"].take();
        let named = named.as_array().expect("user_regions");
        assert!(
            named.len() > 2 && named.contains(&"main".into()),
            "{named:?}"
        );
        // The loops given as user regions profile exactly like the loops found.
        given["options"]["user_regions"] = serde_json::json!([]);
        assert_eq!(auto, given, "{mode}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_regions_files_are_clear_errors() {
    let dir = temp_dir("bad-regions");
    let file = dir.join("r.json");
    let f = file.to_str().expect("utf-8");
    for (text, says) in [
        ("[1, 2]", "expected an object from function names"),
        ("{\"main\": [[1,", "not JSON"),
        ("{\"main\": 3}", "main: expected a list of regions"),
        (
            "{\"main\": [3]}",
            "main: region 0: expected a list of block start addresses",
        ),
        (
            "{\"main\": [[\"zz\"]]}",
            "main: region 0: \"zz\" is not an address",
        ),
        ("{\"no_such_fn\": [[1]]}", "no_such_fn: no such function"),
        ("{\"0x10\": [[1]]}", "no function starts at 0x10"),
        (
            "{\"main\": [[1]]}",
            "main: region 0: no block of the recovered function starts at 0x1",
        ),
        ("{\"main\": [[]]}", "main: region 0 is empty"),
    ] {
        std::fs::write(&file, text).expect("write");
        let (code, stdout, err) = paths(&["--regions", f, "bin/primes.elf"]);
        assert_eq!(code, Some(2), "{text}: {err}");
        assert!(err.contains(says), "{text}: {err}");
        assert!(err.contains("--regions"), "{text}: {err}");
        assert!(stdout.is_empty(), "{text}: the guest did not run");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, _, err) = paths(&["--regions", "/nonexistent/r.json", "bin/primes.elf"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read /nonexistent/r.json"), "{err}");
    for (args, says) in [
        (
            &["--mode", "flat", "--regions", f][..],
            "--regions applies to the hierarchical modes",
        ),
        (
            &["--mode", "region", "--no-shrink"][..],
            "--no-shrink applies to --mode global only",
        ),
        (
            &["--mode", "flat", "--hammocks"][..],
            "--hammocks applies to the hierarchical modes",
        ),
    ] {
        let (code, stdout, err) = paths(&[args, &["bin/primes.elf"]].concat());
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn measured_weights_give_the_same_profile() {
    let dir = temp_dir("weights");
    for mode in ["flat", "region", "global"] {
        let mut estimate = json_profile(&["--mode", mode], &dir.join("e.json"));
        // The guest runs twice; its output shows once (json_profile checks stdout).
        let mut measured = json_profile(
            &["--mode", mode, "--weights", "measured"],
            &dir.join("m.json"),
        );
        assert_eq!(estimate["options"]["weights"], "estimate", "{mode}");
        assert_eq!(measured["options"]["weights"], "measured", "{mode}");
        // Everything else is the same.
        estimate["options"]["weights"].take();
        measured["options"]["weights"].take();
        assert_eq!(estimate, measured, "{mode}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Per function: its paths as (count, blocks), sorted (path numbers depend on the graph).
fn counted_paths(v: &serde_json::Value) -> Vec<(String, Vec<(u64, String)>)> {
    let mut out = Vec::new();
    for f in v["functions"].as_array().expect("functions") {
        let mut ps: Vec<(u64, String)> = f["paths"]
            .as_array()
            .expect("paths")
            .iter()
            .map(|p| (p["count"].as_u64().unwrap_or(0), p["blocks"].to_string()))
            .collect();
        ps.sort();
        out.push((f["name"].to_string(), ps));
    }
    out.sort();
    out
}

#[test]
fn global_mode_shrinks_or_not_with_the_same_counts() {
    let dir = temp_dir("shrink");
    let shrunk = json_profile(&["--mode", "global"], &dir.join("s.json"));
    let full = json_profile(&["--mode", "global", "--no-shrink"], &dir.join("f.json"));
    assert_eq!(counted_paths(&shrunk), counted_paths(&full));
    assert_eq!(shrunk["options"]["shrink"], true);
    assert_eq!(full["options"]["shrink"], false);
    let region = json_profile(&["--mode", "region", "--hammocks"], &dir.join("r.json"));
    assert_eq!(region["options"]["shrink"], serde_json::Value::Null);
    assert_eq!(region["options"]["hammocks"], true);
    assert!(!counted_paths(&full).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bare_metal_guest_ends_every_path() {
    let dir = temp_dir("bare");
    let out = dir.join("bare.json");
    let o = out.to_str().expect("utf-8");
    for mode in ["flat", "region", "global"] {
        let (code, stdout, err) = paths(&[
            "--json",
            "--out",
            o,
            "--mode",
            mode,
            "--bare",
            "bin/primes.bare.elf",
        ]);
        assert_eq!(code, Some(3), "{err}");
        assert!(!stdout.is_empty());
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("written")).expect("JSON");
        assert_eq!(v["stats"]["truncated"], 0, "{mode}: {}", v["stats"]);
        assert_eq!(v["stats"]["desync"], 0, "{mode}: {}", v["stats"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The path profile of a cached run (whose event superblocks the path sink takes as
/// composed traces) is the one single-stepping gives, every path and count, in every mode.
#[test]
fn paths_are_the_ones_single_stepping_gives() {
    let dir = temp_dir("single-step");
    for mode in ["flat", "region", "global"] {
        let args = ["--mode", mode, "--top", "100000"];
        let cached = json_profile(&args, &dir.join("c.json"));
        let single = json_profile(
            &[&args[..], &["--single-step"]].concat(),
            &dir.join("s.json"),
        );
        assert!(!counted_paths(&cached).is_empty(), "{mode}");
        assert_eq!(cached, single, "{mode}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
