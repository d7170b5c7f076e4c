//! External tools: finding them, installing the Debian packages that provide them, and
//! running them with errors that say what failed.

use std::process::{Command, Stdio};

/// True if `tool --version` runs and succeeds.
pub fn on_path(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Makes sure every tool in `tools` is installed, installing the Debian `packages` with
/// apt-get (as root, after `apt-get update`) when one is missing.
pub fn ensure(tools: &[&str], packages: &[&str]) -> Result<(), String> {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("missing {missing:?}: installing {packages:?} with apt-get");
    install(packages)?;
    match tools.iter().find(|t| !on_path(t)) {
        Some(t) => Err(format!("`{t}` is still missing after apt-get install")),
        None => Ok(()),
    }
}

/// Installs Debian packages.
pub fn install(packages: &[&str]) -> Result<(), String> {
    run_checked(Command::new("apt-get").args(["update", "-qq"]))?;
    run_checked(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(packages),
    )
}

/// The command line of `cmd`, for messages.
pub fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Runs `cmd`, failing with its command line unless it exits successfully.
pub fn run_checked(cmd: &mut Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run `{}`: {e}", describe(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed: {status}", describe(cmd)))
    }
}

/// Runs `cmd` for its output, failing with its command line, status and standard error
/// unless it exits successfully.
pub fn output_checked(cmd: &mut Command) -> Result<std::process::Output, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", describe(cmd)))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "`{}` failed: {}\n{}",
            describe(cmd),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Builds `example` of `package` in release mode (one job: the machine is shared) and
/// returns the path of its binary. The benchmark drivers need the package's
/// `bench-examples` feature.
pub fn build_example(
    root: &std::path::Path,
    package: &str,
    example: &str,
) -> Result<std::path::PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run_checked(
        Command::new(cargo)
            .current_dir(root)
            .args(["build", "-j1", "--release", "-p", package])
            .args(["--example", example, "--features", "bench-examples"]),
    )?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("release/examples").join(example))
}
