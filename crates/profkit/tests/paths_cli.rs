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
