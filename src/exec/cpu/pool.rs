//! A persistent worker pool that runs one parallel job at a time without allocating.
//!
//! `std::thread::scope` spawns threads (and allocates) on every call, and rayon's injector
//! allocates queue blocks as jobs come in; an update must not allocate in steady state
//! (docs/design.md invariant 4), so the executor keeps its own parked workers.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// A type-erased `&dyn Fn(usize) + Sync` whose lifetime the pool guarantees by waiting.
#[derive(Clone, Copy)]
struct JobRef {
    data: *const (),
    call: unsafe fn(*const (), usize),
}

// SAFETY: the pointee is `Sync` (enforced by `WorkerPool::run`) and outlives every use,
// because `run` does not return before all workers have finished with it.
unsafe impl Send for JobRef {}

struct State {
    generation: u64,
    job: Option<JobRef>,
    remaining: usize,
    shutdown: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    done: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Parked helper threads; the calling thread takes part 0 of every job.
pub(crate) struct WorkerPool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl WorkerPool {
    /// A pool with `helpers` extra threads (the caller is one more).
    pub fn new(helpers: usize) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                generation: 0,
                job: None,
                remaining: 0,
                shutdown: false,
            }),
            wake: Condvar::new(),
            done: Condvar::new(),
        });
        let workers = (0..helpers)
            .filter_map(|i| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("wgpu-tween-cpu-{}", i + 1))
                    .spawn(move || worker_loop(&shared, i + 1))
                    .ok()
            })
            .collect();
        Self { shared, workers }
    }

    /// Threads taking part in a job: the helpers that started, plus the caller.
    pub fn parts(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `job(part)` for every `part` in `0..self.parts()`, part 0 on this thread, and
    /// returns when all are done.
    pub fn run<F: Fn(usize) + Sync>(&self, job: &F) {
        unsafe fn call<F: Fn(usize)>(data: *const (), part: usize) {
            // SAFETY: `data` came from `&F` in `run`, which outlives this call.
            let job = unsafe { &*data.cast::<F>() };
            job(part);
        }
        let helpers = self.workers.len();
        if helpers > 0 {
            let mut state = self.shared.lock();
            state.job = Some(JobRef {
                data: (job as *const F).cast(),
                call: call::<F>,
            });
            state.remaining = helpers;
            state.generation = state.generation.wrapping_add(1);
            drop(state);
            self.shared.wake.notify_all();
        }
        // A panic here must not return before the helpers are done with `job`.
        let result = catch_unwind(AssertUnwindSafe(|| job(0)));
        if helpers > 0 {
            let mut state = self.shared.lock();
            while state.remaining > 0 {
                state = self
                    .shared
                    .done
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            state.job = None;
        }
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    }
}

fn worker_loop(shared: &Shared, part: usize) {
    let mut seen = 0u64;
    loop {
        let job = {
            let mut state = shared.lock();
            while state.generation == seen && !state.shutdown {
                state = shared
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if state.shutdown {
                return;
            }
            seen = state.generation;
            state.job
        };
        if let Some(job) = job {
            // SAFETY: see `JobRef`. A panic is contained so `remaining` always reaches 0.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (job.call)(job.data, part) }));
        }
        let mut state = shared.lock();
        state.remaining -= 1;
        if state.remaining == 0 {
            shared.done.notify_one();
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.wake.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_part_runs_once_per_job() {
        let pool = WorkerPool::new(3);
        let hits: Vec<AtomicUsize> = (0..pool.parts()).map(|_| AtomicUsize::new(0)).collect();
        for _ in 0..100 {
            pool.run(&|part| {
                hits[part].fetch_add(1, Ordering::Relaxed);
            });
        }
        for h in &hits {
            assert_eq!(h.load(Ordering::Relaxed), 100);
        }
    }
}
