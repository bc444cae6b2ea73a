//! The benchmark binary with tiny sizes: it exits successfully, its JSON parses with one row
//! per executor and N (the GPU executor's rows when an adapter exists), every number is
//! finite, and its plot is a PNG that decodes. And the real-GPU check in its quick mode.

use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench_binary");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// Whether an adapter exists (a panic without one under `WGPU_TWEEN_REQUIRE_GPU=1`).
fn gpu_available() -> bool {
    match wgpu_tween::gpu::GpuContext::new() {
        Ok(_) => true,
        Err(e) if std::env::var("WGPU_TWEEN_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("WGPU_TWEEN_REQUIRE_GPU=1 but no GPU: {e}")
        }
        Err(e) => {
            println!("skipping GPU checks: {e}");
            false
        }
    }
}

fn run(args: &[&str]) -> std::process::Output {
    let output = Command::new(env!("CARGO_BIN_EXE_wgpu-tween-bench"))
        .args(args)
        .output()
        .expect("the benchmark binary runs");
    println!("{}", String::from_utf8_lossy(&output.stdout));
    output
}

#[test]
fn tiny_run_writes_json_rows_and_a_png_plot() {
    let json = scratch("tiny.json");
    let plot = scratch("tiny.png");
    let _ = std::fs::remove_file(&json);
    let _ = std::fs::remove_file(&plot);
    let output = run(&[
        "--motions",
        "300,2k",
        "--frames",
        "2",
        "--executor",
        "all",
        "--json",
        json.to_str().expect("utf-8 path"),
        "--plot",
        plot.to_str().expect("utf-8 path"),
    ]);
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // One summary line: each executor at the largest N.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("summary: "))
        .collect();
    assert_eq!(summary.len(), 1, "{stdout}");
    assert!(summary[0].contains("cpu executor"), "{}", summary[0]);
    assert!(summary[0].contains("at N = 2000"), "{}", summary[0]);

    let text = std::fs::read_to_string(&json).expect("JSON written");
    let report: serde_json::Value = serde_json::from_str(&text).expect("JSON parses");
    assert_eq!(report["version"], 2);
    // The roofline, by hand: an f32 motion reads its 32-byte row and one 8-byte lane pair
    // and writes 4 bytes; Vec3 32 + 24 and 12, Quat and Color 32 + 32 and 16. The mix is
    // 40% f32 and 20% each of the others; all-f32 is f32 alone. One run of one shape each
    // (f32, Vec3, Color, Quat): 4 dispatches, every warp coherent, no general variant.
    let rooflines = report["rooflines"].as_array().expect("rooflines");
    let expected = [("Mixed", 52.8, 10.4, 4), ("AllF32", 40.0, 4.0, 1)];
    assert_eq!(rooflines.len(), expected.len());
    for (r, (workload, read, written, dispatches)) in rooflines.iter().zip(expected) {
        assert_eq!(r["workload"], workload);
        let close =
            |key: &str, want: f64| (r[key].as_f64().unwrap_or(f64::NAN) - want).abs() < 1e-9;
        assert!(close("read_per_motion", read), "{workload}: {r}");
        assert!(close("written_per_motion", written), "{workload}: {r}");
        assert!(
            close("coherence", 1.0) && close("general_share", 0.0),
            "{workload}: {r}"
        );
        assert_eq!(r["evaluate_dispatches"], dispatches, "{workload}");
        // H100 at 1M: bytes × 1e6 / 3.35e12 s (to the nanosecond).
        let h100 = r["bounds_us"][0][2].as_f64().unwrap_or(f64::NAN);
        assert!(
            (h100 - (read + written) / 3.35).abs() <= 1e-3,
            "{workload}: {h100}"
        );
    }
    assert!(
        stdout.contains("roofline of the GPU evaluate pass"),
        "{stdout}"
    );
    let rows = report["rows"].as_array().expect("rows");
    let gpu = gpu_available();
    let executors: &[&str] = if gpu { &["gpu", "cpu"] } else { &["cpu"] };
    assert_eq!(
        rows.len(),
        executors.len() * 2,
        "one row per executor and N"
    );
    for executor in executors {
        for n in [300u64, 2000] {
            let matching: Vec<_> = rows
                .iter()
                .filter(|r| r["executor"] == *executor && r["n"] == n)
                .collect();
            assert_eq!(matching.len(), 1, "{executor} at N = {n}");
            let row = matching[0];
            for key in [
                "ns_per_motion",
                "cpu_update_us",
                "readback_us",
                "floor_ns_per_motion",
                "ratio",
                "create_ns_per_motion",
            ] {
                let v = row[key].as_f64().unwrap_or(f64::NAN);
                assert!(v.is_finite() && v >= 0.0, "{executor} N={n}: {key} = {v}");
            }
            assert!(row["ns_per_motion"].as_f64().unwrap_or(0.0) > 0.0);
            assert!(row["frames_measured"].as_u64().unwrap_or(0) >= 2);
            assert!(row["adapter"].as_str().is_some_and(|s| !s.is_empty()));
            assert_eq!(row["gpu_pass_us"].is_number(), *executor == "gpu");
            assert_eq!(row["gpu_pass_timestamps"].is_boolean(), *executor == "gpu");
            if *executor == "gpu" {
                assert!(row["gpu_pass_us"].as_f64().unwrap_or(0.0) > 0.0);
            }
            assert!(row["error"].is_null(), "{executor} N={n}: {}", row["error"]);
        }
    }

    let image = image::open(&plot).expect("the plot decodes as an image");
    assert!(image.width() > 100 && image.height() > 100);
    let bytes = std::fs::read(&plot).expect("plot written");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG file");
}

#[test]
fn bad_options_are_rejected_without_a_panic() {
    for args in [
        &["--motions", "0"][..],
        &["--motions", "ten"][..],
        &["--frames", "0"][..],
        &["--executor", "tpu"][..],
        &["--nonsense"][..],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?} is a usage error");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn cpu_only_run_says_so() {
    let output = run(&["--motions", "500", "--frames", "1", "--executor", "cpu"]);
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("GPU executor not requested"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("cpu ")), "{stdout}");
}

#[test]
fn without_an_adapter_it_runs_the_cpu_executor_and_says_so() {
    // No adapter has this name, so the probe finds none, as on a machine without a driver.
    let output = Command::new(env!("CARGO_BIN_EXE_wgpu-tween-bench"))
        .args(["--motions", "400", "--frames", "1"])
        .env("WGPU_ADAPTER_NAME", "no such adapter, wgpu-tween test")
        .output()
        .expect("the benchmark binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let notes: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("running the CPU executor only"))
        .collect();
    assert_eq!(notes.len(), 1, "one line says so: {stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("cpu ")), "{stdout}");
    assert!(!stdout.lines().any(|l| l.starts_with("gpu ")), "{stdout}");
}

/// The vendored conformance vectors.
fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/vectors")
}

/// Runs `gpu-check OUT --quick ARGS...`; its exit status and parsed report.
fn gpu_check(out: &str, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = scratch(out);
    let _ = std::fs::remove_dir_all(&out);
    let output = Command::new(env!("CARGO_BIN_EXE_gpu-check"))
        .arg(&out)
        .arg("--quick")
        .args(args)
        .output()
        .expect("gpu-check runs");
    println!("{}", String::from_utf8_lossy(&output.stdout));
    let summary = std::fs::read_to_string(out.join("summary.txt")).expect("summary written");
    assert!(summary.starts_with("gpu-check on "), "{summary}");
    let text = std::fs::read_to_string(out.join("gpu-check.json")).expect("JSON written");
    (
        output.status.code(),
        serde_json::from_str(&text).expect("JSON parses"),
    )
}

#[test]
fn gpu_check_quick_passes_every_check_on_the_gpu_executor() {
    if !gpu_available() {
        return;
    }
    let (code, report) = gpu_check("gpu-check-ok", &[]);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["passed"], true);
    let checks = report["checks"].as_array().expect("checks");
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "conformance: vendored vectors",
            "parity: CPU vs GPU",
            "parity: every ease and loop type",
            "dispatch: full size",
            "benchmark: GPU executor",
        ]
    );
    // Every case of the four files ran.
    let total: usize = ["eases.json", "curves.json", "punch.json", "motions.json"]
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(vectors().join(name)).expect("vector file");
            let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            v["cases"].as_array().expect("cases").len()
        })
        .sum();
    assert_eq!(checks[0]["detail"]["cases"], total);
    // Quick mode measures 10k and 100k, each with finite positive times.
    let rows = checks[4]["detail"]["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2);
    for (row, n) in rows.iter().zip([10_000, 100_000]) {
        assert_eq!(row["n"], n);
        for key in ["wall_us", "cpu_us", "floor_wall_us"] {
            let v = row[key].as_f64().expect(key);
            assert!(v.is_finite() && v > 0.0, "{key} = {v}");
        }
    }
}

#[test]
fn gpu_check_reports_a_wrong_vector_and_exits_1() {
    if !gpu_available() {
        return;
    }
    // A copy of the vectors with one punch sample off by 0.5.
    let bad = scratch("bad-vectors");
    std::fs::create_dir_all(&bad).expect("dir");
    for name in ["eases.json", "curves.json", "punch.json", "motions.json"] {
        std::fs::copy(vectors().join(name), bad.join(name)).expect("copy");
    }
    let text = std::fs::read_to_string(bad.join("punch.json")).expect("punch");
    let mut punch: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let sample = &mut punch["cases"][0]["samples"][3][1];
    *sample = serde_json::json!(sample.as_f64().expect("number") + 0.5);
    std::fs::write(bad.join("punch.json"), punch.to_string()).expect("write");

    let (code, report) = gpu_check("gpu-check-bad", &["--vectors", bad.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["passed"], false);
    let checks = report["checks"].as_array().expect("checks");
    assert_eq!(checks[0]["passed"], true, "the vendored set still passes");
    assert_eq!(checks[1]["passed"], false);
    let error = checks[1]["detail"]["error"].as_str().expect("error");
    assert!(
        error.contains("1 failing") && error.contains("punch.json"),
        "{error}"
    );
}

#[cfg(feature = "peers")]
#[test]
fn peers_at_a_tiny_n_prints_its_tables_and_its_json() {
    let json = scratch("peers.json");
    let _ = std::fs::remove_file(&json);
    let output = run(&[
        "peers",
        "--motions",
        "300",
        "--frames",
        "2",
        "--json",
        json.to_str().expect("utf-8 path"),
    ]);
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("ns per motion per update"), "{stdout}");
    assert!(stdout.contains("creation, ns per motion"), "{stdout}");
    assert!(stdout.contains("page faults per motion"), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("| 300 |")).count(),
        3
    );
    assert!(!stdout.contains("error"), "{stdout}");

    let text = std::fs::read_to_string(&json).expect("JSON written");
    let report: serde_json::Value = serde_json::from_str(&text).expect("JSON parses");
    assert_eq!(report["version"], 1);
    let cells = report["cells"].as_array().expect("cells");
    let cell = |key: &str| {
        cells
            .iter()
            .find(|c| c["contender"] == key)
            .unwrap_or_else(|| panic!("a {key} cell"))
    };
    // Every CPU contender was measured, with finite positive times.
    for key in [
        "floor",
        "floor_bind",
        "tween",
        "keyframe",
        "glissade",
        "animato_cpu",
        "wt_run",
        "wt_bind",
    ] {
        let v = cell(key)["update_ns"].as_f64().unwrap_or(f64::NAN);
        assert!(v.is_finite() && v > 0.0, "{key}: {v}");
        assert!(cell(key)["frames"].as_u64().unwrap_or(0) >= 2, "{key}");
    }
    let create = cell("wt_bind")["create_ns"].as_f64().unwrap_or(f64::NAN);
    assert!(create.is_finite() && create > 0.0, "{create}");
    let faults = cell("wt_bind")["create_faults"]
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!(faults >= 0.0, "{faults}");
    // The GPU columns ran where an adapter exists.
    let gpu = gpu_available();
    for key in ["wt_gpu_targets", "animato_gpu"] {
        assert_eq!(cell(key)["update_ns"].is_number(), gpu, "{key}");
    }
}

#[cfg(not(feature = "peers"))]
#[test]
fn peers_without_the_feature_says_how_to_build_it() {
    let output = run(&["peers", "--motions", "300"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--features peers"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn top_level_options_do_not_combine_with_peers() {
    let output = run(&["--frames", "1", "peers"]);
    assert_eq!(output.status.code(), Some(2), "a usage error");
    let output = run(&["peers", "--motions", "0"]);
    assert_eq!(output.status.code(), Some(2), "a usage error");
}

#[test]
fn emitter_prints_one_row_per_configuration_with_its_floor_and_ratio() {
    let output = run(&[
        "emitter",
        "--spawn",
        "200",
        "--life",
        "3,5",
        "--threads",
        "1",
        "--secs",
        "0",
    ]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|cols| cols.len() == 7 && cols[0] == "200")
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    // After a steady frame's update, the particles of the last L − 1 frames are live.
    for (row, life) in rows.iter().zip([3, 5]) {
        assert_eq!(row[1], life.to_string());
        assert_eq!(row[3], (200 * (life - 1)).to_string());
        let [ours, floor, ratio] =
            [row[4], row[5], row[6]].map(|v| v.parse::<f64>().expect("a number"));
        assert!(ours > 0.0 && floor > 0.0, "{row:?}");
        assert!(
            (ratio - ours / floor).abs() <= 0.01 * ratio + 0.01,
            "{row:?}"
        );
    }
    let bad = run(&["emitter", "--life", "0"]);
    assert!(!bad.status.success());
}
