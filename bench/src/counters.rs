//! This process's counters, as Linux's `/proc` gives them (0 elsewhere): what the profiling
//! examples and the peer benchmark's creation cells read besides wall time.

/// This thread's CPU time so far, ns (`schedstat`: other processes on a loaded machine do
/// not count).
#[must_use]
pub fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// This process's minor page faults so far.
#[must_use]
pub fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // The fields after the command name, which is in parentheses: minflt is the 10th
            // field of the line, the 8th after it.
            s.rsplit(')')
                .next()?
                .split_whitespace()
                .nth(7)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}
